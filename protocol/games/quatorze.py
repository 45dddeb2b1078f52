"""Le 14 (game id ``quatorze``): the engine. Source: quinze_cli/rules/quatorze.md.

Material ("Material and values"): 2–4 players, two 52-card decks without jokers (104 cards,
identical cards are the same number and interchangeable); A 1, 2–10, J 11, Q 12, K 13.

Set-up ("Set-up"): the 104 cards are shuffled by the game's seeded :class:`~quinze_protocol.rng.Rng`;
each seat is dealt four face-down packets of 5, 4, 3 and 2 cards (for each size in that order,
seat 0 first, from the top of the deck); the rest is the stock; its top card is turned face up to
start the discard pile; then the first player is drawn by the same generator. Each seat takes up
its 5-card packet as its hand; the next packets (4, 3, 2) are taken up, in that order, whenever the
hand becomes empty. Nobody sees a packet's cards before taking it up, its owner included.

Phase model ("Your turn"; one ``phase`` at a time, shown in every view):

- ``draw``: the legal actions are ``draw`` from the stock and/or from the discard pile. The stock
  can be drawn from when it holds a card or when the discard pile holds at least two: drawing
  from an empty stock first shuffles the discard pile except its top card into a new stock (event
  ``reshuffle`` before the ``draw``; phase 1). At the start of a turn:

  * a player whose whole hand can be laid as combinations — possibly several — must not draw and
    must lay the whole hand (phase 1 [decision]): the turn starts directly in ``combine``
    (event ``no-draw``, reason ``whole-hand``); the legal actions are the combinations after
    which the rest of the hand can still be laid whole; a ``draw`` is refused with code
    ``must-not-draw``, a substitution or a discard with ``must-lay-whole-hand``;
  * if there is nothing to draw — the stock and the discard pile are both empty — the draw is
    skipped and the turn starts in ``combine`` (event ``no-draw``, reason ``nothing-to-draw``;
    phase 1 [decision]). The game goes on; ``max_turns`` still bounds it.
- ``combine``: lay combinations (``combine``, any number), or make a substitution (moves to
  ``substitute``), or ``discard`` (ends the turn). Combinations come before substitutions (
  "in this order"), so no ``combine`` once a substitution was made (code ``wrong-phase``).
- ``substitute``: further substitutions, or ``discard``.

There is no separate "done" action: the discard both leaves phases 2–3 and ends the turn.

- If laying a combination empties the hand, the turn ends at once — no substitution, no discard —
  and the player takes up their next packet ([decision]).
- If the discard empties the hand, the player takes up their next packet.
- A player whose hand becomes empty with no packet left has played their 14th card and wins at once
  (reason ``out``).
- After ``max_turns`` completed turns (table option, default 1000) the game ends: fewest cards left
  (hand + packets) wins, equal fewest share the point (reason ``max-turns``, [decision]).
- Substitutions (phase 3) are "any number" in the rules; as written a player can swap the same
  cards back and forth for ever inside one turn (a hand card for two, then the two for it), which
  no turn limit or move clock stops. Safety decision, like ``max_turns``: at most
  ``max_substitutions`` (table option, default 20) substitutions in one turn; after that only the
  discard remains (code ``too-many-substitutions``).
- Result ("Your turn", score): :meth:`Result.from_winners` with ``scores`` = cards left per seat.

Events (``kind``: public fields; private per seat):

- ``setup``: ``players``, ``first``, ``packets`` (sizes still face down per seat), ``stock`` (size),
  ``discard`` (the turned-up card); private: ``hand`` (the seat's own 5 cards).
- ``draw``: ``seat``, ``from``, ``stock`` (size after the draw); ``card`` public when from the discard pile, private when from the stock.
- ``no-draw``: ``seat``, ``reason`` (``whole-hand`` or ``nothing-to-draw``).
- ``reshuffle``: ``stock`` (new size), ``discard`` (what is left: its top card).
- ``combine``: ``seat``, ``cards``, ``combination`` (its index on the table).
- ``substitute``: ``seat``, ``substitution`` (the action's ``kind``: ``hand-for-two``, ``two-for-one``
  or ``between``) and the action's other fields (``hand``, ``combination``, ``cards``, ...).
- ``discard``: ``seat``, ``card``.
- ``take-up``: ``seat``, ``size``, ``packets_left``; private: ``cards``.
- ``game-end``: ``reason``, ``winners``, ``cards_left``, ``result`` (:meth:`Result.to_data`).

Actions and their data: :mod:`quinze_protocol.games.quatorze_actions`. Positions:
:mod:`quinze_protocol.games.quatorze_position` and docs/positions.md ``## quatorze``.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Callable, Mapping
from typing import Any

from quinze_protocol import caches as _caches
from quinze_protocol.cards import card_text, cards_text, deck
from quinze_protocol.game import Action, Event, Game, Option, Result, register_game
from quinze_protocol.games import quatorze_pick as _pick
from quinze_protocol.games import quatorze_position
from quinze_protocol.games.quatorze_actions import ORDER_KEY as _ORDER_KEY
from quinze_protocol.games.quatorze_actions import Combine, Discard, Draw, Substitute, parse_action, sort_cards
from quinze_protocol.games.quatorze_legal import (
    apply_substitute,
    can_lay_whole_hand,
    canonical_combinations,
    check_action,
    substitute,
    whole_hand_combinations,
)
from quinze_protocol.games.quatorze_index import DISCARDS as _DISCARDS
from quinze_protocol.games.quatorze_index import _INFO, Info, TableIndex, info, listing
from quinze_protocol.games.quatorze_observer import QuatorzeObserver
from quinze_protocol.games.quinze_shuffle import shuffle as _shuffle  # exactly Rng.shuffle, faster
from quinze_protocol.rng import Rng

__all__ = ["PACKET_SIZES", "QuatorzeGame", "Substitute", "apply_substitute", "parse_action"]

PACKET_SIZES = (5, 4, 3, 2)
"""Sizes of each seat's packets in the order they are taken up (quinze_cli/rules/quatorze.md "Set-up")."""

