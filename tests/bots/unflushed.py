"""Misbehaving bot: the classic mistake. It writes its answers to a block-buffered stdout and
never flushes, so nothing is sent until the program exits (at the end of its input), when the
buffer is written out at once. (Python's own stdout is buffered like this when it is a pipe,
unless PYTHONUNBUFFERED is set; this bot buffers whatever the environment says.)"""

import json
import os

from botlib import messages, random_answer

out = open(os.dup(1), "w", buffering=1 << 16)
for msg in messages():
    if msg.get("type") == "action-request":
        out.write(json.dumps(random_answer(msg)) + "\n")
out.close()  # what an exiting program does with its buffer
