"""A correct random bot that plays its first game, then at its second ``game-start`` creates
MARK (the second game has started: a test may act on it, no sleep to guess) and answers nothing
more, reading its input until it is closed.

Usage: ``python3 stall_second.py MARK``.
"""

import sys
from pathlib import Path

from botlib import messages, random_answer, send

mark = Path(sys.argv[1])
starts = 0
for msg in messages():
    kind = msg.get("type")
    if kind == "game-start":
        starts += 1
        if starts == 2:
            mark.touch()
    elif kind == "action-request" and starts < 2:
        send(random_answer(msg))
