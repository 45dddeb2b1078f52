"""Misbehaving bot: answers every action-request with a well-formed but ILLEGAL action.

The action is the first legal entry with every list of cards replaced by one card the bot does
not hold (a card that appears nowhere in its view nor in ``legal``): for Le Quinze a fifteen or a
placement of a card not in hand. For a legal entry with a range (a raise) it asks for max + 1.
Failing both, it sends an action type that no game has. The server refuses it; the relay must
forfeit the seat as "illegal". It never retries after a refusal.
"""

import json

from botlib import answer, messages, send

ALL_CARDS = [r + s for s in "SHDC" for r in "A 2 3 4 5 6 7 8 9 10 J Q K".split()] + ["BJ", "RJ"]


def illegal_action(request):
    """A well-formed action that is not legal in ``request`` (see the module docstring)."""
    seen = json.dumps([request.get("view"), request["legal"]])
    unheld = next(c for c in ALL_CARDS if f'"{c}"' not in seen)
    for entry in request["legal"]:
        if "min" in entry and "max" in entry:
            action = {k: v for k, v in entry.items() if k not in ("min", "max")}
            action["amount"] = entry["max"] + 1
            return action
        if any(isinstance(v, list) and v and all(isinstance(c, str) for c in v) for v in entry.values()):
            return {k: ([unheld] if isinstance(v, list) and v else v) for k, v in entry.items()}
    return {"type": "no-such-move"}


for msg in messages():
    if msg.get("type") == "action-request":
        send(answer(msg, illegal_action(msg)))
