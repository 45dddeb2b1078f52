"""Misbehaving bot: answers correctly, but treats a ``refused`` as impossible and exits with
code 4 when one comes (a refusal can happen to any bot: a relay's forfeit follows, then the
next game)."""

import sys

from botlib import messages, random_answer, send

for msg in messages():
    if msg.get("type") == "refused":
        print("crash_on_refused: my action was refused, giving up", file=sys.stderr)
        sys.exit(4)
    if msg.get("type") == "action-request":
        send(random_answer(msg))
