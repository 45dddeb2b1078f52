"""A CORRECT random bot speaking the msgpack wire (``quinze bot --wire msgpack``): the same
4-byte big-endian length-prefixed msgpack frames as TCP, on stdin/stdout. Needs ``msgpack``
(run it with the project's Python). Used by the relay tests."""

import random
import struct
import sys

import msgpack


def frames(stream):
    """Yield each map read from ``stream`` (length-prefixed msgpack frames) until end of input."""
    while True:
        head = stream.read(4)
        if len(head) < 4:
            return
        (n,) = struct.unpack(">I", head)
        yield msgpack.unpackb(stream.read(n), raw=False)


rng = random.Random(0)
out = sys.stdout.buffer
for msg in frames(sys.stdin.buffer):
    if msg.get("type") == "action-request":
        body = msgpack.packb({"type": "action", "request": msg["request"], "action": rng.choice(msg["legal"])})
        out.write(struct.pack(">I", len(body)) + body)
        out.flush()
