#!/usr/bin/env python3
"""A bot that plays a uniformly random legal action, for any game.

The bot wire (examples/README.md): one JSON object per line on stdin (game-start, event,
action-request, accepted, refused, game-over); the bot answers each action-request with one
line on stdout, ``{"type": "action", "table": T, "request": N, "action": {...}}`` (table and
request copied from the request), flushed.

Usage: ``python3 random_bot.py [SEED]``. Without SEED the generator is seeded from each
game-start (its commitment and the seat), so a replayed game gets the same choices.
Standard library only.
"""

import json
import random
import sys


def concrete(entry):
    """A legal entry made into an action: a range ``{"min", "max"}`` (a raise) becomes ``amount=min``."""
    if "min" in entry and "max" in entry:
        action = {k: v for k, v in entry.items() if k not in ("min", "max")}
        action["amount"] = entry["min"]
        return action
    return entry


def main():
    fixed_seed = sys.argv[1] if len(sys.argv) > 1 else None
    rng = random.Random(fixed_seed)
    for line in sys.stdin.buffer:  # bytes: json.loads reads UTF-8 whatever the locale
        if not line.strip():
            continue
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "game-start" and fixed_seed is None:
            rng.seed(f"{msg.get('commitment')}:{msg.get('seat')}")
        elif kind == "action-request":
            action = concrete(rng.choice(msg["legal"]))
            answer = {"type": "action", "table": msg.get("table"), "request": msg["request"], "action": action}
            sys.stdout.write(json.dumps(answer) + "\n")
            sys.stdout.flush()
        elif kind == "refused":
            print(f"refused: {msg.get('code')}: {msg.get('reason')}", file=sys.stderr)


if __name__ == "__main__":
    main()
