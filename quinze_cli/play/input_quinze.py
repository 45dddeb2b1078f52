"""Typed actions of Le Quinze in ``quinze play`` (quinze_cli/rules/quinze.md "A turn").

What a player may type (besides a number from the list, handled by the generic prompt):

* cards: ``7h 8c`` — a fifteen; each card is taken from the hand when held there, otherwise
  from the table (hand cards are preferred); one card (or a J/Q/K pair) is a placement when
  placing is legal;
* values: ``7+8``, ``q+3``, ``a+a``, ``k+3+jk`` — resolved against the hand and the table to a
  legal fifteen, preferring hand cards; when two different fifteens fit equally the entry is
  called ambiguous and both are shown;
* ``place ks`` (``poser``), ``end`` (``fin``).

Nothing is sent unless it matches an entry of the action-request's ``legal`` list up to the
game's equivalence (same ranks from the hand and from the table, quinze_cli/rules/quinze.md "Material": equal
cards are interchangeable); otherwise :class:`InputError` explains why, in the user's language
(a card typed more often than the hand and the table hold it, ``5h 5h`` with one 5H, is said to
be named twice: two decks, from five players, hold two of each).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from quinze_protocol.cards import parse_card, rank
from quinze_protocol.games.quinze import fifteen_problem
from quinze_cli.play.cards_ui import ANY_JOKER, CardStyle, canonical, parse_card_token, parse_value_token
from quinze_cli.i18n import Catalogue
from quinze_cli.play.registry import InputError, TableState

__all__ = ["completions", "parse"]

PLACE_WORDS = {"place", "poser", "pose", "p"}
END_WORDS = {"end", "fin", "finir", "e", "f"}
_FACE = (11, 12, 13)


def _ranks(cards: list[str]) -> Counter:
    return Counter(rank(parse_card(c)) for c in cards)


def _split(cards: list[str], hand: list[str], table: list[str]) -> tuple[list[str], list[str], list[str]]:
    """Cards typed -> (from hand, from table, missing): hand first, then table."""
    h, t = Counter(hand), Counter(table)
    from_hand, from_table, missing = [], [], []
    for c in cards:
        if h[c] > 0:
            h[c] -= 1
            from_hand.append(c)
        elif t[c] > 0:
            t[c] -= 1
            from_table.append(c)
        else:
            missing.append(c)
    return from_hand, from_table, missing


def _named_too_often(cat: Catalogue, st: CardStyle, cards: list[str], missing: list[str], key: str,
                     *pools: list[str]) -> InputError | None:
    """Why the ``missing`` cards (of ``cards``, by :func:`_split`) cannot be taken when each is in
    the ``pools`` (hand, table) at least once: the first of them is named more often than the pools
    hold it (``5h 5h`` with one 5H: ``key`` ``.twice``, else ``.times.one``/``.times.other`` by
    how many there are); None when one of them is in no pool at all (it is missing)."""
    held: Counter[str] = Counter()
    for pool in pools:
        held.update(pool)
    if not missing or any(not held[c] for c in missing):
        return None
    c, named = missing[0], Counter(cards)[missing[0]]
    if named == 2:
        return InputError(cat(f"{key}.twice", card=st.text(c)))
    return InputError(cat.plural(f"{key}.times", held[c], card=st.text(c), times=named))


def _legal(state: TableState, kind: str) -> list[dict[str, Any]]:
    return [a for a in state.legal if a.get("type") == kind]


def _why_not_end(cat: Catalogue, state: TableState) -> InputError:
    if _legal(state, "fifteen") and not _legal(state, "end"):
        return InputError(cat("quinze.err.must-fifteen"))
    return InputError(cat("quinze.err.must-place"))


def _fifteen(cat: Catalogue, st: CardStyle, state: TableState, cards: list[str]) -> dict[str, Any]:
    p = state.public
    hand, table = p.get("hand", []), p.get("table", [])
    from_hand, from_table, missing = _split(cards, hand, table)
    if missing:
        raise _named_too_often(cat, st, cards, missing, "quinze.err.named", hand, table) or InputError(
            cat("quinze.err.missing", cards=st.join(c for c in missing if c not in hand and c not in table)))
    problem = fifteen_problem([parse_card(c) for c in from_hand], [parse_card(c) for c in from_table])
    if problem is not None:
        code = problem[0]
        if code == "too-few-cards":
            raise InputError(cat("quinze.err.too-few"))
        if code == "no-hand-card":
            raise InputError(cat("quinze.err.no-hand-card"))
        raise InputError(cat("quinze.err.not-fifteen", cards=st.join(cards)))
    fifteens = _legal(state, "fifteen")
    if not fifteens:
        if _legal(state, "place"):
            raise InputError(cat("quinze.err.cannot-fifteen-place"))
        raise InputError(cat("quinze.err.only-end"))
    want = (_ranks(from_hand), _ranks(from_table))
    for a in fifteens:
        if (_ranks(a.get("hand", [])), _ranks(a.get("table", []))) == want:
            return {"type": "fifteen", "hand": from_hand, "table": from_table}
    raise InputError(cat("quinze.err.not-legal"))


def _place(cat: Catalogue, st: CardStyle, state: TableState, cards: list[str]) -> dict[str, Any]:
    if not cards:
        raise InputError(cat("quinze.err.place-what"))
    hand = state.public.get("hand", [])
    _, _, missing = _split(cards, hand, [])
    if missing:
        raise _named_too_often(cat, st, cards, missing, "quinze.err.named-held", hand) or InputError(
            cat("quinze.err.not-held", cards=st.join(c for c in missing if c not in hand)))
    places = _legal(state, "place")
    if not places:
        if _legal(state, "fifteen") and not _legal(state, "end"):
            raise InputError(cat("quinze.err.must-fifteen"))
        raise InputError(cat("quinze.err.cannot-place"))
    want = _ranks(cards)
    for a in places:
        if _ranks(a.get("cards", [])) == want:
            return {"type": "place", "cards": list(cards)}
    if len(cards) == 2:
        rs = [rank(parse_card(c)) for c in cards]
        if rs[0] != rs[1] or rs[0] not in _FACE:
            raise InputError(cat("quinze.err.pair-face"))
        raise InputError(cat("quinze.err.pair-three"))
    if len(cards) > 2:
        raise InputError(cat("quinze.err.place-count"))
    raise InputError(cat("quinze.err.cannot-place"))


def _values(cat: Catalogue, st: CardStyle, state: TableState, tokens: list[str]) -> dict[str, Any]:
    classes = []
    for tok in tokens:
        v = parse_value_token(tok)
        if v is None:
            raise InputError(cat("quinze.err.bad-value", token=tok))
        classes.append(v)
    want = Counter(classes)
    fifteens = _legal(state, "fifteen")
    found = [a for a in fifteens if _ranks(a.get("hand", []) + a.get("table", [])) == want]
    expr = "+".join(tokens)
    if not found:
        if not fifteens:
            if _legal(state, "place"):
                raise InputError(cat("quinze.err.cannot-fifteen-place"))
            raise InputError(cat("quinze.err.only-end"))
        raise InputError(cat("quinze.err.no-such-fifteen", expr=expr))
    most = max(len(a.get("hand", [])) for a in found)
    best = [a for a in found if len(a.get("hand", [])) == most]
    if len(best) > 1:
        options = " / ".join(
            st.join(a.get("hand", [])) + (" + " + st.join(a["table"]) + " " + cat("quinze.from-table") if a.get("table") else "")
            for a in best
        )
        raise InputError(cat("quinze.err.ambiguous", expr=expr, options=options))
    a = best[0]
    return {"type": "fifteen", "hand": list(a.get("hand", [])), "table": list(a.get("table", []))}


def _pick_jokers(state: TableState, cards: list[str], n: int) -> list[str]:
    """``n`` jokers typed without colour: those of the hand first, then the table's (not already
    named); when there are not enough, the black joker stands in (and is reported missing)."""
    if not n:
        return []
    p = state.public
    pool = [c for c in p.get("hand", []) if c in ("BJ", "RJ")] + [c for c in p.get("table", []) if c in ("BJ", "RJ")]
    for c in cards:
        if c in pool:
            pool.remove(c)
    out = pool[:n]
    return out + ["BJ"] * (n - len(out))


def parse(cat: Catalogue, st: CardStyle, state: TableState, text: str) -> dict[str, Any]:
    """The typed ``text`` as legal action data (see the module docstring). Raises InputError."""
    raw = text.strip()
    if not raw:
        raise InputError(cat("input.empty"))
    if "+" in raw:
        return _values(cat, st, state, [t for t in re.split(r"[\s+]+", raw) if t])
    tokens = [t for t in re.split(r"[\s,]+", raw) if t]
    head = tokens[0].lower()
    if head in END_WORDS and len(tokens) == 1:
        if _legal(state, "end"):
            return {"type": "end"}
        raise _why_not_end(cat, state)
    place = head in PLACE_WORDS
    if place:
        tokens = tokens[1:]
    cards: list[str] = []
    jokers = 0
    for tok in tokens:
        c = parse_card_token(tok, st.lang)
        if c is None:
            if not place and all(parse_value_token(t) is not None for t in tokens) and len(tokens) > 1:
                return _values(cat, st, state, tokens)
            raise InputError(cat("quinze.err.bad-card", token=tok))
        if c == ANY_JOKER:
            jokers += 1
        else:
            cards.append(canonical(c))
    cards += _pick_jokers(state, cards, jokers)
    if place:
        return _place(cat, st, state, cards)
    if len(cards) == 1:
        if _legal(state, "place"):
            return _place(cat, st, state, cards)
        if _legal(state, "fifteen"):
            raise InputError(cat("quinze.err.too-few"))
        raise InputError(cat("quinze.err.only-end"))
    if len(cards) == 2 and not _legal(state, "fifteen") and _legal(state, "place"):
        r0, r1 = (rank(parse_card(c)) for c in cards)
        if r0 == r1 and r0 in _FACE:  # a face pair: a placement (two other cards mean a fifteen)
            return _place(cat, st, state, cards)
    return _fifteen(cat, st, state, cards)


def completions(cat: Catalogue, st: CardStyle, state: TableState) -> list[str]:
    """Cards of the hand and the table as one types them, and the action words."""
    plain = CardStyle(st.lang, color=False)
    p = state.public
    cards = {plain.text(c).lower() for c in p.get("hand", []) + p.get("table", [])}
    words = {"place", "end"} if st.lang == "en" else {"poser", "fin"}
    return sorted(cards | words)
