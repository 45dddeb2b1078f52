"""Le Quinze classique (game id ``quinze-classique``): the old betting game, RULES.md §2.

Two to six players try to get as close to 15 as possible without going over, with one hidden card
and face-up cards drawn from the bottom of a one-colour talon, and bet on it (ante, raises).

Options (chips are whole numbers):

- ``cave`` (default 100): chips each player starts with (RULES.md §2 "Stakes").
- ``caves`` (default ``""``): unequal caves agreed at table creation, as a comma-separated list of
  one positive number per seat, e.g. ``"100,80,120"``; when given it replaces ``cave``.
- ``ante`` (default 1): chips every player still in the match puts in the pot at every coup.
- ``tours`` (default 1): rounds of the deal; the match ends when the deal would pass back to the
  first dealer for the ``tours``-th time (RULES.md §2 "End of the match").
- ``max_coups`` (default 1000, safety): the match ends (reason ``"max-coups"``) before a coup would
  start beyond this number. With one deck of 52 cards per dealer it is never reached in practice.

Actions: see :mod:`protocol.games.classique_actions` (``pass stand hit check call raise fold``; a
raise is listed as ``{"type":"raise","min":m,"max":M}`` and applied as
``{"type":"raise","amount":N}``). Positions: :mod:`protocol.games.classique_position`.

Decisions of RULES.md §2 applied here, each in the method named:

- seat ceremony, the lowest card deals first so the king speaks first — :meth:`ClassiqueGame.new`;
- the dealer keeps the deal while the talon can give one card each and keep two more, else the
  deal passes to the next seat with the other-coloured deck; the first dealer uses the black deck
  — :meth:`ClassiqueGame._start_coup`;
- a raise is at least the ante and at most what the poorest other player still in can cover (also
  at most what the raiser can pay) — :meth:`ClassiqueGame.raise_range`;
- the talon runs out mid-coup: players still drawing must stand — :meth:`ClassiqueGame._resume_draw`;
- showdown ties by primauté — :meth:`ClassiqueGame._showdown`;
- leftover pot shared equally, odd chips by primauté — :meth:`ClassiqueGame._end_match`.

Choices this module makes where RULES.md is silent (documented in the rules text too):

- after all players pass, the next coup follows the ordinary deal rule (the same dealer if the
  talon suffices, else the deal passes);
- a dealer who is out of the match (cannot ante) passes the deal as if the talon were short;
- a drawing player facing an empty talon stands automatically (event ``stand`` with ``forced``);
- if nobody at all can ante, the pot is shared among the players of the last coup;
- ``Result``: scores are final chips minus cave per seat; points go to the seats holding the most
  chips (``Result.from_winners``); reasons ``"tours"``, ``"last-player"``, ``"max-coups"``.

Events (``kind``: public fields; private fields in brackets):
``ceremony`` {draws:[{card, seat}], first_dealer, first_to_speak};
``deck-change`` {dealer, deck, talon, reason: "first"|"talon-short"|"dealer-out"};
``out`` {seat, chips} (cannot ante, out of the match);
``ante`` {coup, amount, seats, pot};
``deal`` {coup, dealer, order, talon} [card];
``speak`` {seat, say: "pass"|"stand"|"hit"};
``check`` / ``call`` / ``raise`` / ``fold`` {seat, amount (call, raise), stake, pot};
``stand`` {seat, forced} (drawing turn); ``hit`` {seat, card, face_up_total, talon};
``burnt`` {seat, hidden, total}; ``showdown`` {hands:[{seat, hidden, face_up, total}]};
``pot-won`` {seat, amount, shown, reason: "single-opener"|"last-in"|"showdown"};
``coup-end`` {coup, outcome: "won"|"all-passed", pot, chips};
``match-end`` {reason, shares:[{seat, amount}], chips}.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from protocol.cards import card_text, rank
from protocol.game import ActionError, Event, Game, IllegalAction, Option, OptionError, Result, register_game
from protocol.games.classique_actions import Call, Check, Fold, Hit, Pass, Raise, Stand, parse_action_data
from protocol.rng import Rng

__all__ = ["ClassiqueGame", "colour_deck", "value", "CEREMONY_RANKS"]

BLACK_SUITS = (0, 3)
RED_SUITS = (1, 2)
CEREMONY_RANKS = (13, 12, 11, 10, 9, 8)
"""Ranks drawn for seats, top down: king seat 0, queen seat 1, ... (RULES.md §2)."""
CEREMONY_SUIT = 0
PHASES = ("speak", "raise", "draw", "over")
STATUSES = ("waiting", "passed", "stand", "hit", "folded", "burnt", "out")
IN_COUP = ("stand", "hit")
BURN_LIMIT = 15
TALLY_KEYS = ("coups", "all_passed", "single_opener", "last_in", "showdowns", "burns", "raises", "deck_changes")
"""Counters kept for :meth:`ClassiqueGame.stats`."""


def value(c: int) -> int:
    """Value of a card: A 1, 2–10 face value, J Q K 10 (RULES.md §2 "Material and values")."""
    return min(rank(c), 10)


def colour_deck(colour: str) -> list[int]:
    """The 52 cards of the ``"black"`` (spades, clubs) or ``"red"`` (hearts, diamonds) deck, sorted."""
    suits = BLACK_SUITS if colour == "black" else RED_SUITS
    return sorted([s * 13 + r for s in suits for r in range(13)] * 2)


def other_colour(colour: str) -> str:
    return "red" if colour == "black" else "black"


@register_game
class ClassiqueGame(Game):
    """Le Quinze classique, RULES.md §2. See the module docstring for options, events, decisions."""

    id = "quinze-classique"
    title = "Le Quinze classique"
    min_players = 2
    max_players = 6
    option_specs = (
        Option("cave", int, 100, "chips each player starts with", 1, 1_000_000),
        Option("caves", str, "", "unequal caves, one per seat, comma-separated (e.g. 100,80,120); replaces cave"),
        Option("ante", int, 1, "chips each player antes at every coup", 1, 1_000_000),
        Option("tours", int, 1, "rounds of the deal before the match ends", 1, 100),
        Option("max_coups", int, 1000, "safety: the match ends before coup max_coups+1", 1, 100_000),
    )

    # ------------------------------------------------------------------ creation

    def _blank(self, options: dict[str, Any], caves: list[int]) -> None:
        n = options["players"]
        self.options = options
        self.opening_events = []
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
        self.tally = dict.fromkeys(TALLY_KEYS, 0)

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
            if not p.isdigit() or int(p) < 1:
                raise OptionError(f"cave of seat {i} must be a positive whole number, got {p!r}", field="caves")
            out.append(int(p))
        return out

    @classmethod
    def new(cls, options: Mapping[str, Any], seed: int) -> "ClassiqueGame":
        """A new match. Opening events: the seat ceremony, the first deck, the first coup.

        Ceremony [decision, RULES.md §2 "Seats and the first dealer"]: one spade per player from the
        king down is shuffled and drawn; the king takes seat 0, the queen seat 1, ...; the lowest card
        (the last seat) deals first, so seat 0 speaks first. Raises OptionError.
        """
        opts = cls.validate_options(options)
        caves = cls.read_caves(opts)
        game = cls.__new__(cls)
        game._blank(opts, caves)
        game.rng = Rng(seed)
        n = opts["players"]
        cards = [CEREMONY_SUIT * 13 + r - 1 for r in CEREMONY_RANKS[:n]]
        game.rng.shuffle(cards)
        draws = [{"card": card_text(c), "seat": CEREMONY_RANKS.index(rank(c))} for c in cards]
        ev = [Event("ceremony", {"draws": draws, "first_dealer": n - 1, "first_to_speak": 0})]
        game.talon = colour_deck("black")
        game.rng.shuffle(game.talon)
        ev.append(Event("deck-change", {"dealer": game.dealer, "deck": "black", "talon": 52, "reason": "first"}))
        game._start_coup(ev)
        game.opening_events = ev
        return game

    @classmethod
    def from_position(cls, data: Mapping[str, Any]) -> "ClassiqueGame":
        """A game from :meth:`to_position` data; raises PositionError naming the field
        (see :func:`protocol.games.classique_position.load`)."""
        from protocol.games.classique_position import load

        return load(cls, data)

    def to_position(self) -> dict[str, Any]:
        """The complete state as data (format in docs/positions.md ``## quinze-classique``)."""
        from protocol.games.classique_position import dump

        return dump(self)

    # ------------------------------------------------------------------ seats and orders

    def order_from(self, start: int) -> list[int]:
        """Every seat, cyclically from ``start``."""
        n = self.players
        return [(start + k) % n for k in range(n)]

    def speaking_order(self) -> list[int]:
        """Seats in the match from the dealer's next seat (the dealer last): speaking order and primauté."""
        return [s for s in self.order_from(self.dealer + 1) if self.in_match[s]]

    def in_coup(self) -> list[int]:
        """Seats still in the coup (opened and neither folded nor burnt), in speaking order."""
        return [s for s in self.speaking_order() if self.status[s] in IN_COUP]

    def total(self, seat: int) -> int:
        """Hidden card plus face-up cards of ``seat`` (0 if no card)."""
        h = self.hidden[seat]
        return (value(h) if h is not None else 0) + sum(value(c) for c in self.face_up[seat])

    def raise_range(self, seat: int) -> tuple[int, int] | None:
        """(min, max) chips ``seat`` may raise by, or None if no raise is possible.

        [decision, RULES.md §2 step 3]: at least the ante, at most what the poorest other player still
        in can add after calling (no side pots), and at most what ``seat`` itself can add.
        """
        others = [p for p in self.in_coup() if p != seat]
        if not others:
            return None
        top = min(self.chips[p] + self.stakes[p] - self.high for p in others)
        top = min(top, self.chips[seat] + self.stakes[seat] - self.high)
        low = self.options["ante"]
        return (low, top) if top >= low else None

    # ------------------------------------------------------------------ interface

    @property
    def to_act(self) -> int | None:
        return None if self.phase == "over" else self.turn

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    def legal_actions(self) -> list:
        if self.phase == "over":
            return []
        s = self.turn
        if self.phase == "speak":
            return [Pass(), Stand(), Hit()]
        rr = self.raise_range(s)
        raise_list = [Raise(min=rr[0], max=rr[1])] if rr else []
        if self.phase == "draw":
            return [Hit(), Stand(), *raise_list]
        out: list = []
        if not self.raised:
            out.append(Check())
        if self.stakes[s] < self.high:
            out.append(Call())
        return out + raise_list + [Fold()]

    def parse_action(self, data: Mapping[str, Any]):
        """Action data to an action (see :mod:`protocol.games.classique_actions`); ActionError naming the field."""
        return parse_action_data(data)

    def check_action(self, action) -> None:
        """Raise IllegalAction (stable ``code``, ``reason``) if ``action`` cannot be played now.

        Codes: ``game-over``, ``wrong-phase``, ``cannot-check``, ``nothing-to-call``, ``cannot-raise``,
        ``raise-too-small``, ``raise-too-large``.
        """
        if self.phase == "over":
            raise IllegalAction("the match is over", code="game-over")
        allowed = {"speak": (Pass, Stand, Hit), "raise": (Check, Call, Raise, Fold), "draw": (Hit, Stand, Raise)}
        names = {"speak": "the speaking round", "raise": "a raising round", "draw": "a drawing turn"}
        kind = action.to_data()["type"]
        if not isinstance(action, allowed[self.phase]):
            ok = ", ".join(a.__name__.lower() for a in allowed[self.phase])
            raise IllegalAction(f"{kind!r} is not allowed in {names[self.phase]} (allowed: {ok})", code="wrong-phase")
        s = self.turn
        if isinstance(action, Check) and self.raised:
            raise IllegalAction("somebody has raised in this round: call, raise or fold", code="cannot-check")
        if isinstance(action, Call) and self.stakes[s] >= self.high:
            raise IllegalAction("your stake already equals the highest stake: check, raise or fold", code="nothing-to-call")
        if isinstance(action, Raise):
            if action.amount is None:
                raise ActionError("a raise needs an amount in chips", field="amount")
            rr = self.raise_range(s)
            if rr is None:
                raise IllegalAction("no raise is possible: somebody could not cover the ante", code="cannot-raise")
            if action.amount < rr[0]:
                raise IllegalAction(f"a raise is at least the ante, {rr[0]} chips", code="raise-too-small")
            if action.amount > rr[1]:
                raise IllegalAction(
                    f"a raise is at most {rr[1]} chips (what the poorest player still in can cover)",
                    code="raise-too-large",
                )

    def apply(self, action, *, checked: bool = True) -> list[Event]:
        """Play ``action`` (an action or its data) for the seat to act; returns the events, including
        the automatic steps (end of rounds, burns, showdown, next coup, end of the match).

        Raises ActionError / IllegalAction (state unchanged) when ``checked``.
        """
        if isinstance(action, Mapping):
            action = self.parse_action(action)
        if checked:
            self.check_action(action)
        elif isinstance(action, Raise) and action.amount is None:
            raise ActionError("a raise needs an amount in chips", field="amount")
        ev: list[Event] = []
        s = self.turn
        if self.phase == "speak":
            self._speak(s, action, ev)
        elif self.phase == "raise":
            self._answer(s, action, ev)
        else:
            self._draw(s, action, ev)
        return ev

    def result(self) -> Result | None:
        if self.phase != "over":
            return None
        best = max(self.chips)
        winners = [s for s in range(self.players) if self.chips[s] == best]
        scores = [self.chips[s] - self.caves[s] for s in range(self.players)]
        return Result.from_winners(winners, scores, self.end_reason or "tours")

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` (None: a spectator) sees (RULES.md §2 "What each player sees").

        ``hidden`` per seat: the card if it is ``seat``'s own or shown by rule (burnt), else None;
        a folded player's card only to its owner. ``awaiting``: seats whose answer the raising round
        still awaits. ``raise``: the legal range when ``seat`` is to act and may raise.
        """
        n = self.players
        hidden: list[str | None] = []
        for p in range(n):
            h = self.hidden[p]
            shown = h is not None and (p == seat or self.status[p] == "burnt")
            hidden.append(card_text(h) if shown else None)
        awaiting = [p for p in self.order_from(self.turn or 0) if p in self.in_coup() and p not in self.acted]
        rr = self.raise_range(seat) if seat is not None and seat == self.to_act and self.phase != "speak" else None
        own_total = self.total(seat) if seat is not None and self.hidden[seat] is not None else None
        return {
            "game": self.id,
            "seat": seat,
            "phase": self.phase,
            "to_act": self.to_act,
            "coup": self.coup,
            "dealer": self.dealer,
            "first_dealer": self.first_dealer,
            "rounds": self.rounds,
            "tours": self.options["tours"],
            "deck": self.deck,
            "talon": len(self.talon),
            "ante": self.options["ante"],
            "pot": self.pot,
            "stakes": list(self.stakes),
            "chips": list(self.chips),
            "caves": list(self.caves),
            "in_match": list(self.in_match),
            "status": list(self.status),
            "hidden": hidden,
            "face_up": [[card_text(c) for c in self.face_up[p]] for p in range(n)],
            "face_up_totals": [sum(value(c) for c in self.face_up[p]) for p in range(n)],
            "total": own_total,
            "opener": self.opener,
            "high": self.high,
            "raised": self.raised,
            "awaiting": awaiting if self.phase == "raise" else [],
            "drawer": self.turn if self.phase == "draw" else None,
            "raise": list(rr) if rr else None,
            "options": dict(self.options),
        }

    def stats(self) -> dict[str, float]:
        """Per-game figures for self-play summaries: ``coups`` played, coups where ``all_passed``,
        pots taken by a ``single_opener``, by the ``last_in`` (others folded or burnt), at
        ``showdowns``; ``burns``, ``raises``, ``deck_changes`` (after the first deck)."""
        return dict(self.tally)

    # ------------------------------------------------------------------ coups

    def _start_coup(self, ev: list[Event]) -> None:
        """Eliminate who cannot ante, maybe pass the deal, ante, deal one hidden card each.

        [decision, RULES.md §2 "Who deals"]: the dealer keeps the deal while the talon holds at
        least one card per player plus two; otherwise (or if the dealer is out of the match) the
        deal passes to the next seat in the match, with the other-coloured deck freshly shuffled.
        Passing the deal back over the first dealer completes a round; after ``tours`` rounds the
        match ends instead.
        """
        ante = self.options["ante"]
        before = [s for s in range(self.players) if self.in_match[s]]
        for s in before:
            if self.chips[s] < ante:
                self.in_match[s] = False
                self.status[s] = "out"
                ev.append(Event("out", {"seat": s, "chips": self.chips[s]}))
        players = [s for s in range(self.players) if self.in_match[s]]
        if len(players) < 2:
            self._end_match(ev, "last-player", players or before)
            return
        if self.coup >= self.options["max_coups"]:
            self._end_match(ev, "max-coups", players)
            return
        dealer_out = not self.in_match[self.dealer]
        if dealer_out or len(self.talon) < len(players) + 2:
            nxt = next(s for s in self.order_from(self.dealer + 1) if self.in_match[s])
            steps = (nxt - self.dealer) % self.players or self.players
            if any((self.dealer + k) % self.players == self.first_dealer for k in range(1, steps + 1)):
                self.rounds += 1
                if self.rounds >= self.options["tours"]:
                    self._end_match(ev, "tours", players)
                    return
            self.dealer = nxt
            self.deck = other_colour(self.deck)
            self.talon = colour_deck(self.deck)
            self.discards = []
            self.rng.shuffle(self.talon)
            reason = "dealer-out" if dealer_out else "talon-short"
            ev.append(Event("deck-change", {"dealer": nxt, "deck": self.deck, "talon": 52, "reason": reason}))
            self.tally["deck_changes"] += 1
        self.coup += 1
        self.tally["coups"] += 1
        for s in players:
            self.chips[s] -= ante
            self.stakes[s] = ante
            self.pot += ante
            self.status[s] = "waiting"
        ev.append(Event("ante", {"coup": self.coup, "amount": ante, "seats": players, "pot": self.pot}))
        order = self.speaking_order()
        private = {}
        for s in order:
            c = self.talon.pop()
            self.hidden[s] = c
            private[s] = {"card": card_text(c)}
        ev.append(Event("deal", {"coup": self.coup, "dealer": self.dealer, "order": order, "talon": len(self.talon)}, private))
        self.phase, self.turn = "speak", order[0]
        self.opener, self.high, self.raised, self.acted, self.round_of = None, ante, False, [], "opening"

    def _finish_coup(self, ev: list[Event], outcome: str) -> None:
        """Put the coup's cards aside, clear the stakes, log ``coup-end``, start the next coup."""
        for s in range(self.players):
            if self.hidden[s] is not None:
                self.discards.append(self.hidden[s])
            self.discards.extend(self.face_up[s])
            self.hidden[s] = None
            self.face_up[s] = []
            self.stakes[s] = 0
            self.status[s] = "waiting" if self.in_match[s] else "out"
        self.opener, self.acted, self.raised = None, [], False
        if outcome == "all-passed":
            self.tally["all_passed"] += 1
        ev.append(Event("coup-end", {"coup": self.coup, "outcome": outcome, "pot": self.pot, "chips": list(self.chips)}))
        self._start_coup(ev)

    def _award(self, seat: int, ev: list[Event], reason: str) -> None:
        amount = self.pot
        self.chips[seat] += amount
        self.pot = 0
        self.tally[reason.replace("-", "_") + ("s" if reason == "showdown" else "")] += 1
        ev.append(Event("pot-won", {"seat": seat, "amount": amount, "shown": reason == "showdown", "reason": reason}))
        self._finish_coup(ev, "won")

    def _end_match(self, ev: list[Event], reason: str, sharers: list[int]) -> None:
        """End the match; [decision, RULES.md §2 "End of the match"]: a pot left over is shared equally
        among ``sharers`` (the players still in the match), the odd chips one each by primauté
        (speaking order from the dealer's next seat)."""
        shares = [0] * self.players
        if self.pot and sharers:
            order = [s for s in self.order_from(self.dealer + 1) if s in sharers]
            q, r = divmod(self.pot, len(order))
            for i, s in enumerate(order):
                shares[s] = q + (1 if i < r else 0)
                self.chips[s] += shares[s]
            self.pot = 0
        self.shares = shares
        self.phase, self.turn, self.end_reason = "over", None, reason
        data = [{"seat": s, "amount": shares[s]} for s in range(self.players) if shares[s]]
        ev.append(Event("match-end", {"reason": reason, "shares": data, "chips": list(self.chips)}))

    # ------------------------------------------------------------------ steps

    def _speak(self, s: int, action, ev: list[Event]) -> None:
        """Speaking round, RULES.md §2 step 2."""
        say = action.to_data()["type"]
        self.status[s] = {"pass": "passed", "stand": "stand", "hit": "hit"}[say]
        if say != "pass" and self.opener is None:
            self.opener = s
        ev.append(Event("speak", {"seat": s, "say": say}))
        rest = [p for p in self.speaking_order() if self.status[p] == "waiting"]
        if rest:
            self.turn = rest[0]
            return
        openers = self.in_coup()
        if not openers:
            self._finish_coup(ev, "all-passed")
        elif len(openers) == 1:
            self._award(openers[0], ev, "single-opener")
        else:
            self.phase, self.turn, self.round_of, self.raised, self.acted = "raise", self.opener, "opening", False, []

    def _pay(self, s: int, target: int) -> int:
        amount = target - self.stakes[s]
        self.chips[s] -= amount
        self.stakes[s] = target
        self.pot += amount
        return amount

    def _raise(self, s: int, amount: int, ev: list[Event]) -> None:
        paid = self._pay(s, self.high + amount)
        self.high += amount
        self.raised, self.acted = True, [s]
        self.tally["raises"] += 1
        ev.append(Event("raise", {"seat": s, "amount": amount, "paid": paid, "stake": self.stakes[s], "pot": self.pot}))

    def _answer(self, s: int, action, ev: list[Event]) -> None:
        """Raising round (renvi), RULES.md §2 step 3."""
        if isinstance(action, Raise):
            self._raise(s, action.amount, ev)
        elif isinstance(action, Fold):
            self.status[s] = "folded"
            ev.append(Event("fold", {"seat": s, "stake": self.stakes[s], "pot": self.pot}))
        else:
            kind = "check" if isinstance(action, Check) else "call"
            paid = self._pay(s, self.high) if kind == "call" else 0
            self.acted.append(s)
            data = {"seat": s, "stake": self.stakes[s], "pot": self.pot}
            if kind == "call":
                data["amount"] = paid
            ev.append(Event(kind, data))
        self._continue_round(s, ev)

    def _continue_round(self, s: int, ev: list[Event]) -> None:
        players = self.in_coup()
        if len(players) == 1:
            self._award(players[0], ev, "last-in")
            return
        waiting = [p for p in self.order_from(s + 1) if p in players and p not in self.acted]
        if waiting:
            self.turn = waiting[0]
            return
        self.acted, self.raised = [], False
        self._resume_draw(ev)

    def _resume_draw(self, ev: list[Event]) -> None:
        """Next drawing turn (RULES.md §2 step 4), in speaking order from the opener, or the showdown.

        [decision, RULES.md §2 "Who deals"]: with the talon empty, every player still drawing stands
        (event ``stand`` with ``forced: true``).
        """
        self.round_of = "drawing"
        drawers = [p for p in self.order_from(self.opener) if self.in_match[p] and self.status[p] == "hit"]
        if drawers and not self.talon:
            for p in drawers:
                self.status[p] = "stand"
                ev.append(Event("stand", {"seat": p, "forced": True}))
            drawers = []
        if drawers:
            self.phase, self.turn = "draw", drawers[0]
        else:
            self._showdown(ev)

    def _draw(self, s: int, action, ev: list[Event]) -> None:
        """Drawing turn, RULES.md §2 step 4: hit (burnt over 15), stand, or raise."""
        if isinstance(action, Raise):
            self._raise(s, action.amount, ev)
            self.phase = "raise"
            self._continue_round(s, ev)
            return
        if isinstance(action, Stand):
            self.status[s] = "stand"
            ev.append(Event("stand", {"seat": s, "forced": False}))
        else:
            c = self.talon.pop()
            self.face_up[s].append(c)
            up = sum(value(x) for x in self.face_up[s])
            ev.append(Event("hit", {"seat": s, "card": card_text(c), "face_up_total": up, "talon": len(self.talon)}))
            total = self.total(s)
            if total > BURN_LIMIT:
                self.status[s] = "burnt"
                self.tally["burns"] += 1
                ev.append(Event("burnt", {"seat": s, "hidden": card_text(self.hidden[s]), "total": total}))
                players = self.in_coup()
                if len(players) == 1:
                    self._award(players[0], ev, "last-in")
                    return
        self._resume_draw(ev)

    def _showdown(self, ev: list[Event]) -> None:
        """Showdown, RULES.md §2 step 5. [decision]: ties go to the first tied player in speaking order
        from the dealer's next seat (primauté)."""
        players = self.in_coup()
        hands = [
            {"seat": p, "hidden": card_text(self.hidden[p]), "face_up": [card_text(c) for c in self.face_up[p]],
             "total": self.total(p)}
            for p in players
        ]
        ev.append(Event("showdown", {"hands": hands}))
        best = max(self.total(p) for p in players)
        winner = next(p for p in players if self.total(p) == best)
        self._award(winner, ev, "showdown")


from protocol.games import classique_bots  # noqa: E402,F401  (registers the bots)
