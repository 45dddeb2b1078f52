"""Typed actions of Le 14 in ``quinze play`` (quinze_cli/rules/quatorze.md "Your turn").

What a player may type (besides a number from the list, handled by the generic prompt):

* ``draw`` (``piocher``, ``d``): from the stock when it can be drawn from, else the discard pile;
  ``draw discard`` / ``draw stock`` (``piocher defausse`` / ``piocher talon``) name the pile;
  ``take`` (``prendre``) is the discard pile's top card;
* ``lay 9h 5c`` (``poser``), or the cards alone (``9h 5c``, two or more): a combination of hand
  cards adding up to 14; or its values, ``5+9``, ``a+k``, ``10+4`` (suits never matter);
* ``discard kd`` (``defausser``, ``jeter``), or one card alone: the discard that ends the turn;
* ``swap 9s for 6h 3d`` (``echanger 9p contre 6c 3k``): a hand card for two cards of a
  combination, or ``swap 6h 3d for 9c``: two hand cards for one; ``in N`` (``dans N``) names the
  combination when several fit. The same words exchange two cards of one combination for one
  of another (``swap 6h 3d for 9c``, either way round; ``in N`` names either combination).

Identical cards of the two decks are the same card (quinze_cli/rules/quatorze.md "Material"), so a typed entry is
matched against the request's ``legal`` list as multisets of cards; nothing is sent unless it is
one of those entries. Otherwise :class:`InputError` explains why, in the user's language (a card
typed more often than the hand holds it, ``lay 7d 7d`` with one 7D, is said to be named twice).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from quinze_protocol.cards import card_text, parse_card, rank
from quinze_cli.play.cards_ui import ANY_JOKER, VALUE_JOKER, CardStyle, parse_card_token, parse_value_token
from quinze_cli.i18n import Catalogue
from quinze_cli.play.registry import InputError, TableState

__all__ = ["completions", "parse"]

DRAW_WORDS = {"draw", "d", "piocher", "pioche", "tirer"}
TAKE_WORDS = {"take", "prendre"}
STOCK_WORDS = {"stock", "talon", "pioche", "s"}
DISCARD_PILE_WORDS = {"discard", "defausse", "défausse", "pile", "d"}
LAY_WORDS = {"lay", "l", "combine", "poser", "pose", "p"}
DISCARD_WORDS = {"discard", "defausser", "défausser", "jeter", "x"}
SWAP_WORDS = {"swap", "sub", "substitute", "echanger", "échanger", "substituer", "s"}
FOR_WORDS = {"for", "contre", "pour", "with", "avec"}
IN_WORDS = {"in", "dans", "of", "de", "#"}


def _legal(state: TableState, kind: str) -> list[dict[str, Any]]:
    """The legal entries of ``kind``: the whole list as received (the screen lists those that
    differ only by suit once), so the cards typed are found whatever their suits."""
    every = state.public.get("all_legal") if state.legal else None
    return [a for a in (every or state.legal) if a.get("type") == kind]


def _cards(cat: Catalogue, st: CardStyle, tokens: list[str]) -> list[str]:
    out = []
    for tok in tokens:
        c = parse_card_token(tok, st.lang)
        if c is None or c == ANY_JOKER or rank(c) == 0:
            raise InputError(cat("quatorze.err.bad-card", token=tok))
        out.append(card_text(c))
    return out


def _why_not(cat: Catalogue, state: TableState, wanted: str) -> InputError:
    """Why ``wanted`` (draw, combine, substitute, discard) is not legal now."""
    phase = state.public.get("phase") or (state.view or {}).get("phase")
    if _legal(state, "draw"):
        return InputError(cat("quatorze.err.must-draw"))
    if wanted == "draw":
        if (state.view or {}).get("no_draw") == "whole-hand" or state.public.get("no_draw") == "whole-hand":
            return InputError(cat("quatorze.err.must-not-draw"))
        return InputError(cat("quatorze.err.drawn"))
    if wanted == "combine" and phase == "substitute":
        return InputError(cat("quatorze.err.after-substitution"))
    if wanted == "substitute":
        return InputError(cat("quatorze.err.no-substitution"))
    return InputError(cat("quatorze.err.not-now"))


def _draw(cat: Catalogue, state: TableState, rest: list[str], take: bool) -> dict[str, Any]:
    draws = _legal(state, "draw")
    if not draws:
        raise _why_not(cat, state, "draw")
    sources = [a.get("from") for a in draws]
    if take or (rest and rest[0] in DISCARD_PILE_WORDS):
        want = "discard"
    elif rest and rest[0] in STOCK_WORDS:
        want = "stock"
    elif rest:
        raise InputError(cat("quatorze.err.draw-where", word=rest[0]))
    else:
        want = "stock" if "stock" in sources else "discard"
    if want not in sources:
        raise InputError(cat(f"quatorze.err.empty-{want}"))
    return {"type": "draw", "from": want}


def _combine(cat: Catalogue, st: CardStyle, state: TableState, cards: list[str]) -> dict[str, Any]:
    if len(cards) < 2:
        raise InputError(cat("quatorze.err.too-few"))
    hand = Counter(state.public.get("hand", []))
    missing = Counter(cards) - hand
    if missing and all(hand[c] for c in missing):  # "7d 7d" holding one 7D: named too often, not missing
        c = next(c for c in cards if c in missing)
        named, held = Counter(cards)[c], hand[c]
        if named == 2:
            raise InputError(cat("quatorze.err.named.twice", card=st.text(c)))
        raise InputError(cat.plural("quatorze.err.named.times", held, card=st.text(c), times=named))
    if missing:
        raise InputError(cat("quatorze.err.not-held", cards=st.join(sorted(c for c in missing.elements() if not hand[c]))))
    total = sum(rank(parse_card(c)) for c in cards)
    if total != 14:
        raise InputError(cat("quatorze.err.not-fourteen", cards=st.join(cards), total=total))
    combines = _legal(state, "combine")
    if not combines:
        raise _why_not(cat, state, "combine")
    want = Counter(cards)
    for a in combines:
        if Counter(a.get("cards", [])) == want:
            return a
    raise InputError(cat("quatorze.err.not-legal"))


def _discard(cat: Catalogue, st: CardStyle, state: TableState, cards: list[str]) -> dict[str, Any]:
    if len(cards) != 1:
        raise InputError(cat("quatorze.err.discard-one"))
    discards = _legal(state, "discard")
    if not discards:
        raise _why_not(cat, state, "discard")
    for a in discards:
        if a.get("card") == cards[0]:
            return a
    raise InputError(cat("quatorze.err.not-held", cards=st.join(cards)))


def _swap(cat: Catalogue, st: CardStyle, state: TableState, tokens: list[str]) -> dict[str, Any]:
    """``swap HAND... for TABLE... [in N]``: a hand-for-two or two-for-one substitution."""
    combination = None
    if len(tokens) >= 2 and tokens[-2] in IN_WORDS:
        if not tokens[-1].lstrip("#").isdecimal():
            raise InputError(cat("quatorze.err.swap-form"))
        combination = int(tokens[-1].lstrip("#"))
        tokens = tokens[:-2]
    elif tokens and tokens[-1].startswith("#") and tokens[-1][1:].isdecimal():
        combination = int(tokens[-1][1:])
        tokens = tokens[:-1]
    split = [i for i, t in enumerate(tokens) if t in FOR_WORDS]
    if len(split) != 1:
        raise InputError(cat("quatorze.err.swap-form"))
    give, get = _cards(cat, st, tokens[: split[0]]), _cards(cat, st, tokens[split[0] + 1:])
    if sorted((len(give), len(get))) != [1, 2]:
        raise InputError(cat("quatorze.err.swap-form"))
    subs = _legal(state, "substitute")
    if not subs:
        raise _why_not(cat, state, "substitute")
    kind = "hand-for-two" if len(give) == 1 else "two-for-one"
    found = []
    for a in subs:
        if a.get("kind") != kind or (combination is not None and a.get("combination") != combination):
            continue
        hand = [a["hand"]] if isinstance(a.get("hand"), str) else list(a.get("hand", []))
        table = list(a.get("cards", [])) if kind == "hand-for-two" else [a.get("card")]
        if Counter(hand) == Counter(give) and Counter(table) == Counter(get):
            found.append(a)
    if not found:  # two cards of one combination for one of another ("between"), either way round
        found = [a for a in subs if a.get("kind") == "between" and _between_fits(a, give, get, combination)]
    if not found:
        raise InputError(cat("quatorze.err.no-such-swap"))
    if len({(a.get("combination"), a.get("other")) for a in found}) > 1:
        raise InputError(cat("quatorze.err.which-combination",
                             numbers=", ".join(str(a.get("combination")) for a in found)))
    return found[0]


def _between_fits(a: dict[str, Any], give: list[str], get: list[str], combination: int | None) -> bool:
    """Whether the exchange ``a`` (``cards`` of ``combination`` for ``card`` of ``other``) is the
    one typed: its two cards and its one card, in either order, in combination ``combination``
    (either of its two) when named."""
    two, one = Counter(a.get("cards", [])), Counter([a.get("card")])
    if not ((Counter(give) == two and Counter(get) == one) or (Counter(give) == one and Counter(get) == two)):
        return False
    return combination is None or combination in (a.get("combination"), a.get("other"))


def _values(cat: Catalogue, st: CardStyle, state: TableState, tokens: list[str]) -> dict[str, Any]:
    """``5+9``, ``a+k``, ``10+4``: a combination of hand cards of these values, whatever their
    suits (quinze_cli/rules/quatorze.md: suits never matter)."""
    values = []
    for tok in tokens:
        v = parse_value_token(tok)
        if v is None or v == VALUE_JOKER or tok.strip() == "14":
            raise InputError(cat("quatorze.err.bad-value", token=tok))
        values.append(v)
    if len(values) < 2:
        raise InputError(cat("quatorze.err.too-few"))
    if sum(values) != 14:
        raise InputError(cat("quatorze.err.values-not-fourteen", expr="+".join(tokens), total=sum(values)))
    combines = _legal(state, "combine")
    if not combines:
        raise _why_not(cat, state, "combine")
    want = Counter(values)
    for a in combines:
        if Counter(rank(parse_card(c)) for c in a.get("cards", [])) == want:
            return a
    raise InputError(cat("quatorze.err.no-such-values", expr="+".join(tokens)))


def parse(cat: Catalogue, st: CardStyle, state: TableState, text: str) -> dict[str, Any]:
    """The typed ``text`` as legal action data (see the module docstring). Raises InputError."""
    if "+" in text:
        words = [t for t in re.split(r"[\s+]+", text.strip()) if t]
        if words and words[0].lower() in LAY_WORDS:
            words = words[1:]
        return _values(cat, st, state, words)
    tokens = [t.lower() for t in re.split(r"[\s,]+", text.strip()) if t]
    if not tokens:
        raise InputError(cat("input.empty"))
    head, rest = tokens[0], tokens[1:]
    if head in DRAW_WORDS and (not rest or len(rest) == 1 and (rest[0] in STOCK_WORDS or rest[0] in DISCARD_PILE_WORDS
                                                             or parse_card_token(rest[0], st.lang) is None)):
        return _draw(cat, state, rest, take=False)
    if head in TAKE_WORDS and not rest:
        return _draw(cat, state, [], take=True)
    if head in SWAP_WORDS and rest:
        return _swap(cat, st, state, rest)
    if head in DISCARD_WORDS and rest:
        return _discard(cat, st, state, _cards(cat, st, rest))
    if head in LAY_WORDS and rest:
        return _combine(cat, st, state, _cards(cat, st, rest))
    if any(t in FOR_WORDS for t in tokens):
        return _swap(cat, st, state, tokens)
    cards = _cards(cat, st, tokens)
    if _legal(state, "draw"):
        raise InputError(cat("quatorze.err.must-draw"))
    if len(cards) == 1:
        return _discard(cat, st, state, cards)
    return _combine(cat, st, state, cards)


def completions(cat: Catalogue, st: CardStyle, state: TableState) -> list[str]:
    """Cards of the hand and the table as one types them, and the action words."""
    plain = CardStyle(st.lang, color=False)
    p = state.public
    cards = {plain.text(c).lower() for c in p.get("hand", [])}
    for comb in p.get("table", []):
        cards |= {plain.text(c).lower() for c in comb}
    words = {"draw", "take", "lay", "discard", "swap", "for"} if st.lang == "en" else {
        "piocher", "prendre", "poser", "defausser", "echanger", "contre"}
    return sorted(cards | words)
