"""``quinze tournament BOT BOT BOT...``: an event between many bots, with ratings, a crosstable and
resume after a crash.

The settings come from the command line and ``--config FILE.toml`` (:mod:`quinze_cli.tournament`),
the schedule from :mod:`quinze_cli.schedule`, the games are played by the runner of ``quinze
match`` (:class:`quinze_cli.matchrun.MatchRunner`: the same records in the log, ``quinze replay``
reads them) and each finished game goes to the journal (:mod:`quinze_cli.journal`). Everything of
one event is in its directory ``<log-dir>/tournament-<time>/``: ``games.jsonl`` (the log),
``journal.jsonl``, ``stderr/``; ``--resume DIR`` takes that directory.

Exit status: 0 after a complete event; 1 when it had to stop (a bot failing beyond its restarts,
the server lost) or for bad input (a journal that does not match, a log with a damaged line that is not
a cut tail: :class:`quinze_cli.journal.LogDamaged`); 2 for usage errors (and when another quinze run is using
the event: :mod:`quinze_cli.loglock`, nothing changed); 130 after
Ctrl-C, SIGTERM or SIGHUP (bots stopped, finished games in the log and the journal: ``--resume`` goes on).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from quinze_cli.app import help_of
from quinze_cli.gameside import game_id_help
from quinze_cli.errors import EXIT_INTERRUPTED, EXIT_USAGE, fail
from quinze_cli.options import (check_at_least, check_last_seed, check_log_dir, check_move_time, check_seed, check_writable, fresh_seed,
                                 option_pairs)
from quinze_cli.stdio import line_console
from quinze_cli.schedule import FORMATS, MAX_EVENT_GAMES, Schedule, build_schedule, event_size

if TYPE_CHECKING:
    from rich.console import Console

    from quinze_cli.journal import Journal
    from quinze_cli.matchrun import MatchConfig, MatchRunner
    from quinze_cli.tournament import EventSettings, TournamentStats

# The event's own parts (trio, the match runner and the server it embeds, the live display) are
# imported where the command runs, not here: ``quinze tournament --help`` and the usage errors
# Typer finds cost Typer's start, not trio's and the server's (tests/test_cli_imports.py).

__all__ = ["register"]


def resolve(given: dict[str, Any], bots: list[str], config: Optional[Path], base: dict[str, Any] | None) -> dict[str, Any]:
    """The event's raw settings: the command line's ``given`` values over ``--config``'s over
    ``base`` (the journal's, on resume) over the defaults. Exits through :func:`fail`."""
    from quinze_cli.tournament import load_config, parse_entry

    data: dict[str, Any] = dict(base or {})
    if config is not None:
        try:
            file = load_config(config)
        except ValueError as err:
            fail(f"--config {err}", EXIT_USAGE)
        if "games_per_pairing" in file or "rounds" in file:
            data.pop("games_per_pairing", None)
            data.pop("rounds", None)
        data.update(file)
    entries: list[dict[str, Any]] = list(data.get("bots") or [])
    if bots:
        if base is not None and config is None:
            entries = []
        try:
            entries += [parse_entry(b) for b in bots]
        except ValueError as err:
            fail(f"BOT: {err}", EXIT_USAGE)
    data["bots"] = entries
    if "games_per_pairing" in given or "rounds" in given:
        data.pop("games_per_pairing", None)
        data.pop("rounds", None)
    data.update(given)
    return data


def settle(data: dict[str, Any]) -> tuple[EventSettings, MatchConfig, Schedule, list[float | None]]:
    """Check the raw settings; the event's settings, match config (log dir set later) and schedule."""
    from quinze_cli.matchrun import MatchConfig, validate_options
    from quinze_cli.positions import load_positions, positions_digest
    from quinze_cli.tournament import EventSettings, bot_settings, make_bots

    game = str(data.get("game") or "quinze")
    fmt = str(data.get("format") or "round-robin")
    if fmt not in FORMATS:
        fail(f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}", EXIT_USAGE)
    try:
        specs, times = make_bots(data["bots"], game)
    except ValueError as err:
        fail(f"BOT {err}", EXIT_USAGE)
    if len(specs) < 2:
        fail(f"a tournament needs at least two bots (BOT BOT [BOT...] or [[bots]] in --config), got {len(specs)}",
             EXIT_USAGE)
    per_pairing, rounds = data.get("games_per_pairing"), data.get("rounds")
    if per_pairing is not None and rounds is not None:
        fail("--games-per-pairing and --rounds say the same thing: give one", EXIT_USAGE)
    if fmt == "free-for-all" and per_pairing is not None:
        fail("--games-per-pairing is for round-robin and gauntlet; free-for-all is played in --rounds", EXIT_USAGE)
    for key, value in (("--games-per-pairing", per_pairing), ("--rounds", rounds)):
        if value is not None and not isinstance(value, int):
            fail(f"{key} must be a whole number, got {value!r}", EXIT_USAGE)
        check_at_least(value, key, 1)
    if per_pairing is None and rounds is None:
        if fmt == "free-for-all":
            rounds = 1
        else:
            per_pairing = 10
    seats = data.get("seats")
    if seats is None:
        seats = len(specs) if fmt == "free-for-all" else 2
    concurrency = int(data["concurrency"]) if data.get("concurrency") is not None else 1  # 0 is refused, not the default
    check_at_least(concurrency, "--concurrency", 1)
    max_restarts = int(data.get("max_restarts", 3))
    check_at_least(max_restarts, "--max-restarts", 0)
    move_time = data.get("move_time")
    if move_time is not None:
        check_move_time(float(move_time))
    raw = {str(k): str(v) for k, v in (data.get("options") or {}).items()}
    try:
        options = validate_options(game, raw, seats, 2 if fmt != "free-for-all" else seats)
    except Exception as err:  # noqa: BLE001 - GameError or ValueError, both named
        fail(f"--seats/--option: {getattr(err, 'reason', None) or err}", EXIT_USAGE)
    duplicate = bool(data.get("duplicate", True))
    starts: list[dict[str, Any]] = []
    if data.get("positions"):
        try:
            starts = load_positions(Path(str(data["positions"])), game)
        except ValueError as err:
            fail(f"--positions {err}")
        for n, p in enumerate(starts, 1):
            if int(p.get("options", {}).get("players", 0)) != options["players"]:
                fail(f"--positions: position {n} has {p.get('options', {}).get('players')} seats, the tables "
                     f"{options['players']} (--seats)")
    seed = data.get("seed")
    if seed is None:
        seed = fresh_seed()
    if not isinstance(seed, int) or isinstance(seed, bool):
        fail(f"--seed must be a whole number, got {seed!r}", EXIT_USAGE)
    check_seed(seed)
    try:
        tables, per_table = event_size(fmt, len(specs), seats=options["players"], per_pairing=per_pairing, rounds=rounds)
    except ValueError as err:
        fail(f"--format {fmt}: {err}", EXIT_USAGE)
    if tables * per_table > MAX_EVENT_GAMES:
        length = "--rounds" if rounds is not None else "--games-per-pairing"
        fail(f"{length} {rounds if rounds is not None else per_pairing} makes {tables * per_table} games; a tournament "
             f"has at most {MAX_EVENT_GAMES} (its schedule is made before the first game): play longer runs as "
             "matches (quinze match), whose games are scheduled as they are played", EXIT_USAGE)
    try:
        schedule = build_schedule(fmt, len(specs), seats=options["players"], seed=seed, duplicate=duplicate,
                                  per_pairing=per_pairing, rounds=rounds, positions=len(starts))
    except ValueError as err:
        fail(f"--format {fmt}: {err}", EXIT_USAGE)
    check_last_seed(seed, schedule.last_seed, schedule.games, "the deals use --seed + 0, 1, 2... (quinze_cli/schedule.py)")
    wire = str(data.get("wire") or "json")
    if wire not in ("json", "msgpack"):
        fail(f"--wire must be json or msgpack, got {wire!r}", EXIT_USAGE)
    settings = EventSettings(game=game, format=fmt, bots=bot_settings(specs, times), seats=options["players"],
                             options={k: v for k, v in options.items()}, duplicate=duplicate, seed=seed,
                             per_pairing=per_pairing, rounds=rounds, move_time=None if move_time is None else float(move_time),
                             games=schedule.games,
                             extra={"wire": wire, "positions": positions_digest(starts) if starts else None})
    config = MatchConfig(game=game, bots=specs, games=schedule.games, seed=seed, options=options, log_dir=Path("."),
                         concurrency=concurrency, move_time=settings.move_time, duplicate=duplicate, wire=wire,
                         max_restarts=max_restarts, bot_move_times=tuple(times),
                         positions=tuple(starts))
    return settings, config, schedule, times


def _count(stats: TournamentStats, entry: dict[str, Any]) -> None:
    stats.add_game(entry["seat_bots"], entry["points"], [tuple(f) for f in entry["forfeits"]], entry["scores"],
                   index=entry["index"], deal=entry["seed"], think=[tuple(t) for t in entry.get("think", [])],
                   reason=entry.get("reason"))


class _Quiet:
    """Stands in for rich's Live when stderr is not a terminal (a pipe, a file): no display."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def update(self, _: Any) -> None:
        pass

    def __enter__(self) -> "_Quiet":
        return self

    def __exit__(self, *_: Any) -> None:
        pass


async def _run(runner: MatchRunner, journal: Journal, total: int, done: int, err: Console,
               failures: list[dict[str, Any]]) -> tuple[str | None, bool]:
    import trio
    from rich.console import Group
    from rich.live import Live
    from rich.markup import escape
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from quinze_cli.interrupt import run_until_interrupted
    from quinze_cli.matchjournal import game_entry
    from quinze_cli.matchrun import GameReport
    from quinze_cli.relay import Failure
    from quinze_cli.relay_outcomes import failure_verb
    from quinze_cli.schedule import GamePlan
    from quinze_cli.tournament import TournamentStats
    from quinze_cli.tournament_view import standings_table

    progress = Progress(TextColumn("[bold]tournament[/]"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        console=err, transient=False)
    task = progress.add_task("", total=total, completed=done)
    stats = runner.stats
    assert isinstance(stats, TournamentStats)
    game = runner.config.game
    live: Any = Live(Group(progress, standings_table(stats, final=False, top=12, game=game)), console=err,
                     refresh_per_second=4, transient=True, redirect_stdout=False, redirect_stderr=False) \
        if err.is_terminal else _Quiet(err)
    shown = [0.0]

    async def on_game(report: GameReport) -> None:
        entry = game_entry(report)
        journal.append(entry)
        for f in entry["failures"]:
            failures.append({"game": report.plan.index + 1, **f})
        progress.update(task, advance=1)
        now = trio.current_time()
        if now - shown[0] >= 0.25 and isinstance(live, Live):  # the standings at most 4 times a second
            shown[0] = now
            live.update(Group(progress, standings_table(stats, final=False, top=12, game=game)))

    async def on_failure(bot: str, plan: GamePlan, failure: Failure) -> None:
        if failure.quiet:  # a start-up crash again: the stop message says it once
            return
        live.console.print(f"[yellow]game {plan.index + 1}[/]: {escape(bot)} (seat {failure.seat}) {failure_verb(failure)}: "
                           f"{escape(failure.describe())}", markup=True, highlight=False)

    runner.on_game = on_game
    runner.on_failure = on_failure
    state: dict[str, Any] = {"error": None, "interrupted": False}
    with live:
        state["error"], state["interrupted"] = await run_until_interrupted(runner)
    return state["error"], state["interrupted"]


def register(app: typer.Typer) -> None:
    @app.command("tournament", help=help_of("tournament"))
    def tournament(
        ctx: typer.Context,
        bots: Annotated[Optional[list[str]], typer.Argument(help="Bots: builtin:NAME, a quoted command line, or \"name=N cmd=C args=A movetime=S seed=N\".", show_default=False)] = None,
        game: Annotated[Optional[str], typer.Option(help=game_id_help("quinze"), show_default=False)] = None,
        format: Annotated[Optional[str], typer.Option("--format", help="round-robin (default), gauntlet (the first bot against each other) or free-for-all.", show_default=False)] = None,
        games_per_pairing: Annotated[Optional[int], typer.Option("--games-per-pairing", help=f"Games per pair of bots (round-robin, gauntlet; default 10, rounded up to whole seat rotations); an event has at most {MAX_EVENT_GAMES} games.", show_default=False)] = None,
        rounds: Annotated[Optional[int], typer.Option("--rounds", help=f"Rounds: a table per pairing, or (free-for-all) the tables in which every bot plays once; an event has at most {MAX_EVENT_GAMES} games.", show_default=False)] = None,
        seats: Annotated[Optional[int], typer.Option(help="Seats per table (default 2; free-for-all: one per bot).", show_default=False)] = None,
        duplicate: Annotated[Optional[bool], typer.Option("--duplicate/--no-duplicate", help="Play each deal once per seat rotation (default: yes).", show_default=False)] = None,
        concurrency: Annotated[Optional[int], typer.Option(help="Games played at the same time (default 1).", show_default=False)] = None,
        seed: Annotated[Optional[int], typer.Option(help="Seed of the first deal (default: drawn).", show_default=False)] = None,
        move_time: Annotated[Optional[float], typer.Option("--move-time", help="Seconds per decision (default: the server's, 60); a bot's movetime wins.", show_default=False)] = None,
        log_dir: Annotated[Path, typer.Option("--log-dir", help="Where the event's directory tournament-<time>/ goes.")] = Path("logs"),
        json_file: Annotated[Optional[str], typer.Option("--json", help="Also write the results as JSON to FILE ('-': stdout, the tables then go to stderr).", show_default=False)] = None,
        config: Annotated[Optional[Path], typer.Option("--config", help="A TOML file describing the event (bots, format, options...).", show_default=False)] = None,
        resume: Annotated[Optional[Path], typer.Option("--resume", metavar="DIR", help="Go on with the event in this directory: play only the missing games.", show_default=False)] = None,
        option: Annotated[Optional[list[str]], typer.Option("--option", help="Table option KEY=VALUE (repeatable).", show_default=False)] = None,
        max_restarts: Annotated[Optional[int], typer.Option("--max-restarts", help="Restarts allowed per bot program in a row (default 3).", show_default=False)] = None,
        cluster: Annotated[Optional[str], typer.Option("--cluster", metavar="tcp://HOST:PORT", help="Play the games on this Dask scheduler's workers (pip install '.[cluster]' in the Quinze folder; docs/scale.md).", show_default=False)] = None,
        shard_size: Annotated[int, typer.Option("--shard-size", metavar="N", help="With --cluster: games per Dask task.")] = 24,
        positions: Annotated[Optional[Path], typer.Option("--positions", help="Start the deals from these positions (the quinze legal format, one per line), each once per seat rotation.", show_default=False)] = None,
    ) -> None:
        import trio

        from quinze_cli.cluster import check_cluster, make_runner
        from quinze_cli.journal import Journal, JournalError, differences, resume_games
        from quinze_cli.loglock import hold_log
        from quinze_cli.progcheck import program_problem
        from quinze_cli.results import lower_is_better
        from quinze_cli.tournament import TournamentStats
        from quinze_cli.tournament_view import event_data, print_summary
        from quinze_protocol.replaylog import utc_stamp

        check_at_least(shard_size, "--shard-size", 1)
        given: dict[str, Any] = {k: v for k, v in {
            "game": game, "format": format, "games_per_pairing": games_per_pairing, "rounds": rounds, "seats": seats,
            "duplicate": duplicate, "seed": seed, "move_time": move_time, "max_restarts": max_restarts,
            "positions": str(positions) if positions is not None else None,
        }.items() if v is not None}
        if option:
            given["options"] = option_pairs(option)
        old: Journal | None = None
        if resume is not None:
            hold_log(resume / "games.jsonl", f"--resume {resume}", ctx)  # one run per event: before its journal or log is touched
            try:
                old = Journal.resume(resume / "journal.jsonl", "tournament")
            except JournalError as err:
                fail(f"--resume {resume}: {err}")
            base = _base_from_journal(old.settings)
            data = resolve(given, bots or [], config, base)
        else:
            data = resolve(given, bots or [], config, None)
        if concurrency is not None:
            data["concurrency"] = concurrency
        settings, cfg, schedule, _ = settle(data)
        if old is not None:
            diff = differences(old.settings, settings.to_data())
            if diff:
                old.close()
                fail(f"--resume {resume}: the settings differ from the journal's: " + "; ".join(diff))
        if cluster is None:  # with --cluster the workers check the bot programs there
            for spec in cfg.bots:
                problem = program_problem(spec.argv)
                if problem is not None:  # before the event starts: no event directory, no forfeited games
                    if old is not None:
                        old.close()
                    fail(f"BOT {spec.spec!r}: {problem}")
        out_console = line_console(stderr=json_file == "-")
        err_console = line_console(stderr=True)
        if json_file not in (None, "-"):
            check_writable(Path(json_file), "--json")
        if old is not None:
            assert resume is not None
            event_dir = resume
            journal = old
        else:
            stamp = utc_stamp()
            check_log_dir(Path(data.get("log_dir") or log_dir))  # a file or a folder not writable: exit 2, naming why
            event_dir = Path(data.get("log_dir") or log_dir) / f"tournament-{stamp}"
            try:
                event_dir.mkdir(parents=True)
                hold_log(event_dir / "games.jsonl", f"--log-dir {event_dir}", ctx)
                journal = Journal.create(event_dir / "journal.jsonl", "tournament", settings.to_data())
            except OSError as e:
                fail(f"--log-dir {event_dir}: {e.strerror or e}")
        cfg.log_dir = event_dir
        names = [b.name for b in cfg.bots]
        stats = TournamentStats([(b.name, b.spec) for b in cfg.bots], seats=cfg.seats, group=schedule.per_table,
                                lower_is_better=lower_is_better(cfg.game))
        failures: list[dict[str, Any]] = []
        done: set[int] = set()
        log_path = event_dir / "games.jsonl"
        try:
            dropped = resume_games(log_path, journal, names) if old is not None else 0  # only what the log holds counts
        except JournalError as err:  # a damaged line that is not a cut tail: nothing changed
            journal.close()
            fail(f"--resume {resume}: {err}")
        for entry in sorted(journal.entries, key=lambda e: e["index"]):
            _count(stats, entry)
            done.add(entry["index"])
            failures += [{"game": entry["index"] + 1, **f} for f in entry.get("failures", [])]
        if old is not None:
            err_console.print(f"resuming {event_dir}: {len(done)} of {schedule.games} games done"
                      + (f" ({dropped} unfinished or unrecorded game(s) dropped from the log, to be played again)" if dropped else ""))
        missing = [p for p in schedule.plans if p.index not in done]
        if cluster is not None:
            check_cluster(cluster, None)
        runner = make_runner(cfg, cluster, shard_size, plans=missing, stats=stats)
        runner.log_path = log_path
        runner.stderr_dir = event_dir / "stderr"
        err_console.print(f"{cfg.game} {settings.format}: {len(names)} bots, {schedule.games} games at {cfg.seats} seats"
                  f"{' (duplicate)' if cfg.duplicate else ''}, seed {cfg.seed}; event directory {event_dir}")
        error, interrupted = None, False
        if missing:
            error, interrupted = trio.run(_run, runner, journal, schedule.games, len(done), err_console, failures)
        journal.close()
        failures.sort(key=lambda f: (f["game"], f.get("seat", 0)))
        doc = event_data(settings, schedule, stats, event_dir, failures, runner.log_problems, error, interrupted)
        if json_file is not None and json_file != "-":
            # The results file first: it must not depend on the output (a pipe closed by head, a
            # full disk, a terminal gone) that the standings are written to.
            try:
                Path(json_file).write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
            except OSError as e:
                fail(f"--json {json_file}: {e.strerror or e}")
        if stats.games:
            print_summary(out_console, stats, cfg.game, doc)
        else:  # stdout still says how it ended (match prints its table of '-' there)
            out_console.print(f"Standings: none, no game finished (0 of {schedule.games})")
        if json_file == "-":
            sys.stdout.write(json.dumps(doc, indent=2) + "\n")
        if interrupted:
            err_console.print(f"interrupted after {stats.games} of {schedule.games} game(s); go on with: "
                      f"quinze tournament --resume {event_dir}", soft_wrap=True)  # one line to copy
            raise typer.Exit(EXIT_INTERRUPTED)
        if error is not None:
            fail(f"the tournament stopped after {stats.games} game(s): {error}; go on with --resume {event_dir}")


def _base_from_journal(s: dict[str, Any]) -> dict[str, Any]:
    """The journal's settings in the shape of raw settings (:func:`resolve`)."""
    from quinze_cli.builtin import builtin_name

    bots = []
    for b in s.get("bots", []):
        entry: dict[str, Any] = {"name": b["name"], "cmd": b["cmd"]}
        cmd = b["cmd"]
        if " seed=" in cmd and builtin_name(cmd) is not None:
            entry["cmd"], _, seed = cmd.partition(" seed=")
            entry["seed"] = seed
        if b.get("movetime") is not None:
            entry["movetime"] = b["movetime"]
        bots.append(entry)
    base = {k: s.get(k) for k in ("game", "format", "seats", "duplicate", "seed", "move_time", "wire")}
    base["options"] = s.get("options") or {}
    base["bots"] = bots
    if s.get("rounds") is not None:
        base["rounds"] = s["rounds"]
    else:
        base["games_per_pairing"] = s.get("games_per_pairing")
    return base
