"""``quinze check-bot -- COMMAND ARGS...``: run a bot program through the protocol's corner cases.

    quinze check-bot -- python3 examples/bots/random_bot.py
    quinze check-bot --game quatorze --wire msgpack -- ./my_bot
    quinze check-bot --json -- node my_bot.js

Like fastchess's ``--compliance``, for the bot wire (PROTOCOL.md "JSON-lines wire"): the program
is started several times and sent scripted scenarios, directly over its stdin/stdout where a check
needs crafted messages (:mod:`quinze_cli.checkbot.scenarios`), and through a real embedded server
for several games in a row (:mod:`quinze_cli.checkbot.server`). The checklist
(:data:`quinze_cli.checkbot.report.CHECKS`) prints one line per check, ``PASS`` or ``FAIL`` with
the reason and a hint of the fix (``--json``: the same as JSON). docs/botkit.md lists the checks.

The scenarios run one after the other; ``--concurrency N`` runs up to N of them at the same
time (each on its own process of the program, the real-server one in this thread), which ends
sooner when the bot waits more than it computes (a bot that never answers costs the deadline
and the grace in every scenario), though a bot that thinks close to its deadline may then be
late. The checklist is the same either way: each scenario fills a checklist of its own, taken
in (:meth:`Checklist.merge`) in the order of the scenarios.

Exit status: 0 when every check passes; 1 when one fails (or the program cannot be started);
2 for usage errors.
"""

from __future__ import annotations

import json
import shlex
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, wait
from typing import Annotated

import typer
from rich.console import Console

from quinze_cli.stdio import line_console
from rich.text import Text

from quinze_protocol.game import game_ids
from quinze_cli.app import help_of
from quinze_cli.checkbot.report import CHECKS, Checklist, Verdict
from quinze_cli.checkbot.probe import kill_all
from quinze_cli.checkbot.scenarios import DIRECT, RECORDS, SEED_SPAN, Settings
from quinze_cli.checkbot.server import run_server
from quinze_cli.errors import EXIT_INTERRUPTED, EXIT_USAGE, fail, stderr
from quinze_cli.options import check_seed
from quinze_cli.progcheck import program_problem

STYLE = {"pass": "green", "fail": "bold red", "skip": "yellow"}


SCENARIOS: tuple[Callable[[Settings, Checklist], None], ...] = (*DIRECT, run_server)
"""Every scenario, in the order their verdicts are taken in."""


SCOPES: tuple[frozenset[str], ...] = (*(RECORDS[f] for f in DIRECT), frozenset(("games",)))
"""The checks each scenario of :data:`SCENARIOS` may record (a check is decided when they have all ended)."""


class Run:
    """The scenarios' checklists as they end. ``on_decided(verdicts)`` is called (under a lock,
    from the thread that ended a scenario) with the checks newly decided, in the checklist's order:
    a check is decided once every scenario that may record it (:data:`SCOPES`) has ended, and
    only a prefix of the checklist is given, so that lines come in the printed order."""

    def __init__(self, on_decided: Callable[[list[Verdict]], None] | None = None) -> None:
        self.parts = [Checklist(scope) for scope in SCOPES]
        self.ended: set[int] = set()
        self.told = 0
        self.stopping = False
        self._lock = threading.Lock()
        self._on_decided = on_decided

    def so_far(self) -> Checklist:
        """The verdicts of the scenarios ended, merged in the scenarios' order."""
        checks = Checklist()
        for i, part in enumerate(self.parts):
            if i in self.ended:
                checks.merge(part)
        return checks

    def decided(self, check: str) -> bool:
        return all(i in self.ended for i, scope in enumerate(SCOPES) if check in scope)

    def end(self, index: int) -> None:
        with self._lock:
            if self.stopping:
                return  # its bot was killed by the stop: not a verdict
            self.ended.add(index)
            n = self.told
            while n < len(CHECKS) and self.decided(CHECKS[n][0]):
                n += 1
            if n > self.told:
                rows = self.so_far().rows()[self.told:n]
                self.told = n
                if self._on_decided is not None:
                    self._on_decided(rows)

    def stop(self) -> None:
        with self._lock:
            self.stopping = True


def run_checks(settings: Settings, concurrency: int = 1, run: Run | None = None) -> Checklist:
    """Every scenario, up to ``concurrency`` at a time (1: one after the other, in this thread);
    the checklist of verdicts, the same whatever the concurrency (see the module docstring).
    ``run`` is told of each scenario that ends. On an exception here (Ctrl-C) the direct
    scenarios not started are dropped and the bot processes of those running are killed before
    it goes on."""
    run = run if run is not None else Run()

    def one(i: int) -> None:
        SCENARIOS[i](settings, run.parts[i])
        run.end(i)

    if concurrency <= 1:
        for i in range(len(SCENARIOS)):
            one(i)
    else:
        with ThreadPoolExecutor(concurrency - 1, thread_name_prefix="check-bot") as pool:
            futures = [pool.submit(one, i) for i in range(len(DIRECT))]
            try:
                one(len(SCENARIOS) - 1)  # Trio's run, in the main thread (Ctrl-C reaches it)
                for future in futures:
                    future.result()
            except BaseException:
                run.stop()
                for future in futures:
                    future.cancel()
                while not all(f.done() for f in futures):
                    kill_all()  # their reads end, their scenarios stop
                    wait(futures, timeout=0.1)
                raise
    checks = Checklist()
    for part in run.parts:
        checks.merge(part)
    return checks


def print_header(out: Console, command: str, settings: Settings) -> None:
    out.print(Text(f"check-bot: {command}  ({settings.wire} wire; {', '.join(settings.games)}; "
                   f"deadline {settings.deadline:g} s)", style="bold"))


