"""Misbehaving bot: writes its answers WITHOUT FLUSHING and NEVER EXITS.

Each action-request gets a correct answer written into a 1 MiB buffer that is never flushed, so
nothing reaches the pipe: the relay sees silence and must forfeit the seat as a timeout. At the
end of its input it does not exit either: it sleeps until killed (the relay must kill it; SIGTERM
kills it without flushing).
"""

import json
import os
import time

from botlib import messages, random_answer

out = open(os.dup(1), "w", buffering=1 << 20)  # written to, never flushed
for msg in messages():
    if msg.get("type") == "action-request":
        out.write(json.dumps(random_answer(msg)) + "\n")
while True:
    time.sleep(3600)
