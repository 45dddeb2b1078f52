"""Misbehaving bot: answers the first action-request correctly, then on the next one kills
itself with SIGKILL (no exit code, no last words): a crash "killed by signal SIGKILL"."""

import os
import signal

from botlib import messages, random_answer, send

answered = False
for msg in messages():
    if msg.get("type") == "action-request":
        if answered:
            os.kill(os.getpid(), signal.SIGKILL)
        send(random_answer(msg))
        answered = True
