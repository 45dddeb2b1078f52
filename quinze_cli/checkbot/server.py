"""The real-server scenario of ``quinze check-bot``: several games in a row on one process.

For each game checked, a match of :data:`GAMES` games against ``builtin:random`` on an embedded
server on loopback (the ``quinze match`` machinery: :class:`~quinze_cli.matchrun.MatchRunner`,
the relay, the bot wire), with no restart allowed: the check passes when every game ended with
no bot failure and one process played them all.
"""

from __future__ import annotations

import shlex
import tempfile
from pathlib import Path
from typing import Any

import trio

from quinze_cli.botproc import describe_exit
from quinze_cli.checkbot.report import Checklist
from quinze_cli.checkbot.scenarios import Settings
from quinze_cli.matchrun import MatchConfig, MatchError, MatchRunner, parse_bot_spec, validate_options

GAMES = 3
"""Games played in a row on one process, per game checked."""
SEE = {"timeout": "deadline", "crash": "stays-up", "garbage": "well-formed", "illegal": "legal"}
"""The direct check about each kind of forfeit (the relay's failure kinds)."""
SHORT = {"quinze": {"target": "1"}, "quatorze": {"max_turns": "20"}}
"""Table options that keep these games short (one deal of Le Quinze; Le 14 stopped at 20 turns,
ten for each player: the whole-game and legal checks play Le 14 to its end on their own)."""


async def _one(s: Settings, game_id: str, log_dir: Path) -> tuple[list[str], int]:
    """Play the match for ``game_id``; returns (the bot's failures in words, processes started)."""
    bot = parse_bot_spec(shlex.join(s.argv), game_id)
    other = parse_bot_spec("builtin:random", game_id, [bot.name])
    cfg = MatchConfig(game=game_id, bots=[bot, other], games=GAMES, seed=s.seed, options=validate_options(game_id, SHORT.get(game_id, {}), None, 2),
                      log_dir=log_dir, move_time=s.deadline, wire=s.wire, max_restarts=0, bot_env=s.env)
    problems: list[str] = []

    async def on_failure(name: str, plan: Any, failure: Any) -> None:
        if name == bot.name:
            see = SEE.get(failure.kind)
            problems.append(f"game {plan.index + 1}: {failure.describe()}" + (f" (see the {see} check)" if see else ""))

    played: list[int] = []

    async def on_game(report: Any) -> None:
        played.append(report.plan.index)

    runner = MatchRunner(cfg, on_failure=on_failure, on_game=on_game)
    try:
        with trio.fail_after(GAMES * 120 + 60):
            await runner.run()
    except MatchError as err:
        ours = next((p for p in runner.players if p.spec.name == bot.name), None)
        rc = ours.endpoint.returncode if ours is not None and ours.endpoint is not None else None
        if not problems and rc is not None:
            # No failure in a game: the program ended between two games.
            problems.append(f"after {len(played)} game(s) the program had ended ({describe_exit(rc)}) before game "
                            f"{len(played) + 1} (a crash between games)")
        elif not problems:
            problems.append(str(err))
    except trio.TooSlowError:
        problems.append("the games did not end in time")
    except BaseException:
        # Ctrl-C (KeyboardInterrupt, raised in this run) or a cancellation: the runner's own
        # stop of the programs may itself have been cancelled; they are killed at once, as
        # quinze match does on Ctrl-C, so none outlives check-bot.
        runner.kill_all()
        raise
    return problems, len(runner.all_pids)


def run_server(s: Settings, checks: Checklist) -> None:
    """The ``games`` check, for every game of ``s.games``."""
    with tempfile.TemporaryDirectory(prefix="quinze-check-bot-") as tmp:
        for game_id in s.games:
            problems, pids = trio.run(_one, s, game_id, Path(tmp) / game_id)
            if problems:
                see = next((c for c in SEE.values() if f"see the {c} check" in problems[0]), None)
                checks.fail("games", f"{game_id}: {problems[0]}",
                            fix=f"fix what the {see} check says: through a server it loses the game" if see else "")
            elif pids != 1:
                checks.fail("games", f"{game_id}: {pids} processes were started for {GAMES} games")
            else:
                checks.ok("games", f"{game_id}: {GAMES} games on one process")
