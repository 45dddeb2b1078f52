"""Le 14 (``quatorze``): card values, the actions and how action data is read.

Source: quinze_cli/rules/quatorze.md. Values ("Material and values"): A 1, 2–10 face value, J 11, Q 12, K 13.

Action data (every card in canonical text, see :mod:`quinze_protocol.cards`; combination numbers are
indices into the table's list of combinations, 0-based, in the order they were laid):

- ``{"type": "draw", "from": "stock" | "discard"}`` — phase 1.
- ``{"type": "combine", "cards": ["5H", "9C"]}`` — lay one combination (>= 2 hand cards adding up
  to 14) on the table; phase 2.
- ``{"type": "substitute", "kind": "hand-for-two", "hand": "9S", "combination": 0, "cards": ["6H", "3D"]}``
  — the hand card ``hand`` replaces the two ``cards`` of table combination ``combination`` (which
  has >= 3 cards); the two go to the hand. Value of ``hand`` = sum of ``cards``.
- ``{"type": "substitute", "kind": "two-for-one", "hand": ["6H", "3D"], "combination": 0, "card": "9C"}``
  — the two hand cards replace ``card`` of table combination ``combination``; ``card`` goes to
  the hand. Sum of ``hand`` = value of ``card``.
- ``{"type": "substitute", "kind": "between", "combination": 0, "cards": ["6H", "3D"], "other": 1, "card": "9C"}``
  — the two ``cards`` of combination ``combination`` (>= 3 cards) change places with ``card`` of
  combination ``other``: ``card`` joins ``combination``, the two join ``other``. Values equal.
- ``{"type": "discard", "card": "7H"}`` — phase 4, ends the turn.

Substitutions are phase 3 (quinze_cli/rules/quatorze.md). All actions are small frozen values with their cards
normalised (pairs and combinations sorted by value then card number), so identical actions compare
equal and a legal list never holds the same action twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from quinze_protocol.cards import CardError, card_text, cards_text, is_joker, parse_card, rank
from quinze_protocol.game import Action, ActionError

__all__ = [
    "VALUES",
    "Combine",
    "Discard",
    "Draw",
    "Substitute",
    "card_key",
    "parse_action",
    "sort_cards",
    "ORDER",
    "ORDER_KEY",
    "VALUE_OF",
    "value",
]


VALUES: tuple[int, ...] = tuple(rank(c) for c in range(54))
"""``VALUES[c]`` is the value of card ``c`` (0 for the jokers, which Le 14 does not use)."""


def value(c: int) -> int:
    """Value of card ``c`` in Le 14 (quinze_cli/rules/quatorze.md): ace 1, 2–10 face value, J 11, Q 12, K 13."""
    return VALUES[c]


_KEYS: tuple[tuple[int, int], ...] = tuple((rank(c), c) for c in range(54))


def card_key(c: int) -> tuple[int, int]:
    """Sort key: by value, then by card number (so suits S H D C)."""
    return _KEYS[c]


ORDER: tuple[int, ...] = tuple(rank(c) * 64 + c for c in range(54))
"""``ORDER[c]``: a number that sorts cards as :func:`card_key` does (an int compares faster than a tuple)."""
ORDER_KEY = list(ORDER).__getitem__
"""``ORDER_KEY(c) == ORDER[c]``: the sort key of the canonical order. A list's ``__getitem__`` is a
builtin method, called directly; a tuple's is a method-wrapper, whose every call builds a tuple of
its arguments (a sort calls its key once per card, ``insort`` once per comparison)."""
VALUE_OF = list(VALUES).__getitem__
"""``VALUE_OF(c) == VALUES[c]``, the same faster call, for ``map``."""
_order = ORDER_KEY


def sort_cards(cs: Any) -> tuple[int, ...]:
    """The cards as a tuple sorted by :func:`card_key` (the canonical order of hands and combinations)."""
    return tuple(sorted(cs, key=_order))


@dataclass(frozen=True, slots=True)
class Draw(Action):
    """Draw the top card of the stock (``from_="stock"``) or of the discard pile (``"discard"``):
    the action's ``from`` field, spelled ``from_`` in Python because ``from`` is a keyword."""

    from_: str

    def to_data(self) -> dict[str, Any]:
        """``{"type": "draw", "from": "stock" | "discard"}``."""
        return {"type": "draw", "from": self.from_}


@dataclass(frozen=True, slots=True)
class Combine(Action):
    """Lay one combination: ``cards`` (sorted, >= 2, from hand) adding up to 14."""

    cards: tuple[int, ...]

    def to_data(self) -> dict[str, Any]:
        """``{"type": "combine", "cards": [card text, ...]}``."""
        return {"type": "combine", "cards": cards_text(self.cards)}


class _SubstituteFields(NamedTuple):
    kind: str
    combination: int
    hand: tuple[int, ...] = ()
    cards: tuple[int, ...] = ()
    other: int = -1
    card: int = -1


