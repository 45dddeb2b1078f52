"""What the misbehaving test bots share: reading the JSON-lines bot wire and a correct random choice.

Not a test module (pytest collects only ``test_*.py``). The scripts in this folder import it
from their own directory (``sys.path[0]`` is the script's folder).
"""

import json
import random
import sys


def messages():
    """Yield each message (a dict) read from stdin, one JSON object per line; stops at end of input."""
    for line in sys.stdin.buffer:
        if line.strip():
            yield json.loads(line)


def concrete(entry):
    """A legal entry made into an action: a range ``{"min", "max"}`` becomes ``amount=min``."""
    if "min" in entry and "max" in entry:
        action = {k: v for k, v in entry.items() if k not in ("min", "max")}
        action["amount"] = entry["min"]
        return action
    return entry


def random_answer(request, rng=random.Random(0)):
    """A correct answer to ``request``: ``{"type": "action", "table": T, "request": N, "action": <random legal>}``."""
    return answer(request, concrete(rng.choice(request["legal"])))


def answer(request, action):
    """The ``action`` message answering ``request`` (it quotes the request's table and id)."""
    return {"type": "action", "table": request.get("table"), "request": request["request"], "action": action}


def send(message, end="\n"):
    """Write ``message`` as one JSON line on stdout, ending with ``end``, and flush."""
    sys.stdout.buffer.write((json.dumps(message) + end).encode())
    sys.stdout.buffer.flush()


def frames(stream):
    """Yield each map read from ``stream`` (4-byte big-endian length-prefixed msgpack frames, the
    ``--wire msgpack`` framing) until end of input. Needs ``msgpack`` (the project's Python)."""
    import struct

    import msgpack

    while True:
        head = stream.read(4)
        if len(head) < 4:
            return
        (n,) = struct.unpack(">I", head)
        yield msgpack.unpackb(stream.read(n), raw=False)
