"""Misbehaving bot: plays correctly, but when its input ends it lingers 10 seconds (saving
files, say) before exiting, instead of exiting at once."""

import time

from botlib import messages, random_answer, send

for msg in messages():
    if msg.get("type") == "action-request":
        send(random_answer(msg))
time.sleep(10)
