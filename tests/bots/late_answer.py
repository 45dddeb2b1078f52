"""Misbehaving bot: answers its FIRST action-request late, with an action no position allows.

On the first request it sleeps SECONDS (default 1.0), then writes ``{"type": "action", "action":
{"type": "say", "n": 3}}`` (the toy game's numbers go up by 1 or 2 from 0: 3 is never legal on a
first move); with ``--quote`` the answer also quotes the request's table and id. Every later
request gets a correct answer at once. Used where the first game ends while it sleeps: the late
answer must be dropped, never played (and refused as illegal) in the next game.

With ``--garbage`` a line that is not JSON comes first (at once), and the late answer after it.

Usage: ``python3 late_answer.py [SECONDS] [--quote] [--garbage]``.
"""

import sys
import time

from botlib import messages, random_answer, send

args = [a for a in sys.argv[1:] if not a.startswith("--")]
delay = float(args[0]) if args else 1.0
first = True
for msg in messages():
    if msg.get("type") != "action-request":
        continue
    if first:
        first = False
        if "--garbage" in sys.argv:
            sys.stdout.write("thinking about it...\n")
            sys.stdout.flush()
        time.sleep(delay)
        late = {"type": "action", "action": {"type": "say", "n": 3}}
        if "--quote" in sys.argv:
            late.update(table=msg["table"], request=msg["request"])
        send(late)
    else:
        send(random_answer(msg))
