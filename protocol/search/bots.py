"""The search bot ``mcts`` for every game: SO-ISMCTS (:mod:`quinze_protocol.search.ismcts`) over
determinizations of what its seat knows (:mod:`quinze_protocol.search.determinize`). docs/bots.md.

Registered names (``builtin:NAME``; each game has them all):

- ``mcts`` — the ``normal`` level; ``mcts-easy``, ``mcts-hard`` — the other levels
  (:data:`LEVELS`: iteration budgets, so a game with them is reproducible);
- ``mcts@N`` — a budget of ``N`` iterations per decision (e.g. ``mcts@400``);
- ``mcts@Ss`` — a time budget of ``S`` seconds per decision (e.g. ``mcts@0.1s``), at most
  100000 iterations; stops on the clock, so NOT reproducible.

The bot sees what its seat sees: the view and the legal actions at each decision, and the event
data its seat is sent (:meth:`quinze_protocol.game.Bot.observe`); from them it keeps its seat's
:class:`~quinze_protocol.search.determinize.Knowledge`. Its generator is seeded by its factory seed, so
with an iteration budget the same game gives the same moves.
"""

from __future__ import annotations

import time
from functools import partial
from collections.abc import Mapping, Sequence
from typing import Any

from quinze_protocol.game import Action, Bot, GameError, register_bot, register_budgeted_bot
from quinze_protocol.rng import Rng
from quinze_protocol.search.determinize import Knowledge, determinizer, knowledge_for
from quinze_protocol.search.flat import flat_search
from quinze_protocol.search.ismcts import search

__all__ = ["LEVELS", "MctsBot", "parse_budget"]

LEVELS: dict[str, int] = {"easy": 30, "normal": 200, "hard": 1000}
"""Iterations per decision of each level (``mcts-easy``, ``mcts``, ``mcts-hard``)."""
MAX_ITERATIONS = 100_000


def parse_budget(arg: str) -> tuple[int, float | None]:
    """``"400"`` → (400, None): iterations; ``"0.1s"`` → (100000, 0.1): a time budget.

    Raises GameError (field ``bot``) for anything else."""
    text = arg.strip().lower()
    try:
        if text.endswith("s"):
            seconds = float(text[:-1])
            if not 0 < seconds <= 600:
                raise ValueError
            return MAX_ITERATIONS, seconds
        n = int(text)
        if not 1 <= n <= MAX_ITERATIONS:
            raise ValueError
        return n, None
    except ValueError:
        raise GameError(f"mcts@{arg}: a budget is a number of iterations (1..{MAX_ITERATIONS}) "
                        "or seconds per decision such as 0.1s", field="bot") from None


class MctsBot(Bot):
    """SO-ISMCTS with ``iterations`` per decision (and, if given, at most ``seconds``)."""

    needs_view = True
    searches = True
    """A decision takes long (up to the budget): callers with an event loop run ``choose`` in a
    worker thread (quinze_cli.builtin)."""

    def __init__(self, game_id: str, seed: int = 0, iterations: int = LEVELS["normal"],
                 seconds: float | None = None) -> None:
        self.game_id = game_id
        self.rng = Rng(seed)
        self.iterations = iterations
        self.seconds = seconds
        from quinze_protocol.search.models import model_for  # here: quinze_protocol.games imports this module

        self.model = model_for(game_id)
        self.know: Knowledge | None = None
        self._pending: list[Mapping[str, Any]] = []
        self.last_stats: dict[str, Any] = {}

    def observe(self, event: Mapping[str, Any]) -> None:
        """Take one event as this seat received it (kept until the seat is known)."""
        if self.know is None:
            self._pending.append(event)
        else:
            self.know.observe(event)

    def _knowledge(self, view: Mapping[str, Any]) -> Knowledge:
        if self.know is None:
            self.know = knowledge_for(self.game_id, view["seat"])
            for e in self._pending:
                self.know.observe(e)
            self._pending = []
        return self.know

    def choose(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        know = self._knowledge(view)
        actions = list(legal)
        if len(actions) == 1 and actions[0].to_data().get("type") != "raise":
            return actions[0]
        direct = self.model.direct(view, actions)
        if direct is not None:
            return direct
        det = determinizer(view, know)
        deadline = None
        if self.seconds is not None:
            end = time.perf_counter() + self.seconds
            deadline = lambda: time.perf_counter() >= end  # noqa: E731
        stats: dict[str, Any] = {}
        run = flat_search if self.model.flat else search
        a = run(det, self.model, self.rng, iterations=self.iterations, deadline=deadline, stats=stats)
        self.last_stats = stats
        return a


def _factory(game_id: str, iterations: int, seconds: float | None = None):
    def make(seed: int) -> Bot:
        return MctsBot(game_id, seed, iterations, seconds)

    return make


def make_with_budget(game_id: str, arg: str, seed: int) -> Bot:
    """``mcts@ARG`` (see :func:`parse_budget`)."""
    iterations, seconds = parse_budget(arg)
    return MctsBot(game_id, seed, iterations, seconds)


for _gid in ("quinze", "quatorze", "quinze-classique"):
    register_bot(_gid, "mcts")(_factory(_gid, LEVELS["normal"]))
    register_bot(_gid, "mcts-easy")(_factory(_gid, LEVELS["easy"]))
    register_bot(_gid, "mcts-hard")(_factory(_gid, LEVELS["hard"]))
    register_budgeted_bot(_gid, "mcts", partial(make_with_budget, _gid))
