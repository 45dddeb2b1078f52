"""Misbehaving bot: plays correctly, but in the match games listed it exits with code 1 after its
first answer (a crash mid-game). The match's games are counted in COUNTER, a file shared by the
program and its restarts (a restarted program starts with an empty memory).

Usage: ``python3 crash_in_games.py COUNTER K[,K...]``: crash in this bot's K-th game (from 1).
"""

import os
import sys

from botlib import messages, random_answer, send

counter, crash_in = sys.argv[1], {int(k) for k in sys.argv[2].split(",")}
crash = answered = False
for msg in messages():
    kind = msg.get("type")
    if kind == "game-start":
        n = int(open(counter).read()) + 1 if os.path.exists(counter) else 1
        with open(counter, "w") as f:
            f.write(str(n))
        crash, answered = n in crash_in, False
    elif kind == "action-request":
        if crash and answered:
            print(f"crash_in_games: exiting with code 1 in game {n}", file=sys.stderr)
            sys.exit(1)
        send(random_answer(msg))
        answered = True
