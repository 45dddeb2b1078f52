"""Le Quinze positions: the whole state as JSON data, and loading it back with validation.

Format (documented for people in docs/positions.md, section ``## quinze``)::

    {
      "game": "quinze", "format": 1,
      "options": {"players": 2, "target": 100, "quick_place": false, "max_turns": 1000},
      "rng": 1234567,                 # generator state (quinze_protocol.rng.Rng.state)
      "deal": 1,                      # deal number, 1-based
      "dealer": 0,
      "to_act": 1,                    # seat whose decision it is; null once over
      "phase": "fifteen",             # fifteen | place | more | placed | over (optional: derived)
      "turn": {"fifteens": 0, "used_table": false, "actions": []},   # what was done this turn
                                      # (actions optional; left out when not known, see _turn)
      "turns": 1,                     # turns started in this deal (max_turns counts these)
      "seat_turns": [0, 1],           # turns each seat started in this deal (first-turn -50)
      "hands": [["7H", ...], ...],    # every hand, by seat
      "table": ["8C"],
      "discard": ["..."],             # bottom first
      "stock": ["..."],               # TOP FIRST: stock[0] is the next card drawn
      "totals": [0, 0],               # match totals in points
      "history": [{"deal", "reason", "seat", "scores", "turns"}]   # finished deals (optional)
    }

The draw of the turn in progress has already happened (positions are taken at decisions).
Loading checks (PositionError naming the field): types; options (``options.target``); seats in
range; the card multiset of hands + table + discard + stock is exactly the deck(s) in play
(one 54-card deck for 2–4 players, two for 5–8: quinze_cli/rules/quinze.md "Material"); every hand non-empty
while the match runs and the seat to act holds at least two cards in phases ``fifteen`` and
``place`` (the draw is done; quinze_cli/rules/quinze.md "A turn"); ``phase`` consistent with the cards and the
turn: ``fifteen`` when a fifteen exists and none was made yet, ``place`` when none exists,
``more`` after a fifteen, ``placed`` only with ``quick_place``; counters non-negative. Maximum
hand sizes are not checked (test positions may hold more cards than a deal gives).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from quinze_protocol.cards import card_text
from quinze_protocol.game import GameError, PositionError, Result
from quinze_protocol.games.quinze_actions import Fifteen, parse_quinze_action
from quinze_protocol.games.quinze_legal import fifteens
from quinze_protocol.positions import cards, check_int64, rng_state, whole_at

__all__ = ["dump", "load"]

_TEXT = tuple(card_text(c) for c in range(54))


def dump(g: Any) -> dict[str, Any]:
    """The state of a :class:`~quinze_protocol.games.quinze.QuinzeGame` as position data."""
    return {
        "game": "quinze",
        "format": 1,
        "options": dict(g.options),
        "rng": g.rng.state,
        "deal": g.deal_no,
        "dealer": g.dealer,
        "to_act": g.to_act,
        "phase": g.phase,
        "turn": _turn(g),
        "turns": g.turns,
        "seat_turns": list(g.seat_turns),
        "hands": [[_TEXT[c] for c in h] for h in g.hands],
        "table": [_TEXT[c] for c in g.table],
        "discard": [_TEXT[c] for c in g.discard],
        "stock": [_TEXT[c] for c in reversed(g.stock)],
        "totals": list(g.totals),
        "history": [dict(d, scores=list(d["scores"])) for d in g.history],
    }


def _turn(g: Any) -> dict[str, Any]:
    """``turn`` of a position: ``actions`` only when the whole turn is known (a game loaded from
    a position without ``turn.actions`` does not know what was done before, until its next turn),
    so that a dumped position always loads again."""
    turn: dict[str, Any] = {"fifteens": g.fifteens_made, "used_table": g.used_table}
    if g.turn_known:
        turn["actions"] = [a.to_data() for a in g.turn_actions]
    return turn


def load(cls: Any, data: Mapping[str, Any]) -> Any:
    """A game of class ``cls`` from position ``data``; raises PositionError naming the field."""
    if not isinstance(data, Mapping):
        raise PositionError(f"a position is a map, not {type(data).__name__}", field="position")
    check_int64(data)
    if data.get("game", "quinze") != "quinze":
        raise PositionError(f"this is a {data.get('game')!r} position, not quinze", field="game")
    fmt = data.get("format", 1)  # optional: hand-written positions may leave it out
    if type(fmt) is not int or fmt != 1:
        raise PositionError(f"expects format 1, got {fmt!r}", field="format")
    opts = data.get("options")
    if not isinstance(opts, Mapping):
        raise PositionError("missing or not a map", field="options")
    try:
        options = cls.validate_options(opts)
    except GameError as err:
        raise PositionError(err.reason, field=f"options.{err.field}") from None
    g = cls()
    g._set_options(options)
    n = g.n
    g.rng = rng_state(data)
    g.deal_no = whole_at(data, "deal", 1)
    g.dealer = whole_at(data, "dealer", 0, n - 1)

    hands = data.get("hands")
    if not isinstance(hands, list):
        raise PositionError("missing or not a list of hands", field="hands")
    if len(hands) != n:
        raise PositionError(f"expects {n} hands (one per seat), got {len(hands)}", field="hands")
    g.hands = [sorted(cards(h, f"hands[{s}]")) for s, h in enumerate(hands)]
    g.table = sorted(cards(data.get("table", []), "table"))
    g.discard = cards(data.get("discard", []), "discard")
    g.stock = list(reversed(cards(data.get("stock", []), "stock")))

    have = Counter(c for h in g.hands for c in h)
    have.update(g.table)
    have.update(g.discard)
    have.update(g.stock)
    for c in range(54):
        if have[c] != g.decks:
            where = ("one 54-card deck" if g.decks == 1 else "two 54-card decks") + f" for {n} players"
            raise PositionError(f"{_TEXT[c]} appears {have[c]} times; the cards must be exactly {where}", field="cards")

    totals = data.get("totals")
    if not isinstance(totals, list) or len(totals) != n or not all(isinstance(t, int) and not isinstance(t, bool) for t in totals):
        raise PositionError(f"expects {n} whole numbers", field="totals")
    g.totals = list(totals)
    history = data.get("history", [])
    if not isinstance(history, list) or not all(isinstance(d, Mapping) for d in history):
        raise PositionError("expects a list of finished deals", field="history")
    try:
        g.history = [
            {"deal": int(d["deal"]), "reason": str(d["reason"]), "seat": d.get("seat"),
             "scores": [int(x) for x in d["scores"]], "turns": int(d["turns"])}
            for d in history
        ]
    except (KeyError, TypeError, ValueError) as err:
        raise PositionError(f"a finished deal needs deal, reason, scores, turns ({err})", field="history") from None

    g.turns = whole_at(data, "turns", 0)
    seat_turns = data.get("seat_turns", [0] * n)
    if not isinstance(seat_turns, list) or len(seat_turns) != n or not all(
            isinstance(t, int) and not isinstance(t, bool) and t >= 0 for t in seat_turns):
        raise PositionError(f"expects {n} whole numbers >= 0", field="seat_turns")
    g.seat_turns = list(seat_turns)
    turn = data.get("turn", {"fifteens": 0, "used_table": False})
    if not isinstance(turn, Mapping):
        raise PositionError("expects a map {fifteens, used_table}", field="turn")
    g.fifteens_made = whole_at(turn, "fifteens", 0, where="turn.")
    used = turn.get("used_table", False)
    if not isinstance(used, bool):
        raise PositionError("expects true or false", field="turn.used_table")
    g.used_table = used
    acts = turn.get("actions", [])
    if not isinstance(acts, list):
        raise PositionError("expects a list of actions", field="turn.actions")
    g.turn_actions = []
    for i, a in enumerate(acts):
        try:
            g.turn_actions.append(parse_quinze_action(a))
        except GameError as err:
            raise PositionError(err.reason, field=f"turn.actions[{i}]" + (f".{err.field}" if err.field else "")) from None
    if "actions" in turn and sum(1 for a in g.turn_actions if a[0] == "fifteen") != g.fifteens_made:
        raise PositionError("the fifteens listed in turn.actions must number turn.fifteens", field="turn.actions")
    g.turn_known = "actions" in turn or g.fifteens_made == 0

    phase = data.get("phase")
    to_act = data.get("to_act")
    if phase == "over" or (phase is None and to_act is None):
        if to_act is not None:
            raise PositionError("must be null once the game is over", field="to_act")
        if max(g.totals) < g.target:
            raise PositionError(f"the game is over only when a total reaches the target {g.target}", field="phase")
        best = min(g.totals)
        g._result = Result.from_winners([s for s in range(n) if g.totals[s] == best], list(g.totals), "target")
        g.phase = "over"
        g._fif = []
        return g
    g.seat = whole_at(data, "to_act", 0, n - 1)
    for s, h in enumerate(g.hands):
        if not h:
            raise PositionError("a hand is never empty while the match runs", field=f"hands[{s}]")
    hand = g.hands[g.seat]
    fif = fifteens(hand, g.table, Fifteen)
    if g.fifteens_made == 0:
        derived = "fifteen" if fif else "place"
        if phase is not None and phase != derived:
            why = "a fifteen can be made" if fif else "no fifteen can be made"
            raise PositionError(f"must be {derived!r}: no fifteen made this turn and {why}", field="phase")
        if len(hand) < 2:
            raise PositionError("the seat to act has drawn, so holds at least two cards", field=f"hands[{g.seat}]")
        if g.used_table:
            raise PositionError("no fifteen was made this turn, so no table card was used", field="turn.used_table")
        phase = derived
    else:
        if phase is None:
            phase = "more"
        if phase not in ("more", "placed"):
            raise PositionError(f"after a fifteen the phase is 'more' or 'placed', not {phase!r}", field="phase")
        if phase == "placed" and not (g.quick_place and g.used_table):
            raise PositionError("'placed' needs the quick_place option and a fifteen that used a table card", field="phase")
    g.phase = phase
    g.to_act = g.seat
    g.is_over = False
    g._fif = fif if phase in ("fifteen", "more") else []
    return g
