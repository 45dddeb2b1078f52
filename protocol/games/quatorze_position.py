"""Le 14 (``quatorze``): positions — the complete state as JSON-compatible data, and its validation.

The format is documented in docs/positions.md, section ``## quatorze``. In short::

    {"game": "quatorze", "format": 1,
     "options": {"players": 2, "max_turns": 1000},
     "rng": 1234567,                      # generator state (0 .. 2**64-1)
     "to_act": 0,                         # seat whose decision it is; null once over
     "phase": "draw" | "combine" | "substitute" | "over",
     "no_draw": null | "whole-hand" | "nothing-to-draw",
     "turns": 0,                          # completed turns (max_turns counts these)
     "substitutions": 0,                  # substitutions made this turn (optional, default 0)
     "hands": [["AS", ...], ...],         # per seat
     "packets": [[["2H", ...], ...], ...],# per seat, packets still face down, next first (4, 3, 2 cards)
     "table": [["5H", "9C"], ...],        # combinations, in the order laid
     "discard": ["7D", ...],              # bottom .. top
     "stock": ["KC", ...],                # TOP FIRST: stock[0] is the next card drawn
     "winners": [] , "end_reason": null}  # once over: the winners and "out" | "max-turns"

:func:`load` raises :class:`PositionError` with ``field`` naming the culprit (``hands.1[2]``,
``packets.0``, ``table[3]``, ``phase`` ...). Source: quinze_cli/rules/quatorze.md.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from quinze_protocol.cards import card_text, cards_text
from quinze_protocol.game import GameError, PositionError
from quinze_protocol.games.quatorze_actions import sort_cards, value
from quinze_protocol.games.quatorze_legal import can_lay_whole_hand
from quinze_protocol.positions import cards, check_int64, entries, need, rng_state, whole_at

if TYPE_CHECKING:
    from quinze_protocol.games.quatorze import QuatorzeGame

__all__ = ["dump", "load"]

FORMAT = 1
_PHASES = ("draw", "combine", "substitute", "over")
_NO_DRAW = (None, "whole-hand", "nothing-to-draw")
_REASONS = ("out", "max-turns")
_LATER_PACKETS = (4, 3, 2)


def dump(g: "QuatorzeGame") -> dict[str, Any]:
    """The position of ``g`` (see the module docstring)."""
    return {
        "game": "quatorze",
        "format": FORMAT,
        "options": dict(g.options),
        "rng": g.rng.state,
        "to_act": g.to_act,
        "phase": g.phase,
        "no_draw": g.no_draw,
        "turns": g.turns,
        "substitutions": g.substitutions if g.phase == "substitute" else 0,
        "hands": [cards_text(h) for h in g.hands],
        "packets": [[cards_text(p) for p in ps] for ps in g.packets],
        "table": [cards_text(c) for c in g.table],
        "discard": cards_text(g.discard),
        "stock": cards_text(reversed(g.stock)),
        "winners": list(g.winners),
        "end_reason": g.end_reason,
    }


def _cards(v: Any, name: str) -> list[int]:
    return cards(v, name, no_jokers="Le 14 is played without jokers")


def load(cls: "type[QuatorzeGame]", data: Mapping[str, Any]) -> "QuatorzeGame":
    """A ``cls`` game from position ``data``, fully validated first. Raises :class:`PositionError`."""
    if not isinstance(data, Mapping):
        raise PositionError(f"a position is a map, got {type(data).__name__}", field="position")
    check_int64(data)
    if data.get("game") != "quatorze":
        raise PositionError(f"expects 'quatorze', got {data.get('game')!r}", field="game")
    fmt = data.get("format", FORMAT)
    if type(fmt) is not int or fmt != FORMAT:  # true == 1 in Python: not a format
        raise PositionError(f"expects format {FORMAT}, got {data.get('format')!r}", field="format")
    raw_opts = need(data, "options")
    if not isinstance(raw_opts, Mapping):
        raise PositionError("expects a map of table options", field="options")
    try:
        options = cls.validate_options(raw_opts)
    except GameError as err:
        raise PositionError(err.reason, field=f"options.{err.field}") from None
    n = options["players"]
    rng = rng_state(data)
    phase = need(data, "phase")
    if phase not in _PHASES:
        raise PositionError(f"expects one of {', '.join(_PHASES)}, got {phase!r}", field="phase")
    if phase == "over":
        if data.get("to_act") is not None:
            raise PositionError("a finished game has no seat to act (null)", field="to_act")
        seat = None
    else:
        seat = whole_at(data, "to_act", 0, n - 1)
    no_draw = data.get("no_draw")
    if no_draw not in _NO_DRAW:
        raise PositionError(f"expects null, 'whole-hand' or 'nothing-to-draw', got {no_draw!r}", field="no_draw")
    turn = whole_at(data, "turns", 0, options["max_turns"])
    subs = whole_at(data, "substitutions", 0, options["max_substitutions"]) if "substitutions" in data else 0
    if subs and phase != "substitute":
        raise PositionError("substitutions are counted only in the substitute phase", field="substitutions")

    hands = [_cards(h, f"hands.{s}") for s, h in enumerate(entries(need(data, "hands"), "hands", n))]
    packets: list[list[list[int]]] = []
    for s, ps in enumerate(entries(need(data, "packets"), "packets", n)):
        ps = entries(ps, f"packets.{s}")
        got = [_cards(p, f"packets.{s}[{i}]") for i, p in enumerate(ps)]
        want = _LATER_PACKETS[len(_LATER_PACKETS) - len(got) :] if len(got) <= len(_LATER_PACKETS) else None
        if want is None or tuple(len(p) for p in got) != want:
            raise PositionError(
                f"packets still face down are the last of 4, 3, 2 cards in that order, got sizes {[len(p) for p in got]}",
                field=f"packets.{s}",
            )
        packets.append(got)
    table = [_cards(c, f"table[{i}]") for i, c in enumerate(entries(need(data, "table"), "table"))]
    for i, comb in enumerate(table):
        if len(comb) < 2 or sum(value(c) for c in comb) != 14:
            raise PositionError(
                f"a combination is at least two cards adding up to 14, got {'+'.join(cards_text(comb))}", field=f"table[{i}]"
            )
    discard = _cards(need(data, "discard"), "discard")
    stock = _cards(need(data, "stock"), "stock")[::-1]  # stored bottom .. top

    every = Counter(c for h in hands for c in h)
    every.update(c for ps in packets for p in ps for c in p)
    every.update(c for comb in table for c in comb)
    every.update(discard)
    every.update(stock)
    for c in range(52):
        if every[c] != 2:
            raise PositionError(
                f"{card_text(c)} appears {every[c]} time(s): the cards must be exactly two 52-card decks", field="cards"
            )

    winners: list[int] = []
    end_reason = data.get("end_reason")
    if phase == "over":
        winners = entries(data.get("winners"), "winners")
        if not winners or any(not isinstance(w, int) or isinstance(w, bool) or not 0 <= w < n for w in winners):
            raise PositionError(f"expects a non-empty list of seats 0..{n - 1}", field="winners")
        if end_reason not in _REASONS:
            raise PositionError(f"expects 'out' or 'max-turns', got {end_reason!r}", field="end_reason")
        if end_reason == "out" and (len(winners) != 1 or hands[winners[0]] or packets[winners[0]]):
            raise PositionError("a game won by going out has one winner with no card left", field="winners")
    else:
        assert seat is not None, "read above for a game in play"
        if end_reason is not None:
            raise PositionError("a game still in play has no end reason", field="end_reason")
        if data.get("winners"):
            raise PositionError("a game still in play has no winners", field="winners")
        if turn >= options["max_turns"]:
            raise PositionError(f"must be below max_turns ({options['max_turns']}) while in play", field="turns")
        for s, h in enumerate(hands):
            if not h:
                raise PositionError("a hand is never empty while the game is in play (the next packet is taken up)", field=f"hands.{s}")
        if no_draw == "whole-hand" and not can_lay_whole_hand(hands[seat]):
            raise PositionError("no_draw 'whole-hand' needs a hand that can be laid whole as combinations", field="no_draw")
        if no_draw == "whole-hand" and phase != "combine":
            raise PositionError("a player who must lay the whole hand is in the combine phase", field="phase")
        if phase == "draw":
            if no_draw is not None:
                raise PositionError("no_draw is set only once the draw was skipped", field="no_draw")
            if not stock and not discard:
                raise PositionError("the draw phase needs a card in the stock or the discard pile", field="phase")
            if can_lay_whole_hand(hands[seat]):
                raise PositionError("a player whose whole hand can be laid must not draw (quinze_cli/rules/quatorze.md)", field="phase")

    g = cls()
    g.options = options
    g.rng = rng
    g.seat = seat
    g.phase = phase
    g.to_act = None if phase == "over" else seat
    g.is_over = phase == "over"
    g.no_draw = no_draw if phase != "over" else None
    g.turns = turn
    g.substitutions = subs
    g.hands = [list(sort_cards(h)) for h in hands]
    g.packets = packets
    g.table = [list(sort_cards(c)) for c in table]
    g.discard = discard
    g.stock = stock
    g.winners = tuple(sorted(winners))
    g.end_reason = end_reason if phase == "over" else None
    g.opening_events = []
    return g
