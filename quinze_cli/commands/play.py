"""``quinze play``: play at a table from the terminal, over the LAN or ``--local`` against built-in bots.

    quinze play --server 192.168.1.10            # the lobby of a server (port 15015)
    quinze play --server host:15015 --name Ana --table t1
    quinze play --server host --spectate t1      # watch, public information only
    quinze play --local --opponents builtin:greedy,builtin:random --option target=50
    quinze play --local --lang fr
    quinze play --local --level hard             # the search bot at its hard level
    quinze play --local --log-dir ~/quinze-logs  # replay logs there (./logs by default; --no-log: none)
    quinze play --local --clock bank:300+5       # a time bank (--local has no clock by default)
    quinze play --server host --clock move:90    # tables created from the lobby: 90 s a decision

The clock (PROTOCOL.md "Clocks"): ``none`` (no forfeit on time: the default with ``--local``),
``move:SECONDS`` (per decision), ``bank:BASE+INCREMENT`` (a time bank, the default for tables
created from the lobby: ``bank:300+5``).

The seat token of each joined table is kept in ``~/.cache/quinze/seats.json`` (or
``$XDG_CACHE_HOME``) by server, table and name, so running the same command again after a crash
takes the same seat back (never a seat whose holder is connected: then a free one);
``--token`` gives one explicitly. See :mod:`quinze_cli.play` for the screen and the input.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from quinze_protocol.game import Game, GameError, get_game
from quinze_cli.app import help_of
from quinze_cli.errors import EXIT_USAGE, fail, fail_game_error
from quinze_cli.options import check_log_dir, check_move_time, check_seat, check_seed, option_pairs


def register(app: typer.Typer) -> None:
    @app.command("play", help=help_of("play"))
    def play(
        server: Annotated[Optional[str], typer.Option("--server", "-s", metavar="HOST[:PORT]", help="The server (port 15015 by default). When omitted: pick one of the servers found on the local network, or a local game. Not with --local.")] = None,
        name: Annotated[Optional[str], typer.Option("--name", "-n", help="Your name at the table (asked when omitted).")] = None,
        table: Annotated[Optional[str], typer.Option("--table", "-t", help="Go straight to this table id and take a seat.")] = None,
        seat: Annotated[Optional[int], typer.Option("--seat", help="The seat wanted with --table (first free when omitted).")] = None,
        spectate: Annotated[Optional[str], typer.Option("--spectate", help="Watch this table id (public information only).")] = None,
        token: Annotated[Optional[str], typer.Option("--token", help="Seat token to take a held seat back (with --table).")] = None,
        local: Annotated[bool, typer.Option("--local", help="Play on an embedded loopback server against built-in bots.")] = False,
        opponents: Annotated[Optional[str], typer.Option("--opponents", help="With --local: comma-separated builtin:NAME bots, one per seat (default: the search bot builtin:mcts and the game's best other bot, greedy or threshold).")] = None,
        level: Annotated[Optional[str], typer.Option("--level", help="With --local: strength of the search bot builtin:mcts, easy, normal or hard (default normal).")] = None,
        game: Annotated[str, typer.Option("--game", "-g", help="With --local: game id.")] = "quinze",
        option: Annotated[Optional[list[str]], typer.Option("--option", "-o", help="With --local: table option K=V (repeatable).")] = None,
        seed: Annotated[Optional[int], typer.Option("--seed", help="With --local: seed of the game (drawn when omitted).")] = None,
        move_time: Annotated[Optional[float], typer.Option("--move-time", metavar="SECONDS", help="With --local: seconds per decision (the same as --clock move:SECONDS).")] = None,
        clock: Annotated[Optional[str], typer.Option("--clock", metavar="CLOCK", help="The clock of your table: none, move:SECONDS or bank:BASE+INCREMENT (default: none with --local, bank:300+5 for tables created from the lobby).")] = None,
        log_dir: Annotated[Optional[str], typer.Option("--log-dir", help="With --local: directory of the replay logs, <TABLE>.jsonl appended there (default ./logs).")] = None,
        no_log: Annotated[bool, typer.Option("--no-log", help="With --local: write no replay log.")] = False,
        lang: Annotated[Optional[str], typer.Option("--lang", help="Language: en or fr (default: the locale's, LC_ALL, LC_MESSAGES or LANG; C: en).")] = None,
    ) -> None:
        from quinze_cli.client import parse_address
        from quinze_cli.i18n import choose_language
        from quinze_cli.play.main import run_play
        from quinze_cli.play.session import PlayOptions

        try:
            language = choose_language(lang)
        except ValueError as err:
            fail(str(err), EXIT_USAGE)
        if local and server is not None:
            fail("--local starts its own server on this machine: do not give --server with it", EXIT_USAGE)
        try:
            host, port = parse_address(server if server is not None else "127.0.0.1")
        except ValueError as err:
            fail(f"--server: {err}", EXIT_USAGE)
        if spectate and table:
            fail("--spectate and --table: choose one", EXIT_USAGE)
        check_seat(seat)
        if seat is not None and table is None:
            fail("--seat is the seat wanted at --table: give --table with it", EXIT_USAGE)
        if local and (spectate or table):
            fail("--local makes its own table: do not give --table or --spectate", EXIT_USAGE)
        if name is not None:
            from quinze_protocol.fields import name_problem

            if (why := name_problem(name)) is not None:
                fail(f"--name {name!r}: {why}", EXIT_USAGE)
        from quinze_protocol.clocks import DEFAULT_BANK, move_clock, parse_clock_text

        if move_time is not None and clock is not None:
            fail("--move-time and --clock: choose one (--clock move:SECONDS is the same)", EXIT_USAGE)
        try:
            clock_spec = parse_clock_text(clock) if clock is not None else None
        except ValueError as err:
            fail(f"--clock: {err}", EXIT_USAGE)
        if move_time is not None:
            clock_spec = move_clock(move_time)
        if (table or spectate) and clock is not None:
            fail("--clock sets the clock of a table you create (--local, or 'c' in the lobby): not with --table or --spectate", EXIT_USAGE)
        spec = None
        if local:
            spec = _local_spec(game, option, opponents, level, seed, move_time, clock_spec, log_dir, no_log)
        elif option or seed is not None or move_time is not None or log_dir is not None or no_log or level is not None:
            fail("--option, --seed, --move-time, --log-dir, --level and --no-log go with --local (create tables from the "
                 "lobby)", EXIT_USAGE)
        if log_dir is not None and no_log:
            fail("--log-dir and --no-log: choose one", EXIT_USAGE)
        if spec is not None and spec.log_dir is not None:  # as match checks its --json directory: before any game
            check_log_dir(Path(spec.log_dir))
        fallback = None
        if not local and server is None:  # no address: the servers found on the LAN, or a local game
            host, port = "", 0
            if table is None and spectate is None:
                fallback = _local_spec(game, None, None, None, None, None, None, None, False)
        opts = PlayOptions(host=host, port=port, name=name or "", table=table, seat=seat, spectate=spectate, token=token,
                           clock=clock_spec if clock_spec is not None else dict(DEFAULT_BANK))
        code = run_play(opts, language, spec, fallback)
        if code:
            raise typer.Exit(code)


def _local_spec(game: str, option: list[str] | None, opponents: str | None, level: str | None, seed: int | None,
                move_time: float | None, clock_spec: dict | None, log_dir: str | None, no_log: bool):
    """The ``--local`` game asked for (checked: a usage error exits 2), as a ``LocalSpec``."""
    from quinze_cli.play.local import LEVELS, DEFAULT_LOG_DIR, LocalError, apply_level, default_opponents, parse_opponents
    from quinze_cli.play.main import LocalSpec

    try:
        cls = get_game(game)
    except GameError as err:
        fail_game_error(err, "--game", EXIT_USAGE)
    check_move_time(move_time)
    check_seed(seed)
    raw = option_pairs(option)
    if level is not None and level not in LEVELS:
        fail(f"--level: {level!r} is not one of {', '.join(LEVELS)}", EXIT_USAGE)
    wanted = _players_option(raw, cls)
    try:
        bots = parse_opponents(game, opponents if opponents is not None else
                               default_opponents(game, None if wanted is None else wanted - 1, level or "normal"))
    except LocalError as err:
        fail(str(err), EXIT_USAGE)
    bots = apply_level(bots, level or "normal")
    if wanted is not None and opponents is not None and wanted != 1 + len(bots):
        fail(f"--option players={wanted} and --opponents ({len(bots)} bot(s), so {1 + len(bots)} players) "
             "disagree: give one of them (a local table has your seat and one per opponent)", EXIT_USAGE)
    raw["players"] = str(1 + len(bots))
    try:
        options = cls.validate_options(raw, text=True)
    except GameError as err:
        if err.field == "players" and wanted is None:  # the number came from --opponents
            fail(f"--opponents: {len(bots)} bot(s) make {1 + len(bots)} players, but {game} players: "
                 f"{err.reason}", EXIT_USAGE)
        fail_game_error(err, "--option", EXIT_USAGE)
    return LocalSpec(game=game, options=options, opponents=bots, seed=seed, move_time=move_time,
                     clock=clock_spec if clock_spec is not None else {"kind": "none"},
                     log_dir=None if no_log else (log_dir or DEFAULT_LOG_DIR))


def _players_option(raw: dict[str, str], cls: type[Game]) -> int | None:
    """``--option players=N`` of ``quinze play --local`` as a number (it sets how many default
    opponents are seated), None when not given; a value the game refuses is a usage error."""
    if "players" not in raw:
        return None
    try:
        return int(cls.validate_options({"players": raw["players"]})["players"])
    except GameError as err:
        fail_game_error(err, "--option", EXIT_USAGE)
