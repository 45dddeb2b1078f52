"""Le Quinze classique (game id ``quinze-classique``): the old betting game, quinze_cli/rules/quinze-classique.md.

Two to six players try to get as close to 15 as possible without going over, with one hidden card
and face-up cards drawn from the bottom of a one-colour talon, and bet on it (ante, raises).

Options (chips are whole numbers):

- ``cave`` (default 100): chips each player starts with (quinze_cli/rules/quinze-classique.md "Stakes").
- ``caves`` (default ``""``): unequal caves agreed at table creation, as a comma-separated list of
  one positive number per seat, e.g. ``"100,80,120"``; when given it replaces ``cave``.
- ``ante`` (default 1): chips every player still in the match puts in the pot at every coup.
- ``tours`` (default 4): rounds of the deal; the match ends when the deal would pass back to the
  first dealer after the ``tours``-th round (quinze_cli/rules/quinze-classique.md "End of the match"; the deal passes after
  every played coup, so a round is one played coup dealt by each seat).
- ``max_coups`` (default 1000, safety): the match ends (reason ``"max-coups"``) before a coup would
  start beyond this number, unless its ``tours`` end it at that moment (reason ``"tours"``); the
  ``match-end`` event gives the ``coups`` and ``rounds`` played.

Actions: see :mod:`quinze_protocol.games.classique_actions` (``pass stand hit check call raise fold``; a
raise is listed as ``{"type":"raise","min":m,"max":M}`` and applied as
``{"type":"raise","amount":N}``). Positions: :mod:`quinze_protocol.games.classique_position`. The course of
a coup (:class:`CoupFlow`): :mod:`quinze_protocol.games.classique_coup`.

Decisions of quinze_cli/rules/quinze-classique.md applied here, each in the method named:

- ceremony: one card per seat from the king down, shuffled; the lowest card deals first (at
  random among the seats) — :meth:`ClassiqueGame.new`;
- the deal passes to the next seat, with the other-coloured deck freshly shuffled, after every
  coup that was played; after a coup everybody passed the dealer deals again from the same talon
  while it can give one card each and keep two more, else the deal passes; the first dealer uses
  the black deck — :meth:`CoupFlow.start_coup`;
- a raise is at least the ante and at most what the poorest other player still in can cover (also
  at most what the raiser can pay) — :meth:`CoupFlow.raise_range`;
- the talon runs out mid-coup: players still drawing must stand — :meth:`CoupFlow._resume_draw`;
- showdown ties by primauté — :meth:`CoupFlow._showdown`;
- leftover pot shared equally, odd chips by primauté — :meth:`CoupFlow._end_match`.

Choices this module makes where the rules are silent (documented in the rules text too):

- a dealer who is out of the match (cannot ante) passes the deal as if the talon were short;
- a drawing player facing an empty talon stands automatically (event ``stand`` with ``forced``);
- if nobody at all can ante, the pot is shared among the players of the last coup;
- ``Result``: scores are final chips minus cave per seat; points go to the seats with the best
  score, chips won or lost, so unequal caves give nobody a head start (quinze_cli/rules/quinze-classique.md [decision];
  ``Result.from_winners``); reasons ``"tours"``, ``"last-player"``, ``"max-coups"``.

Events (``kind``: public fields; private fields in brackets):
``ceremony`` {draws:[{card, seat}], first_dealer, first_to_speak};
``deck-change`` {dealer, deck, talon, reason: "first"|"played"|"talon-short"|"dealer-out"};
``out`` {seat, chips} (cannot ante, out of the match);
``ante`` {coup, amount, seats, pot};
``deal`` {coup, dealer, order, talon} [card];
``speak`` {seat, say: "pass"|"stand"|"hit"};
``check`` / ``call`` / ``raise`` / ``fold`` {seat, amount (call, raise), stake, pot};
``stand`` {seat, forced} (drawing turn); ``hit`` {seat, card, face_up_total, talon};
``burnt`` {seat, hidden, total}; ``showdown`` {hands:[{seat, hidden, face_up, total}]};
``pot-won`` {seat, amount, shown, reason: "single-opener"|"last-in"|"showdown"};
``coup-end`` {coup, outcome: "won"|"all-passed", pot, chips};
``match-end`` {reason, shares:[{seat, amount}], chips, coups, rounds}; then the last event,
``game-end`` {result} (``Result.to_data()``, as in every game).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from quinze_protocol import caches as _caches
from quinze_protocol.cards import card_text
from quinze_protocol.game import Action, ActionError, Event, Game, IllegalAction, Option, OptionError, Result, register_game
from quinze_protocol.games.classique_actions import Call, Check, Fold, Hit, Pass, Raise, Stand, parse_action_data
from quinze_protocol.games.classique_observer import ClassiqueObserver
from quinze_protocol.rng import Rng

from quinze_protocol.games.classique_coup import (  # noqa: F401  (re-exported)
    BURN_LIMIT,
    ClassiqueState,
    match_result,
    CEREMONY_RANKS,
    CEREMONY_SUIT,
    IN_COUP,
    PHASES,
    STATUSES,
    TALLY_KEYS,
    CoupFlow,
    colour_deck,
    value,
)

_PASS, _STAND, _HIT, _CHECK, _CALL, _FOLD = Pass(), Stand(), Hit(), Check(), Call(), Fold()
_SPEAK = (_PASS, _STAND, _HIT)
"""The speaking round's legal actions, in the listed order."""
_CEREMONY = {n: tuple(CEREMONY_SUIT * 13 + r - 1 for r in CEREMONY_RANKS[:n]) for n in range(2, len(CEREMONY_RANKS) + 1)}
"""The ceremony's cards by number of players, before the shuffle: one spade each from the king down."""
_TEXT = tuple(card_text(c) for c in range(54))
_tnew = tuple.__new__
_NOPRIV = Event._field_defaults["private"]
"""Events built as ``_tnew(Event, (kind, public, private))`` (:mod:`quinze_protocol.games.events`)."""
_RAISES: dict[tuple[int, int], Raise] = {}
"""Listed raises by range: actions are immutable values, so the legal lists reuse them."""

