"""Le Quinze actions: ``fifteen``, ``place`` and ``end`` (quinze_cli/rules/quinze.md "A turn").

Actions are small frozen values (tuple subclasses: hashable, comparable, cheap to build):

- :class:`Fifteen` ``{"type": "fifteen", "hand": [cards], "table": [cards]}`` — make a fifteen
  with these hand and table cards (quinze_cli/rules/quinze.md "A fifteen", turn step 2).
- :class:`Place` ``{"type": "place", "cards": [card]}`` or two face cards of the same rank
  (J, Q or K) — put them face up on the table (turn step 3, or the ``quick_place`` option, step 4).
- :class:`End` ``{"type": "end"}`` — end the turn after at least one fifteen (or after the
  ``quick_place`` placement).

Cards are the canonical text of :mod:`quinze_protocol.cards` (any case accepted when reading).
Inside an action the cards of one place are kept in :data:`~quinze_protocol.games.quinze_legal.ORDER_KEY`
order, so the same cards always make the same (equal, same hash) action.
"""

from __future__ import annotations

from collections.abc import Mapping
from operator import itemgetter as _items
from typing import Any

from quinze_protocol.cards import CardError, card_text, parse_card
from quinze_protocol.game import Action, ActionError
from quinze_protocol.games.quinze_legal import CARD_RANK as _RANK
from quinze_protocol.games.quinze_legal import ORDER_KEY

__all__ = ["END", "End", "Fifteen", "Place", "parse_quinze_action"]

_tnew = tuple.__new__
_TEXT = tuple(card_text(c) for c in range(54))
_CARD = {t: c for c, t in enumerate(_TEXT)}
"""Card number by canonical text: the fast way to read the cards of an action (any other
spelling goes through :func:`~quinze_protocol.cards.parse_card`)."""
_OKEY = {c: ORDER_KEY[c] for c in range(54)}.__getitem__
"""``ORDER_KEY[c]`` as a sort key (a dict's bound method: no argument tuple per call)."""
_EMPTY: tuple[int, ...] = ()


def _names(cards: tuple[int, ...]) -> list[str]:
    """The texts of ``cards`` in their order (a new list): up to two without a comprehension,
    more by one ``itemgetter`` call (a comprehension is a Python call in 3.11)."""
    k = len(cards)
    if k == 1:
        return [_TEXT[cards[0]]]
    if k == 2:
        return [_TEXT[cards[0]], _TEXT[cards[1]]]
    return list(_items(*cards)(_TEXT)) if k else []


def _fifteen(cls: type, h: list[int], t: list[int]) -> "Fifteen":
    """``cls(h, t)``: the lists ``h`` and ``t`` (the caller's own) sorted in place by ``ORDER_KEY``,
    each split where its aces and jokers begin (they sort last)."""
    if len(h) > 1:
        h.sort(key=_OKEY)
    if len(t) > 1:
        t.sort(key=_OKEY)
    i = len(h)
    while i and _RANK[h[i - 1]] <= 1:
        i -= 1
    j = len(t)
    while j and _RANK[t[j - 1]] <= 1:
        j -= 1
    return _tnew(cls, ("fifteen",
                       tuple(h) if i == len(h) else tuple(h[:i]), tuple(t) if j == len(t) else tuple(t[:j]),
                       tuple(h[i:]) if i < len(h) else _EMPTY, tuple(t[j:]) if j < len(t) else _EMPTY))


class Fifteen(tuple, Action):
    """Make a fifteen with the cards ``hand`` (from the hand) and ``table`` (from the table).

    Stored as ``("fifteen", hand ranks 2..K, table ranks 2..K, hand aces and jokers, table aces
    and jokers)``, each a tuple of card numbers in ``ORDER_KEY`` order: the search builds the
    positive and the flexible parts separately, so an action costs one object (no joining).
    ``hand`` and ``table`` give the whole places.
    """

    __slots__ = ()

    def __new__(cls, hand: tuple[int, ...] | list[int], table: tuple[int, ...] | list[int] = ()) -> "Fifteen":
        return _fifteen(cls, list(hand), list(table))

    @property
    def hand(self) -> tuple[int, ...]:
        """The hand cards of the fifteen."""
        return self[1] + self[3]

    @property
    def table(self) -> tuple[int, ...]:
        """The table cards of the fifteen."""
        return self[2] + self[4]

    def to_data(self) -> dict[str, Any]:
        """``{"type": "fifteen", "hand": [str], "table": [str]}``."""
        _, hp, tp, hf, tf = self
        return {"type": "fifteen", "hand": _names(hp + hf if hf else hp), "table": _names(tp + tf if tf else tp)}

    def __repr__(self) -> str:
        return f"Fifteen(hand={[_TEXT[c] for c in self.hand]}, table={[_TEXT[c] for c in self.table]})"


