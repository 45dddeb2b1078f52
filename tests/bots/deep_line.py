"""Answers every request with a correct action carrying one extra key nested 100,000 arrays deep:
a line no JSON parser follows, which the relay refuses unparsed (``too-many-elements``)."""

import json

from botlib import messages, random_answer

DEEP = "[" * 100_000 + "]" * 100_000
for msg in messages():
    if msg.get("type") == "action-request":
        line = json.dumps(random_answer(msg))
        print(line[:-1] + ', "deep": ' + DEEP + "}", flush=True)
