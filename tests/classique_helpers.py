"""Helpers for the Le Quinze classique tests: rigged positions (chosen hidden cards and talon)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from quinze_protocol.cards import card_text, parse_card
from quinze_protocol.games.classique import ClassiqueGame, colour_deck


def rigged(
    options: dict[str, Any],
    hidden: dict[int, str],
    draws: list[str] = (),
    talon_len: int | None = None,
    seed: int = 1,
    **fields: Any,
) -> ClassiqueGame:
    """A new game whose first coup has the given hidden cards, whose next talon cards (from the
    bottom) are ``draws``, with the talon cut to ``talon_len`` cards (the rest set aside as
    discards), and any other position ``fields`` overridden (e.g. dealer, to_act, pot, chips)."""
    g = ClassiqueGame.new(options, seed)
    pos = g.to_position()
    rest = Counter(colour_deck(pos["deck"]))
    for c in list(hidden.values()) + list(draws):
        rest[parse_card(c)] -= 1
        assert rest[parse_card(c)] >= 0, c
    filler = [card_text(c) for c in sorted(rest.elements())]
    pos["hidden"] = [hidden.get(s, pos["hidden"][s]) if pos["hidden"][s] is not None else None
                     for s in range(g.players)]
    # cards held that were not rigged must be removed from the filler too
    for s in range(g.players):
        if s not in hidden and pos["hidden"][s] is not None:
            filler.remove(pos["hidden"][s])
    n_talon = len(filler) + len(draws) if talon_len is None else talon_len
    keep = n_talon - len(draws)
    pos["talon"] = filler[:keep] + list(reversed(draws))
    pos["discards"] = filler[keep:]
    pos.update(fields)
    return ClassiqueGame.from_position(pos)


def play(g: ClassiqueGame, *actions: dict[str, Any]) -> list[dict[str, Any]]:
    """Apply action data in turn; return every event in full."""
    out: list[dict[str, Any]] = []
    for a in actions:
        out.extend(e.full() for e in g.apply(a))
    return out


def kinds(events: list[dict[str, Any]]) -> list[str]:
    return [e["kind"] for e in events]


def first(events: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    return next(e for e in events if e["kind"] == kind)


P, S, H = {"type": "pass"}, {"type": "stand"}, {"type": "hit"}
CHECK, CALL, FOLD = {"type": "check"}, {"type": "call"}, {"type": "fold"}


def R(n: int) -> dict[str, Any]:
    return {"type": "raise", "amount": n}
