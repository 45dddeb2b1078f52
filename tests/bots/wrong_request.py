"""Misbehaving bot: answers every action-request with a legal action but quotes the WRONG
request number (the request's number minus one) and a made-up table id. The relay ignores such
answers (an answer to another request), so through a server it times out."""

from botlib import random_answer, messages, send

for msg in messages():
    if msg.get("type") == "action-request":
        answer = random_answer(msg)
        answer["request"] = msg["request"] - 1
        answer["table"] = "t-wrong"
        send(answer)
