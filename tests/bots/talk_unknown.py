"""Misbehaving bot (unless MODE is ``silent``): plays correctly, but answers one thing it does not
know, TRIGGER, with a line of its own before going on.

Usage: ``talk_unknown.py MODE TRIGGER``. MODE: ``garbage`` (a line that is not JSON), ``json`` (a
JSON object that is no action), ``action`` (a legal-looking action quoting the last request, sent
unasked), ``silent`` (says nothing: a correct bot). TRIGGER: a message type it does not know
(``table-news``, ``clock``), an event kind (``fireworks``), or an unknown key (``lobby`` in
game-start, ``hint`` in action-request; the line then comes right before the answer).
"""

import sys

from botlib import messages, random_answer, send

KNOWN = {"game-start", "event", "action-request", "accepted", "refused", "game-over"}
mode, trigger = sys.argv[1], sys.argv[2]
last = None


def talk(about):
    if mode == "garbage":
        sys.stdout.write(f"what is {about}?\n")
        sys.stdout.flush()
    elif mode == "json":
        send({"type": "question", "about": about})
    elif mode == "action" and last is not None:
        send(random_answer(last))


for msg in messages():
    kind = msg.get("type")
    if kind not in KNOWN and kind == trigger:
        talk(kind)
    elif kind == "event" and msg["event"].get("kind") == trigger:
        talk(trigger)
    elif kind == "game-start" and trigger == "lobby" and trigger in msg:
        talk(trigger)
    elif kind == "action-request":
        if trigger == "hint" and trigger in msg:
            talk(trigger)
        send(random_answer(msg))
        last = msg