def print_verdict(out: Console, v: Verdict) -> None:
    """A check's line (``PASS``/``FAIL``/``SKIP``, id, what it asserts), the reason and the hint
    under a failure."""
    line = Text.assemble((f"{v.status.upper():4}", STYLE[v.status]), f"  {v.check:<11} {v.title}")
    if v.status == "pass" and v.notes:
        line.append(f" ({'; '.join(v.notes)})", style="dim")
    out.print(line)
    if v.status != "pass":
        out.print(Text(f"      {v.reason}"))
    if v.hint:
        out.print(Text(f"      fix: {v.hint}", style="italic"))


def print_summary(out: Console, rows: list[Verdict], passed: bool, undecided: int = 0) -> None:
    failed = sum(v.status == "fail" for v in rows)
    skipped = sum(v.status == "skip" for v in rows)
    summary = f"{len(rows) - failed - skipped} passed, {failed} failed" + (f", {skipped} not reached" if skipped else "")
    if undecided:
        summary += f", {undecided} not decided (interrupted)"
    out.print(Text(summary, style="bold green" if passed else "bold red"))


def print_checklist(out: Console, command: str, settings: Settings, checks: Checklist) -> None:
    """The whole checklist at once: the header, one line per check, then the count."""
    print_header(out, command, settings)
    rows: list[Verdict] = checks.rows()
    for v in rows:
        print_verdict(out, v)
    print_summary(out, rows, checks.passed)


def register(app: typer.Typer) -> None:
    @app.command("check-bot", help=help_of("check-bot"), context_settings={"allow_interspersed_args": False})
    def check_bot(
        command: Annotated[list[str], typer.Argument(help="The bot program and its arguments (after --).", show_default=False)],
        game: Annotated[str, typer.Option("--game", help="Game to check: an id, or all.")] = "all",
        wire: Annotated[str, typer.Option(help="json (lines) or msgpack (frames) on the bot's stdin/stdout.")] = "json",
        deadline: Annotated[float, typer.Option("--deadline", help="Seconds the bot gets for each request.")] = 5.0,
        grace: Annotated[float, typer.Option("--grace", help="Seconds a late answer is looked for past the deadline.")] = 2.0,
        as_json: Annotated[bool, typer.Option("--json", help="Print the checklist as JSON.")] = False,
        concurrency: Annotated[int, typer.Option(help="Scenarios run at the same time, each on its own process of the bot.")] = 1,
        seed: Annotated[int, typer.Option(help="Seed of the scripted games.")] = 1,
    ) -> None:
        known = game_ids()
        if game != "all" and game not in known:
            fail(f"--game must be one of {', '.join(known)} or all, got {game!r}", EXIT_USAGE)
        if wire not in ("json", "msgpack"):
            fail(f"--wire must be json or msgpack, got {wire!r}", EXIT_USAGE)
        if not 0.1 <= deadline <= 600:
            fail(f"--deadline must be 0.1 .. 600 seconds, got {deadline:g}", EXIT_USAGE)
        if not 0.1 <= grace <= 600:
            fail(f"--grace must be 0.1 .. 600 seconds, got {grace:g}", EXIT_USAGE)
        if not 1 <= concurrency <= len(SCENARIOS):
            fail(f"--concurrency must be 1 .. {len(SCENARIOS)}, got {concurrency}", EXIT_USAGE)
        check_seed(seed, SEED_SPAN)
        if len(command) == 1 and " " in command[0]:
            command = shlex.split(command[0])
        problem = program_problem(command)
        if problem is not None:
            fail(f"cannot start the bot: {problem}")
        games = known if game == "all" else [game]
        # Le Quinze first: the single-game scenarios use the first game.
        games = sorted(games, key=lambda g: (g != "quinze", g))
        settings = Settings(argv=command, wire=wire, games=games, deadline=deadline, grace=grace, seed=seed)
        out = line_console()
        if not as_json:
            print_header(out, shlex.join(command), settings)  # at once; each check's line once decided

        def print_rows(rows: list[Verdict]) -> None:
            for v in rows:
                print_verdict(out, v)

        run = Run(None if as_json else print_rows)
        try:
            checks = run_checks(settings, concurrency, run)
        except KeyboardInterrupt:
            raise typer.Exit(_interrupted(out, run, as_json, command, wire, games, deadline)) from None
        if as_json:
            typer.echo(json.dumps({"command": command, "wire": wire, "games": games, "deadline": deadline,
                                   "passed": checks.passed, "checks": [v.to_data() for v in checks.rows()]},
                                  ensure_ascii=False))
        else:
            print_summary(out, checks.rows(), checks.passed)
        if not checks.passed:
            raise typer.Exit(1)


def _interrupted(out: Console, run: Run, as_json: bool, command: list[str], wire: str, games: list[str],
                 deadline: float) -> int:
    """After Ctrl-C: the checks decided were printed; the count of them (``--json``: the checklist
    of the decided checks, the others ``skip``, with ``"interrupted": true``) and a line on
    stderr; the exit status 130."""
    rows = run.so_far().rows()[:run.told]
    undecided = len(CHECKS) - run.told
    if as_json:
        typer.echo(json.dumps({"command": command, "wire": wire, "games": games, "deadline": deadline,
                               "passed": False, "interrupted": True, "checks": [v.to_data() for v in rows]},
                              ensure_ascii=False))
    else:
        print_summary(out, rows, False, undecided)
    stderr.print(f"interrupted after {len(run.ended)} of {len(SCENARIOS)} scenario(s): {undecided} check(s) not "
                 "decided; the bot's processes are stopped", soft_wrap=True, highlight=False)
    return EXIT_INTERRUPTED
