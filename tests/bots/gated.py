"""A correct random bot that stops before its second game until a file exists: a run of a match
or a tournament that stays alive, holding its log, for as long as a test needs (no sleep to guess).

Each game's choices come from the game alone (a generator seeded from the seat and the first view
of the game, as the built-in bots are), so a resumed run, with new processes, plays the same games
as an uninterrupted one. At its second ``game-start`` (this process's), it waits until GATE exists.

Usage: ``python3 gated.py GATE``.
"""

import json
import os
import random
import sys
import time

from botlib import concrete, messages, send, answer

gate = sys.argv[1]
rng = random.Random(0)
starts = 0
seeded = False
for msg in messages():
    kind = msg.get("type")
    if kind == "game-start":
        starts += 1
        while starts == 2 and not os.path.exists(gate):
            time.sleep(0.02)
        seat, seeded = msg.get("seat"), False
    elif kind == "action-request":
        if not seeded:
            rng.seed(f"{seat}:{json.dumps(msg.get('view'), sort_keys=True)}")
            seeded = True
        send(answer(msg, concrete(rng.choice(msg["legal"]))))
