"""Misbehaving bot: answers the first action-request with a 5 MiB line (far over the 1 MiB limit,
written in pieces), then answers every request correctly.

The relay must forfeit the seat as "garbage" once, skip the line up to its newline and read on:
the same process plays the later games (no restart).
"""

import sys

from botlib import messages, random_answer, send

first = True
for msg in messages():
    if msg.get("type") == "action-request":
        if first:
            first = False
            for _ in range(5):
                sys.stdout.buffer.write(b"x" * 1_048_576)
            sys.stdout.buffer.write(b"\n")
            sys.stdout.buffer.flush()
        else:
            send(random_answer(msg))