PHASES = ("draw", "combine", "substitute", "over")
_tnew = tuple.__new__
_NOPRIV = Event._field_defaults["private"]
"""Events are built as ``_tnew(Event, (kind, public, private))``, the value of ``Event(kind,
public, private)`` in one call (:mod:`quinze_protocol.games.events`); ``_NOPRIV``: no private field."""
_DRAW_STOCK, _DRAW_DISCARD = Draw("stock"), Draw("discard")
_info_get = _INFO.get
"""The look-up of :func:`~quinze_protocol.games.quatorze_index.info`'s cache (cleared in place,
never replaced): a hit without the call."""
_TEXT = tuple(card_text(c) for c in range(54))
"""``_TEXT[c]`` is ``card_text(c)``."""
_EVENTS: dict[int, Event] = {}
"""The draw and discard events, by a number naming each (:meth:`QuatorzeGame._play`; its low two
bits: 0 discard, 1 draw from the stock, 2 draw from the discard pile): they hold
only numbers and text and are never changed, so one value serves every game (as the actions do)."""


@register_game
class QuatorzeGame(Game):
    """Le 14 (quinze_cli/rules/quatorze.md). See the module docstring for the phase model and events."""

    id = "quatorze"
    listed_legal = True  # every listed action is legal as it stands (Game.listed_legal)
    title = "Le 14"
    score_label = "Cards left"
    score_meaning = "the mean number of cards left per game"
    score_aggregate = "mean"
    lower_is_better = True
    hint_bot = "greedy"
    observer = QuatorzeObserver
    private_fields = {"setup": ("hand",), "draw": ("card",), "take-up": ("cards",)}
    rules_version = 2
    """2: the stock is refilled at the draw (also from a loaded position), and who can lay the
    whole hand must lay it (1: the refill at the start of the turn; the hand could be discarded)."""
    min_players = 2
    max_players = 4
    option_specs = (
        Option("max_turns", int, 1000, "safety: the game ends after this many turns (fewest cards left wins)", 1, 1_000_000),
        Option(
            "max_substitutions",
            int,
            20,
            "safety: substitutions allowed in one turn (then only the discard remains)",
            0,
            1_000_000,
        ),
    )

    def __init__(self) -> None:
        self.options: dict[str, Any] = {}
        self.record_events = True  # Game's default, held by the game itself: read at every action (see to_act below)
        self.opening_events: list[Event] = []
        self.rng = Rng(0)
        self.hands: list[list[int]] = []
        self.packets: list[list[list[int]]] = []
        self.table: list[list[int]] = []
        self.discard: list[int] = []  # bottom .. top
        self.stock: list[int] = []  # bottom .. top
        self.seat: int | None = None
        self.phase = "draw"
        self.to_act = None
        self.is_over = False
        self.no_draw: str | None = None
        self.turns = 0  # completed turns (max_turns counts these)
        self.substitutions = 0  # substitutions made this turn (max_substitutions bounds them)
        self.winners: tuple[int, ...] = ()
        self.end_reason: str | None = None
        self._tix: TableIndex | None = None  # the index of the table; None when it changed (built when needed)
        self._infos: list[Info] | None = None  # per combination of the table, its quatorze_index.info (None: not made yet)
        self._changed: tuple[int, ...] = ()  # combinations changed or laid since _tix was built
        self._hand: tuple[list[int], _pick.Hand] | None = None  # the hand to act (the list itself) and its summary
        self._tally: _pick.Tally | None = None  # the table's tally (None: not made yet), moved with the table

    # ------------------------------------------------------------------ creation

    @classmethod
    def new(cls, options: Mapping[str, Any], seed: int) -> "QuatorzeGame":
        """A new game (quinze_cli/rules/quatorze.md "Set-up"). Raises :class:`OptionError`."""
        g = cls()
        g.options = cls.validate_options(options)
        g.rng = Rng(seed)
        n = g.players
        cards = deck(jokers=False) + deck(jokers=False)
        _shuffle(g.rng, cards)
        g.packets = [[] for _ in range(n)]
        for size in PACKET_SIZES:
            for s in range(n):
                g.packets[s].append(list(sort_cards(cards[-size:])))
                del cards[-size:]
        g.stock = cards
        g.discard = [g.stock.pop()]
        g.hands = [p.pop(0) for p in g.packets]
        first = g.rng.below(n)
        events = [
            _tnew(Event, (
                "setup",
                {
                    "players": n,
                    "first": first,
                    "packets": [[len(p) for p in ps] for ps in g.packets],
                    "stock": len(g.stock),
                    "discard": card_text(g.discard[-1]),
                },
                {s: {"hand": cards_text(g.hands[s])} for s in range(n)},
            ))
        ]
        g._start_turn(first, events)
        g.opening_events = events
        return g

    @classmethod
    def from_position(cls, data: Mapping[str, Any]) -> "QuatorzeGame":
        """A game from position data (docs/positions.md ``## quatorze``). Raises :class:`PositionError`."""
        return quatorze_position.load(cls, data)

    def to_position(self) -> dict[str, Any]:
        """The complete state (docs/positions.md ``## quatorze``), generator state included."""
        return quatorze_position.dump(self)

    def copy(self) -> "QuatorzeGame":
        """An independent copy (see :meth:`quinze_protocol.game.Game.copy`): hands, packets, the
        table's combinations (and the list of their infos), the piles and the generator are
        copied; options, events and the table's index are shared (never changed in place)."""
        g = object.__new__(type(self))
        d = g.__dict__
        d.update(self.__dict__)
        d["rng"] = Rng.from_state(self.rng.state)
        d["hands"] = [h[:] for h in self.hands]
        d["packets"] = [ps[:] for ps in self.packets]  # a packet is replaced whole, never changed
        d["table"] = [c[:] for c in self.table]
        if self._infos is not None:
            d["_infos"] = self._infos[:]
        h = self._hand
        if h is not None and self.seat is not None and h[0] is self.hands[self.seat]:
            d["_hand"] = (d["hands"][self.seat], h[1])  # the summary holds for the copy's own list
        d["discard"] = self.discard[:]
        d["stock"] = self.stock[:]
        return g

    # ------------------------------------------------------------------ queries

    # ``to_act`` (the seat to act, None once over) and ``is_over`` (True once somebody played their
    # 14th card or ``max_turns`` was reached), Game's properties, are plain attributes here, set
    # where the seat changes (_start_turn) or the game ends (_finish), and by a loaded position:
    # they are read before every decision, and a property's call costs more than the rest of a draw.
    to_act: int | None = None
    is_over: bool = False

    def cards_left(self) -> list[int]:
        """Per seat: cards in hand plus cards in packets not yet taken up (quinze_cli/rules/quatorze.md safety rule)."""
        return [len(h) + sum(len(p) for p in ps) for h, ps in zip(self.hands, self.packets)]

    def result(self) -> Result | None:
        """Winner 1 point (shared when tied), scores = cards left per seat (quinze_cli/rules/quatorze.md)."""
        if self.phase != "over":
            return None
        return Result.from_winners(self.winners, [float(x) for x in self.cards_left()], self.end_reason or "out")

    def legal_actions(self) -> list[Action]:
        """Every legal action of the seat to act, each once (see the module's phase model)."""
        if self.phase == "over":
            return []
        if self.phase == "draw":
            out: list[Action] = []
            if self.stock or len(self.discard) >= 2:  # an empty stock is refilled at the draw
                out.append(_DRAW_STOCK)
            if self.discard:
                out.append(_DRAW_DISCARD)
            return out
        seat = self.seat
        assert seat is not None, "somebody acts until the game is over"
        hand = self.hands[seat]
        if self.no_draw == "whole-hand":
            return list(whole_hand_combinations(hand))
        if self.substitutions < self.options["max_substitutions"]:
            # the combinations first (a new list), then substitutions and discards
            return listing(self._index(), hand, canonical_combinations(hand) if self.phase == "combine" else [])
        acts: list[Any] = canonical_combinations(hand) if self.phase == "combine" else []
        acts.extend(map(_DISCARDS.__getitem__, dict.fromkeys(hand)))  # the hand is kept in canonical order
        return acts

    def _index(self) -> TableIndex:
        """The table's index, made again (from the last one) when the table changed."""
        tix = self._tix
        if tix is None:
            infos = self._infos
            if infos is None:
                infos = self._infos = [info(tuple(c)) for c in self.table]
            tix = self._tix = TableIndex(infos=infos)
        elif self._changed:
            tix = self._tix = TableIndex(infos=self._infos, prev=tix, changed=self._changed)
            self._changed = ()
        return tix

    def legal_count(self) -> int:
        """``len(legal_actions())``, counted without the list in the combine and substitute phases
        (:mod:`quinze_protocol.games.quatorze_pick`)."""
        c = _pick.counted(self)
        return len(self.legal_actions()) if c is None else c[5][3]

    def legal_action(self, i: int) -> Action:
        """``legal_actions()[i]``, built alone in the combine and substitute phases. Raises
        :class:`IndexError` as :meth:`Game.legal_action` does."""
        c = _pick.counted(self)
        if c is None or not 0 <= i < c[5][3]:
            return Game.legal_action(self, i)
        return _pick.nth(*c, i)

    def legal_pick(self, pick: Callable[[int], int]) -> Action:
        """``legal_action(pick(legal_count()))``, counted once (see :meth:`Game.legal_pick`)."""
        if self.phase == "draw":  # the stock first, as listed
            stock = bool(self.stock or len(self.discard) >= 2)
            n = stock + bool(self.discard)
            i = pick(n)
            if 0 <= i < n:
                return _DRAW_STOCK if stock and not i else _DRAW_DISCARD
            return Game.legal_action(self, i)
        c = _pick.counted(self)
        if c is None:
            return Game.legal_pick(self, pick)
        n = c[5][3]
        i = pick(n)
        if not 0 <= i < n:
            return Game.legal_action(self, i)
        return _pick.nth(*c, i)

    @classmethod
    def parse_action(cls, data: Mapping[str, Any]) -> Action:
        """Action data read into an action (:func:`quinze_protocol.games.quatorze_actions.parse_action`).
        Raises :class:`ActionError` naming the field."""
        return parse_action(data)

    # ------------------------------------------------------------------ checks

    def check(self, a: Action) -> None:
        """Raise :class:`IllegalAction` (stable code, reason in words) unless ``a`` is legal now
        (:func:`quinze_protocol.games.quatorze_legal.check_action`)."""
        check_action(self, a)

    # ------------------------------------------------------------------ play

    def _play(self, a: Action) -> list[Event]:
        """Play the legal action ``a`` for the seat to act; the events it produced, the automatic
        steps that follow included (take-up, next turn's no-draw, game-end). :meth:`check` gives
        the refusal codes: ``game-over``, ``must-not-draw``, ``must-lay-whole-hand``,
        ``nothing-to-draw``, ``must-draw``, ``wrong-phase``, ``empty-stock``, ``empty-discard``,
        ``card-not-held``, ``not-fourteen``, ``no-such-combination``, ``same-combination``,
        ``combination-too-small``, ``card-not-in-combination``, ``too-many-substitutions``,
        ``unknown-action``.
        """
        seat = self.seat
        assert seat is not None
        hand = self.hands[seat]
        events: list[Event] | None = [] if self.record_events else None
        if type(a) is Substitute:
            kind, i, held, cards, j, card = a  # one unpacking: a named tuple's field read costs more
            table = self.table
            if kind != "between":
                self._hand = None  # else the hand is unchanged: its summary still holds
            substitute(hand, table, kind, i, held, cards, j, card)
            infos = self._infos
            if infos is not None:  # else no index or tally was made yet
                old = infos[i]
                cs = tuple(table[i])
                new = infos[i] = _info_get(cs) or info(cs)  # the cache's look-up inlined
                if j >= 0:
                    old_j = infos[j]
                    cs = tuple(table[j])
                    new_j = infos[j] = _info_get(cs) or info(cs)
                    if self._tally is not None:
                        self._tally = _pick.moved(self._tally, old, new, old_j, new_j)
                    if self._tix is not None:
                        self._moved((i, j))
                else:
                    if self._tally is not None:
                        self._tally = _pick.moved(self._tally, old, new)
                    if self._tix is not None:
                        self._moved((i,))
            self.substitutions += 1
            if events is not None:  # a.to_data()'s fields, in its order
                if kind == "between":
                    c0, c1 = cards
                    pub = {"seat": seat, "substitution": kind, "combination": i,
                           "cards": [_TEXT[c0], _TEXT[c1]], "other": j, "card": _TEXT[card]}
                elif kind == "hand-for-two":
                    c0, c1 = cards
                    pub = {"seat": seat, "substitution": kind, "hand": _TEXT[held[0]], "combination": i,
                           "cards": [_TEXT[c0], _TEXT[c1]]}
                else:
                    c0, c1 = held
                    pub = {"seat": seat, "substitution": kind, "hand": [_TEXT[c0], _TEXT[c1]],
                           "combination": i, "card": _TEXT[card]}
                events.append(_tnew(Event, ("substitute", pub, _NOPRIV)))
            self.phase = "substitute"
        elif type(a) is Discard:
            self._hand = None
            c = a.card
            hand.remove(c)
            self.discard.append(c)
            if events is not None:
                key = (seat << 6 | c) << 2
                ev = _EVENTS.get(key)
                if ev is None:
                    ev = _EVENTS[key] = _tnew(Event, ("discard", {"seat": seat, "card": _TEXT[c]}, _NOPRIV))
                events.append(ev)
            if hand or not self._hand_emptied(seat, events):  # quinze_cli/rules/quatorze.md: take up the next packet, or win
                self._end_turn(events)
        elif type(a) is Draw:
            self._hand = None
            stock = self.stock
            if a.from_ == "stock":
                if not stock:  # the discard pile but its top card, shuffled
                    top = self.discard.pop()
                    stock = self.discard
                    self.stock, self.discard = stock, [top]
                    _shuffle(self.rng, stock)
                    if events is not None:
                        events.append(_tnew(Event, ("reshuffle", {"stock": len(stock), "discard": _TEXT[top]}, _NOPRIV)))
                c = stock.pop()
                if events is not None:
                    key = ((len(stock) << 6 | c) << 3 | seat) << 2 | 1
                    ev = _EVENTS.get(key)
                    if ev is None:
                        ev = _EVENTS[key] = _tnew(
                            Event, ("draw", {"seat": seat, "from": "stock", "stock": len(stock)}, {seat: {"card": _TEXT[c]}})
                        )
                    events.append(ev)
            else:
                c = self.discard.pop()
                if events is not None:
                    key = ((len(stock) << 6 | c) << 3 | seat) << 2 | 2
                    ev = _EVENTS.get(key)
                    if ev is None:
                        ev = _EVENTS[key] = _tnew(
                            Event, ("draw", {"seat": seat, "from": "discard", "card": _TEXT[c], "stock": len(stock)}, _NOPRIV)
                        )
                    events.append(ev)
            insort(hand, c, key=_ORDER_KEY)  # the hand stays in canonical order
            self.phase = "combine"
        else:
            assert isinstance(a, Combine)
            self._hand = None
            for c in a.cards:
                hand.remove(c)
            self.table.append(list(a.cards))
            if self._infos is not None:
                new = info(a.cards)
                self._infos.append(new)
                if self._tally is not None:
                    self._tally = _pick.moved(self._tally, None, new)
                if self._tix is not None:
                    self._moved((len(self.table) - 1,))
            if events is not None:
                events.append(_tnew(Event, ("combine", {"seat": seat, "cards": cards_text(a.cards), "combination": len(self.table) - 1}, _NOPRIV)))
            if not hand:  # quinze_cli/rules/quatorze.md [decision]: the turn ends at once, no substitution, no discard
                if not self._hand_emptied(seat, events):
                    self._end_turn(events)
        return events or []

    def _moved(self, changed: tuple[int, ...]) -> None:
        """The combinations at ``changed`` were changed or laid, with an index made (the caller
        checks): the index is made again from the last one when next needed, or from scratch once
        many changed (a game that only counts)."""
        if len(self._changed) < 16:
            self._changed += changed
        else:
            self._tix, self._changed = None, ()

    def _hand_emptied(self, seat: int, events: list[Event] | None) -> bool:
        """The hand of ``seat`` is empty: take up the next packet, or win. True if the game ended."""
        ps = self.packets[seat]
        if not ps:
            self._finish([seat], "out", events)
            return True
        cards = ps.pop(0)
        self.hands[seat] = list(cards)
        if events is not None:
            events.append(
                _tnew(Event, ("take-up", {"seat": seat, "size": len(cards), "packets_left": len(ps)}, {seat: {"cards": cards_text(cards)}}))
            )
        return False

    def _end_turn(self, events: list[Event] | None) -> None:
        """Count the turn; at ``max_turns`` the game ends, fewest cards left (hand + packets) win,
        equal fewest share (quinze_cli/rules/quatorze.md "Safety" [decision]); else the next seat's turn begins."""
        self.turns += 1
        if self.turns >= self.options["max_turns"]:
            left = self.cards_left()
            low = min(left)
            self._finish([s for s, x in enumerate(left) if x == low], "max-turns", events)
            return
        assert self.seat is not None
        self._start_turn((self.seat + 1) % self.players, events)

    def _start_turn(self, seat: int, events: list[Event] | None) -> None:
        """Begin ``seat``'s turn (quinze_cli/rules/quatorze.md phase 1): a hand that can be laid whole, as one or
        several combinations, must not draw and must be laid ([decision]); nothing at all to draw
        skips the draw ([decision]); else the ``draw`` phase (an empty stock is refilled at the
        draw itself, see :meth:`apply`)."""
        self.seat = self.to_act = seat
        self.substitutions = 0
        self.no_draw = None
        if can_lay_whole_hand(self.hands[seat]):
            self.phase, self.no_draw = "combine", "whole-hand"
            if events is not None:
                events.append(_tnew(Event, ("no-draw", {"seat": seat, "reason": "whole-hand"}, _NOPRIV)))
            return
        if not self.stock and not self.discard:
            self.phase, self.no_draw = "combine", "nothing-to-draw"
            if events is not None:
                events.append(_tnew(Event, ("no-draw", {"seat": seat, "reason": "nothing-to-draw"}, _NOPRIV)))
            return
        self.phase = "draw"

    def _finish(self, winners: list[int], reason: str, events: list[Event] | None) -> None:
        self.phase = "over"
        self.to_act = None
        self.is_over = True
        self.no_draw = None
        self.substitutions = 0  # counted in a turn only: none once over (as positions say)
        self.winners = tuple(sorted(winners))
        self.end_reason = reason
        if events is not None:
            res = self.result()
            assert res is not None
            events.append(
                _tnew(Event, (
                    "game-end",
                    {"reason": reason, "winners": list(self.winners), "cards_left": self.cards_left(), "result": res.to_data()},
                    _NOPRIV,
                ))
            )

    # ------------------------------------------------------------------ views

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` sees (quinze_cli/rules/quatorze.md "What each player sees"); ``None``: a spectator.

        ``{"game": "quatorze", "seat", "to_act", "phase", "no_draw", "turns" (completed), "max_turns",
        "hand": [card] (the seat's own; absent for a spectator), "hand_sizes": [int],
        "packets": [[int]] (sizes of the packets still face down, per seat), "cards_left": [int],
        "table": [[card]], "discard": [card] (bottom to top), "stock": int (size),
        "options": {...}, "result": Result data or None}``. Never another hand, a packet's
        cards or the stock order.
        """
        v: dict[str, Any] = {
            "game": self.id,
            "seat": seat,
            "to_act": self.to_act,
            "phase": self.phase,
            "no_draw": self.no_draw,
            "turns": self.turns,
            "substitutions": self.substitutions,
            "max_turns": self.options["max_turns"],
        }
        if seat is not None:
            v["hand"] = cards_text(self.hands[seat])
        res = self.result()
        v.update(
            {
                "hand_sizes": [len(h) for h in self.hands],
                "packets": [[len(p) for p in ps] for ps in self.packets],
                "cards_left": self.cards_left(),
                "table": [cards_text(c) for c in self.table],
                "discard": cards_text(self.discard),
                "stock": len(self.stock),
                "options": dict(self.options),
                "result": res.to_data() if res else None,
            }
        )
        return v


_caches.register_dict("quatorze._EVENTS", _EVENTS)

from quinze_protocol.games import quatorze_bots  # noqa: E402,F401  (registers the built-in bots)
