"""A CORRECT random bot speaking the msgpack wire (``quinze bot --wire msgpack``): the same
4-byte big-endian length-prefixed msgpack frames as TCP, on stdin/stdout. Needs ``msgpack``
(run it with the project's Python). Used by the relay tests."""

import random
import struct
import sys

import msgpack
from botlib import frames




rng = random.Random(0)
out = sys.stdout.buffer
for msg in frames(sys.stdin.buffer):
    if msg.get("type") == "action-request":
        body = msgpack.packb({"type": "action", "request": msg["request"], "action": rng.choice(msg["legal"])})
        out.write(struct.pack(">I", len(body)) + body)
        out.flush()
