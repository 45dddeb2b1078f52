"""Misbehaving bot: answers every action-request at once with a line that is not JSON. It is
quick and flushes: no check about answers may pass on it (deadline, unknown, refused need one
valid answer)."""

import sys

from botlib import messages

for msg in messages():
    if msg.get("type") == "action-request":
        sys.stdout.write("I play the seven of hearts!\n")
        sys.stdout.flush()
