"""Le Quinze (game id ``quinze``): the modern shedding game of quinze_cli/rules/quinze.md.

The game object is a whole match: deals are played until some match total reaches
``target`` at the end of a deal (quinze_cli/rules/quinze.md "Scoring and the match").

Flow (all automatic steps happen inside :meth:`QuinzeGame.apply`, so the state is always at
a decision of ``to_act`` or over):

* Deal ("Deal"): the first dealer is drawn by the game's seeded generator; the deal passes
  to the next seat each deal. 2 players get 9 cards, 3–8 players 8; 2–4 players use one
  54-card deck, 5–8 two ("Material"). The seat after the dealer plays first.
* Turn start ("A turn" step 1): the compulsory draw is automatic (a ``draw`` event, not an
  action). An empty stock is replaced by the shuffled discard pile (``reshuffle`` event); the
  table is never reshuffled **[decision]**. Stock and discard pile both empty: the deal ends
  as ``blocked`` **[decision]**. A deal reaching ``max_turns`` turns ends as blocked with
  reason ``max-turns`` **[decision]** ("A turn", Safety).
* Phases of a turn (``phase`` in views and positions):
  ``fifteen`` — a fifteen exists, so one must be made (step 2 **[decision]**);
  ``place`` — none exists: place one card, or a J/Q/K pair when holding >= 3 cards (step 3);
  the placement ends the turn; ``more`` — at least one fifteen made: more fifteens, ``end``, or
  (``quick_place`` option, step 4) place one card if a fifteen this turn used a table card
  and it is not the last card; ``placed`` — the quick placement is done: only ``end``.
* A fifteen that empties the hand goes out (step 2): the deal ends at once.
* Scoring ("Scoring and the match"): cards left in hand count J Q K jokers 10, aces 1,
  others face value; going out scores 0; going out on one's own first turn of the deal
  scores −50 and everybody else 0; a blocked deal scores every hand, nobody gets −50
  **[decision]**. The match ends when some total reaches ``target`` at the end of a deal:
  lowest total wins, equal lowest share (``Result.from_winners``; scores = totals).

Equivalent actions (quinze_cli/rules/quinze.md "Material": identical cards are interchangeable; suits never
matter): the legal list names one fifteen per choice of counts per rank in each place and one
placement per rank; an action naming any other cards of the same ranks that are held (or on the
table) is accepted and moves exactly the cards it names (this project's choice, not a rule
decision).

Events (``Event.kind``; cards as canonical text):

* ``deal`` public ``{deal, dealer, first, hand_sizes, stock}``; private per seat ``{hand}``.
* ``draw`` public ``{seat, stock}`` (stock size after); private to the drawer ``{card}``.
* ``reshuffle`` public ``{stock}``: the discard pile became the stock.
* ``fifteen`` public ``{seat, hand, table}``; ``place`` public ``{seat, cards, quick}``;
  ``end-turn`` public ``{seat}``.
* ``deal-end`` public ``{deal, reason, seat, scores, totals, hands}``: ``reason`` is ``out``,
  ``first-turn``, ``blocked`` or ``max-turns``; ``seat`` who went out (or None); ``hands`` every
  hand, revealed for counting at the end of the deal (quinze_cli/rules/quinze.md "Scoring": each player counts
  the cards left in hand).
* ``game-end`` public ``{result}`` (``Result.to_data()``).
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Callable, Mapping
from typing import Any

from quinze_protocol.cards import card_text
from quinze_protocol.game import (
    Action,
    Event,
    Game,
    Option,
    Result,
    register_game,
)
from quinze_protocol.games.quinze_actions import END, End, Fifteen, Place, parse_quinze_action
from quinze_protocol.games.quinze_check import check_action
from quinze_protocol.games.quinze_legal import CARD_POINTS, CARD_RANK, after_fifteen, fifteen_problem, fifteens
from quinze_protocol.games.quinze_observer import QuinzeObserver
from quinze_protocol.games.quinze_packed import DRAW_PUBLIC as _DRAW_PUBLIC
from quinze_protocol.games.quinze_packed import DRAWN as _DRAWN
from quinze_protocol.games.quinze_packed import END_PUBLIC as _END_PUBLIC
from quinze_protocol.games.quinze_packed import packed_entry, packed_event
from quinze_protocol.games.quinze_packed import packed_view as _packed_view
from quinze_protocol.games.quinze_shuffle import shuffle as _shuffle
from quinze_protocol.games.quinze_texts import VIEW_SORT, discard_kept, texts  # noqa: F401  (VIEW_SORT: read from here too)
from quinze_protocol.rng import Rng

__all__ = ["QuinzeGame", "deal_size", "decks_for", "fifteen_problem"]

_TEXT = tuple(card_text(c) for c in range(54))
_tnew = tuple.__new__
_FACE = (11, 12, 13)
_RBIT = tuple(1 << CARD_RANK[c] for c in range(54))
_FACE_BITS = (1 << 11) | (1 << 12) | (1 << 13)
_SINGLE = tuple(_tnew(Place, ("place", (c,))) for c in range(54))
"""The placement of each single card (actions are immutable values: built once)."""
PHASES = ("fifteen", "place", "more", "placed", "over")
"""The phases of a turn (see the module docstring); ``over`` once the match has ended."""
_NO_PRIVATE: Any = Event._field_defaults["private"]
"""The empty private part every public-only event shares (events are immutable values)."""


_object_new = object.__new__
# events in the hot paths: ``_tnew(Event, (kind, public, private))``, the value of
# ``Event(kind, public, private)`` built by one call (:mod:`quinze_protocol.games.events`)


def decks_for(players: int) -> int:
    """Number of 54-card decks: 1 for 2–4 players, 2 for 5–8 (quinze_cli/rules/quinze.md "Material")."""
    return 1 if players <= 4 else 2


def deal_size(players: int) -> int:
    """Cards dealt to each seat: 9 for 2 players, 8 for 3–8 (quinze_cli/rules/quinze.md "Deal")."""
    return 9 if players == 2 else 8


@register_game
class QuinzeGame(Game):
    """Le Quinze (quinze_cli/rules/quinze.md). See the module docstring for the flow, phases and events."""

    id = "quinze"
    listed_legal = True  # every listed action is legal as it stands (Game.listed_legal)
    packed_entry = staticmethod(packed_entry)  # its actions' encodings (Game.packed_entry)
    packed_event = staticmethod(packed_event)  # its shared events' encodings (Game.packed_event)
    title = "Le Quinze"
    score_label = "Mean total"
    score_meaning = "the mean match total per game"
    score_aggregate = "mean"
    lower_is_better = True
    hint_bot = "greedy"
    observer = QuinzeObserver
    private_fields = {"deal": ("hand",), "draw": ("card",)}
    min_players = 2
    max_players = 8
    option_specs = (
        Option("target", int, 100, "the match ends when a total reaches this many points (quinze_cli/rules/quinze.md)", 1, 100000),
        Option("quick_place", bool, False, "after a fifteen using a table card, may place one card (quinze_cli/rules/quinze.md step 4)"),
        Option("max_turns", int, 1000, "a deal reaching this many turns ends as blocked (quinze_cli/rules/quinze.md Safety)", 1, 1000000),
    )

    # ------------------------------------------------------------------ creation

    def __init__(self) -> None:  # use new() or from_position()
        self.options = {}
        self.opening_events = []
        self.n = 2
        self.rng = Rng(0)
        self.deal_no = 0
        self.dealer = 0
        self.seat = 0
        self.phase = "over"
        self.fifteens_made = 0
        self.used_table = False
        self.turn_actions: list[Action] = []  # fifteens and placements of the turn in progress
        self.turn_known = True  # False: loaded without turn.actions, the turn's first actions are unknown
        self.turns = 0
        self.seat_turns: list[int] = []
        self.hands: list[list[int]] = []
        self.table: list[int] = []
        self.discard: list[int] = []
        self.stock: list[int] = []  # top card last
        self.totals: list[int] = []
        self.history: list[dict[str, Any]] = []
        self._fif: list[Fifteen] = []
        self._result: Result | None = None
        # the views' memos (see view): (a copy of the cards, their texts), replaced, never changed
        self._table_memo: tuple[list[int], list[str]] = ([], [])
        self._discard_memo: tuple[list[int], list[str]] = ([], [])

    def _set_options(self, options: dict[str, Any]) -> None:
        self.options = options
        self.n = options["players"]
        self.target = options["target"]
        self.quick_place = options["quick_place"]
        self.max_turns = options["max_turns"]
        self.decks = decks_for(self.n)
        self.hand_size = deal_size(self.n)

    @classmethod
    def new(cls, options: Mapping[str, Any], seed: int) -> "QuinzeGame":
        """A new match; the first deal is in ``opening_events`` (quinze_cli/rules/quinze.md "Deal")."""
        g = cls()
        g._set_options(cls.validate_options(options))
        g.rng = Rng(seed)
        g.totals = [0] * g.n
        g.dealer = g.rng.below(g.n)
        g.deal_no = 1
        events: list[Event] = []
        g._start_deal(events)
        g.opening_events = events
        return g

    @classmethod
    def from_position(cls, data: Mapping[str, Any]) -> "QuinzeGame":
        """Load a position (format in docs/positions.md ``## quinze``). Raises PositionError."""
        from quinze_protocol.games.quinze_position import load

        return load(cls, data)

    def to_position(self) -> dict[str, Any]:
        """The whole state as data (docs/positions.md ``## quinze``)."""
        from quinze_protocol.games.quinze_position import dump

        return dump(self)

    def copy(self) -> "QuinzeGame":
        """An independent copy (see :meth:`quinze_protocol.game.Game.copy`): every list of cards, the
        counters and the generator are copied; options, history entries, actions and events are
        immutable once made, so they are shared."""
        g = _object_new(type(self))
        d = g.__dict__
        d.update(self.__dict__)
        d["rng"] = Rng.from_state(self.rng.state)
        d["hands"] = [h[:] for h in self.hands]
        d["table"] = self.table[:]
        d["discard"] = self.discard[:]
        d["stock"] = self.stock[:]
        d["totals"] = self.totals[:]
        d["seat_turns"] = self.seat_turns[:]
        d["turn_actions"] = self.turn_actions[:]
        d["history"] = self.history[:]
        d["_fif"] = self._fif[:]
        return g

    # ------------------------------------------------------------------ automatic steps

    def _start_deal(self, events: list[Event] | None) -> None:
        n = self.n
        cards = list(range(54)) * self.decks
        _shuffle(self.rng, cards)
        self.stock = cards
        hands: list[list[int]] = [[] for _ in range(n)]
        first = (self.dealer + 1) % n
        # one card at a time from the top (the end of the list), seat ``first`` first: seat
        # first + k gets the cards at top - k, top - k - n, ... (each hand is then sorted)
        size = self.hand_size
        end = len(cards) - size * n
        for k in range(n):
            hands[(first + k) % n] = sorted(cards[end + n - 1 - k::n])
        del cards[end:]
        self.hands = hands
        self.table = []
        self.discard = []
        self.turns = 0
        self.seat_turns = [0] * n
        self.seat = self.to_act = first
        self.is_over = False
        if events is not None:
            events.append(Event(
                "deal",
                {"deal": self.deal_no, "dealer": self.dealer, "first": first,
                 "hand_sizes": [len(h) for h in hands], "stock": len(self.stock)},
                {s: {"hand": texts(hands[s])} for s in range(n)},
            ))
        self._start_turn(events)

    def _start_turn(self, events: list[Event] | None) -> None:
        if self.turns >= self.max_turns:
            self._end_deal(events, "max-turns", None)
            return
        stock = self.stock
        if not stock:
            if not self.discard:
                self._end_deal(events, "blocked", None)
                return
            stock = self.stock = self.discard
            self.discard = []
            _shuffle(self.rng, stock)
            if events is not None:
                events.append(_tnew(Event, ("reshuffle", {"stock": len(stock)}, _NO_PRIVATE)))
        s = self.seat
        self.turns += 1
        self.seat_turns[s] += 1
        self.fifteens_made = 0
        self.used_table = False
        self.turn_actions = []
        self.turn_known = True
        c = stock.pop()
        hand = self.hands[s]
        insort(hand, c)
        if events is not None:
            events.append(_tnew(Event, ("draw", _DRAW_PUBLIC[s][len(stock)], _DRAWN[s][c])))
        fif = self._fif = fifteens(hand, self.table, Fifteen)
        self.phase = "fifteen" if fif else "place"

    def _next_turn(self, events: list[Event] | None) -> None:
        self.seat = self.to_act = (self.seat + 1) % self.n
        self._start_turn(events)

    def _end_deal(self, events: list[Event] | None, reason: str, out: int | None) -> None:
        """Score the deal (quinze_cli/rules/quinze.md "Scoring and the match") and deal again or end the match."""
        n = self.n
        if reason == "first-turn":
            assert out is not None, "a first-turn deal end names who went out"
            scores = [0] * n
            scores[out] = -50
        else:
            scores = [sum(CARD_POINTS[c] for c in h) for h in self.hands]
        totals = self.totals
        for s in range(n):
            totals[s] += scores[s]
        self.history.append({"deal": self.deal_no, "reason": reason, "seat": out, "scores": scores, "turns": self.turns})
        if events is not None:
            events.append(Event("deal-end", {
                "deal": self.deal_no, "reason": reason, "seat": out, "scores": list(scores),
                "totals": list(totals), "hands": [texts(h) for h in self.hands],
            }))
        self._fif = []
        if max(totals) >= self.target:
            best = min(totals)
            self._result = Result.from_winners([s for s in range(n) if totals[s] == best], list(totals), "target")
            self.phase = "over"
            self.to_act = None
            self.is_over = True
            if events is not None:
                events.append(Event("game-end", {"result": self._result.to_data()}))
            return
        self.dealer = (self.dealer + 1) % n
        self.deal_no += 1
        self._start_deal(events)

    # ------------------------------------------------------------------ play

    # ``to_act`` and ``is_over`` (Game's properties) are plain attributes here, set wherever the
    # seat to act or the phase "over" changes: they are read before every decision.
    to_act: int | None = None
    is_over: bool = True

    def result(self) -> Result | None:
        return self._result

    def legal_actions(self) -> list[Action]:
        """Every legal action of the seat to act, equivalent ones once (see module docstring).

        ``fifteen`` phase: the fifteens; ``place``: one placement per rank held (face pairs with
        >= 3 cards held); ``more``: the fifteens, ``end``, and the quick placements; ``placed``:
        ``end``.
        """
        phase = self.phase
        if phase == "fifteen":
            return list(self._fif)
        if phase == "more":
            out: list[Action] = list(self._fif)
            out.append(END)
            if self.quick_place and self.used_table and len(self.hands[self.seat]) >= 2:
                out.extend(self._singles(self.hands[self.seat]))
            return out
        if phase == "place":
            return self._placements(self.hands[self.seat])
        if phase == "placed":
            return [END]
        return []

    def legal_count(self) -> int:
        """``len(legal_actions())``, without copying the fifteens listed."""
        phase = self.phase
        if phase == "fifteen":
            return len(self._fif)
        if phase == "placed":
            return 1
        return len(self.legal_actions())

    def legal_pick(self, pick: Callable[[int], int]) -> Action:
        """``legal_action(pick(legal_count()))`` (see :meth:`Game.legal_pick`): the fifteens listed
        at the turn's start or after a fifteen are read in place, never copied. Raises
        :class:`IndexError` as :meth:`Game.legal_action` does."""
        phase = self.phase
        if phase == "fifteen":
            fif = self._fif
            n = len(fif)
            i = pick(n)
            if 0 <= i < n:
                return fif[i]
        elif phase == "place":
            legal = self._placements(self.hands[self.seat])
            n = len(legal)
            i = pick(n)
            if 0 <= i < n:
                return legal[i]
        elif phase == "more" and not (self.quick_place and self.used_table):
            fif = self._fif
            n = len(fif)
            i = pick(n + 1)
            if 0 <= i < n:
                return fif[i]
            if i == n:
                return END
        elif phase == "placed":
            i = pick(1)
            if i == 0:
                return END
        else:
            return Game.legal_pick(self, pick)
        return Game.legal_action(self, i)

    @staticmethod
    def _placements(hand: list[int]) -> list[Action]:
        """The ``place`` phase's list: one placement per rank held, then the face pairs when
        holding at least three cards."""
        out: list[Action] = []
        held = dup = 0
        for c in hand:
            bit = _RBIT[c]
            if held & bit:
                dup |= bit
            else:
                held |= bit
                out.append(_SINGLE[c])
        if dup & _FACE_BITS and len(hand) >= 3:  # a J, Q or K pair held
            seen = set()
            for c in hand:
                r = CARD_RANK[c]
                if r in _FACE and r not in seen:
                    same = [d for d in hand if CARD_RANK[d] == r]
                    if len(same) >= 2:
                        seen.add(r)
                        out.append(_tnew(Place, ("place", (same[0], same[1]))))
        return out

    def generate_legal(self) -> list[Action]:
        """The legal list computed from scratch, without touching the cached one (for
        benchmarks and checks). Same value as :meth:`legal_actions`; the new list of fifteens
        is returned itself (no copy: nothing else holds it)."""
        phase = self.phase
        if phase == "fifteen":
            return fifteens(self.hands[self.seat], self.table, Fifteen)
        if phase == "more":
            hand = self.hands[self.seat]
            out: list[Action] = fifteens(hand, self.table, Fifteen)
            out.append(END)
            if self.quick_place and self.used_table and len(hand) >= 2:
                out.extend(self._singles(hand))
            return out
        return self.legal_actions()

    @staticmethod
    def _singles(hand: list[int]) -> list[Action]:
        """One single-card placement per rank held (the lowest-numbered card of the rank)."""
        out: list[Action] = []
        seen = 0
        for c in hand:
            bit = _RBIT[c]
            if not seen & bit:
                seen |= bit
                out.append(_SINGLE[c])
        return out

    @classmethod
    def parse_action(cls, data: Mapping[str, Any]) -> Action:
        """See :func:`quinze_protocol.games.quinze_actions.parse_quinze_action`."""
        return parse_quinze_action(data)

    def _play(self, action: Any) -> list[Event]:
        """Play the legal ``action`` for the seat to act (see module docstring for phases);
        :meth:`check` gives the refusal codes: ``game-over``, ``not-fifteen``, ``too-few-cards``,
        ``no-hand-card``, ``card-not-held``, ``card-not-on-table``, ``cannot-fifteen``,
        ``must-make-fifteen``, ``cannot-place``, ``pair-needs-three``, ``last-card``,
        ``cannot-end``."""
        events: list[Event] | None = [] if self.record_events else None
        kind = action[0]
        s = self.seat
        hand = self.hands[s]
        self.turn_actions.append(action)
        if kind == "fifteen":
            hc = action[1] + action[3]
            tc = action[2] + action[4]
            for c in hc:
                hand.remove(c)
            if tc:
                table = self.table
                for c in tc:
                    table.remove(c)
                self.used_table = True
            self.discard.extend(hc)
            self.discard.extend(tc)
            self.fifteens_made += 1
            if events is not None:
                # up to three cards' texts without a comprehension (each one is a Python call)
                k = len(hc)
                ht = ([_TEXT[hc[0]]] if k == 1 else [_TEXT[hc[0]], _TEXT[hc[1]]] if k == 2
                      else [_TEXT[hc[0]], _TEXT[hc[1]], _TEXT[hc[2]]] if k == 3 else [_TEXT[c] for c in hc])
                k = len(tc)
                tt = ([] if not k else [_TEXT[tc[0]]] if k == 1 else [_TEXT[tc[0]], _TEXT[tc[1]]] if k == 2
                      else [_TEXT[c] for c in tc])
                events.append(_tnew(Event, ("fifteen", {"seat": s, "hand": ht, "table": tt}, _NO_PRIVATE)))
            if not hand:
                self._end_deal(events, "first-turn" if self.seat_turns[s] == 1 else "out", s)
                return events or []
            self.phase = "more"
            self._fif = after_fifteen(self._fif, self.table, hc, tc, hand, Fifteen)
            return events or []
        if kind == "place":
            cards = action[1]
            for c in cards:
                hand.remove(c)
                insort(self.table, c)
            quick = self.phase == "more"
            if events is not None:
                k = len(cards)  # one card, or a face pair
                ct = [_TEXT[cards[0]]] if k == 1 else [_TEXT[cards[0]], _TEXT[cards[1]]] if k == 2 else [_TEXT[c] for c in cards]
                events.append(_tnew(Event, ("place", {"seat": s, "cards": ct, "quick": quick}, _NO_PRIVATE)))
            if quick:
                self.phase = "placed"
                self._fif = []
                return events or []
            self.seat = self.to_act = (s + 1) % self.n  # the next turn (_next_turn, inlined)
            self._start_turn(events)
            return events or []
        if events is not None:
            events.append(_tnew(Event, ("end-turn", _END_PUBLIC[s], _NO_PRIVATE)))
        self.seat = self.to_act = (s + 1) % self.n  # the next turn (_next_turn, inlined)
        self._start_turn(events)
        return events or []

    # ------------------------------------------------------------------ checks

    def check(self, action: Any) -> None:
        """Raise :class:`IllegalAction` (stable code, reason in words) or :class:`ActionError` unless
        ``action`` is legal now (quinze_cli/rules/quinze.md "A turn"; the refusals are
        :func:`quinze_protocol.games.quinze_check.check_action`). No mutation.

        Fast paths for what is legal at once: a fifteen listed now (``_fif`` is empty unless
        the phase is ``fifteen`` or ``more``), one card held in the ``place`` phase, ``end``
        after a fifteen; anything else is decided by ``check_action``."""
        t = type(action)
        if t is Fifteen:
            if action in self._fif:
                return
        elif t is Place:
            if self.phase == "place":
                cards = action[1]
                if len(cards) == 1 and cards[0] in self.hands[self.seat]:
                    return
        elif t is End:
            phase = self.phase
            if phase == "more" or phase == "placed":
                return
        check_action(self, action)

    # ------------------------------------------------------------------ views and stats

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` sees (quinze_cli/rules/quinze.md "What each player sees"); None: a spectator (no hand).

        ``{"game", "seat", "hand" (own, display order; absent for spectators), "table",
        "discard" (bottom first), "stock" (size), "hand_sizes", "totals", "dealer", "to_act",
        "phase", "turn": {"fifteens", "used_table", "actions"}, "deal", "turns", "options", "result"
        (Result data once over, else None)}``;
        ``turn.actions`` is what was done this turn so far (action data, in order); in a game
        loaded from a position without ``turn.actions`` it lists only what was done since loading,
        until the next turn.
        """
        # The table's texts are kept while the table is the same (it changes at a placement or a
        # fifteen with table cards), the discard pile's while it only grows (extend, between two
        # reshuffles or deals): each checked against a copy of the cards it was made from, so any
        # change, the engine's or not, is seen. The lists in the view are new ones every time.
        table = self.table
        memo = self._table_memo
        if table != memo[0]:
            memo = self._table_memo = (table[:], texts(table))
        table_texts = memo[1][:]
        discard = self.discard
        memo = self._discard_memo
        if discard != memo[0]:
            memo = self._discard_memo = discard_kept(memo, discard)
        acts = self.turn_actions
        v: dict[str, Any] = {
            "game": self.id,
            "seat": seat,
            "table": table_texts,
            "discard": memo[1][:],
            "stock": len(self.stock),
            "hand_sizes": list(map(len, self.hands)),
            "totals": self.totals[:],
            "dealer": self.dealer,
            "to_act": self.to_act,
            "phase": self.phase,
            "turn": {"fifteens": self.fifteens_made, "used_table": self.used_table,
                     "actions": [a.to_data() for a in acts] if acts else []},
            "deal": self.deal_no,
            "turns": self.turns,
            "options": dict(self.options),
            "result": self._result.to_data() if self._result is not None else None,
        }
        if seat is not None:
            v["hand"] = texts(self.hands[seat])
        return v

    def packed_view(self, seat: int | None) -> bytes:
        """``msgpack.packb(self.view(seat), use_bin_type=True)``, the same bytes, from kept
        encodings (:func:`quinze_protocol.games.quinze_packed.packed_view`)."""
        return _packed_view(self, seat)

    def stats(self) -> dict[str, float]:
        """Per-game figures for self-play summaries: ``deals``, ``blocked_deals`` (blocked or
        max-turns), ``turns`` (over all deals), ``first_turn_outs``."""
        h = self.history
        return {
            "deals": len(h),
            "blocked_deals": sum(1 for d in h if d["reason"] in ("blocked", "max-turns")),
            "turns": sum(d["turns"] for d in h),
            "first_turn_outs": sum(1 for d in h if d["reason"] == "first-turn"),
        }


from quinze_protocol.games import quinze_bots  # noqa: E402,F401  (registers the built-in bots)
