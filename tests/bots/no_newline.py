"""Misbehaving bot: writes each answer WITHOUT a line end (and flushes), so a reader of lines
never sees a complete answer; otherwise correct."""

import json
import sys

from botlib import messages, random_answer

for msg in messages():
    if msg.get("type") == "action-request":
        sys.stdout.write(json.dumps(random_answer(msg)))
        sys.stdout.flush()
