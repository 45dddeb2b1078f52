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
``{"type":"raise","amount":N}``). Positions: :mod:`protocol.games.classique_position`. The course of
a coup (:class:`CoupFlow`): :mod:`protocol.games.classique_coup`.

Decisions of RULES.md §2 applied here, each in the method named:

- seat ceremony, the lowest card deals first so the king speaks first — :meth:`ClassiqueGame.new`;
- the dealer keeps the deal while the talon can give one card each and keep two more, else the
  deal passes to the next seat with the other-coloured deck; the first dealer uses the black deck
  — :meth:`CoupFlow._start_coup`;
- a raise is at least the ante and at most what the poorest other player still in can cover (also
  at most what the raiser can pay) — :meth:`CoupFlow.raise_range`;
- the talon runs out mid-coup: players still drawing must stand — :meth:`CoupFlow._resume_draw`;
- showdown ties by primauté — :meth:`CoupFlow._showdown`;
- leftover pot shared equally, odd chips by primauté — :meth:`CoupFlow._end_match`.

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

from protocol.games.classique_coup import (  # noqa: F401  (re-exported)
    BURN_LIMIT,
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

__all__ = ["ClassiqueGame", "colour_deck", "value", "CEREMONY_RANKS"]


@register_game
class ClassiqueGame(CoupFlow, Game):
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

    def copy(self) -> "ClassiqueGame":
        """An independent copy (see :meth:`protocol.game.Game.copy`): chips, stakes, statuses,
        cards, counters and the generator are copied; options and events are shared."""
        g = object.__new__(type(self))
        d = g.__dict__
        d.update(self.__dict__)
        d["rng"] = Rng.from_state(self.rng.state)
        for name in ("caves", "chips", "in_match", "stakes", "talon", "discards", "status", "hidden",
                     "acted", "shares"):
            d[name] = d[name][:]
        d["face_up"] = [f[:] for f in self.face_up]
        d["tally"] = dict(self.tally)
        return g

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


from protocol.games import classique_bots  # noqa: E402,F401  (registers the bots)
