"""Misbehaving bot: answers every action-request with a legal action but quotes the WRONG
request number (the request's number minus one) and a made-up table id. The relay ignores such
answers (an answer to another request), so through a server it times out. With ``--plus N``:
quotes the right table and the request's number plus N (a request nobody asked for)."""

import sys

from botlib import random_answer, messages, send

PLUS = int(sys.argv[sys.argv.index("--plus") + 1]) if "--plus" in sys.argv else None

for msg in messages():
    if msg.get("type") == "action-request":
        answer = random_answer(msg)
        if PLUS is None:
            answer["request"] = msg["request"] - 1
            answer["table"] = "t-wrong"
        else:
            answer["request"] = msg["request"] + PLUS
        send(answer)
