"""Misbehaving bot: answers its first action-request, then hangs (sleeps, reads nothing more)."""

import time

from botlib import messages, random_answer, send

for msg in messages():
    if msg.get("type") == "action-request":
        send(random_answer(msg))
        while True:
            time.sleep(60)
