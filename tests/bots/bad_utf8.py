"""Misbehaving bot: answers its first action-request with an action whose ``type`` text ends in
bytes that are not UTF-8 (``ff fe ff fe ff fe``), then plays correctly. The relay must forfeit the
seat as garbage, the reason naming the field: ``action.action.type: text that is not valid
UTF-8 (byte N of the string)``.

Usage: ``python3 bad_utf8.py [json|msgpack]`` (the wire; json by default; msgpack needs the
``msgpack`` package: run it with the project's Python).
"""

import json
import struct
import sys

from botlib import frames, messages, random_answer

BAD = b"\xff\xfe\xff\xfe\xff\xfe"
wire = sys.argv[1] if len(sys.argv) > 1 else "json"
out = sys.stdout.buffer
first = True
for msg in frames(sys.stdin.buffer) if wire == "msgpack" else messages():
    if msg.get("type") != "action-request":
        continue
    answer = random_answer(msg)
    if first:
        answer["action"] = dict(answer["action"], type=answer["action"]["type"] + "MARKER")
    if wire == "msgpack":
        import msgpack

        body = msgpack.packb(answer).replace(b"MARKER", BAD)  # same length: the str header stays right
        out.write(struct.pack(">I", len(body)) + body)
    else:
        out.write(json.dumps(answer).encode("utf-8").replace(b"MARKER", BAD) + b"\n")
    out.flush()
    first = False