__all__ = ["ClassiqueGame", "ClassiqueState", "colour_deck", "value", "CEREMONY_RANKS"]


@register_game
class ClassiqueGame(Game):
    """Le Quinze classique, quinze_cli/rules/quinze-classique.md. See the module docstring for options, events, decisions."""

    id = "quinze-classique"
    title = "Le Quinze classique"
    score_label = "Chips"
    score_meaning = "chips won (+) or lost (-) over all games"
    score_aggregate = "sum"
    lower_is_better = False
    hint_bot = "threshold"
    observer = ClassiqueObserver
    private_fields = {"deal": ("card",)}
    rules_version = 2
    """2: the first dealer drawn at random, the deal passing after every played coup, ``tours``
    4 by default, the winner by chips won or lost (1: seat n-1 dealt first, the dealer kept the
    deal while the talon lasted, ``tours`` 1, the winner by chips held)."""
    min_players = 2
    max_players = 6
    option_specs = (
        Option("cave", int, 100, "chips each player starts with", 1, 1_000_000),
        Option("caves", str, "", "unequal caves, one per seat, comma-separated (e.g. 100,80,120); replaces cave"),
        Option("ante", int, 1, "chips each player antes at every coup", 1, 1_000_000),
        Option("tours", int, 4, "rounds of the deal before the match ends (one round: each seat deals once)", 1, 100),
        Option("max_coups", int, 1000, "safety: the match ends before coup max_coups+1", 1, 100_000),
    )

    # ------------------------------------------------------------------ creation

    def _blank(self, options: dict[str, Any], caves: list[int], rng: Rng | None = None) -> None:
        """Options, no opening events, a fresh :class:`ClassiqueState` (with ``rng``, by default
        ``Rng(0)``) and its :class:`CoupFlow`."""
        self.options = options
        self.opening_events = []
        self.state = ClassiqueState(caves, rng)
        self.flow = CoupFlow(options, self.state)

    @classmethod
    def check_options(cls, options: Mapping[str, Any]) -> None:
        """``caves``, when given, names one positive cave per seat (OptionError, field ``caves``)."""
        cls.read_caves(options)

    @staticmethod
    def read_caves(options: Mapping[str, Any]) -> list[int]:
        """Caves per seat from ``caves`` (if not empty) or ``cave``. Raises OptionError (field ``caves``)."""
        n = options["players"]
        text = options["caves"].strip()
        if not text:
            return [options["cave"]] * n
        parts = [p.strip() for p in text.split(",")]
        if len(parts) != n:
            raise OptionError(f"needs one cave per seat ({n}), got {len(parts)}", field="caves")
        out = []
        for i, p in enumerate(parts):
            if not p.isdecimal() or int(p) < 1:
                raise OptionError(f"cave of seat {i} must be a positive whole number, got {p!r}", field="caves")
            out.append(int(p))
        return out

    @classmethod
    def new(cls, options: Mapping[str, Any], seed: int) -> "ClassiqueGame":
        """A new match. Opening events: the ceremony, the first deck, the first coup.

        Ceremony [decision, quinze_cli/rules/quinze-classique.md "Seats and the first dealer"]: one spade per player from the
        king down (K, Q, J, 10, 9, 8) is shuffled by the game's generator and given one to each seat,
        seat 0 first; the seat holding the lowest card deals first, so the seat after it speaks
        first. Raises OptionError.
        """
        opts = cls.validate_options(options)
        caves = cls.read_caves(opts)
        game = cls.__new__(cls)
        game._blank(opts, caves, Rng(seed))
        st = game.state
        n = opts["players"]
        cards = list(_CEREMONY[n])
        st.rng.shuffle(cards)
        draws = []
        first = 0
        for s in range(n):  # the lowest card (the first seat holding it; ranks are distinct)
            c = cards[s]
            draws.append({"card": _TEXT[c], "seat": s})
            if c < cards[first]:  # one suit: the card numbers are in the order of the ranks
                first = s
        st.first_dealer = st.dealer = first
        ev = [_tnew(Event, ("ceremony", {"draws": draws, "first_dealer": first, "first_to_speak": (first + 1) % n}, _NOPRIV)),
              _tnew(Event, ("deck-change", {"dealer": first, "deck": "black", "talon": 52, "reason": "first"}, _NOPRIV))]
        st.shuffle_talon(colour_deck("black"))
        game.flow.start_coup(ev)
        game._sync()
        game.opening_events = ev
        return game

    @classmethod
    def from_position(cls, data: Mapping[str, Any]) -> "ClassiqueGame":
        """A game from :meth:`to_position` data; raises PositionError naming the field
        (see :func:`quinze_protocol.games.classique_position.load`)."""
        from quinze_protocol.games.classique_position import load

        return load(cls, data)

    def to_position(self) -> dict[str, Any]:
        """The complete state as data (format in docs/positions.md ``## quinze-classique``)."""
        from quinze_protocol.games.classique_position import dump

        return dump(self)

    def copy(self) -> "ClassiqueGame":
        """An independent copy (see :meth:`quinze_protocol.game.Game.copy`): the state copied
        (:meth:`ClassiqueState.copy`), a new flow over it (:meth:`CoupFlow.over`); options and
        events are shared."""
        g = object.__new__(type(self))
        g.options = self.options
        g.opening_events = self.opening_events
        g.state = self.state.copy()
        g.flow = self.flow.over(g.state)
        g.record_events = self.record_events
        g.to_act, g.is_over = self.to_act, self.is_over
        return g

    # flow questions asked of the game (tests, tools): answered by its CoupFlow
    def raise_range(self, seat: int) -> tuple[int, int] | None:
        """See :meth:`CoupFlow.raise_range`."""
        return self.flow.raise_range(seat)

    def total(self, seat: int) -> int:
        """See :meth:`CoupFlow.total`."""
        return self.flow.total(seat)

    # ------------------------------------------------------------------ interface

    # ``to_act`` and ``is_over`` (Game's properties) are plain attributes here, read before every
    # decision: set from the state's ``phase`` and ``turn`` (:meth:`_sync`) after every step of
    # the flow and whenever the game's ``phase`` or ``turn`` is written.
    to_act: int | None = None
    is_over: bool = True

    def _sync(self) -> None:
        st = self.state
        self.is_over = over = st.phase == "over"
        self.to_act = None if over else st.turn

    def legal_actions(self) -> list:
        st = self.state
        if st.phase == "over":
            return []
        s = st.turn
        assert s is not None, "somebody acts until the match is over"
        if st.phase == "speak":
            return list(_SPEAK)
        rr = self.flow.raise_range(s)
        if st.phase == "draw":
            out = [_HIT, _STAND]
        else:
            out = []
            if not st.raised:
                out.append(_CHECK)
            if st.stakes[s] < st.high:
                out.append(_CALL)
        if rr:
            r = _RAISES.get(rr)
            if r is None:
                if len(_RAISES) > 4096:
                    _RAISES.clear()
                r = _RAISES[rr] = Raise(min=rr[0], max=rr[1])
            out.append(r)
        if st.phase != "draw":
            out.append(_FOLD)
        return out

    def legal_count(self) -> int:
        """``len(legal_actions())``, counted without the list."""
        st = self.state
        phase = st.phase
        if phase == "speak":
            return 3
        if phase == "over":
            return 0
        s = st.turn
        assert s is not None, "somebody acts until the match is over"
        n = 2 if phase == "draw" else (not st.raised) + (st.stakes[s] < st.high) + 1
        return n + (self.flow.raise_range(s) is not None)

    def legal_pick(self, pick: Callable[[int], int]) -> Action:
        """``legal_action(pick(legal_count()))`` (see :meth:`Game.legal_pick`); the speaking
        round's three actions without a list. Raises :class:`IndexError` as
        :meth:`Game.legal_action` does."""
        if self.state.phase == "speak":
            i = pick(3)
            if 0 <= i < 3:
                return _SPEAK[i]
        else:
            legal = self.legal_actions()
            i = pick(len(legal))
            if 0 <= i < len(legal):
                return legal[i]
        return Game.legal_action(self, i)

    @classmethod
    def parse_action(cls, data: Mapping[str, Any]):
        """Action data to an action (see :mod:`quinze_protocol.games.classique_actions`); ActionError naming the field."""
        return parse_action_data(data)

    def check(self, action) -> None:
        """Raise IllegalAction (stable ``code``, ``reason``) if ``action`` cannot be played now.

        Codes: ``game-over``, ``wrong-phase``, ``cannot-check``, ``nothing-to-call``, ``cannot-raise``,
        ``raise-too-small``, ``raise-too-large``.
        """
        st = self.state
        if st.phase == "over":
            raise IllegalAction("the match is over", code="game-over")
        allowed = {"speak": (Pass, Stand, Hit), "raise": (Check, Call, Raise, Fold), "draw": (Hit, Stand, Raise)}
        names = {"speak": "the speaking round", "raise": "a raising round", "draw": "a drawing turn"}
        kind = action.to_data()["type"]
        if not isinstance(action, allowed[st.phase]):
            ok = ", ".join(a.__name__.lower() for a in allowed[st.phase])
            raise IllegalAction(f"{kind!r} is not allowed in {names[st.phase]} (allowed: {ok})", code="wrong-phase")
        s = st.turn
        assert s is not None, "somebody acts until the match is over"
        if isinstance(action, Check) and st.raised:
            raise IllegalAction("somebody has raised in this round: call, raise or fold", code="cannot-check")
        if isinstance(action, Call) and st.stakes[s] >= st.high:
            raise IllegalAction("your stake already equals the highest stake: check, raise or fold", code="nothing-to-call")
        if isinstance(action, Raise):
            if action.amount is None:
                raise ActionError("a raise needs an amount in chips", field="amount")
            rr = self.flow.raise_range(s)
            if rr is None:
                raise IllegalAction("no raise is possible: somebody could not cover the ante", code="cannot-raise")
            if action.amount < rr[0]:
                raise IllegalAction(f"a raise is at least the ante, {rr[0]} chips", code="raise-too-small")
            if action.amount > rr[1]:
                raise IllegalAction(
                    f"a raise is at most {rr[1]} chips (what the poorest player still in can cover)",
                    code="raise-too-large",
                )

    def _play(self, action) -> list[Event]:
        """Play the legal ``action`` for the seat to act; returns the events, including the
        automatic steps (end of rounds, burns, showdown, next coup, end of the match). A raise
        without an amount (a range as listed) is refused even unchecked (ActionError, field
        ``amount``)."""
        st = self.state
        if isinstance(action, Raise) and action.amount is None:
            raise ActionError("a raise needs an amount in chips", field="amount")
        ev: list[Event] | None = [] if self.record_events else None
        s = st.turn
        if s is None:
            raise IllegalAction("the match is over", code="game-over")
        if st.phase == "speak":
            self.flow.speak(s, action, ev)
        elif st.phase == "raise":
            self.flow.answer(s, action, ev)
        else:
            self.flow.draw(s, action, ev)
        self.is_over = over = st.phase == "over"  # _sync, inlined
        self.to_act = None if over else st.turn
        return ev or []

    def result(self) -> Result | None:
        """Once over: chips won or lost decide (:func:`quinze_protocol.games.classique_coup.match_result`)."""
        st = self.state
        return None if st.phase != "over" else match_result(self.options, st)

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` (None: a spectator) sees (quinze_cli/rules/quinze-classique.md "What each player sees").

        ``hidden`` per seat: the card if it is ``seat``'s own or shown by rule (burnt), else None;
        a folded player's card only to its owner. ``awaiting``: seats whose answer the raising round
        still awaits. ``raise``: the legal range when ``seat`` is to act and may raise.
        """
        st = self.state
        n = self.players
        hidden: list[str | None] = []
        for p in range(n):
            h = st.hidden[p]
            shown = h is not None and (p == seat or st.status[p] == "burnt")
            hidden.append(card_text(h) if h is not None and shown else None)
        awaiting = [p for p in self.flow.order_from(st.turn or 0) if p in self.flow.in_coup() and p not in st.acted]
        rr = self.flow.raise_range(seat) if seat is not None and seat == self.to_act and st.phase != "speak" else None
        res = self.result()
        own_total = self.flow.total(seat) if seat is not None and st.hidden[seat] is not None else None
        return {
            "game": self.id,
            "seat": seat,
            "phase": st.phase,
            "to_act": self.to_act,
            "coup": st.coup,
            "dealer": st.dealer,
            "first_dealer": st.first_dealer,
            "rounds": st.rounds,
            "tours": self.options["tours"],
            "deck": st.deck,
            "talon": len(st.talon),
            "ante": self.options["ante"],
            "pot": st.pot,
            "stakes": list(st.stakes),
            "chips": list(st.chips),
            "caves": list(st.caves),
            "in_match": list(st.in_match),
            "status": list(st.status),
            "hidden": hidden,
            "face_up": [[card_text(c) for c in st.face_up[p]] for p in range(n)],
            "face_up_totals": [sum(value(c) for c in st.face_up[p]) for p in range(n)],
            "total": own_total,
            "opener": st.opener,
            "high": st.high,
            "raised": st.raised,
            "awaiting": awaiting if st.phase == "raise" else [],
            "drawer": st.turn if st.phase == "draw" else None,
            "raise": list(rr) if rr else None,
            "options": dict(self.options),
            "result": None if res is None else res.to_data(),
        }

    def stats(self) -> dict[str, float]:
        """Per-game figures for self-play summaries: ``coups`` played, coups where ``all_passed``,
        pots taken by a ``single_opener``, by the ``last_in`` (others folded or burnt), at
        ``showdowns``; ``burns``, ``raises``, ``deck_changes`` (after the first deck)."""
        st = self.state
        return dict(st.tally)



def _state_field(name: str) -> property:
    if name in ("phase", "turn"):  # the game's to_act and is_over follow them
        def put(self: ClassiqueGame, v: Any) -> None:
            setattr(self.state, name, v)
            self._sync()
    else:
        def put(self: ClassiqueGame, v: Any) -> None:
            setattr(self.state, name, v)
    return property(lambda self: getattr(self.state, name), put,
                    doc=f"``state.{name}`` (:class:`ClassiqueState`), read and written through the game")


for _name in ClassiqueState.FIELDS:
    setattr(ClassiqueGame, _name, _state_field(_name))
del _name


def _set_talon(self: ClassiqueGame, cards: list[int]) -> None:
    self.state.talon = cards
    self.state._pending = None


ClassiqueGame.talon = property(  # type: ignore[attr-defined]
    lambda self: self.state.settled_talon(), _set_talon,
    doc="``state.talon`` in its exact order (:meth:`ClassiqueState.settled_talon`), read and written through the game")

from quinze_protocol.games import classique_bots  # noqa: E402,F401  (registers the bots)

_caches.register_dict("classique._RAISES", _RAISES)
