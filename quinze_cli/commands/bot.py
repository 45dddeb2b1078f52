"""``quinze bot``: seat a bot program (or a built-in) at a table of a running server.

    quinze bot --server 127.0.0.1:15015 --create quinze --option players=2 -- python3 my_bot.py
    quinze bot --server 127.0.0.1:15015 --table t1 --seat 1 -- node my_bot.js

The program speaks the bot wire on its stdin/stdout (``--wire json``, one JSON object per line,
or ``--wire msgpack``, the TCP frames; see :mod:`quinze_cli.botproc`); the relay
(:mod:`quinze_cli.relay`) passes it the game messages of its table and its answers to the
server, until the table closes. With ``--create`` the table id is printed alone on stdout (so
a script can start the other bots); everything else goes to stderr.

A broken bot (timeout, crash, garbage, illegal action) forfeits the game at once; the relay
stays at the table (later games are forfeited at once if the program is dead) until it closes.

Exit status: 0 when the table closed and the bot never failed; 1 otherwise (server unreachable,
join refused, a forfeit); 2 for usage errors; 130 after Ctrl-C, SIGTERM or SIGHUP.
"""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer
from rich.console import Console
from rich.markup import escape

from quinze_protocol.errors import ProtocolError
from quinze_protocol.game import ABORTED, GameError, get_game
from quinze_cli.app import help_of
from quinze_cli.errors import EXIT_INTERRUPTED, EXIT_USAGE, fail, fail_game_error
from quinze_cli.options import check_move_time, check_seat, check_seed, parse_option_pairs
from quinze_cli.progcheck import program_problem
from quinze_cli.stdio import line_console

if TYPE_CHECKING:
    import trio

    from quinze_cli.client import Connection
    from quinze_cli.relay import Failure, GameOutcome

# The relay's own parts (trio, the connection, the bot process, the relay) are imported where the
# command runs: ``quinze bot --help`` and the usage errors Typer finds cost Typer's start, not
# trio's (tests/test_cli_imports.py).



