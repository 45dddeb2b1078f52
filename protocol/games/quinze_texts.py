"""Le Quinze's cards as the views show them: their canonical texts in display order
(quinze_cli/rules/quinze.md "What each player sees": the hand and the table sorted by rank, then
suit, jokers last; the discard pile bottom first), and the discard pile's texts kept from one view
to the next while the pile only grows (:meth:`quinze_protocol.games.quinze.QuinzeGame.view`)."""

from __future__ import annotations

from operator import itemgetter as _items
from typing import Any

from quinze_protocol.cards import card_text
from quinze_protocol.games.quinze_legal import CARD_RANK

__all__ = ["VIEW_SORT", "discard_kept", "texts", "texts_in_order"]

_TEXT = tuple(card_text(c) for c in range(54))

VIEW_SORT = tuple((CARD_RANK[c] or 14) * 8 + (c // 13 if c < 52 else c - 52) for c in range(54))
"""Display order of cards in views: A 2 .. K then jokers, suits S H D C within a rank."""

_VKEY = {c: VIEW_SORT[c] for c in range(54)}.__getitem__
"""``VIEW_SORT[c]`` as a sort key: a dict's bound ``__getitem__`` is called without building an
argument tuple, where the tuple's (a method-wrapper) builds one per card."""


def texts(cards: Any) -> list[str]:
    """Canonical text of cards (a sequence of card numbers), in display order: a new list.

    The texts are read by one ``itemgetter`` call rather than a comprehension (a Python call in
    3.11, about 300 instructions an item against about 100)."""
    n = len(cards)
    if n > 1:
        return list(_items(*sorted(cards, key=_VKEY))(_TEXT))
    return [_TEXT[c] for c in cards]


def texts_in_order(cards: Any) -> list[str]:
    """Canonical text of cards (a sequence of card numbers), in their own order: a new list."""
    n = len(cards)
    if n > 1:
        return list(_items(*cards)(_TEXT))
    return [_TEXT[c] for c in cards]


def discard_kept(memo: tuple[list[int], list[str]], discard: list[int]) -> tuple[list[int], list[str]]:
    """The kept ``(cards, texts)`` of a discard pile, made anew for ``discard`` (a list of card
    numbers, bottom first): the kept texts extended by the new cards' where ``discard`` only grew
    from the kept cards (between two reshuffles or deals), all texts again otherwise. The cards
    are a copy, to be compared with the pile at the next view; the caller copies the texts
    before handing them out."""
    cards, shown = memo
    k = len(cards)
    if k and len(discard) > k and discard[:k] == cards:
        shown = shown + texts_in_order(discard[k:])
    else:
        shown = texts_in_order(discard)
    return discard[:], shown
