"""The course of a coup of Le Quinze classique (quinze_cli/rules/quinze-classique.md "A coup", "Who deals", "End of the match").

:class:`ClassiqueState` is the whole changing state of a match, declared here and nowhere else;
:class:`CoupFlow` is the collaborator of :class:`~quinze_protocol.games.classique.ClassiqueGame` that
moves such a state on: ante and deal, the speaking round, raising rounds, drawing turns, the
showdown, the deal passing, the end of the match. The game (options, legal actions, checks,
views, positions) holds one state and one flow over it and reads the state directly. Each method applying a **[decision]** cites it in its docstring.
Chips are whole numbers; a stake is what a seat has put in the pot this coup, ante included.
"""

from __future__ import annotations

from quinze_protocol.cards import card_text, rank
from quinze_protocol.game import ActionError, Event, Result
from quinze_protocol.games.classique_actions import Check, Fold, Hit, Pass, Raise, Stand
from quinze_protocol.games.quinze_shuffle import Pending, advance, shuffle_lazy
from quinze_protocol.rng import Rng

__all__ = ["ClassiqueState", "CoupFlow", "colour_deck", "match_result", "other_colour", "value"]

BLACK_SUITS = (0, 3)
RED_SUITS = (1, 2)
CEREMONY_RANKS = (13, 12, 11, 10, 9, 8)
"""Ranks drawn for the first dealer, top down: as many as players (quinze_cli/rules/quinze-classique.md)."""
CEREMONY_SUIT = 0
PHASES = ("speak", "raise", "draw", "over")
STATUSES = ("waiting", "passed", "stand", "hit", "folded", "burnt", "out")
IN_COUP = ("stand", "hit")
BURN_LIMIT = 15
_ORDERS: dict[int, tuple[tuple[int, ...], ...]] = {}
"""By number of seats n: for each start seat, every seat cyclically from it."""
_SAY = {Pass: ("pass", "passed"), Stand: ("stand", "stand"), Hit: ("hit", "hit")}
"""Speaking-round action type -> (what the seat says, its status)."""


def _orders(n: int) -> tuple[tuple[int, ...], ...]:
    got = _ORDERS.get(n)
    if got is None:
        got = _ORDERS[n] = tuple(tuple((s + k) % n for k in range(n)) for s in range(n))
    return got
TALLY_KEYS = ("coups", "all_passed", "single_opener", "last_in", "showdowns", "burns", "raises", "deck_changes")
"""Counters kept for :meth:`ClassiqueGame.stats`."""
_TALLY_ZERO = dict.fromkeys(TALLY_KEYS, 0)


def value(c: int) -> int:
    """Value of a card: A 1, 2–10 face value, J Q K 10 (quinze_cli/rules/quinze-classique.md "Material and values")."""
    return _VALUE[c]


_VALUE = tuple(min(rank(c), 10) for c in range(54))
""":func:`value` of every card number."""


def _sorted_deck(colour: str) -> tuple[int, ...]:
    suits = BLACK_SUITS if colour == "black" else RED_SUITS
    return tuple(sorted([s * 13 + r for s in suits for r in range(13)] * 2))


_DECKS = {"black": _sorted_deck("black"), "red": _sorted_deck("red")}
_TEXT = tuple(card_text(c) for c in range(54))
""":func:`~quinze_protocol.cards.card_text` of every card number."""
_DEALT = tuple({"card": _TEXT[c]} for c in range(54))
"""The private part of a ``deal`` event for a seat, by its hidden card: built once, shared by the
events (events are immutable values)."""
_tnew = tuple.__new__
_object_new = object.__new__
_NOPRIV = Event._field_defaults["private"]
"""Events are built as ``_tnew(Event, (kind, public, private))``, the value of ``Event(kind,
public, private)`` in one call (:mod:`quinze_protocol.games.events`); ``_NOPRIV``: no private field."""
_TALLY_OF = {"single-opener": "single_opener", "last-in": "last_in", "showdown": "showdowns"}
"""The tally counter of each way a pot is won."""


def colour_deck(colour: str) -> list[int]:
    """The 52 cards of the ``"black"`` (spades, clubs) or ``"red"`` (hearts, diamonds) deck, sorted."""
    return list(_DECKS["black" if colour == "black" else "red"])


def other_colour(colour: str) -> str:
    """The colour of the other deck."""
    return "red" if colour == "black" else "black"


