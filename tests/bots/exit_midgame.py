"""Misbehaving bot: answers the first few action-requests correctly, then exits with code 1
(a crash in mid-game) instead of answering the next one.

Usage: ``python3 exit_midgame.py [N]``: N correct answers first (default 3).
"""

import sys

from botlib import messages, random_answer, send

answers_left = int(sys.argv[1]) if len(sys.argv) > 1 else 3
for msg in messages():
    if msg.get("type") == "action-request":
        if answers_left == 0:
            print("exit_midgame: exiting with code 1", file=sys.stderr)
            sys.exit(1)
        send(random_answer(msg))
        answers_left -= 1
