"""Cards as people see and type them in ``quinze play``, in English or French.

Display (:class:`CardStyle`):

* in colour (a terminal, ``NO_COLOR`` unset): rank and suit symbol, ``7♥`` in red, ``K♠`` plain
  bold; jokers ``Jk`` (black) and ``Jk`` in red; French ranks ``V D R`` (valet, dame, roi) and
  ``Jo`` for jokers;
* plain (``NO_COLOR`` set, or output not a terminal): letters only. English uses the
  canonical protocol spelling (``7H``, ``10S``, ``BJ``, ``RJ``; see :mod:`quinze_protocol.cards`);
  French uses French letters: ranks ``A 2..10 V D R``, suits ``P`` pique, ``C`` cœur,
  ``K`` carreau, ``T`` trèfle, jokers ``JN`` (noir) and ``JR`` (rouge).

Input (:func:`parse_card_token`): the canonical spelling always works (``7h``, ``10s``, ``ts``,
``rj``), suit symbols too (``7♥``). In French the French letters are tried first, so ``7c`` is
the 7 of hearts (cœur) in French and the 7 of clubs in English.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text

from quinze_protocol.cards import BLACK_JOKER, RED_JOKER, CardError, card, card_text, is_joker, is_red, parse_card, rank, suit

__all__ = ["ANY_JOKER", "CardStyle", "parse_card_token", "parse_value_token", "sort_cards", "VALUE_JOKER"]

SYMBOLS = "♠♥♦♣"
"""The suit symbols, spades hearts diamonds clubs; cards are drawn with them only on a terminal that can write them (:func:`quinze_cli.stdio.colour_wanted`)."""
_RANKS = {
    "en": ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"),
    "fr": ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "V", "D", "R"),
}
_PLAIN_SUITS = {"en": "SHDC", "fr": "PCKT"}
_JOKERS_PLAIN = {"en": ("BJ", "RJ"), "fr": ("JN", "JR")}
_JOKERS_SYMBOL = {"en": "Jk", "fr": "Jo"}

VALUE_JOKER = 0
"""The rank class of a joker in :func:`parse_value_token` (cards of rank 1..13 are their rank)."""


class CardStyle:
    """How cards are written: ``color`` (symbols and colours) or plain letters, in ``lang``."""

    def __init__(self, lang: str = "en", color: bool = True) -> None:
        self.lang = lang if lang in _RANKS else "en"
        self.color = color

    def text(self, c: int | str) -> str:
        """The card as a string (no colour), e.g. ``"7♥"`` or ``"7H"``; ``c`` is a number or canonical text."""
        c = _num(c)
        if is_joker(c):
            if self.color:
                return _JOKERS_SYMBOL[self.lang]
            return _JOKERS_PLAIN[self.lang][c - BLACK_JOKER]
        r = _RANKS[self.lang][rank(c) - 1]
        if self.color:
            return r + SYMBOLS[suit(c)]
        return r + _PLAIN_SUITS[self.lang][suit(c)]

    def rich(self, c: int | str) -> Text:
        """The card as rich Text, red for hearts, diamonds and the red joker when in colour."""
        c = _num(c)
        if not self.color:
            return Text(self.text(c))
        return Text(self.text(c), style="bold red" if is_red(c) else "bold")

    def join(self, cards: Iterable[int | str], sep: str = " ") -> str:
        """Several cards as one string."""
        return sep.join(self.text(c) for c in cards)

    def rich_join(self, cards: Iterable[int | str], sep: str = " ") -> Text:
        """Several cards as rich Text."""
        out = Text()
        for i, c in enumerate(cards):
            if i:
                out.append(sep)
            out.append_text(self.rich(c))
        return out


def _num(c: int | str) -> int:
    return c if isinstance(c, int) else parse_card(c)


def sort_cards(cards: Iterable[int | str]) -> list[int]:
    """Card numbers sorted for display: aces, 2 .. K, then jokers; suits S H D C within a rank."""
    nums = [_num(c) for c in cards]
    return sorted(nums, key=lambda c: (rank(c) or 14, c))


_FR_RANK = {"A": 1, "AS": 1, "1": 1, "V": 11, "D": 12, "R": 13, "J": 11, "Q": 12, "K": 13}
for _r in range(2, 11):
    _FR_RANK[str(_r)] = _r
_FR_SUIT = {"P": 0, "C": 1, "K": 2, "T": 3, "♠": 0, "♥": 1, "♦": 2, "♣": 3}
_EN_RANK = {"A": 1, "1": 1, "J": 11, "Q": 12, "K": 13, "T": 10}
for _r in range(2, 11):
    _EN_RANK[str(_r)] = _r
_EN_SUIT = {"S": 0, "H": 1, "D": 2, "C": 3, "♠": 0, "♥": 1, "♦": 2, "♣": 3}
_JOKER_WORDS = {"BJ": BLACK_JOKER, "RJ": RED_JOKER, "JN": BLACK_JOKER, "JR": RED_JOKER}


ANY_JOKER = -1
"""What :func:`parse_card_token` returns for a joker typed without its colour (``jk``, ``jo``,
``joker``): the reader takes whichever joker is at hand (both are worth −1)."""
_ANY_JOKER_WORDS = {"JK", "JO", "JOKER", "*"}


def parse_card_token(token: str, lang: str = "en") -> int | None:
    """The card a typed token names (``"7h"``, ``"10S"``, ``"7♥"``, French ``"dc"``), or None;
    :data:`ANY_JOKER` for ``jk``/``jo``/``joker``.

    English reads the canonical spelling and suit symbols; French reads French letters first
    (``7c`` = 7 de cœur), then the canonical spelling.
    """
    t = token.strip().upper()
    if not t:
        return None
    if t in _ANY_JOKER_WORDS:
        return ANY_JOKER
    if t in _JOKER_WORDS:
        return _JOKER_WORDS[t]
    tables = [(_FR_RANK, _FR_SUIT), (_EN_RANK, _EN_SUIT)] if lang == "fr" else [(_EN_RANK, _EN_SUIT)]
    for ranks_, suits_ in tables:
        r, s = t[:-1], t[-1]
        if r in ranks_ and s in suits_:
            try:
                return card(ranks_[r], suits_[s])
            except CardError:  # pragma: no cover - tables only hold valid values
                return None
    try:
        return parse_card(t)
    except CardError:
        return None


_VALUE_WORDS = {
    "A": 1, "AS": 1, "ACE": 1, "1": 1, "14": 1,
    "J": 11, "V": 11, "JACK": 11, "VALET": 11, "11": 11,
    "Q": 12, "D": 12, "QUEEN": 12, "DAME": 12, "12": 12,
    "K": 13, "R": 13, "KING": 13, "ROI": 13, "13": 13,
    "JK": VALUE_JOKER, "JO": VALUE_JOKER, "JOKER": VALUE_JOKER, "*": VALUE_JOKER, "-1": VALUE_JOKER,
}
for _r in range(2, 11):
    _VALUE_WORDS[str(_r)] = _r


def parse_value_token(token: str) -> int | None:
    """The rank class a typed value names: 1 (ace: ``a``, ``1``, ``14``) .. 13 (``k``/``r``),
    :data:`VALUE_JOKER` for a joker (``jk``, ``jo``, ``joker``, ``*``, ``-1``); None otherwise."""
    return _VALUE_WORDS.get(token.strip().upper())


def canonical(c: int | str) -> str:
    """The canonical protocol spelling of a card (``"7H"``)."""
    return card_text(_num(c))
