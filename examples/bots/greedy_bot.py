#!/usr/bin/env python3
"""A greedy bot: a simple rule of thumb for each game, reading only the view and the legal list.

For ``quinze`` (quinze_cli/rules/quinze.md), among the legal actions it picks, in order of preference:

1. the fifteen that uses the most hand cards;
2. otherwise the placement that lowers its hand score the most (the scoring of quinze_cli/rules/quinze.md
   "Scoring": J Q K and jokers 10, aces 1, other cards their face value);
3. otherwise ``end`` (or whatever else is legal).

For ``quatorze`` (quinze_cli/rules/quatorze.md): the combination with the most cards, else a draw from the stock,
else the discard of its highest card; it never substitutes. For ``quinze-classique``
(quinze_cli/rules/quinze-classique.md): it asks for cards while its total (``view["total"]``) is below 11, stands otherwise, and
answers raises with call or check, never folding. Any other game: the first legal action.

Ties go to the first in the order of ``legal``. A range ``{"min", "max"}`` (the classique raise)
becomes ``amount=min``.

Wire as in random_bot.py (examples/README.md). Standard library only.
"""

import json
import sys


def card_score(card):
    """Points a card left in hand counts at the end of a deal: "QS" -> 10, "AH" -> 1, "7D" -> 7."""
    rank = card[:-1]
    if card in ("BJ", "RJ") or rank in ("J", "Q", "K"):
        return 10
    if rank == "A":
        return 1
    return int(rank)


def concrete(entry):
    """A legal entry made into an action: a range ``{"min", "max"}`` becomes ``amount=min``."""
    if "min" in entry and "max" in entry:
        action = {k: v for k, v in entry.items() if k not in ("min", "max")}
        action["amount"] = entry["min"]
        return action
    return entry


def choose_quinze(legal):
    """The greedy choice among Le Quinze legal actions (see the module docstring)."""
    fifteens = [a for a in legal if a.get("type") == "fifteen"]
    if fifteens:
        return max(fifteens, key=lambda a: len(a.get("hand", [])))
    places = [a for a in legal if a.get("type") == "place"]
    if places:
        return max(places, key=lambda a: sum(card_score(c) for c in a.get("cards", [])))
    ends = [a for a in legal if a.get("type") == "end"]
    return ends[0] if ends else legal[0]


RANK_VALUE = {"A": 1, "J": 11, "Q": 12, "K": 13}


def choose_quatorze(legal):
    """Le 14: the biggest combination, else draw from the stock, else discard the highest card."""
    combos = [a for a in legal if a.get("type") == "combine"]
    if combos:
        return max(combos, key=lambda a: len(a.get("cards", [])))
    for a in legal:
        if a.get("type") == "draw" and a.get("from") == "stock":
            return a
    discards = [a for a in legal if a.get("type") == "discard"]
    if discards:
        return max(discards, key=lambda a: RANK_VALUE.get(a["card"][:-1]) or int(a["card"][:-1]))
    return legal[0]


def choose_classique(legal, view):
    """Le Quinze classique: hit below 11, else stand; call or check a raise, never fold."""
    kinds = {a.get("type"): a for a in legal}
    want = "hit" if view.get("total", 0) < 11 else "stand"
    for kind in (want, "stand", "call", "check"):
        if kind in kinds:
            return kinds[kind]
    return legal[0]


def choose(game, legal, view):
    """The rule of thumb for ``game`` (see the module docstring)."""
    if game == "quinze":
        return choose_quinze(legal)
    if game == "quatorze":
        return choose_quatorze(legal)
    if game == "quinze-classique":
        return choose_classique(legal, view)
    return legal[0]


def main():
    game = None
    for line in sys.stdin.buffer:  # bytes: json.loads reads UTF-8 whatever the locale
        if not line.strip():
            continue
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "game-start":
            game = msg.get("game")
        elif kind == "action-request":
            legal = msg["legal"]
            action = choose(game, legal, msg.get("view", {}))
            answer = {"type": "action", "table": msg.get("table"), "request": msg["request"], "action": concrete(action)}
            sys.stdout.write(json.dumps(answer) + "\n")
            sys.stdout.flush()
        elif kind == "refused":
            print(f"refused: {msg.get('code')}: {msg.get('reason')}", file=sys.stderr)


if __name__ == "__main__":
    main()
