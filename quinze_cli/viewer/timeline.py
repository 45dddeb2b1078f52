"""The frames of a logged game for the step-through viewer (``quinze replay LOG --game N --step``).

Frame ``f`` (0 .. number of actions) is the game after its first ``f`` actions, i.e. the moment
just before action ``f + 1`` (actions numbered from 1, as ``quinze replay`` and ``--at`` number
them). For each frame the timeline keeps a copy of the game (``Game.copy()``), the events that
led to it (the opening events for frame 0, else those of action ``f``, in full), the deal or coup
number, and which frames start a turn (the seat to act changes) or a deal.

Built once from the log by re-simulating it (:func:`quinze_protocol.replaysim.steps`); no server, no Trio.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from quinze_protocol.game import Game
from quinze_protocol.replaylog import LoggedGame, LogError
from quinze_protocol.replaysim import state_at, steps

__all__ = ["Frame", "Timeline", "LogError"]


@dataclass
class Frame:
    """One moment: ``game`` (a copy: after ``index`` actions), ``events`` (full event maps that led
    here), ``action`` (the action that led here, ``{"seat", "action"}``, None for frame 0),
    ``round`` (deal or coup number, None for a game without), ``turn_start``, ``round_start``."""

    index: int
    game: Game
    events: list[dict[str, Any]]
    action: dict[str, Any] | None
    round: int | None
    turn_start: bool = False
    round_start: bool = False


def _round(game: Game) -> int | None:
    view = game.view(None)
    for key in ("deal", "coup"):
        if isinstance(view.get(key), int):
            return view[key]
    return None


class Timeline:
    """Every frame of ``logged`` (see the module docstring). Raises :class:`LogError` when its
    actions cannot be replayed (the frames up to the bad action are not kept: verify the log)."""

    def __init__(self, logged: LoggedGame) -> None:
        self.logged = logged
        self.header = logged.header
        self.game_id = str(logged.header.get("game"))
        players = logged.header.get("players")
        self.players = [str(p) for p in players] if isinstance(players, list) else []
        first = state_at(logged.header, [], 0)
        self.round_name = "deal" if "deal" in first.view(None) else "coup" if "coup" in first.view(None) else None
        self.frames: list[Frame] = [Frame(0, first.copy(), [e.full() for e in first.opening_events], None,
                                          _round(first), True, True)]
        for step in steps(logged.header, logged.actions):
            game = step.game.copy()
            self.frames.append(Frame(step.index + 1, game, [e.full() for e in step.events],
                                     {"seat": step.seat, "action": step.action}, _round(game)))
        for prev, frame in zip(self.frames, self.frames[1:]):
            frame.turn_start = frame.game.to_act != prev.game.to_act or frame.round != prev.round
            frame.round_start = frame.round != prev.round
        if not self.players and self.frames:
            self.players = [f"seat {s}" for s in range(self.frames[0].game.players)]

    @property
    def last(self) -> int:
        """The index of the last frame (the number of actions)."""
        return len(self.frames) - 1

    def next_action(self, index: int) -> dict[str, Any] | None:
        """The action chosen at frame ``index`` (``{"seat", "action"}``), None after the last."""
        return self.frames[index + 1].action if index < self.last else None

    def step_turn(self, index: int, forward: bool) -> int:
        """The frame where the next (or previous) turn starts."""
        return self._seek(index, forward, lambda f: f.turn_start)

    def step_round(self, index: int, forward: bool) -> int:
        """The frame where the next (or previous) deal or coup starts (first or last frame if none)."""
        return self._seek(index, forward, lambda f: f.round_start)

    def _seek(self, index: int, forward: bool, mark: Any) -> int:
        rng = range(index + 1, self.last + 1) if forward else range(index - 1, -1, -1)
        for i in rng:
            if mark(self.frames[i]):
                return i
        return self.last if forward else 0
