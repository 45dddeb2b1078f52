"""Misbehaving bot: knows only the six message types of today's relay and exits with code 2
(an uncaught error) on any other type, instead of ignoring it as the protocol asks (a newer
server may add types and fields). Otherwise it answers correctly."""

import sys

from botlib import messages, random_answer, send

KNOWN = {"game-start", "event", "action-request", "accepted", "refused", "game-over"}
for msg in messages():
    if msg.get("type") not in KNOWN:
        print(f"strict_types: unknown message type {msg.get('type')!r}", file=sys.stderr)
        sys.exit(2)
    if msg.get("type") == "action-request":
        send(random_answer(msg))
