"""``quinze match BOT BOT [BOT...]``: play a match between bots and report the score.

BOT is a quoted command line (``"python3 examples/bots/random_bot.py"``, split like a shell
would) or ``builtin:NAME``. Without ``--server`` an embedded server is started on
127.0.0.1 (any free port) for the match. The schedule (seat rotation, ``--duplicate``), bot
restarts and the log are described in :mod:`quinze_cli.matchrun`; the statistics (points,
Elo) in :mod:`quinze_cli.stats`.

Exit status: 0 after a complete match (bot failures included: a forfeit is a result); 1 when the
match had to stop (a bot failing in more games in a row than its restarts, the server lost) or for bad input (``--json`` not writable: checked before playing; a ``--resume`` log with a
damaged line that is not a cut tail, :class:`quinze_cli.journal.LogDamaged`); 2 for usage errors (and when another
quinze run is using the log: :mod:`quinze_cli.loglock`, nothing changed); 130 after Ctrl-C, SIGTERM or
SIGHUP (:mod:`quinze_cli.interrupt`: the bots are stopped, the finished games are in the log).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from quinze_cli.app import help_of
from quinze_cli.gameside import game_id_help
from quinze_cli.errors import EXIT_INTERRUPTED, EXIT_USAGE, fail, fail_game_error
from quinze_cli.options import (STDIO, check_at_least, check_last_seed, check_log_dir, check_move_time, check_seed, check_writable,
                                 fresh_seed, games_problem, option_pairs)
from quinze_cli.results import elo_line, print_results, results_table
from quinze_cli.stdio import line_console

if TYPE_CHECKING:
    from rich.console import Console

    from quinze_cli.journal import Journal
    from quinze_cli.matchrun import MatchConfig, MatchRunner
    from quinze_cli.stats import MatchStats

# The match's own parts (trio, the runner and the server it embeds, the journal, the progress bar)
# are imported where the command runs, not here: ``quinze match --help`` and the usage errors
# Typer finds cost Typer's start, not trio's and the server's (tests/test_cli_imports.py).

__all__ = ["build_config", "elo_line", "print_results", "register", "results_table", "summary_data"]



def build_config(
    bots: list[str],
    *,
    game: str,
    games: int,
    seed: int | None,
    concurrency: int,
    move_time: float | None,
    log_dir: Path,
    server: str | None,
    duplicate: bool,
    seats: int | None,
    option: list[str],
    wire: str,
    max_restarts: int,
    sprt: str | None = None,
    positions: Path | None = None,
) -> MatchConfig:
    """Check the command line and build the match (exits through :func:`fail` on bad input).
    With ``positions`` (``--positions FILE``) the games start from them, each once per seat
    rotation (duplicate implied); ``games`` 0 then means one per position and rotation."""

    from quinze_protocol.game import GameError, get_game
    from quinze_cli.positions import load_positions
    from quinze_cli.schedule import iter_schedule, last_seed, rotations
    from quinze_cli.stats.sprt import parse_sprt

    starts: list[dict[str, Any]] = []
    if positions is not None:
        try:
            starts = load_positions(positions, game)
        except (ValueError, GameError) as err:
            fail(f"--positions {err}")
        duplicate = True
        players = {int(p.get("options", {}).get("players", 0)) for p in starts}
        if len(players) != 1:
            fail(f"--positions {positions}: the positions must all have the same number of seats, got {sorted(players)}")
        if seats is None and "players" not in " ".join(option):
            seats = players.pop()
    if len(bots) < 2:
        fail("a match needs at least two bots (BOT BOT [BOT...])", EXIT_USAGE)
    if games == 0 and starts:
        games = len(starts) * len(rotations(len(bots), seats if seats is not None else len(bots)))
    if games < 1:
        fail(f"--games must be at least 1, got {games}", EXIT_USAGE)
    if concurrency < 1:
        fail(f"--concurrency must be at least 1, got {concurrency}", EXIT_USAGE)
    check_move_time(move_time)
    check_at_least(max_restarts, "--max-restarts", 0)
    if wire not in ("json", "msgpack"):
        fail(f"--wire must be json or msgpack, got {wire!r}", EXIT_USAGE)
    try:
        get_game(game)
    except GameError as err:
        fail_game_error(err, "--game")
    from quinze_cli.matchrun import BotSpec, MatchConfig, parse_bot_spec, validate_options  # trio and the server: past the first checks

    raw = option_pairs(option)
    try:
        options = validate_options(game, raw, seats, len(bots))
    except GameError as err:
        if err.field == "players" and seats is not None:
            fail(f"--seats: {err.reason}", EXIT_USAGE)
        if err.field == "players" and "players" not in raw:  # one seat per bot, by default
            fail(f"{len(bots)} bots need {len(bots)} seats, but {game} players: {err.reason}", EXIT_USAGE)
        fail_game_error(err, "--option")
    except ValueError as err:
        fail(str(err), EXIT_USAGE)
    sprt_spec = None
    if sprt is not None:
        if len(bots) != 2:
            fail(f"--sprt compares two bots, got {len(bots)}", EXIT_USAGE)
        try:
            sprt_spec = parse_sprt(sprt)
        except ValueError as err:
            fail(f"--sprt: {err}", EXIT_USAGE)
    specs: list[BotSpec] = []
    for text in bots:
        try:
            specs.append(parse_bot_spec(text, game, [s.name for s in specs]))
        except ValueError as err:
            fail(f"BOT {text!r}: {err}")
    address = None
    if server is not None:
        from quinze_cli.client import parse_address

        try:
            address = parse_address(server)
        except ValueError as err:
            fail(f"--server: {err}", EXIT_USAGE)
    check_seed(seed)
    if games_problem(games) is not None:
        fail(str(games_problem(games)), EXIT_USAGE)
    if seed is None:
        seed = fresh_seed()
    seats_n = options["players"]
    for n, p in enumerate(starts, 1):
        if int(p.get("options", {}).get("players", 0)) != seats_n:
            fail(f"--positions {positions}: position {n} has {p.get('options', {}).get('players')} seats, "
                 f"the match {seats_n}")
    per_deal = len(rotations(len(specs), seats_n))
    if duplicate and games % per_deal:
        rounded = -(-games // per_deal) * per_deal
        line_console(stderr=True).print(
            f"note: --duplicate plays each deal once per seat rotation ({per_deal}): {games} games rounded up to {rounded}")
        games = rounded
    iter_schedule(len(specs), seats_n, games, seed, duplicate=duplicate, positions=len(starts))  # checks only
    check_last_seed(seed, last_seed(seed, games, per_deal, duplicate=duplicate), games,
                    f"deal i uses --seed + i, played once per seat rotation ({per_deal})" if duplicate else "game i uses --seed + i")
    return MatchConfig(
        game=game, bots=specs, games=games, seed=seed, options=options, log_dir=log_dir, concurrency=concurrency,
        move_time=move_time, duplicate=duplicate, wire=wire, max_restarts=max_restarts, server=address,
        sprt=sprt_spec, positions=tuple(starts),
    )


def _use_log(runner: MatchRunner, log: Path) -> None:
    """Make ``runner`` write to ``log`` (``match-STAMP.jsonl``: the resumed one, or the one this run
    locked) and keep its bots' stderr beside it (``match-STAMP-stderr``), not under a name of its own."""
    runner.log_path = log
    runner.stderr_dir = log.with_name(log.name[: -len(".jsonl")] + "-stderr")


