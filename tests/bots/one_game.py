"""Misbehaving bot: plays one game correctly, then exits (code 0) at its game-over instead of
waiting for the next game-start on the same input."""

import sys

from botlib import messages, random_answer, send

for msg in messages():
    if msg.get("type") == "action-request":
        send(random_answer(msg))
    elif msg.get("type") == "game-over":
        sys.exit(0)
