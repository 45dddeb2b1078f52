"""Misbehaving bot: starts with a handshake the bot wire does not have. It writes a ``hello``
first and waits for a ``welcome`` before playing (it never comes through a relay); once it sees
one it would answer correctly."""

import sys

from botlib import messages, random_answer, send

send({"type": "hello", "version": 1, "name": "needs_hello", "role": "bot"})
welcomed = False
for msg in messages():
    if msg.get("type") == "welcome":
        welcomed = True
    elif msg.get("type") == "action-request" and welcomed:
        send(random_answer(msg))
    elif msg.get("type") == "action-request":
        print("needs_hello: no welcome yet, waiting", file=sys.stderr)