async def _run(config: MatchConfig, out: Console, err: Console, cluster: str | None = None,
               shard_size: int = 24, resumed: Resumed | None = None,
               log: Path | None = None) -> tuple[MatchRunner, str | None, bool, list[dict[str, Any]]]:
    """Run the match with a progress bar, each finished game journaled; returns (runner, error
    message or None, interrupted, every failure: ``{"game", "bot", **Failure.to_data()}``, a resumed
    match's earlier ones first). ``resumed``: go on with that match (its games so far counted);
    ``log``: a new match's log (the one this run locked), default the runner's own name."""
    from rich.markup import escape
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from quinze_cli.cluster import make_runner
    from quinze_cli.interrupt import run_until_interrupted
    from quinze_cli.journal import Journal
    from quinze_cli.matchjournal import game_entry, journal_path, match_settings
    from quinze_cli.matchrun import GameReport
    from quinze_cli.relay import Failure
    from quinze_cli.relay_outcomes import failure_verb
    from quinze_cli.schedule import GamePlan, iter_schedule

    failures: list[dict[str, Any]] = list(resumed.failures) if resumed else []
    progress = Progress(
        TextColumn("[bold]match[/]"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        TextColumn("{task.description}"), console=err, transient=False,
    )

    async def on_failure(bot: str, plan: GamePlan, failure: Failure) -> None:
        failures.append({"game": plan.index + 1, "bot": bot, **failure.to_data()})
        if failure.quiet:  # a start-up crash again: the match's stop message says it once
            return
        progress.console.print(f"[yellow]game {plan.index + 1}[/]: {escape(bot)} (seat {failure.seat}) {failure_verb(failure)}: "
                               f"{escape(failure.describe())}",
                               markup=True, highlight=False, soft_wrap=True)  # one line per failure, even in a pipe

    runner: MatchRunner

    journal: Journal | None = resumed.journal if resumed else None

    async def on_game(report: GameReport) -> None:
        nonlocal journal
        if journal is None:  # made with the first finished game, as the log
            journal = Journal.create(journal_path(runner.log_path), "match", match_settings(config))
        journal.append(game_entry(report))
        progress.update(task, advance=1, description=runner.stats.running_score())

    if resumed is not None:
        plans = (p for p in iter_schedule(len(config.bots), config.seats, config.games, config.seed,
                                          duplicate=config.duplicate) if p.index not in resumed.done)
        runner = make_runner(config, cluster, shard_size, on_game=on_game, on_failure=on_failure, plans=plans,
                             stats=resumed.stats)
        _use_log(runner, resumed.log)
        if resumed.stats.sprt is not None and resumed.stats.sprt.result is not None:
            runner.stopping = True
    else:
        runner = make_runner(config, cluster, shard_size, on_game=on_game, on_failure=on_failure)
        if log is not None:
            _use_log(runner, log)
    state: dict[str, Any] = {"error": None, "interrupted": False}
    with progress:
        task = progress.add_task(runner.stats.running_score(), total=config.games,
                                 completed=len(resumed.done) if resumed else 0)
        state["error"], state["interrupted"] = await run_until_interrupted(runner)
    if journal is not None:
        journal.close()
    return runner, state["error"], state["interrupted"], failures


class Resumed:
    """A match taken up again (``--resume``): its journal, log, the games done and their stats."""

    def __init__(self, journal: Journal, log: Path, stats: MatchStats, done: set[int], failures: list[dict[str, Any]]) -> None:
        self.journal, self.log, self.stats, self.done, self.failures = journal, log, stats, done, failures


def _from_journal(ctx: typer.Context, settings: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    """The match's values on resume: those given on the command line, the journal's otherwise."""
    given = {k for k in values if getattr(ctx.get_parameter_source(k), "name", "DEFAULT") not in ("DEFAULT", "DEFAULT_MAP")}
    out = dict(values)
    if "bots" not in given or not values["bots"]:
        out["bots"] = list(settings.get("bots", []))
    for key in ("game", "games", "seed", "duplicate", "move_time", "sprt"):
        if key not in given:
            out[key] = settings.get(key)
    if "option" not in given and "seats" not in given:
        out["option"] = [f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in (settings.get("options") or {}).items()]
    return out


def summary_data(config: MatchConfig, runner: MatchRunner, error: str | None, interrupted: bool,
                 written: bool | None = None, failures: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The ``--json`` document: the match settings, per-bot totals, Elo, ``failures`` (every bot
    failure, by game), the log path (``written``: whether the log exists; default: this run wrote to it)."""
    stats = runner.stats
    written = runner.log_written if written is None else written
    return {
        "game": config.game,
        "games": config.games,
        "played": stats.games,
        "complete": (stats.games == config.games or (stats.sprt is not None and stats.sprt.result is not None))
        and error is None and not interrupted,
        "interrupted": interrupted,
        "error": error,
        "seed": config.seed,
        "seats": config.seats,
        "options": config.options,
        "duplicate": config.duplicate,
        "move_time": config.move_time,
        "concurrency": config.concurrency,
        "log": str(runner.log_path) if written else None,
        "bots": [b.to_data() for b in stats.bots],
        "elo": stats.elo(),
        "ratings": stats.ratings(),
        "sprt": stats.sprt.to_data() if stats.sprt is not None else None,
        "failures": sorted(failures or [], key=lambda f: (f["game"], f.get("seat") or 0)),
        "log_problems": runner.log_problems,
    }


def register(app: typer.Typer) -> None:
    @app.command("match", help=help_of("match"))
    def match(
        ctx: typer.Context,
        bots: Annotated[Optional[list[str]], typer.Argument(help='Bots: quoted command lines ("python3 bot.py") or builtin:NAME (on --resume: the journal\'s).', show_default=False)] = None,
        game: Annotated[str, typer.Option(help=game_id_help())] = "quinze",
        games: Annotated[Optional[int], typer.Option(help="Number of games (default 10; with --sprt the most played, default 100000).", show_default=False)] = None,
        seed: Annotated[Optional[int], typer.Option(help="Seed of the first game (game i uses seed+i); default: drawn.")] = None,
        concurrency: Annotated[int, typer.Option(help="Games played at the same time.")] = 1,
        move_time: Annotated[Optional[float], typer.Option("--move-time", help="Seconds per decision (default: the server's, 60).")] = None,
        log_dir: Annotated[Path, typer.Option("--log-dir", help="Where the match log (match-<time>.jsonl) and bot stderr go.")] = Path("logs"),
        json_file: Annotated[Optional[Path], typer.Option("--json", help="Also write the results as JSON to FILE (- for stdout: the JSON alone there, the tables on stderr).")] = None,
        server: Annotated[Optional[str], typer.Option(help="Play on this server (HOST:PORT); default: an embedded one.")] = None,
        duplicate: Annotated[bool, typer.Option("--duplicate", help="Replay each deal with the seats rotated (all rotations).")] = False,
        seats: Annotated[Optional[int], typer.Option(help="Seats per table (default: one per bot); dealt to the bots in rotation.")] = None,
        option: Annotated[Optional[list[str]], typer.Option("--option", help="Table option KEY=VALUE (repeatable).")] = None,
        wire: Annotated[str, typer.Option(help="How bot programs are spoken to: json (lines) or msgpack (frames).")] = "json",
        max_restarts: Annotated[int, typer.Option("--max-restarts", help="Restarts allowed per bot program in a row (a game played through resets the count) before the match stops.")] = 3,
        debug: Annotated[bool, typer.Option("--debug", help="Log every message to and from the bots and the server on stderr.")] = False,
        cluster: Annotated[Optional[str], typer.Option("--cluster", metavar="tcp://HOST:PORT", help="Play the games on this Dask scheduler's workers (pip install '.[cluster]' in the Quinze folder); the log and the statistics stay here.")] = None,
        shard_size: Annotated[int, typer.Option("--shard-size", metavar="N", help="With --cluster: games per Dask task.")] = 24,
        sprt: Annotated[Optional[str], typer.Option("--sprt", help="Play until this sequential test decides: elo0=0,elo1=5[,alpha=0.05,beta=0.05] (two bots).", show_default=False)] = None,
        positions: Annotated[Optional[Path], typer.Option("--positions", help="Start the games from these positions (the quinze legal format, one per line), each once per seat rotation.", show_default=False)] = None,
        resume: Annotated[Optional[Path], typer.Option("--resume", help="Go on with the match of this log (or its .journal): play only the missing games.", show_default=False)] = None,
    ) -> None:

        from quinze_cli.cluster import check_cluster
        from quinze_cli.journal import JournalError, differences
        from quinze_cli.loglock import hold_log
        from quinze_cli.progcheck import program_problem
        from quinze_cli.results import lower_is_better, print_table, ratings_table
        from quinze_cli.stats import MatchStats

        bots = bots or []
        check_at_least(shard_size, "--shard-size", 1)
        old: Journal | None = None
        if resume is not None:
            from quinze_cli.matchjournal import log_path_of, open_resume

            hold_log(log_path_of(resume), f"--resume {resume}", ctx)  # one run per log: before the journal or log is touched
            try:
                old, resume_log = open_resume(resume)
            except JournalError as e:
                fail(f"--resume {resume}: {e}")
            v = _from_journal(ctx, old.settings, {"bots": bots, "game": game, "games": games, "seed": seed,
                                                  "duplicate": duplicate, "move_time": move_time, "sprt": sprt,
                                                  "option": option, "seats": seats})
            bots, game, games, seed, duplicate, move_time, sprt, option = (
                v["bots"], v["game"], v["games"], v["seed"], bool(v["duplicate"]), v["move_time"], v["sprt"], v["option"])
            log_dir = resume_log.parent
        if games is None:
            games = 100_000 if sprt is not None else 0 if positions is not None else 10
        config = build_config(
            bots, game=game, games=games, seed=seed, concurrency=concurrency, move_time=move_time, log_dir=log_dir,
            server=server, duplicate=duplicate, seats=seats, option=option or [], wire=wire, max_restarts=max_restarts,
            sprt=sprt, positions=positions,
        )
        resumed: Resumed | None = None
        dropped = 0
        if old is not None:
            from quinze_cli.matchjournal import cut_log, match_settings, replay_entries

            diff = differences(old.settings, match_settings(config))
            if diff:
                old.close()
                fail(f"--resume {resume}: the settings differ from the journal's: " + "; ".join(diff))
            stats = MatchStats([(b.name, b.spec) for b in config.bots], group=config.group, sprt=config.sprt,
                               seats=config.seats, lower_is_better=lower_is_better(config.game))
            try:
                dropped = cut_log(resume_log, old, [b.name for b in config.bots])  # first: only what the log holds counts
            except JournalError as e:  # a damaged line that is not a cut tail: nothing changed
                old.close()
                fail(f"--resume {resume}: {e}")
            done = replay_entries(stats, old.entries)
            failures = [{"game": e["index"] + 1, **f} for e in sorted(old.entries, key=lambda e: e["index"])
                        for f in e.get("failures", [])]
            resumed = Resumed(old, resume_log, stats, done, failures)
        if cluster is not None:
            check_cluster(cluster, server)  # the workers check the bot programs there
        else:
            for spec in config.bots:
                problem = program_problem(spec.argv)
                if problem is not None:  # before the match starts: no results file, no stderr folder
                    fail(f"BOT {spec.spec!r}: {problem}")
        json_stdout = json_file is not None and str(json_file) == STDIO  # --json -: the JSON alone on stdout
        if json_file is not None and not json_stdout:
            check_writable(json_file, "--json")
        check_log_dir(log_dir)  # a file or a folder not writable: exit 2 before any game, naming why
        try:
            log_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            fail(f"--log-dir {log_dir}: {e.strerror or e}")
        new_log = None
        if resumed is None:
            from quinze_protocol.replaylog import utc_stamp

            new_log = log_dir / f"match-{utc_stamp()}.jsonl"
            hold_log(new_log, f"--log-dir {log_dir}", ctx)
        if debug:
            from quinze_cli.debuglog import enable_debug

            enable_debug()
        out = line_console(stderr=json_stdout)
        err = line_console(stderr=True)
        names = ", ".join(b.name for b in config.bots)
        err.print(f"{config.game}: {config.games} game(s) between {names}, {config.seats} seats, seed {config.seed}"
                  + (f"; resuming: {len(resumed.done)} done" if resumed else "")
                  + (f" ({dropped} unfinished or unrecorded game(s) dropped from the log, to be played again)"
                     if resumed and dropped else ""))
        import trio

        runner, error, interrupted, failures = trio.run(_run, config, out, err, cluster, shard_size, resumed, new_log)
        written = runner.log_written or (resumed is not None and resumed.log.exists())
        if json_file is not None and not json_stdout:
            # The results file first: it must not depend on the output (a pipe closed by head, a
            # full disk, a terminal gone) that the tables below are written to.
            try:
                json_file.write_text(json.dumps(summary_data(config, runner, error, interrupted, written, failures), indent=2) + "\n", encoding="utf-8")
            except OSError as e:
                fail(f"--json {json_file}: {e.strerror or e}")
        if runner.stats.games or error is None:
            print_results(out, runner.stats, config.game)
            line = elo_line(runner.stats)
            if line:
                out.print(line, soft_wrap=True)  # one line: a pipe or a narrow screen must not cut it mid-phrase
            if runner.stats.sprt is not None:
                out.print(runner.stats.sprt.line(), soft_wrap=True)
            ratings = runner.stats.ratings()
            if ratings:
                print_table(out, ratings_table(ratings))
            out.print(f"log: {runner.log_path}" if written else "log: none (no game finished)", soft_wrap=True)
        for path in runner.kept_stderr:  # whatever the end: a bot that wrote to stderr may be why it ended
            out.print(f"bot stderr: {path}", soft_wrap=True)
        if json_stdout:
            typer.echo(json.dumps(summary_data(config, runner, error, interrupted, written, failures), indent=2))
        if interrupted:
            if written:
                err.print(f"interrupted after {runner.stats.games} game(s); the finished games are in {runner.log_path}; "
                          f"go on with: quinze match --resume {runner.log_path}", soft_wrap=True)  # one line to copy
            else:
                err.print("interrupted: no game finished (no log written)")
            raise typer.Exit(EXIT_INTERRUPTED)
        if error is not None:
            if written:  # the finished games are kept: the rest can be played once the cause is fixed
                err.print(f"the finished games are in {runner.log_path}; go on with: quinze match --resume {runner.log_path}",
                          soft_wrap=True)  # one line to copy
            fail(f"the match stopped after {runner.stats.games} game(s): {error}")