class Substitute(_SubstituteFields, Action):
    """One substitution (quinze_cli/rules/quatorze.md phase 3). ``kind`` is ``hand-for-two``, ``two-for-one`` or
    ``between``; unused fields are empty tuples / -1:

    - hand-for-two: ``hand`` (one card), ``combination``, ``cards`` (two cards of it);
    - two-for-one: ``hand`` (two cards), ``combination``, ``card`` (one card of it);
    - between: ``combination``, ``cards`` (two cards of it), ``other``, ``card`` (one card of ``other``).

    A named tuple of these six fields, in this order (as Le Quinze's actions are tuples): built by
    one ``tuple.__new__(Substitute, (kind, combination, hand, cards, other, card))`` call, a
    fifth of the time the frozen dataclass it was took, so the legal lists build them afresh
    instead of keeping every substitution ever listed alive (issue 13 §4). Equal to another with
    the same fields, hashable, immutable; its repr is the dataclass's.
    """

    __slots__ = ()

    def to_data(self) -> dict[str, Any]:
        """The substitution's data, shaped by ``kind`` (see the module docstring)."""
        if self.kind == "hand-for-two":
            return {
                "type": "substitute",
                "kind": self.kind,
                "hand": card_text(self.hand[0]),
                "combination": self.combination,
                "cards": cards_text(self.cards),
            }
        if self.kind == "two-for-one":
            return {
                "type": "substitute",
                "kind": self.kind,
                "hand": cards_text(self.hand),
                "combination": self.combination,
                "card": card_text(self.card),
            }
        return {
            "type": "substitute",
            "kind": self.kind,
            "combination": self.combination,
            "cards": cards_text(self.cards),
            "other": self.other,
            "card": card_text(self.card),
        }


@dataclass(frozen=True, slots=True)
class Discard(Action):
    """Discard ``card`` from the hand onto the discard pile; ends the turn."""

    card: int

    def to_data(self) -> dict[str, Any]:
        """``{"type": "discard", "card": card text}``."""
        return {"type": "discard", "card": card_text(self.card)}


SUBSTITUTION_KINDS = ("hand-for-two", "two-for-one", "between")

_new = object.__new__
_set_combine_cards = Combine.__dict__["cards"].__set__  # the slot's own descriptor


def make_combine(cards: tuple[int, ...]) -> Combine:
    """``Combine(cards)``, the same value, without the frozen dataclass's ``__init__`` (which
    sets the field through ``object.__setattr__``). The cards are not checked."""
    a = _new(Combine)
    _set_combine_cards(a, cards)
    return a


# --------------------------------------------------------------------------- parsing


def _card(data: Mapping[str, Any], name: str) -> int:
    if name not in data:
        raise ActionError(f"missing field {name!r} (a card such as '7H')", field=name)
    try:
        c = parse_card(data[name])
    except CardError as err:
        raise ActionError(str(err), field=name) from None
    if is_joker(c):
        raise ActionError("Le 14 is played without jokers", field=name)
    return c


def _cards(data: Mapping[str, Any], name: str, count: int | None = None) -> tuple[int, ...]:
    if name not in data:
        raise ActionError(f"missing field {name!r} (a list of cards such as ['6H', '8C'])", field=name)
    raw = data[name]
    if not isinstance(raw, (list, tuple)):
        raise ActionError(f"expects a list of cards, got {type(raw).__name__}", field=name)
    out = []
    for i, t in enumerate(raw):
        try:
            c = parse_card(t)
        except CardError as err:
            raise ActionError(str(err), field=f"{name}[{i}]") from None
        if is_joker(c):
            raise ActionError("Le 14 is played without jokers", field=f"{name}[{i}]")
        out.append(c)
    if count is not None and len(out) != count:
        raise ActionError(f"expects exactly {count} cards, got {len(out)}", field=name)
    return sort_cards(out)


def _index(data: Mapping[str, Any], name: str) -> int:
    if name not in data:
        raise ActionError(f"missing field {name!r} (a table combination number, 0-based)", field=name)
    v = data[name]
    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
        raise ActionError(f"expects a combination number (an integer >= 0), got {v!r}", field=name)
    return v


def parse_action(data: Mapping[str, Any]) -> Action:
    """Action data (see the module docstring) read into an action. Legality is not checked.

    Raises :class:`ActionError` naming the field (``type``, ``from``, ``cards[1]``, ``kind``, ...).
    """
    if not isinstance(data, Mapping):
        raise ActionError(f"an action is a map with a 'type', got {type(data).__name__}", field="type")
    kind = data.get("type")
    if kind is None:
        raise ActionError("missing field 'type' (draw, combine, substitute or discard)", field="type")
    if kind == "draw":
        src = data.get("from")
        if src not in ("stock", "discard"):
            raise ActionError(f"expects 'stock' or 'discard', got {src!r}", field="from")
        return Draw(src)
    if kind == "combine":
        cs = _cards(data, "cards")
        if len(cs) < 2:
            raise ActionError(f"a combination has at least two cards, got {len(cs)}", field="cards")
        return Combine(cs)
    if kind == "discard":
        return Discard(_card(data, "card"))
    if kind == "substitute":
        sub = data.get("kind")
        if sub == "hand-for-two":
            return Substitute(sub, _index(data, "combination"), hand=(_card(data, "hand"),), cards=_cards(data, "cards", 2))
        if sub == "two-for-one":
            return Substitute(sub, _index(data, "combination"), hand=_cards(data, "hand", 2), card=_card(data, "card"))
        if sub == "between":
            return Substitute(
                sub,
                _index(data, "combination"),
                cards=_cards(data, "cards", 2),
                other=_index(data, "other"),
                card=_card(data, "card"),
            )
        raise ActionError(f"expects one of {', '.join(SUBSTITUTION_KINDS)}, got {sub!r}", field="kind")
    raise ActionError(f"unknown action type {kind!r} (draw, combine, substitute or discard)", field="type")
