"""``quinze selfplay``: built-in bots play each other in process; a summary of the results.

Generic over the game registry: ``--game`` any registered game, ``--bot`` its built-in bots
(one for every seat, or one per seat), ``--option KEY=VALUE`` its table options. Game ``i``
(0-based) uses seed ``S + i``; the bot of seat ``k`` in game ``i`` is seeded
``(S + i) * 1009 + k``. The summary: wins (points, shared wins split) and mean score per seat,
result reasons, decisions, and the game's own per-game figures when it has a ``stats()``
method (Le Quinze: deals, blocked deals, turns; shown as totals, per game, and turns per deal).

On a terminal a transient progress bar (stderr) counts the games. Ctrl-C stops after the game
being played: the summary of the games finished so far is printed with a note on stderr, and the
exit status is 130; a second Ctrl-C quits at once (130, no summary).
"""

from __future__ import annotations

import json
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Annotated, Any, Optional

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from quinze_protocol.game import GameError, get_bot, get_game
from quinze_cli.app import help_of
from quinze_cli.bench.engine import play
from quinze_cli.errors import EXIT_INTERRUPTED, fail_game_error
from quinze_cli.options import check_seed, option_pairs
from quinze_cli.stdio import line_console

def run_selfplay(game_id: str, games: int, seed: int, players: int | None, bot_names: list[str],
                 raw_options: dict[str, Any], *, on_game: Callable[[int], None] | None = None,
                 stop: Callable[[], bool] | None = None) -> dict[str, Any]:
    """Play ``games`` games and return the summary as data (raises GameError on bad input).

    ``on_game(i)`` is called after game ``i`` (0-based) is counted; ``stop()`` is asked before
    each game and ends the run early when true. The summary's ``games`` is the number of games
    finished, ``games_requested`` the number asked for, ``interrupted`` whether ``stop`` ended it.
    """
    cls = get_game(game_id)
    raw = dict(raw_options)
    if players is not None:
        raw["players"] = players
    options = cls.validate_options(raw, text=True)
    n = options["players"]
    if len(bot_names) not in (1, n):
        raise GameError(f"give one --bot for every seat or one per seat ({n}), got {len(bot_names)}", field="bot")
    names = bot_names * n if len(bot_names) == 1 else list(bot_names)
    for name in set(names):
        get_bot(game_id, name, 0)
    points = [0.0] * n
    scores = [0.0] * n
    reasons: Counter[str] = Counter()
    stats: Counter[str] = Counter()
    decisions = 0
    t0 = time.perf_counter()
    c0 = time.process_time()
    played = 0
    interrupted = False
    for i in range(games):
        if stop is not None and stop():
            interrupted = True
            break
        s = seed + i
        bots = [get_bot(game_id, names[k], s * 1009 + k) for k in range(n)]
        g, d = play(cls, options, s, bots)
        decisions += d
        res = g.result()
        assert res is not None
        reasons[res.reason] += 1
        for k in range(n):
            points[k] += res.points[k]
            scores[k] += res.scores[k]
        stats.update(g.stats())
        played += 1
        if on_game is not None:
            on_game(i)
    seconds = time.perf_counter() - t0
    cpu = time.process_time() - c0
    return {
        "game": game_id, "games": played, "games_requested": games, "interrupted": interrupted, "seed": seed, "options": options, "bots": names,
        "points": [round(p, 6) for p in points],
        "mean_scores": [round(sc / played, 3) if played else 0 for sc in scores],
        "reasons": dict(reasons), "decisions": decisions, "stats": dict(stats),
        "seconds": round(seconds, 3),
        "us_per_decision": round(seconds / decisions * 1e6, 2) if decisions else None,
        "cpu_us_per_decision": round(cpu / decisions * 1e6, 2) if decisions else None,
    }


def register(app: typer.Typer) -> None:
    @app.command("selfplay", help=help_of("selfplay"))
    def selfplay(
        game: Annotated[str, typer.Option(help="Game id.")] = "quinze",
        games: Annotated[int, typer.Option(min=1, help="Number of games.")] = 100,
        seed: Annotated[int, typer.Option(help="Seed of the first game (game i uses seed+i).")] = 0,
        players: Annotated[Optional[int], typer.Option(help="Number of seats (default: the game's minimum).")] = None,
        bot: Annotated[Optional[list[str]], typer.Option(help="Built-in bot, once for all seats or once per seat.")] = None,
        option: Annotated[Optional[list[str]], typer.Option(help="Table option KEY=VALUE (repeatable).")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    ) -> None:
        check_seed(seed, games)
        err_console = line_console(stderr=True)
        interrupted = threading.Event()

        def on_sigint(signum: int, frame: object) -> None:
            if interrupted.is_set():  # the second Ctrl-C: quit at once
                raise KeyboardInterrupt
            interrupted.set()

        try:
            previous = signal.signal(signal.SIGINT, on_sigint)
        except ValueError:  # not the main thread: Ctrl-C keeps its default behaviour
            previous = None
        progress = Progress(TextColumn("[progress.description]{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TimeElapsedColumn(), TimeRemainingColumn(), console=err_console, transient=True,
                            disable=not err_console.is_terminal)
        try:
            with progress:
                task = progress.add_task(f"{game} self-play", total=games)
                summary = run_selfplay(game, games, seed, players, bot or ["random"], option_pairs(option),
                                       on_game=lambda i: progress.advance(task), stop=interrupted.is_set)
        except GameError as err:
            fail_game_error(err)
        except KeyboardInterrupt:
            err_console.print("interrupted: no summary")
            raise typer.Exit(EXIT_INTERRUPTED) from None
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
        if as_json:
            typer.echo(json.dumps(summary, sort_keys=True))
        else:
            show(summary)
        if summary["interrupted"]:
            err_console.print(f"interrupted (Ctrl-C): the summary covers the {summary['games']} finished game(s) "
                              f"of {summary['games_requested']}")
            raise typer.Exit(EXIT_INTERRUPTED)


def show(summary: dict[str, Any]) -> None:
    """Print a self-play summary as rich tables."""
    console = line_console()
    n = len(summary["points"])
    games = summary["games"]
    if games == 0:
        console.print(f"{summary['game']}: no game finished")
        return
    title = f"{summary['game']}: {games} games, seeds {summary['seed']}..{summary['seed'] + games - 1}"
    t = Table(title=title)
    t.add_column("seat", justify="right")
    t.add_column("bot")
    t.add_column("wins (points)", justify="right")
    t.add_column("win %", justify="right")
    t.add_column("mean score", justify="right")
    for k in range(n):
        p = summary["points"][k]
        t.add_row(str(k), summary["bots"][k], f"{p:g}", f"{100 * p / games:.1f}", f"{summary['mean_scores'][k]:g}")
    console.print(t)
    opts = ", ".join(f"{k}={v}" for k, v in summary["options"].items())
    console.print(f"options: {opts}")
    console.print("results: " + ", ".join(f"{r} {c}" for r, c in sorted(summary["reasons"].items())))
    st = summary["stats"]
    if st:
        parts = [f"{k.replace('_', ' ')} {v:g} ({v / games:.2f}/game)" for k, v in sorted(st.items())]
        console.print("stats: " + "; ".join(parts))
        if st.get("deals") and "turns" in st:
            console.print(f"mean turns per deal: {st['turns'] / st['deals']:.2f}")
    console.print(f"decisions: {summary['decisions']} in {summary['seconds']:.2f} s "
                  f"({summary['us_per_decision']} µs per decision; CPU {summary['cpu_us_per_decision']} µs)")
