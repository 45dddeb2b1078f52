"""Cards: one small integer per card, one canonical text spelling per card.

A card is an ``int`` from 0 to 53:

* ``suit * 13 + (rank - 1)`` for the 52 ordinary cards, with suits in the order
  spades, hearts, diamonds, clubs (``S H D C``, 0..3) and ranks ace 1 .. king 13;
* ``52`` the black joker, ``53`` the red joker.

With two decks in play identical cards exist; they are the same integer and are
interchangeable (quinze_cli/rules/quinze.md "Material").

The canonical text of a card is its rank then its suit, upper case:
``AS 2S … 10S JS QS KS``, ``7H``, ``10D``, ``QC``; the jokers are ``BJ`` (black)
and ``RJ`` (red). This spelling is used everywhere: protocol messages, logs, the
CLI. :func:`parse_card` accepts any case, surrounding blanks, ``T`` for ten and
``1`` for ace.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "BLACK_JOKER",
    "RED_JOKER",
    "RANKS",
    "SUITS",
    "CardError",
    "card",
    "card_text",
    "cards_text",
    "deck",
    "is_joker",
    "is_red",
    "parse_card",
    "parse_cards",
    "rank",
    "suit",
]

SUITS = "SHDC"
"""Suit letters in card-number order: spades, hearts, diamonds, clubs."""

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
"""Rank spellings, index ``rank - 1``."""

BLACK_JOKER = 52
RED_JOKER = 53

ACE, JACK, QUEEN, KING = 1, 11, 12, 13


class CardError(ValueError):
    """A card or a list of cards that cannot be read. ``str()`` says which text and why."""


_TEXT: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS) + ("BJ", "RJ")
_PARSE: dict[str, int] = {t: i for i, t in enumerate(_TEXT)}
for _i in range(52):
    _r, _s = _TEXT[_i][:-1], _TEXT[_i][-1]
    if _r == "10":
        _PARSE["T" + _s] = _i
    if _r == "A":
        _PARSE["1" + _s] = _i
_RANK: tuple[int, ...] = tuple(i % 13 + 1 for i in range(52)) + (0, 0)
_SUIT: tuple[int, ...] = tuple(i // 13 for i in range(52)) + (-1, -1)


def card(rank_: int, suit_: str | int) -> int:
    """The card of ``rank_`` (1 = ace .. 13 = king) and ``suit_`` (a letter of ``SHDC`` or 0..3).

    Raises :class:`CardError` for a rank or suit out of range.
    """
    s = SUITS.index(suit_.upper()) if isinstance(suit_, str) and suit_ and suit_.upper() in SUITS else suit_
    if not isinstance(s, int) or not 0 <= s <= 3 or not 1 <= rank_ <= 13:
        raise CardError(f"no card of rank {rank_!r} and suit {suit_!r}")
    return s * 13 + rank_ - 1


def rank(c: int) -> int:
    """Rank of card ``c``: 1 (ace) .. 13 (king), 0 for a joker."""
    return _RANK[c]


def suit(c: int) -> int:
    """Suit index of card ``c`` (0..3 for ``S H D C``), -1 for a joker."""
    return _SUIT[c]


def is_joker(c: int) -> bool:
    """True for the black and the red joker."""
    return c >= 52


def is_red(c: int) -> bool:
    """True for hearts, diamonds and the red joker."""
    return c == RED_JOKER or _SUIT[c] in (1, 2)


def card_text(c: int) -> str:
    """Canonical spelling of card ``c`` (``"10H"``, ``"QS"``, ``"RJ"``). Raises CardError if not 0..53."""
    if not isinstance(c, int) or not 0 <= c <= 53:
        raise CardError(f"{c!r} is not a card number (0..53)")
    return _TEXT[c]


def cards_text(cs: Iterable[int]) -> list[str]:
    """Canonical spellings of several cards, in the same order."""
    return [_TEXT[c] for c in cs]


def parse_card(text: str) -> int:
    """Read one card in any case (``"7h"``, ``"10S"``, ``"ts"``, ``"rj"``).

    Raises :class:`CardError` naming the text when it is not a card.
    """
    if not isinstance(text, str):
        raise CardError(f"a card is written as text such as '7H', not {type(text).__name__}")
    key = text.strip().upper()
    try:
        return _PARSE[key]
    except KeyError:
        raise CardError(f"{text!r} is not a card (write rank then suit: 7H, 10S, QD, AC, BJ, RJ)") from None


def parse_cards(data: str | Iterable[str]) -> list[int]:
    """Read several cards: a list of spellings, or one string separated by blanks or commas.

    Raises :class:`CardError` naming the first card that cannot be read.
    """
    if isinstance(data, str):
        data = data.replace(",", " ").split()
    return [parse_card(t) for t in data]


def deck(jokers: bool = True) -> list[int]:
    """One deck in card-number order: 52 cards, plus the two jokers when ``jokers`` (54)."""
    return list(range(54 if jokers else 52))
