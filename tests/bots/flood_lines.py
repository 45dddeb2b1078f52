"""Misbehaving bot: floods its output with action lines nobody asked for.

On each action-request it first writes COUNT (default 2000) copies of an answer quoting another
request id, then the correct answer. The relay must ignore the extra lines and say so once per
request with a count, not once per line.

Usage: ``python3 flood_lines.py [COUNT]``.
"""

import sys

from botlib import answer, messages, random_answer, send

count = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
for msg in messages():
    if msg.get("type") == "action-request":
        extra = answer(msg, msg["legal"][0])
        extra["request"] = msg["request"] + 10**9
        line = (__import__("json").dumps(extra) + "\n").encode()
        sys.stdout.buffer.write(line * count)
        send(random_answer(msg))
