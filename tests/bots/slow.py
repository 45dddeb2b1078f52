"""Misbehaving bot: sleeps LONGER THAN THE DEADLINE before each answer.

On each action-request it sleeps SECONDS (default: the request's ``deadline`` + 1), then sends a
correct answer, too late: the relay/server must forfeit the seat as a timeout.

Usage: ``python3 slow.py [SECONDS]``.
"""

import sys
import time

from botlib import messages, random_answer, send

fixed = float(sys.argv[1]) if len(sys.argv) > 1 else None
for msg in messages():
    if msg.get("type") == "action-request":
        time.sleep(fixed if fixed is not None else float(msg.get("deadline", 1.0)) + 1.0)
        send(random_answer(msg))