class _Stop(Exception):
    """A user-facing failure inside the trio run (message, exit code)."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


async def _create(conn: Connection, game: str, options: dict[str, Any], seed: int | None, games: int,
                  move_time: float | None) -> str:
    import trio

    from quinze_cli.client import RequestRefused

    with trio.fail_after(30):
        try:
            info = await conn.create_table(game, options, seed=seed, games=games, move_time=move_time)
        except RequestRefused as e:
            raise _Stop(f"the server refused the table: {e.reason} [{e.code}]") from None
        except ProtocolError as e:  # a field out of range: nothing was sent
            raise _Stop(f"cannot create the table: {e.message_text()} [{e.code}]") from None
    return info.table


async def _run(args: dict[str, Any], out: Console, err: Console) -> int:
    from quinze_cli.interrupt import run_until_signal

    failures: list[Failure] = []

    async def on_failure(failure: Failure) -> None:
        failures.append(failure)
        err.print(f"[yellow]bot failure[/] at {failure.table} seat {failure.seat}: {escape(failure.describe())}; forfeiting the game",
                  markup=True, highlight=False, soft_wrap=True)  # one line per failure, even in a pipe
        dead = args.get("dead")
        if failure.kind == "crash" and not failure.started and dead is not None and not args.get("played"):
            dead(failure)  # ended before its first game: nothing to stay seated for

    host, port = args["address"]

    def stop() -> None:
        args["interrupted"] = True
        err.print("interrupted: stopping the bot")

    async def main(nursery: trio.Nursery) -> int:
        return await _relay(args, host, port, out, err, on_failure, failures, nursery)

    code, interrupted = await run_until_signal(main, stop)
    return EXIT_INTERRUPTED if interrupted or code is None else code


async def _relay(args: dict[str, Any], host: str, port: int, out: Console, err: Console, on_failure: Any,
                 failures: list[Failure], nursery: trio.Nursery) -> int:
    """Create/join the table and relay until it closes. Whatever the way it ends (table closed,
    Ctrl-C, server lost): the seat is left (``leave``: a running game is forfeited at once with
    kind ``leave`` rather than run down the clock), the bot stopped, a summary printed, and an
    empty temporary stderr file removed."""
    import trio

    from quinze_cli.botproc import BotError, BotProcess
    from quinze_cli.builtin import BuiltinBot, builtin_name
    from quinze_cli.client import ClientError, connect
    from quinze_cli.relay import RelayError, SeatRelay

    endpoint: Any
    command: list[str] = args["command"]
    builtin = builtin_name(command[0]) if len(command) == 1 else None
    if builtin is not None:
        endpoint = BuiltinBot(builtin, seed=args["seed"] or 0)
    else:
        endpoint = BotProcess(command, wire=args["wire"], stderr_path=args["stderr"], name=args["name"])
    conn: Connection | None = None
    finished: list[GameOutcome] = []
    seated: str | None = None
    closed = False

    async def on_outcome(outcome: GameOutcome) -> None:
        finished.append(outcome)
        args["played"] = True
        over = outcome.game_over
        if over is None:
            return
        res = over.result
        line = (f"game {over.number}: points {res.get('points')}, winners {res.get('winners')}, "
                f"reason {res.get('reason')}")
        if over.forfeit is not None:
            line += f" (seat {over.forfeit.seat} forfeited: {over.forfeit.kind})"
        err.print(line, highlight=False)
        err.file.flush()

    try:
        try:
            conn = await connect(host, port, args["name"], "bot")
        except ClientError as e:
            raise _Stop(str(e)) from None
        table = args["table"]
        if table is None:
            try:
                table = await _create(conn, args["create"], args["options"], args["seed"], args["games"], args["move_time"])
            except trio.TooSlowError:
                raise _Stop("the server did not answer create-table in 30 s") from None
            except ClientError as e:
                raise _Stop(str(e)) from None
            out.print(table, highlight=False)
            out.file.flush()
        relay = SeatRelay(conn, endpoint, on_failure=on_failure, on_outcome=on_outcome)
        try:
            joined = await relay.join(table, args["seat"])  # the program starts only once seated
            seated = table
        except RelayError as e:
            raise _Stop(str(e)) from None
        try:
            await endpoint.start(nursery)
        except BotError as e:
            raise _Stop(f"cannot start the bot: {e.reason}") from None
        try:
            err.print(f"seated at table {table}, seat {joined.seat}" +
                      (f" (bot stderr: {endpoint.stderr_path})" if getattr(endpoint, "stderr_path", None) else ""),
                      highlight=False, soft_wrap=True)  # a path is never cut, even in a pipe
            with trio.CancelScope() as playing:
                def dead(failure: Failure) -> None:
                    args["dead_failure"] = failure
                    playing.cancel()

                args["dead"] = dead
                outcomes = await relay.play(table, joined.seat, games=None)
                closed = True
        except RelayError as e:
            raise _Stop(str(e)) from None
        if not closed and "dead_failure" in args:  # the program ended before its first game: leave (finally), say so
            gone: Failure = args["dead_failure"]
            raise _Stop(f"the bot program ended before its first game ({gone.reason}): leaving table {table}")
        done, aborted = _count(outcomes)
        err.print(f"table {table} closed after {done} game(s)" + (f" and {aborted} aborted" if aborted else ""),
                  highlight=False)
        return 1 if failures else 0
    except _Stop as e:
        err.print(f"[bold red]error:[/] {escape(str(e))}", markup=True, highlight=False)
        return e.code
    finally:
        with trio.CancelScope(shield=True):
            fast = args.get("interrupted", False)
            if seated is not None and not closed and conn is not None and not conn.closed:
                # Give the seat up first (as quinze play does): the server forfeits a running
                # game with kind "leave" now, instead of the others waiting out our clock.
                with trio.move_on_after(1.0):
                    try:
                        await conn.send({"type": "leave", "table": seated})
                    except ClientError:
                        pass
            await endpoint.stop(grace=0.1 if fast else 1.0, term_wait=0.5 if fast else 1.0)
            if conn is not None:
                await conn.aclose()
        _summary(err, finished, failures)
        _tidy_stderr(err, endpoint, args["stderr"] is None)


def _ended(outcome: GameOutcome) -> bool:
    """Whether the game reached its end (a result, a forfeit's included), not an aborted one: the
    server stopped it (result reason ``"aborted"``, PROTOCOL.md "Flow" 8: no result, no point)
    or the table closed before its end (no ``game-over``)."""
    over = outcome.game_over
    return over is not None and over.result.get("reason") != ABORTED


def _count(outcomes: list[GameOutcome]) -> tuple[int, int]:
    """(games finished, games aborted) among ``outcomes`` (:func:`_ended`)."""
    done = sum(1 for o in outcomes if _ended(o))
    return done, len(outcomes) - done


def _summary(err: Console, seen: list[GameOutcome], failures: list[Failure]) -> None:
    """The closing line: games finished (aborted ones apart: they have no result), this seat's
    points, bot failures."""
    points = sum(float(o.game_over.result.get("points", [0.0] * (o.seat + 1))[o.seat])
                 for o in seen if o.game_over is not None and _ended(o))
    done, aborted = _count(seen)
    err.print(f"summary: {done} game(s) finished, " + (f"{aborted} aborted, " if aborted else "")
              + f"{points:g} point(s) for this seat, {len(failures)} bot failure(s)", highlight=False)
    err.file.flush()


def _tidy_stderr(err: Console, endpoint: Any, temporary: bool) -> None:
    """Remove the temporary stderr file (and its directory) when the bot wrote nothing there;
    else say where it is."""
    path = getattr(endpoint, "stderr_path", None)
    if path is None or not path.exists():
        return
    try:
        empty = path.stat().st_size == 0
    except OSError:
        return
    if empty and temporary:
        shutil.rmtree(path.parent, ignore_errors=True)
    elif not empty:
        err.print(f"bot stderr: {path}", highlight=False, soft_wrap=True)  # one line to copy


def register(app: typer.Typer) -> None:
    @app.command("bot", help=help_of("bot"), context_settings={"allow_interspersed_args": False})
    def bot(
        command: Annotated[list[str], typer.Argument(help="The bot program and its arguments (after --), or builtin:NAME.", show_default=False)],
        server: Annotated[str, typer.Option(help="The server, HOST:PORT.")] = "127.0.0.1:15015",
        table: Annotated[Optional[str], typer.Option(help="Join this table (id such as t1).")] = None,
        create: Annotated[Optional[str], typer.Option(help="Create a table of this game and join it; prints its id.")] = None,
        option: Annotated[Optional[list[str]], typer.Option("--option", help="With --create: table option KEY=VALUE (repeatable).")] = None,
        games: Annotated[int, typer.Option(help="With --create: games played at the table.")] = 1,
        seed: Annotated[Optional[int], typer.Option(help="With --create: seed of the first game (default: drawn by the server).")] = None,
        move_time: Annotated[Optional[float], typer.Option("--move-time", help="With --create: seconds per decision.")] = None,
        seat: Annotated[Optional[int], typer.Option(help="Seat to take (default: the first free one).")] = None,
        name: Annotated[Optional[str], typer.Option(help="Player name at the table (default: the program's name).")] = None,
        wire: Annotated[str, typer.Option(help="json (lines) or msgpack (frames) on the bot's stdin/stdout.")] = "json",
        stderr: Annotated[Optional[Path], typer.Option("--stderr", help="File for the bot's stderr (capped at 1 MiB; default: a temporary file).")] = None,
        debug: Annotated[bool, typer.Option("--debug", help="Log every message to and from the bot and the server on stderr.")] = False,
    ) -> None:
        if (table is None) == (create is None):
            fail("give exactly one of --table ID and --create GAME", EXIT_USAGE)
        if wire not in ("json", "msgpack"):
            fail(f"--wire must be json or msgpack, got {wire!r}", EXIT_USAGE)
        if games < 1:
            fail(f"--games must be at least 1, got {games}", EXIT_USAGE)
        check_move_time(move_time)
        check_seed(seed, games)
        check_seat(seat)
        if table is not None and (option or seed is not None or move_time is not None or games != 1):
            fail("--option, --games, --seed and --move-time go with --create, not --table", EXIT_USAGE)
        from quinze_cli.client import parse_address  # trio and the rest: past the first checks
        from quinze_cli.builtin import builtin_name, builtin_problem

        try:
            address = parse_address(server)
        except ValueError as e:
            fail(f"--server: {e}", EXIT_USAGE)
        if len(command) == 1 and " " in command[0]:
            command = shlex.split(command[0])
        options: dict[str, Any] = {}
        if create is not None:
            try:
                cls = get_game(create)
                options = cls.validate_options(parse_option_pairs(option or []), text=True)
            except GameError as e:
                fail_game_error(e, "--create" if e.code == "unknown-game" else "--option")
            except ValueError as e:
                fail(str(e), EXIT_USAGE)
        builtin = builtin_name(command[0]) if len(command) == 1 else None
        if builtin is not None:
            game_for_bots = create or "quinze"
            try:
                problem = builtin_problem(game_for_bots, builtin)
            except GameError as e:
                fail_game_error(e)
            if create is not None and problem is not None:
                fail(problem)
        if create is not None and seat is not None and seat >= options["players"]:
            fail(f"--seat {seat}: a {create} table with players={options['players']} has seats 0 .. "
                 f"{options['players'] - 1}", EXIT_USAGE)
        if builtin is None:
            # Checked before anything reaches the server (no empty table left behind), as quinze match does.
            problem = program_problem(command)
            if problem is not None:
                fail(f"cannot start the bot: {problem}")
        if name is not None:
            from quinze_protocol.fields import name_problem

            if (why := name_problem(name)) is not None:
                fail(f"--name {name!r}: {why}", EXIT_USAGE)
        bot_name = (name or Path(command[-1] if command[-1].endswith((".py", ".js")) else command[0]).stem or "bot")[:32]
        args = {
            "address": address, "table": table, "create": create, "options": options, "games": games, "seed": seed,
            "move_time": move_time, "seat": seat, "name": bot_name, "wire": wire, "stderr": stderr, "command": command,
        }
        if debug:
            from quinze_cli.debuglog import enable_debug

            enable_debug()
        out = line_console()
        err = line_console(stderr=True)
        import trio

        code = trio.run(_run, args, out, err)
        if code:
            raise typer.Exit(code)
