"""A correct random bot whose first process (check-bot's first scenario) answers at once and whose
later ones wait, before their first answer, until a file exists: a check-bot run that stays alive
after its first check is decided, for as long as a test needs (no sleep to guess).

Usage: ``python3 held_after_first.py DIR``: DIR/first marks the first process, DIR/go lets the
others answer, DIR/pids gets each process's pid (one a line).
"""

import os
import sys
import time

from botlib import messages, random_answer, send

folder = sys.argv[1]
with open(os.path.join(folder, "pids"), "a") as fh:
    fh.write(f"{os.getpid()}\n")
try:
    os.close(os.open(os.path.join(folder, "first"), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    held = False
except FileExistsError:
    held = True
for msg in messages():
    if msg.get("type") == "action-request":
        while held and not os.path.exists(os.path.join(folder, "go")):
            time.sleep(0.02)
        held = False
        send(random_answer(msg))
