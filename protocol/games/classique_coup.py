"""The course of a coup of Le Quinze classique (quinze_cli/rules/quinze-classique.md "A coup", "Who deals", "End of the match").

:class:`CoupFlow` is the half of :class:`~protocol.games.classique.ClassiqueGame` that moves the
state on: ante and deal, the speaking round, raising rounds, drawing turns, the showdown, the deal
passing, the end of the match. The interface half (options, legal actions, checks, views) is in
:mod:`protocol.games.classique`. Each method applying a **[decision]** cites it in its docstring.
Chips are whole numbers; a stake is what a seat has put in the pot this coup, ante included.
"""

from __future__ import annotations

from protocol.cards import card_text, rank
from protocol.game import Event
from protocol.games.classique_actions import Check, Fold, Raise, Stand
from protocol.rng import Rng

__all__ = ["CoupFlow", "colour_deck", "other_colour", "value"]

BLACK_SUITS = (0, 3)
RED_SUITS = (1, 2)
CEREMONY_RANKS = (13, 12, 11, 10, 9, 8)
"""Ranks drawn for the first dealer, top down: as many as players (quinze_cli/rules/quinze-classique.md)."""
CEREMONY_SUIT = 0
PHASES = ("speak", "raise", "draw", "over")
STATUSES = ("waiting", "passed", "stand", "hit", "folded", "burnt", "out")
IN_COUP = ("stand", "hit")
BURN_LIMIT = 15
TALLY_KEYS = ("coups", "all_passed", "single_opener", "last_in", "showdowns", "burns", "raises", "deck_changes")
"""Counters kept for :meth:`ClassiqueGame.stats`."""


def value(c: int) -> int:
    """Value of a card: A 1, 2–10 face value, J Q K 10 (quinze_cli/rules/quinze-classique.md "Material and values")."""
    return min(rank(c), 10)


def colour_deck(colour: str) -> list[int]:
    """The 52 cards of the ``"black"`` (spades, clubs) or ``"red"`` (hearts, diamonds) deck, sorted."""
    suits = BLACK_SUITS if colour == "black" else RED_SUITS
    return sorted([s * 13 + r for s in suits for r in range(13)] * 2)


def other_colour(colour: str) -> str:
    """The colour of the other deck."""
    return "red" if colour == "black" else "black"


class CoupFlow:
    """State transitions of a coup; mixed into ClassiqueGame (which holds the attributes)."""

    rng: Rng

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

        [decision, quinze_cli/rules/quinze-classique.md step 3]: at least the ante, at most what the poorest other player still
        in can add after calling (no side pots), and at most what ``seat`` itself can add.
        """
        others = [p for p in self.in_coup() if p != seat]
        if not others:
            return None
        top = min(self.chips[p] + self.stakes[p] - self.high for p in others)
        top = min(top, self.chips[seat] + self.stakes[seat] - self.high)
        low = self.options["ante"]
        return (low, top) if top >= low else None


    # ------------------------------------------------------------------ coups

    def _start_coup(self, ev: list[Event], played: bool = False) -> None:
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
        dealer_out = not self.in_match[self.dealer]
        passes = played or dealer_out or len(self.talon) < len(players) + 2
        if passes:
            nxt = next(s for s in self.order_from(self.dealer + 1) if self.in_match[s])
            steps = (nxt - self.dealer) % self.players or self.players
            if any((self.dealer + k) % self.players == self.first_dealer for k in range(1, steps + 1)):
                self.rounds += 1
                if self.rounds >= self.options["tours"]:
                    self._end_match(ev, "tours", players)
                    return
        if self.coup >= self.options["max_coups"]:
            self._end_match(ev, "max-coups", players)
            return
        if passes:
            self.dealer = nxt
            self.deck = other_colour(self.deck)
            self.talon = colour_deck(self.deck)
            self.discards = []
            self.rng.shuffle(self.talon)
            reason = "dealer-out" if dealer_out else "played" if played else "talon-short"
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
        self._start_coup(ev, played=outcome != "all-passed")

    def _award(self, seat: int, ev: list[Event], reason: str) -> None:
        amount = self.pot
        self.chips[seat] += amount
        self.pot = 0
        self.tally[reason.replace("-", "_") + ("s" if reason == "showdown" else "")] += 1
        ev.append(Event("pot-won", {"seat": seat, "amount": amount, "shown": reason == "showdown", "reason": reason}))
        self._finish_coup(ev, "won")

    def _end_match(self, ev: list[Event], reason: str, sharers: list[int]) -> None:
        """End the match; [decision, quinze_cli/rules/quinze-classique.md "End of the match"]: a pot left over is shared equally
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
        ev.append(Event("match-end", {"reason": reason, "shares": data, "chips": list(self.chips),
                                      "coups": self.coup, "rounds": self.rounds}))
        ev.append(Event("game-end", {"result": self.result().to_data()}))  # type: ignore[attr-defined]

    # ------------------------------------------------------------------ steps

    def _speak(self, s: int, action, ev: list[Event]) -> None:
        """Speaking round, quinze_cli/rules/quinze-classique.md step 2."""
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
        """Raising round (renvi), quinze_cli/rules/quinze-classique.md step 3."""
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
        """Next drawing turn (quinze_cli/rules/quinze-classique.md step 4), in speaking order from the opener, or the showdown.

        [decision, quinze_cli/rules/quinze-classique.md "Who deals"]: with the talon empty, every player still drawing stands
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
        """Drawing turn, quinze_cli/rules/quinze-classique.md step 4: hit (burnt over 15), stand, or raise."""
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
        """Showdown, quinze_cli/rules/quinze-classique.md step 5. [decision]: ties go to the first tied player in speaking order
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