class ClassiqueState:
    """Everything that changes during a match of Le Quinze classique, and nothing else: the
    explicit state :class:`CoupFlow` moves on and :class:`~quinze_protocol.games.classique.ClassiqueGame`
    reads (views, legal actions, checks) and saves (positions). Chips are whole numbers; a stake
    is what a seat has put in the pot this coup, ante included.

    ``caves``/``chips``/``stakes``/``shares``: per seat; ``in_match``: per seat, still in the match;
    ``status``: per seat, one of :data:`STATUSES`; ``hidden``: per seat, the hidden card or None;
    ``face_up``: per seat, the cards drawn; ``talon``: the deck in play, its bottom (where cards are
    dealt from) last; ``discards``: the cards of finished coups; ``phase``: one of :data:`PHASES`;
    ``turn``: the seat to act; ``acted``: who answered since the last raise; ``round_of``:
    ``"opening"`` or ``"drawing"``; ``tally``: counters for ``stats()``; ``rng``: the generator.
    """

    FIELDS = ('caves', 'chips', 'in_match', 'pot', 'stakes', 'first_dealer', 'dealer', 'rounds', 'coup', 'deck', 'talon', 'discards', 'phase', 'turn', 'status', 'hidden', 'face_up', 'opener', 'high', 'raised', 'acted', 'round_of', 'end_reason', 'shares', 'tally', 'rng')
    """The state's fields, which the game reads and writes as its own attributes."""
    __slots__ = FIELDS + ("_pending",)

    def __init__(self, caves: list[int], rng: Rng | None = None) -> None:
        """A match before its ceremony, with ``caves`` per seat and ``rng`` (by default ``Rng(0)``)."""
        n = len(caves)
        self.caves = list(caves)
        self.chips = list(caves)
        self.in_match = [True] * n
        self.pot = 0
        self.stakes = [0] * n
        self.first_dealer = n - 1
        self.dealer = n - 1
        self.rounds = 0
        self.coup = 0
        self.deck = "black"
        self.talon: list[int] = []
        self._pending: Pending | None = None  # the talon's shuffle, not carried out to the end yet (shuffle_talon)
        self.discards: list[int] = []
        self.phase = "speak"
        self.turn: int | None = None
        self.status = ["waiting"] * n
        self.hidden: list[int | None] = [None] * n
        self.face_up: list[list[int]] = [[] for _ in range(n)]
        self.opener: int | None = None
        self.high = 0
        self.raised = False
        self.acted: list[int] = []
        self.round_of = "opening"
        self.end_reason: str | None = None
        self.shares: list[int] = [0] * n
        self.tally = dict(_TALLY_ZERO)
        self.rng = Rng(0) if rng is None else rng

    def copy(self) -> "ClassiqueState":
        """An independent copy: every list, the counters and the generator copied."""
        c = ClassiqueState.__new__(ClassiqueState)
        c.caves, c.chips, c.in_match, c.stakes = self.caves[:], self.chips[:], self.in_match[:], self.stakes[:]
        c.talon, c._pending = self.talon[:], self._pending
        c.discards, c.status, c.hidden = self.discards[:], self.status[:], self.hidden[:]
        c.acted, c.shares = self.acted[:], self.shares[:]
        c.pot, c.first_dealer, c.dealer, c.rounds, c.coup = self.pot, self.first_dealer, self.dealer, self.rounds, self.coup
        c.deck, c.phase, c.turn, c.opener, c.high = self.deck, self.phase, self.turn, self.opener, self.high
        c.raised, c.round_of, c.end_reason = self.raised, self.round_of, self.end_reason
        c.face_up = [f[:] for f in self.face_up]
        c.tally = dict(self.tally)
        c.rng = Rng.from_state(self.rng.state)
        return c

    def settled_talon(self) -> list[int]:
        """The talon in its exact order (:meth:`shuffle_talon` settles the order lazily; the
        engine reads only its size and deals with :meth:`pop_card`)."""
        if self._pending is not None:
            self._pending = advance(self.talon, self._pending, 0)
        return self.talon

    def shuffle_talon(self, cards: list[int]) -> None:
        """Make ``cards`` the talon, shuffled by the generator exactly as ``Rng.shuffle`` would.
        The generator moves on at once as after the whole shuffle, but the order is settled
        from the bottom up only as far as cards are dealt (:func:`~quinze_protocol.games.quinze_shuffle.shuffle_lazy`):
        most of a 52-card talon is never dealt before the next deck change. Until then
        ``talon`` holds the right cards, its size is right and its bottom is settled as far as
        dealt; :meth:`settled_talon` settles the rest (the game's ``talon`` reads it)."""
        self.talon = cards
        self._pending = shuffle_lazy(self.rng, cards)

    def pop_card(self) -> int:
        """Deal the bottom card of the talon (not empty)."""
        t = self.talon
        if self._pending is not None:
            _, k, d = self._pending
            if d <= k + 1 - len(t):  # the bottom card is not final yet: settle it and the next
                self._pending = advance(t, self._pending, max(1, len(t) - 2))
        return t.pop()


