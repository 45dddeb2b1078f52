"""A throw-away 2-seat game for server tests: "first to say 3".

Seats say a number, one or two above the last one said (starting from 0, never above 3); the
seat that says 3 wins. Each seat is dealt a secret number (private, in the ``deal`` event and its
view) so tests can check that nobody else, spectators included, ever sees it. Not registered on
import: ``serverkit.serving()`` registers it as ``first-to-three`` for the length of one test
and removes it after, so other tests never see it among the games.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from quinze_protocol.game import Action, ActionError, Event, Game, GameError, IllegalAction, Option, PositionError, Result
from quinze_protocol.observer import Observer
from quinze_protocol.rng import Rng


@dataclass(frozen=True, slots=True)
class Say(Action):
    n: int

    def to_data(self) -> dict[str, Any]:
        return {"type": "say", "n": self.n}


class SaidObserver(Observer):
    """The public picture: the last number said, the seat to act, the result."""

    game = "first-to-three"
    own_keys = ("secret",)

    def blank(self) -> dict[str, Any]:
        return {"last": 0, "to_act": None}

    def on_deal(self, e: Mapping[str, Any]) -> None:
        self.picture.update(last=0, to_act=0)

    def on_said(self, e: Mapping[str, Any]) -> None:
        self.picture.update(last=e["n"], to_act=1 - e["seat"])

    def on_won(self, e: Mapping[str, Any]) -> None:
        won = e["seat"]
        result = Result.from_winners([won], [1.0 if s == won else 0.0 for s in range(2)], "said-three")
        self.picture.update(to_act=None, result=result.to_data())


class FirstToThree(Game):
    id = "first-to-three"
    title = "First to say 3"
    private_fields = {"deal": ("secret",)}
    observer = SaidObserver
    min_players = 2
    max_players = 2
    option_specs = (Option("secret_max", int, 1000, "largest secret number", 1, 10**6),)

    @classmethod
    def new(cls, options: Mapping[str, Any], seed: int) -> "FirstToThree":
        g = cls.__new__(cls)
        g.options = cls.validate_options(options)
        rng = Rng(seed)
        g.secrets = [1 + rng.below(g.options["secret_max"]) for _ in range(2)]
        g.last = 0
        g.turn = 0
        g.winner = None
        g.opening_events = [Event("deal", {"players": 2}, {s: {"secret": g.secrets[s]} for s in range(2)})]
        return g

    @classmethod
    def from_position(cls, data: Mapping[str, Any]) -> "FirstToThree":
        try:
            g = cls.__new__(cls)
            g.options = cls.validate_options(data["options"])
            g.secrets = [int(x) for x in data["secrets"]]
            g.last, g.turn, g.winner = int(data["last"]), int(data["turn"]), data["winner"]
        except (KeyError, TypeError, ValueError, GameError) as err:
            raise PositionError(f"not a {cls.id} position ({err})", field="position") from None
        g.opening_events = []
        return g

    def to_position(self) -> dict[str, Any]:
        return {"game": self.id, "options": dict(self.options), "secrets": list(self.secrets), "last": self.last,
                "turn": self.turn, "winner": self.winner}

    def copy(self) -> "FirstToThree":
        g = type(self).__new__(type(self))
        g.__dict__.update(self.__dict__)
        g.secrets = list(self.secrets)
        return g

    @property
    def to_act(self) -> int | None:
        return None if self.winner is not None else self.turn

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    def legal_actions(self) -> list[Action]:
        if self.is_over:
            return []
        return [Say(n) for n in (self.last + 1, self.last + 2) if n <= 3]

    @classmethod
    def parse_action(cls, data: Mapping[str, Any]) -> Action:
        if data.get("type") != "say":
            raise ActionError(f"unknown action type {data.get('type')!r}", field="type")
        n = data.get("n")
        if not isinstance(n, int) or isinstance(n, bool):
            raise ActionError("must be a whole number", field="n")
        return Say(n)

    def check(self, action: Action) -> None:
        if self.is_over:
            raise IllegalAction("the game is over", code="game-over")
        if not isinstance(action, Say):
            raise ActionError(f"not a {self.id} action: {action!r}", field="type")
        if action not in self.legal_actions():
            raise IllegalAction(f"say {self.last + 1} or {self.last + 2} (at most 3), not {action.n}", code="wrong-number")

    def _play(self, action: Action) -> list[Event]:
        seat = self.turn
        self.last = action.n
        events = [Event("said", {"seat": seat, "n": action.n})]
        if action.n == 3:
            self.winner = seat
            events.append(Event("won", {"seat": seat}))
        else:
            self.turn = 1 - seat
        return events

    def view(self, seat: int | None) -> dict[str, Any]:
        res = self.result()
        v: dict[str, Any] = {"last": self.last, "to_act": self.to_act, "result": res.to_data() if res else None}
        if seat is not None:
            v["secret"] = self.secrets[seat]
        return v

    def result(self) -> Result | None:
        if self.winner is None:
            return None
        return Result.from_winners([self.winner], [1.0 if s == self.winner else 0.0 for s in range(2)], "said-three")
