"""Misbehaving bot: at each ``game-start`` it waits DELAY seconds, then fails as KIND: ``crash``
exits with code 3 (a program that read one line and ended), ``garbage`` writes a line that is not
JSON and reads on (it never answers). Two of them at one table, with different delays, fail in one
game in a known order (the test delays the server's game-over so both failures are seen first).

Usage: ``python3 fail_on_game_start.py KIND DELAY``.
"""

import sys
import time

from botlib import messages

kind, delay = sys.argv[1], float(sys.argv[2])
for msg in messages():
    if msg.get("type") == "game-start":
        time.sleep(delay)
        if kind == "crash":
            sys.exit(3)
        sys.stdout.write("hello garbage\n")
        sys.stdout.flush()
