"""Misbehaving bot: answers the first action-request with a line that is NOT JSON.

The relay must forfeit the seat as "garbage". Should it go on, later requests get correct answers.
"""

import sys

from botlib import messages, random_answer, send

first = True
for msg in messages():
    if msg.get("type") == "action-request":
        if first:
            sys.stdout.write("I play the seven of hearts!\n")
            sys.stdout.flush()
            first = False
        else:
            send(random_answer(msg))
