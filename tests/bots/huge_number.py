"""Misbehaving bot: answers the first action-request with an integer far beyond 64 bits (10**30),
which msgpack cannot carry to the server: every list in the first legal entry becomes
``[10**30]``, a range's amount becomes 10**30. Later requests get correct answers.

The relay must forfeit the seat as "garbage" (never crash on encoding the relayed action).
"""

from botlib import answer, messages, random_answer, send

HUGE = 10**30
first = True
for msg in messages():
    if msg.get("type") == "action-request":
        if first:
            first = False
            entry = msg["legal"][0]
            action = {k: ([HUGE] if isinstance(v, list) else v) for k, v in entry.items() if k not in ("min", "max")}
            if "min" in entry:
                action["amount"] = HUGE
            send(answer(msg, action))
        else:
            send(random_answer(msg))
