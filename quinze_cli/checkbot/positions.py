"""The crafted positions ``quinze check-bot`` asks a bot to play, per game, hard ones included.

Each is a real game object (built from position data, docs/positions.md, or reached by seeded
random play, so it is the same every run), with a label saying what makes it hard:

- Le Quinze: the first decision of a deal; a hand and table with more than a thousand legal
  fifteens (a legal list of about 140 KB on one line); the ``more`` phase (fifteens or ``end``);
  a seat that can make no fifteen (placements, J/Q/K pairs).
- Le Quinze classique: speaking; a raising round with a ranged raise; a ranged raise in a drawing
  turn.
- Le 14: a draw; a substitution of each kind (``hand-for-two``, ``two-for-one``, ``between``);
  a draw with an empty stock (only the discard pile can be drawn from).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from quinze_protocol.game import Game, get_game
from quinze_protocol.rng import Rng

DECK = [r + s for s in "SHDC" for r in "A 2 3 4 5 6 7 8 9 10 J Q K".split()] + ["BJ", "RJ"]
SEARCH_SEEDS = range(400)
"""Seeds tried (in order) when a position is reached by random play."""
MAX_STEPS = 1500


@dataclass
class Crafted:
    """A position to ask about: ``game`` (to act: ``game.to_act``), ``label`` (what it tests)."""

    label: str
    game: Game


def concrete(entry: dict) -> dict:
    """A legal entry as an action: a range ``{min, max}`` played with ``amount=min``."""
    if "min" in entry and "max" in entry:
        action = {k: v for k, v in entry.items() if k not in ("min", "max")}
        action["amount"] = entry["min"]
        return action
    return entry


def _search(game_id: str, players: int, wanted: Callable[[Game], bool], prefer: str | None = None) -> Game | None:
    """The first state, over seeded random games, where ``wanted(game)`` holds (a copy); None if
    none is found. ``prefer``: an action type played when legal (steers the games)."""
    cls = get_game(game_id)
    for seed in SEARCH_SEEDS:
        game = cls.new(cls.validate_options({"players": players}), seed)
        rng = Rng(seed)
        for _ in range(MAX_STEPS):
            if game.is_over:
                break
            if wanted(game):
                return game.copy()
            legal = game.legal_data()
            preferred = [e for e in legal if e["type"] == prefer]
            pick = rng.choice(preferred) if preferred and rng.below(10) < 8 else rng.choice(legal)
            game.apply(concrete(pick))
    return None


def _has(type_: str, **fields: object) -> Callable[[Game], bool]:
    def test(game: Game) -> bool:
        return any(e["type"] == type_ and all(e.get(k) == v for k, v in fields.items()) for e in game.legal_data())
    return test


# --------------------------------------------------------------------------- Le Quinze


def _many_fifteens() -> Game:
    """Seat 0 holds A..10 of spades, the black joker and the ace of diamonds; the table holds
    A..6 of hearts and the red joker: more than a thousand fifteens."""
    hand0 = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "BJ", "AD"]
    table = ["AH", "2H", "3H", "4H", "5H", "6H", "RJ"]
    hand1 = ["KC", "QC", "JC", "KD", "QD", "JD", "10D", "9D", "8D"]
    stock = [c for c in DECK if c not in hand0 + table + hand1]
    Rng(15).shuffle(stock)
    return get_game("quinze").from_position({
        "game": "quinze", "format": 1, "options": {"players": 2, "target": 100, "quick_place": False, "max_turns": 1000},
        "rng": 15, "deal": 1, "dealer": 1, "to_act": 0, "turn": {"fifteens": 0, "used_table": False, "actions": []},
        "turns": 3, "seat_turns": [2, 1], "hands": [hand0, hand1], "table": table, "discard": [], "stock": stock,
        "totals": [0, 0],
    })


def _quinze() -> Iterator[Crafted]:
    cls = get_game("quinze")
    yield Crafted("the first decision of a deal", cls.new(cls.validate_options({"players": 3}), 2))
    yield Crafted("more than a thousand legal fifteens", _many_fifteens())
    found = _search("quinze", 2, lambda g: g.view(g.to_act).get("phase") == "more", prefer="fifteen")
    if found:
        yield Crafted("after a fifteen: more fifteens or end", found)
    found = _search("quinze", 2, lambda g: g.view(g.to_act).get("phase") == "place" and
                    any(len(e.get("cards", [])) == 2 for e in g.legal_data()))
    if found:
        yield Crafted("no fifteen possible: place a card or a pair", found)


# --------------------------------------------------------------------------- Le Quinze classique


def _ranged(phase: str) -> Callable[[Game], bool]:
    def test(game: Game) -> bool:
        return game.view(game.to_act).get("phase") == phase and any(
            e["type"] == "raise" and e.get("max", 0) > e.get("min", 0) for e in game.legal_data())
    return test


def _classique() -> Iterator[Crafted]:
    cls = get_game("quinze-classique")
    yield Crafted("the speaking round", cls.new(cls.validate_options({"players": 3}), 4))
    for phase, label in (("raise", "a raising round: a ranged raise"), ("draw", "a drawing turn: a ranged raise")):
        found = _search("quinze-classique", 3, _ranged(phase))
        if found:
            yield Crafted(label, found)


# --------------------------------------------------------------------------- Le 14


def _empty_stock() -> Game | None:
    """A draw with the stock empty: the stock's cards moved under the discard pile."""
    found = _search("quatorze", 2, lambda g: g.view(g.to_act).get("phase") == "draw" and bool(g.view(g.to_act).get("discard")))
    if found is None:
        return None
    data = found.to_position()
    data["discard"] = list(data["stock"]) + list(data["discard"])
    data["stock"] = []
    return get_game("quatorze").from_position(data)


def _quatorze() -> Iterator[Crafted]:
    cls = get_game("quatorze")
    yield Crafted("a draw", cls.new(cls.validate_options({"players": 2}), 3))
    for kind in ("hand-for-two", "two-for-one", "between"):
        found = _search("quatorze", 2, _has("substitute", kind=kind), prefer="combine")
        if found:
            yield Crafted(f"a substitution ({kind}) among the legal actions", found)
    empty = _empty_stock()
    if empty is not None:
        yield Crafted("a draw from an empty stock (only the discard pile)", empty)


CRAFTED: dict[str, Callable[[], Iterator[Crafted]]] = {
    "quinze": _quinze, "quinze-classique": _classique, "quatorze": _quatorze,
}


def crafted(game_id: str) -> list[Crafted]:
    """The crafted positions of ``game_id`` (an empty list for a game without any)."""
    make = CRAFTED.get(game_id)
    return list(make()) if make else []