def match_result(options: dict, st: ClassiqueState) -> Result:
    """The result of an ended match (quinze_cli/rules/quinze-classique.md "End of the match" [decision]): scores are chips
    won or lost (final chips minus cave); the best score wins, equal best share."""
    n = options["players"]
    scores = [st.chips[s] - st.caves[s] for s in range(n)]
    best = max(scores)
    return Result.from_winners([s for s in range(n) if scores[s] == best], scores, st.end_reason or "tours")


class CoupFlow:
    """The course of a coup, over an explicit :class:`ClassiqueState`: ``CoupFlow(options, state)``
    moves ``state`` on; it holds nothing else (the options are the game's, never changed)."""

    __slots__ = ("options", "state", "n", "_orders", "_ante", "_tours", "_max_coups")

    def __init__(self, options: dict, state: ClassiqueState) -> None:
        self.options = options
        self.state = state
        self.n = options["players"]
        self._orders = _orders(self.n)
        # read once (the options never change; an observer's may lack some: then 0)
        self._ante: int = options.get("ante", 0)
        self._tours: int = options.get("tours", 0)
        self._max_coups: int = options.get("max_coups", 0)

    def over(self, state: ClassiqueState) -> "CoupFlow":
        """A flow with the same options over another ``state`` (a copy's), without ``__init__``'s
        reading of the options again."""
        f = _object_new(CoupFlow)
        f.options, f.state, f.n, f._orders = self.options, state, self.n, self._orders
        f._ante, f._tours, f._max_coups = self._ante, self._tours, self._max_coups
        return f

    # ------------------------------------------------------------------ seats and orders

    def order_from(self, start: int) -> tuple[int, ...]:
        """Every seat, cyclically from ``start``."""
        return self._orders[start % self.n]

    def speaking_order(self) -> list[int]:
        """Seats in the match from the dealer's next seat (the dealer last): speaking order and primauté."""
        st = self.state
        in_match = st.in_match
        return [s for s in self._orders[(st.dealer + 1) % self.n] if in_match[s]]

    def in_coup(self) -> list[int]:
        """Seats still in the coup (opened and neither folded nor burnt), in speaking order."""
        st = self.state
        in_match, status = st.in_match, st.status
        out = []
        for s in self._orders[(st.dealer + 1) % self.n]:  # a loop: a comprehension is a call
            if in_match[s] and status[s] in IN_COUP:
                out.append(s)
        return out

    def hidden_card(self, seat: int) -> int:
        """The hidden card of ``seat``, a seat in the coup (every one holds one)."""
        h = self.state.hidden[seat]
        assert h is not None, f"seat {seat} in the coup holds a hidden card"
        return h

    def total(self, seat: int) -> int:
        """Hidden card plus face-up cards of ``seat`` (0 if no card)."""
        st = self.state
        h = st.hidden[seat]
        V = _VALUE
        t = V[h] if h is not None else 0
        for c in st.face_up[seat]:
            t += V[c]
        return t

    def raise_range(self, seat: int) -> tuple[int, int] | None:
        """(min, max) chips ``seat`` may raise by, or None if no raise is possible.

        [decision, quinze_cli/rules/quinze-classique.md step 3]: at least the ante, at most what the poorest other player still
        in can add after calling (no side pots), and at most what ``seat`` itself can add.
        """
        st = self.state
        chips, stakes, status, in_match = st.chips, st.stakes, st.status, st.in_match
        top = chips[seat] + stakes[seat]
        other = False
        for p in self._orders[0]:
            if p != seat and in_match[p] and status[p] in IN_COUP:
                other = True
                room = chips[p] + stakes[p]
                if room < top:
                    top = room
        if not other:
            return None
        top -= st.high
        low = self._ante
        return (low, top) if top >= low else None


    # ------------------------------------------------------------------ coups

    def start_coup(self, ev: list[Event] | None, played: bool = False) -> None:
        """Eliminate who cannot ante, maybe pass the deal, ante, deal one hidden card each.

        [decision, quinze_cli/rules/quinze-classique.md "Who deals"]: after a coup that was ``played`` (somebody opened) the
        deal passes to the next seat in the match, with the other-coloured deck freshly shuffled.
        After a coup everybody passed, the same dealer deals again from the same talon while it
        holds at least one card per player plus two; otherwise (or if the dealer is out of the
        match) the deal passes as after a played coup. Passing the deal back over the first
        dealer completes a round; after ``tours`` rounds the match ends instead (reason
        ``tours``). A match reaching ``max_coups`` coups before that ends with reason
        ``max-coups`` (quinze_cli/rules/quinze-classique.md "End of the match", safety).
        """
        st = self.state
        ante = self._ante
        n = self.n
        in_match, chips, status = st.in_match, st.chips, st.status
        players: list[int] = []
        out: list[int] | None = None  # the seats eliminated now, if any
        for s in range(n):
            if in_match[s]:
                if chips[s] < ante:
                    in_match[s] = False
                    status[s] = "out"
                    out = [s] if out is None else [*out, s]
                    if ev is not None:
                        ev.append(_tnew(Event, ("out", {"seat": s, "chips": chips[s]}, _NOPRIV)))
                else:
                    players.append(s)
        if len(players) < 2:  # the last player, or (nobody can ante) those in the match before
            self._end_match(ev, "last-player", players or out or [])
            return
        dealer = st.dealer
        dealer_out = not in_match[dealer]
        passes = played or dealer_out or len(st.talon) < len(players) + 2
        if passes:
            for nxt in self._orders[(dealer + 1) % n]:  # the next seat in the match
                if in_match[nxt]:
                    break
            steps = (nxt - dealer) % n or n
            # the deal passes over the first dealer: dealer + k for some k in 1..steps
            if ((st.first_dealer - dealer) % n or n) <= steps:
                st.rounds += 1
                if st.rounds >= self._tours:
                    self._end_match(ev, "tours", players)
                    return
        if st.coup >= self._max_coups:
            self._end_match(ev, "max-coups", players)
            return
        tally = st.tally
        if passes:
            st.dealer = dealer = nxt
            st.deck = deck = "red" if st.deck == "black" else "black"  # other_colour
            st.discards = []
            st.talon = cards = list(_DECKS[deck])  # colour_deck, then shuffle_talon, inlined
            st._pending = shuffle_lazy(st.rng, cards)
            if ev is not None:
                reason = "dealer-out" if dealer_out else "played" if played else "talon-short"
                ev.append(_tnew(Event, ("deck-change", {"dealer": nxt, "deck": deck, "talon": 52, "reason": reason}, _NOPRIV)))
            tally["deck_changes"] += 1
        st.coup = coup = st.coup + 1
        tally["coups"] += 1
        stakes = st.stakes
        for s in players:
            chips[s] -= ante
            stakes[s] = ante
            status[s] = "waiting"
        st.pot += ante * len(players)
        if ev is not None:
            ev.append(_tnew(Event, ("ante", {"coup": coup, "amount": ante, "seats": players, "pot": st.pot}, _NOPRIV)))
        # the speaking order (:meth:`speaking_order`): every seat still in the match, after
        # eliminations, from the dealer's next seat (all of them: the rotation itself)
        rotation = self._orders[(dealer + 1) % n]
        order = list(rotation) if len(players) == n else [s for s in rotation if in_match[s]]
        hidden = st.hidden
        talon = st.talon
        pending = st._pending
        # the bottom len(order) cards must be final (as pop_card settles them, a few at once)
        if pending is not None and pending[2] <= pending[1] - len(talon) + len(order):
            st._pending = advance(talon, pending, max(1, len(talon) - len(order) - 1))
        if ev is None:
            for s in order:
                hidden[s] = talon.pop()
        else:
            private = {}
            for s in order:
                hidden[s] = c = talon.pop()
                private[s] = _DEALT[c]
            ev.append(_tnew(Event, ("deal", {"coup": coup, "dealer": dealer, "order": order, "talon": len(talon)}, private)))
        st.phase, st.turn = "speak", order[0]
        st.opener, st.high, st.raised, st.acted, st.round_of = None, ante, False, [], "opening"

    def _finish_coup(self, ev: list[Event] | None, outcome: str) -> None:
        """Put the coup's cards aside, clear the stakes, log ``coup-end``, start the next coup."""
        st = self.state
        hidden, face_up, stakes, status, in_match = st.hidden, st.face_up, st.stakes, st.status, st.in_match
        discards = st.discards
        for s in range(self.n):
            h = hidden[s]
            if h is not None:
                discards.append(h)
                hidden[s] = None
            f = face_up[s]
            if f:
                discards.extend(f)
                face_up[s] = []
            stakes[s] = 0
            status[s] = "waiting" if in_match[s] else "out"
        st.opener, st.acted, st.raised = None, [], False
        if outcome == "all-passed":
            st.tally["all_passed"] += 1
            if ev is not None:
                ev.append(_tnew(Event, ("coup-end", {"coup": st.coup, "outcome": outcome, "pot": st.pot, "chips": st.chips[:]}, _NOPRIV)))
            self.start_coup(ev, False)
            return
        if ev is not None:
            ev.append(_tnew(Event, ("coup-end", {"coup": st.coup, "outcome": outcome, "pot": st.pot, "chips": st.chips[:]}, _NOPRIV)))
        self.start_coup(ev, True)

    def _award(self, seat: int, ev: list[Event] | None, reason: str) -> None:
        st = self.state
        amount = st.pot
        st.chips[seat] += amount
        st.pot = 0
        st.tally[_TALLY_OF[reason]] += 1
        if ev is not None:
            ev.append(_tnew(Event, ("pot-won", {"seat": seat, "amount": amount, "shown": reason == "showdown", "reason": reason}, _NOPRIV)))
        self._finish_coup(ev, "won")

    def _end_match(self, ev: list[Event] | None, reason: str, sharers: list[int]) -> None:
        """End the match; [decision, quinze_cli/rules/quinze-classique.md "End of the match"]: a pot left over is shared equally
        among ``sharers`` (the players still in the match), the odd chips one each by primauté
        (speaking order from the dealer's next seat)."""
        st = self.state
        shares = [0] * self.n
        if st.pot and sharers:
            order = [s for s in self.order_from(st.dealer + 1) if s in sharers]
            q, r = divmod(st.pot, len(order))
            for i, s in enumerate(order):
                shares[s] = q + (1 if i < r else 0)
                st.chips[s] += shares[s]
            st.pot = 0
        st.shares = shares
        st.phase, st.turn, st.end_reason = "over", None, reason
        if ev is not None:
            data = [{"seat": s, "amount": shares[s]} for s in range(self.n) if shares[s]]
            ev.append(_tnew(Event, ("match-end", {"reason": reason, "shares": data, "chips": list(st.chips),
                                          "coups": st.coup, "rounds": st.rounds}, _NOPRIV)))
        if ev is not None:
            ev.append(_tnew(Event, ("game-end", {"result": match_result(self.options, st).to_data()}, _NOPRIV)))

    # ------------------------------------------------------------------ steps

    def speak(self, s: int, action, ev: list[Event] | None) -> None:
        """Speaking round, quinze_cli/rules/quinze-classique.md step 2."""
        st = self.state
        say, st.status[s] = _SAY[type(action)]
        if say != "pass" and st.opener is None:
            st.opener = s
        if ev is not None:
            ev.append(_tnew(Event, ("speak", {"seat": s, "say": say}, _NOPRIV)))
        status, in_match = st.status, st.in_match
        rotation = self._orders[(st.dealer + 1) % self.n]
        for p in rotation:  # the next seat still to speak, in speaking order
            if in_match[p] and status[p] == "waiting":
                st.turn = p
                return
        openers = []  # in_coup(), inlined
        for p in rotation:
            if in_match[p] and status[p] in IN_COUP:
                openers.append(p)
        if not openers:
            self._finish_coup(ev, "all-passed")
        elif len(openers) == 1:
            self._award(openers[0], ev, "single-opener")
        else:
            st.phase, st.turn, st.round_of, st.raised, st.acted = "raise", st.opener, "opening", False, []

    def _pay(self, s: int, target: int) -> int:
        st = self.state
        amount = target - st.stakes[s]
        st.chips[s] -= amount
        st.stakes[s] = target
        st.pot += amount
        return amount

    def _raise(self, s: int, amount: int | None, ev: list[Event] | None) -> None:
        if amount is None:
            raise ActionError("a raise needs an amount in chips", field="amount")
        st = self.state
        paid = self._pay(s, st.high + amount)
        st.high += amount
        st.raised, st.acted = True, [s]
        st.tally["raises"] += 1
        if ev is not None:
            ev.append(_tnew(Event, ("raise", {"seat": s, "amount": amount, "paid": paid, "stake": st.stakes[s], "pot": st.pot}, _NOPRIV)))

    def answer(self, s: int, action, ev: list[Event] | None) -> None:
        """Raising round (renvi), quinze_cli/rules/quinze-classique.md step 3."""
        st = self.state
        if isinstance(action, Raise):
            self._raise(s, action.amount, ev)
        elif isinstance(action, Fold):
            st.status[s] = "folded"
            if ev is not None:
                ev.append(_tnew(Event, ("fold", {"seat": s, "stake": st.stakes[s], "pot": st.pot}, _NOPRIV)))
        else:
            kind = "check" if isinstance(action, Check) else "call"
            paid = self._pay(s, st.high) if kind == "call" else 0
            st.acted.append(s)
            if ev is not None:
                data = {"seat": s, "stake": st.stakes[s], "pot": st.pot}
                if kind == "call":
                    data["amount"] = paid
                ev.append(_tnew(Event, (kind, data, _NOPRIV)))
        self._continue_round(s, ev)

    def _continue_round(self, s: int, ev: list[Event] | None) -> None:
        st = self.state
        players = self.in_coup()
        if len(players) == 1:
            self._award(players[0], ev, "last-in")
            return
        acted = st.acted
        for p in self._orders[(s + 1) % self.n]:  # the next seat still to answer
            if p in players and p not in acted:
                st.turn = p
                return
        st.acted, st.raised = [], False
        self._resume_draw(ev)

    def _resume_draw(self, ev: list[Event] | None) -> None:
        """Next drawing turn (quinze_cli/rules/quinze-classique.md step 4), in speaking order from the opener, or the showdown.

        [decision, quinze_cli/rules/quinze-classique.md "Who deals"]: with the talon empty, every player still drawing stands
        (event ``stand`` with ``forced: true``).
        """
        st = self.state
        st.round_of = "drawing"
        assert st.opener is not None, "the drawing turns come after somebody opened"
        drawers = [p for p in self.order_from(st.opener) if st.in_match[p] and st.status[p] == "hit"]
        if drawers and not st.talon:
            for p in drawers:
                st.status[p] = "stand"
                if ev is not None:
                    ev.append(_tnew(Event, ("stand", {"seat": p, "forced": True}, _NOPRIV)))
            drawers = []
        if drawers:
            st.phase, st.turn = "draw", drawers[0]
        else:
            self._showdown(ev)

    def draw(self, s: int, action, ev: list[Event] | None) -> None:
        """Drawing turn, quinze_cli/rules/quinze-classique.md step 4: hit (burnt over 15), stand, or raise."""
        st = self.state
        if isinstance(action, Raise):
            self._raise(s, action.amount, ev)
            st.phase = "raise"
            self._continue_round(s, ev)
            return
        if isinstance(action, Stand):
            st.status[s] = "stand"
            if ev is not None:
                ev.append(_tnew(Event, ("stand", {"seat": s, "forced": False}, _NOPRIV)))
        else:
            c = st.pop_card()
            st.face_up[s].append(c)
            if ev is not None:
                up = 0
                for x in st.face_up[s]:
                    up += _VALUE[x]
                ev.append(_tnew(Event, ("hit", {"seat": s, "card": _TEXT[c], "face_up_total": up, "talon": len(st.talon)}, _NOPRIV)))
            total = self.total(s)
            if total > BURN_LIMIT:
                st.status[s] = "burnt"
                st.tally["burns"] += 1
                if ev is not None:
                    ev.append(_tnew(Event, ("burnt", {"seat": s, "hidden": card_text(self.hidden_card(s)), "total": total}, _NOPRIV)))
                players = self.in_coup()
                if len(players) == 1:
                    self._award(players[0], ev, "last-in")
                    return
        self._resume_draw(ev)

    def _showdown(self, ev: list[Event] | None) -> None:
        """Showdown, quinze_cli/rules/quinze-classique.md step 5. [decision]: ties go to the first tied player in speaking order
        from the dealer's next seat (primauté)."""
        st = self.state
        players = self.in_coup()
        if ev is not None:
            hands = [
                {"seat": p, "hidden": card_text(self.hidden_card(p)), "face_up": [card_text(c) for c in st.face_up[p]],
                 "total": self.total(p)}
                for p in players
            ]
            ev.append(_tnew(Event, ("showdown", {"hands": hands}, _NOPRIV)))
        winner = players[0]
        best = self.total(winner)
        for p in players:  # the first best total in speaking order (loops: no generator for max/next)
            t = self.total(p)
            if t > best:
                winner, best = p, t
        self._award(winner, ev, "showdown")