class Place(tuple, Action):
    """Place ``cards`` (one card, or two face cards of the same rank) on the table."""

    __slots__ = ()

    def __new__(cls, cards: tuple[int, ...] | list[int]) -> "Place":
        return _tnew(cls, ("place", tuple(sorted(cards))))

    @property
    def cards(self) -> tuple[int, ...]:
        return self[1]

    def to_data(self) -> dict[str, Any]:
        """``{"type": "place", "cards": [str]}``."""
        cards = self[1]
        if len(cards) == 1:
            return {"type": "place", "cards": [_TEXT[cards[0]]]}
        return {"type": "place", "cards": [_TEXT[c] for c in cards]}

    def __repr__(self) -> str:
        return f"Place({[_TEXT[c] for c in self[1]]})"


class End(tuple, Action):
    """End the turn."""

    __slots__ = ()

    def __new__(cls) -> "End":
        return _tnew(cls, ("end",))

    def to_data(self) -> dict[str, Any]:
        """``{"type": "end"}``."""
        return {"type": "end"}

    def __repr__(self) -> str:
        return "End()"


END = End()


def _cards(data: Mapping[str, Any], key: str, *, required: bool = True) -> list[int]:
    if key not in data:
        if required:
            raise ActionError(f"missing field {key!r} (a list of cards such as [\"7H\", \"8C\"])", field=key)
        return []
    value = data[key]
    if type(value) is list:  # the usual case: canonical texts, read by one dict look-up each
        k = len(value)
        try:
            if k == 1:
                return [_CARD[value[0]]]
            if k == 2:
                return [_CARD[value[0]], _CARD[value[1]]]
            return [_CARD[text] for text in value]
        except (KeyError, TypeError):  # another spelling, or no card: read one by one below
            pass
    elif not isinstance(value, (list, tuple)):
        raise ActionError(f"expects a list of cards, got {type(value).__name__}", field=key)
    out = []
    for i, text in enumerate(value):
        try:
            out.append(parse_card(text))
        except CardError as err:
            raise ActionError(str(err), field=f"{key}[{i}]") from None
    return out


def parse_quinze_action(data: Mapping[str, Any]) -> Action:
    """Read action data into a :class:`Fifteen`, :class:`Place` or :class:`End`.

    Raises :class:`ActionError` naming the field: ``type`` (missing or unknown), ``hand[1]``
    (not a card), ``table`` (not a list). ``table`` may be omitted (no table card); keys unknown
    to this version are ignored (PROTOCOL.md "Conventions"). Legality (held cards, sums) is
    checked by ``apply``.
    """
    if type(data) is not dict and not isinstance(data, Mapping):  # a dict first: no ABC check
        raise ActionError(f"an action is a map with a 'type', not {type(data).__name__}", field="type")
    kind = data.get("type")
    if kind == "fifteen":
        return _fifteen(Fifteen, _cards(data, "hand"), _cards(data, "table", required=False))
    if kind == "place":
        cards = _cards(data, "cards")
        k = len(cards)
        if k == 1:
            return _tnew(Place, ("place", (cards[0],)))
        if k != 2:
            raise ActionError(f"place one card or a pair of face cards, got {k} cards", field="cards")
        return Place(cards)
    if kind == "end":
        return END
    if kind is None:
        raise ActionError("missing field 'type' (fifteen, place or end)", field="type")
    hash(kind)  # an unhashable type: TypeError, as a look-up in a dict of the kinds always gave
    raise ActionError(f"unknown action type {kind!r} (fifteen, place or end)", field="type")
