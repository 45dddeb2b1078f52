"""Misbehaving bot: reads one wire and answers in the other. ``json-out``: reads msgpack frames
(as ``--wire msgpack`` sends them) and answers JSON lines; ``frames-out``: reads JSON lines and
answers msgpack frames. Needs ``msgpack`` (run it with the project's Python); answers are legal
(a random legal entry, a range at its minimum)."""

import json
import struct
import sys

import msgpack
from botlib import frames, messages, random_answer

MODE = sys.argv[1]
out = sys.stdout.buffer




for msg in frames(sys.stdin.buffer) if MODE == "json-out" else messages():
    if msg.get("type") == "action-request":
        answer = random_answer(msg)
        if MODE == "json-out":
            out.write((json.dumps(answer) + "\n").encode())
        else:
            body = msgpack.packb(answer)
            out.write(struct.pack(">I", len(body)) + body)
        out.flush()
