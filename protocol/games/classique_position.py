"""Positions of Le Quinze classique: the whole state as JSON-compatible data, and back.

Format (documented in docs/positions.md, ``## quinze-classique``); cards are canonical text::

    {"game": "quinze-classique", "format": 1,
     "options": {players, cave, caves, ante, tours, max_coups},
     "rng": int (generator state),
     "caves": [int], "chips": [int], "in_match": [bool], "pot": int, "stakes": [int],
     "first_dealer": int, "dealer": int, "rounds": int, "coup": int,
     "deck": "black"|"red", "talon": [card, top first, bottom last], "discards": [card],
     "phase": "speak"|"raise"|"draw"|"over", "to_act": int|null,
     "status": [str], "hidden": [card|null], "face_up": [[card]],
     "opener": int|null, "high": int, "raised": bool, "acted": [int], "round_of": "opening"|"drawing",
     "end_reason": str|null, "shares": [int],
     "tally": {coups, all_passed, single_opener, last_in, showdowns, burns, raises, deck_changes}
              (optional counters for stats(); missing ones are 0)}

:func:`load` raises :class:`~quinze_protocol.game.PositionError` naming the field: chips non-negative,
chips conserved (chips + pot = sum of caves), cards of the deck in play (talon + discards + cards in
hands = exactly the 52 cards of that colour), statuses and phases consistent (quinze_cli/rules/quinze-classique.md).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from quinze_protocol.cards import card_text
from quinze_protocol.game import GameError, PositionError
from quinze_protocol.positions import card, check_int64, entries, need, rng_state, whole

__all__ = ["dump", "load"]

FORMAT = 1


def dump(g) -> dict[str, Any]:
    """The state of ``g`` (a ClassiqueGame) as position data."""
    return {
        "game": g.id,
        "format": FORMAT,
        "options": dict(g.options),
        "rng": g.rng.state,
        "caves": list(g.caves),
        "chips": list(g.chips),
        "in_match": list(g.in_match),
        "pot": g.pot,
        "stakes": list(g.stakes),
        "first_dealer": g.first_dealer,
        "dealer": g.dealer,
        "rounds": g.rounds,
        "coup": g.coup,
        "deck": g.deck,
        "talon": [card_text(c) for c in g.talon],
        "discards": [card_text(c) for c in g.discards],
        "phase": g.phase,
        "to_act": g.to_act,
        "status": list(g.status),
        "hidden": [card_text(c) if c is not None else None for c in g.hidden],
        "face_up": [[card_text(c) for c in cs] for cs in g.face_up],
        "opener": g.opener,
        "high": g.high,
        "raised": g.raised,
        "acted": list(g.acted),
        "round_of": g.round_of,
        "end_reason": g.end_reason,
        "shares": list(g.shares),
        "tally": dict(g.tally),
    }


def _card(v: Any, field: str) -> int:
    return card(v, field, no_jokers="no jokers in Le Quinze classique")


def load(cls, data: Mapping[str, Any]):
    """A ``cls`` game from position data. Raises PositionError naming the field and the reason."""
    from quinze_protocol.games.classique import IN_COUP, PHASES, STATUSES, TALLY_KEYS, colour_deck

    if not isinstance(data, Mapping):
        raise PositionError("a position is a map", field="position")
    check_int64(data)
    if need(data, "game") != cls.id:
        raise PositionError(f"expects {cls.id!r}, got {data['game']!r}", field="game")
    fmt = need(data, "format")
    if type(fmt) is not int or fmt != FORMAT:  # true == 1 in Python: not a format
        raise PositionError(f"unknown format {data['format']!r} (known: {FORMAT})", field="format")
    raw = need(data, "options")
    if not isinstance(raw, Mapping):
        raise PositionError("expects a map", field="options")
    try:
        opts = cls.validate_options(raw)
        cls.read_caves(opts)
    except GameError as err:
        raise PositionError(err.reason, field=f"options.{err.field}") from None
    n = opts["players"]
    g = cls.__new__(cls)
    g._blank(opts, [1] * n)
    g.rng = rng_state(data)
    g.caves = [whole(v, f"caves[{i}]", 1) for i, v in enumerate(entries(need(data, "caves"), "caves", n))]
    g.chips = [whole(v, f"chips[{i}]", 0) for i, v in enumerate(entries(need(data, "chips"), "chips", n))]
    g.stakes = [whole(v, f"stakes[{i}]", 0) for i, v in enumerate(entries(need(data, "stakes"), "stakes", n))]
    g.shares = [whole(v, f"shares[{i}]", 0) for i, v in enumerate(entries(need(data, "shares"), "shares", n))]
    g.in_match = list(entries(need(data, "in_match"), "in_match", n))
    for i, v in enumerate(g.in_match):
        if not isinstance(v, bool):
            raise PositionError(f"expects true or false, got {v!r}", field=f"in_match[{i}]")
    g.pot = whole(need(data, "pot"), "pot", 0)
    if sum(g.chips) + g.pot != sum(g.caves):
        raise PositionError(
            f"chips ({sum(g.chips)}) plus pot ({g.pot}) must equal the caves ({sum(g.caves)})", field="chips"
        )
    if sum(g.stakes) > g.pot:
        raise PositionError("the stakes of the coup exceed the pot", field="stakes")
    g.first_dealer = whole(need(data, "first_dealer"), "first_dealer", 0, n - 1)
    g.dealer = whole(need(data, "dealer"), "dealer", 0, n - 1)
    g.rounds = whole(need(data, "rounds"), "rounds", 0)
    g.coup = whole(need(data, "coup"), "coup", 0)
    g.deck = need(data, "deck")
    if g.deck not in ("black", "red"):
        raise PositionError(f"expects 'black' or 'red', got {g.deck!r}", field="deck")
    g.talon = [_card(v, f"talon[{i}]") for i, v in enumerate(entries(need(data, "talon"), "talon"))]
    g.discards = [_card(v, f"discards[{i}]") for i, v in enumerate(entries(need(data, "discards"), "discards"))]
    g.phase = need(data, "phase")
    if g.phase not in PHASES:
        raise PositionError(f"unknown phase {g.phase!r} (known: {', '.join(PHASES)})", field="phase")
    g.status = list(entries(need(data, "status"), "status", n))
    for i, st in enumerate(g.status):
        if st not in STATUSES:
            raise PositionError(f"unknown status {st!r} (known: {', '.join(STATUSES)})", field=f"status[{i}]")
        if (st == "out") == g.in_match[i]:
            raise PositionError("status 'out' exactly for seats out of the match", field=f"status[{i}]")
    g.hidden = [None if v is None else _card(v, f"hidden[{i}]")
                for i, v in enumerate(entries(need(data, "hidden"), "hidden", n))]
    g.face_up = [[_card(c, f"face_up[{i}][{j}]") for j, c in enumerate(entries(cs, f"face_up[{i}]"))]
                 for i, cs in enumerate(entries(need(data, "face_up"), "face_up", n))]
    g.opener = whole(need(data, "opener"), "opener", 0, n - 1, none=True)
    g.high = whole(need(data, "high"), "high", 0)
    g.raised = need(data, "raised")
    if not isinstance(g.raised, bool):
        raise PositionError(f"expects true or false, got {g.raised!r}", field="raised")
    g.acted = [whole(v, f"acted[{i}]", 0, n - 1) for i, v in enumerate(entries(need(data, "acted"), "acted"))]
    g.round_of = need(data, "round_of")
    if g.round_of not in ("opening", "drawing"):
        raise PositionError(f"expects 'opening' or 'drawing', got {g.round_of!r}", field="round_of")
    g.end_reason = need(data, "end_reason")
    if g.end_reason is not None and not isinstance(g.end_reason, str):
        raise PositionError("expects text or null", field="end_reason")
    tally = data.get("tally", {})
    if not isinstance(tally, Mapping):
        raise PositionError("expects a map of counters", field="tally")
    for key in TALLY_KEYS:
        g.tally[key] = whole(tally.get(key, 0), f"tally.{key}", 0)
    to_act = whole(need(data, "to_act"), "to_act", 0, n - 1, none=True)
    _check_phase(g, to_act, IN_COUP)
    deck = Counter(colour_deck(g.deck))
    used = Counter(g.talon) + Counter(g.discards) + Counter(c for c in g.hidden if c is not None)
    for cs in g.face_up:
        used.update(cs)
    for c, k in sorted(used.items()):
        if k > deck.get(c, 0):
            where = "talon" if c in g.talon else "discards" if c in g.discards else "hidden" if c in g.hidden else "face_up"
            raise PositionError(
                f"{card_text(c)} appears {k} times; the {g.deck} deck has {deck.get(c, 0)}", field=where
            )
    if sum(used.values()) != 52:
        raise PositionError(f"talon, discards and cards held make {sum(used.values())} cards, not 52", field="talon")
    g.turn = to_act
    return g


def _check_phase(g, to_act: int | None, in_coup: tuple[str, ...]) -> None:
    """Consistency of the phase with whose turn it is and the seats' statuses."""
    n = g.players
    if g.phase == "over":
        if to_act is not None:
            raise PositionError("nobody acts once the match is over", field="to_act")
        if g.end_reason is None:
            raise PositionError("an ended match needs its reason", field="end_reason")
        return
    if to_act is None:
        raise PositionError(f"phase {g.phase!r} needs a seat to act", field="to_act")
    if not g.in_match[g.dealer]:
        raise PositionError("the dealer must be in the match", field="dealer")
    for s in range(n):
        if g.in_match[s] and g.hidden[s] is None:
            raise PositionError("every player in the match holds a hidden card during a coup", field=f"hidden[{s}]")
        if not g.in_match[s] and (g.hidden[s] is not None or g.face_up[s]):
            raise PositionError("a seat out of the match holds no card", field=f"hidden[{s}]")
        if g.in_match[s] and g.stakes[s] > g.high:
            raise PositionError(f"stake above the highest stake {g.high}", field=f"stakes[{s}]")
    st = g.status[to_act]
    want = {"speak": ("waiting",), "raise": in_coup, "draw": ("hit",)}[g.phase]
    if st not in want:
        raise PositionError(f"seat {to_act} has status {st!r}; phase {g.phase!r} needs {' or '.join(want)}",
                            field="to_act")
    if g.phase != "speak":
        if g.opener is None or g.status[g.opener] in ("waiting", "passed", "out"):
            raise PositionError("the opener must be a seat that opened", field="opener")
        if "waiting" in g.status:
            raise PositionError("nobody waits to speak after the speaking round", field="status")
        if sum(1 for s in g.status if s in in_coup) < 2:
            raise PositionError("at least two players are in the coup after the speaking round", field="status")
    for s in g.acted:
        if g.status[s] not in in_coup:
            raise PositionError(f"seat {s} is not in the coup", field="acted")
