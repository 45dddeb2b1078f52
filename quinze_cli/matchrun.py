"""Running a match between bots (``quinze match``): the schedule, the bot processes, the games.

- **Schedule.** ``S`` seats (``seats``; default one per bot) are dealt to the ``B`` bots in
  rotation (seat ``s`` to bot ``s mod B``); game ``i`` turns that deal by ``i`` seats (seat
  ``s`` to bot ``((s + i) mod S) mod B``), so over ``S`` games every bot holds every seat
  equally. Game ``i`` uses seed ``seed + i``. With ``duplicate`` each seed is played once per
  distinct rotation (``R`` of them, :func:`rotations`: 2 for two bots at four seats), in a row
  (game ``i``: seed ``seed + i // R``, rotation ``i mod R``), so every bot gets every hand; the
  number of games must then be a multiple of ``R``.
- **Processes.** Each concurrency slot keeps, per bot, as many programs as the seats that bot
  holds in a game (``--seats 4`` with 2 bots: 2 each, 4 per slot), each with its own server
  connection, reused from game to game. A program that crashed, timed out or wrote broken
  framing is restarted before its next game, at most ``max_restarts`` times in a row per program
  (a game played through resets the count); one more and the match stops with
  :class:`MatchError` (:mod:`quinze_cli.matchplayer`).
- **A game.** The slot's control connection sends ``create-table`` (game, options, seed,
  ``games=1``, move_time); the relays of the seats join and play it; the game-over gives the
  result, the seed, salt and actions, from which the game's replay records are written
  (:func:`quinze_protocol.replaylog.game_records`) to the match log, flushed and fsynced. The log file
  is created with the first finished game (no empty log for a match that ends before).
"""

from __future__ import annotations

import logging
import os
import shlex
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

import trio

from quinze_protocol.errors import ProtocolError
from quinze_protocol.fields import blank_problem
from quinze_protocol.game import ABORTED, GameError, get_game
from quinze_protocol.replaylog import LogError, dumps_records, game_records, utc_now, utc_stamp
from quinze_server.logs import cut_at_end
from quinze_cli.botproc import DEFAULT_STDERR_CAP, BotError, BotProcess
from quinze_cli.builtin import BuiltinBot, builtin_name, builtin_problem
from quinze_cli.client import ClientError, Connection, RequestRefused, connect
from quinze_cli.matchplayer import Player
from quinze_cli.relay import Failure, GameOutcome, RelayError, SeatRelay
from quinze_cli.schedule import GamePlan, iter_schedule, rotations
from quinze_cli.stats import MatchStats
from quinze_cli.stats.sprt import SprtSpec

__all__ = ["BotSpec", "MatchConfig", "MatchError", "MatchRunner", "parse_bot_spec"]

log = logging.getLogger("quinze.match")


class MatchError(Exception):
    """The match cannot go on (a bot failing beyond its restarts, the server lost)."""


@dataclass(frozen=True)
class BotSpec:
    """A bot of the match: ``name`` (unique, for tables and logs), ``spec`` (as given),
    ``builtin`` (the built-in's name) or ``argv`` (the program and its arguments)."""

    name: str
    spec: str
    builtin: str | None = None
    argv: tuple[str, ...] = ()
    seed: int | None = None
    """A built-in's own seed (default: the match's ``seed``)."""


def parse_bot_spec(spec: str, game: str, taken: Sequence[str] = ()) -> BotSpec:
    """``"builtin:NAME"`` or a command line (split with :func:`shlex.split`) as a :class:`BotSpec`.

    The name is the built-in's name or the program file's stem (``random_bot`` for
    ``"python3 examples/bots/random_bot.py"``), made unique against ``taken`` with ``-2``, ``-3``...
    Raises ``ValueError`` (empty command, bad quoting, unknown built-in: names the known ones).
    """
    argv: tuple[str, ...]
    builtin: str | None
    name = builtin_name(spec)
    if name is not None:
        problem = builtin_problem(game, name)
        if problem is not None:
            raise ValueError(problem)
        base, argv, builtin = name, (), name
    else:
        try:
            argv = tuple(shlex.split(spec))
        except ValueError as err:
            raise ValueError(f"cannot read the bot command {spec!r}: {err}") from None
        if not argv:
            raise ValueError("an empty bot command")
        files = [a for a in argv if not a.startswith("-") and Path(a).suffix in (".py", ".js", ".rb", ".sh", ".pl")]
        base = Path(files[-1] if files else argv[0]).stem
        if not base or blank_problem(base) is not None:  # a name must show a character (hello.name)
            base = "bot"
        builtin = None
    base = base[:28]
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}-{n}"
    return BotSpec(name, spec, builtin, argv)


@dataclass
class MatchConfig:
    """A match: see ``quinze match --help``. ``options`` are validated (``players`` included);
    ``move_time`` in seconds (None: the server's default); ``server`` None starts an embedded one."""

    game: str
    bots: list[BotSpec]
    games: int
    seed: int
    options: dict[str, Any]
    log_dir: Path
    concurrency: int = 1
    move_time: float | None = None
    duplicate: bool = False
    wire: str = "json"
    max_restarts: int = 3
    server: tuple[str, int] | None = None
    stderr_cap: int = DEFAULT_STDERR_CAP
    positions: tuple[dict[str, Any], ...] = ()
    """Positions the games start from (``--positions``; :attr:`GamePlan.position` indexes them),
    sent as ``create-table.position``."""
    bot_move_times: tuple[float | None, ...] = ()
    """Per bot (index into ``bots``): its own seconds per decision (None: ``move_time``); sent as
    the table's ``seat_move_times`` (PROTOCOL.md ``create-table``)."""
    sprt: SprtSpec | None = None
    """Stop once this sequential test decides (two bots; ``games`` is then the most played)."""
    bot_env: Mapping[str, str] | None = None
    """The environment of the bot programs (None: this process's, as ``quinze match`` gives it,
    ``PYTHONUNBUFFERED`` included when set; ``quinze check-bot`` gives it without that one)."""

    @property
    def group(self) -> int:
        """Games per deal group: the distinct seat rotations with ``duplicate``, else 1."""
        return len(rotations(len(self.bots), self.seats)) if self.duplicate else 1

    @property
    def seats(self) -> int:
        return int(self.options["players"])


@dataclass
class GameReport:
    """What the runner tells its caller after each game."""

    plan: GamePlan
    table: str
    game_over: Any
    failures: list[tuple[int, Failure]] = field(default_factory=list)
    """Each bot failure in the game (bot index, failure): at most one is its forfeit
    (``Failure.forfeit``, the seat the result names); the others came after it was decided."""
    think: list[tuple[float, int, float, int]] = field(default_factory=list)
    """Per seat: seconds its bot took over its answers, the answers, the longest one, the answers
    near the move time limit."""


class MatchRunner:
    """Runs one match. ``on_game(report)`` and ``on_failure(bot name, plan, failure)`` are awaited
    as things happen; ``stats`` holds the running totals; ``log_path`` the match log."""

    def __init__(
        self,
        config: MatchConfig,
        *,
        on_game: Callable[[GameReport], Awaitable[None]] | None = None,
        on_failure: Callable[[str, GamePlan, Failure], Awaitable[None]] | None = None,
        plans: Iterable[GamePlan] | None = None,
        stats: MatchStats | None = None,
    ) -> None:
        """``plans``: the games to play instead of the match schedule (a tournament's, or the
        games still missing on resume), bot indices into ``config.bots``; ``stats``: the totals to
        count them into (default: new ones for ``config``)."""
        self.config = config
        self.on_game = on_game
        self.on_failure = on_failure
        from quinze_cli.results import lower_is_better

        self.stats = stats if stats is not None else MatchStats(
            [(b.name, b.spec) for b in config.bots], group=config.group, sprt=config.sprt, seats=config.seats,
            lower_is_better=lower_is_better(config.game))
        self.stopping = False
        """Set when the sequential test has decided: no new game starts, running ones finish."""
        self.plans = iter(plans) if plans is not None else \
            iter_schedule(len(config.bots), config.seats, config.games, config.seed, duplicate=config.duplicate,
                          positions=len(config.positions))
        """The games still to play (a generator shared by the concurrency slots)."""
        stamp = utc_stamp()
        self.log_path = config.log_dir / f"match-{stamp}.jsonl"
        self.stderr_dir = config.log_dir / f"match-{stamp}-stderr"
        self.kept_stderr: list[Path] = []
        """The bot stderr files kept at the end (the ones a bot wrote to), set by :meth:`tidy_stderr`."""
        self.players: list[Player] = []
        self._log: TextIO | None = None
        self._controls: list[Connection] = []
        self.all_pids: list[int] = []
        """Process ids of every bot program started, restarts included."""
        self.log_problems: list[str] = []
        """Games that could not be logged (the engine refused the server's actions), in words."""
        self.fast_stop = False
        """Set on Ctrl-C: stop the bot programs without the polite wait."""

    # ------------------------------------------------------------------ the match

    async def run(self) -> MatchStats:
        """Play every game (on the given server, or an embedded one). Raises :class:`MatchError`.
        Bot programs are stopped and connections closed on the way out, whatever happens
        (cancellation included); finished games are on disk."""
        self.config.log_dir.mkdir(parents=True, exist_ok=True)
        try:
            async with trio.open_nursery() as nursery:
                try:
                    if self.config.server is None:
                        from quinze_server.app import run_server
                        from quinze_server.config import ServerConfig

                        port = await nursery.start(run_server, ServerConfig(host="127.0.0.1", port=0, log_dir=None))
                        address = ("127.0.0.1", port)
                    else:
                        address = self.config.server
                    await self._play_all(address, nursery)
                finally:
                    await self._stop_all()
                    nursery.cancel_scope.cancel()
        except BaseExceptionGroup as group:
            raise _first(group, MatchError) or _first(group, KeyboardInterrupt) or group from None
        finally:
            if self._log is not None:
                self._log.close()
            self.tidy_stderr()
        return self.stats

    def tidy_stderr(self) -> None:
        """Keep only the bot stderr files that hold something: empty ones are removed, and the
        stderr folder too when nothing is left in it; the kept ones are in :attr:`kept_stderr`
        (sorted paths), for the command to print (docs/match.md). Never raises."""
        kept: list[Path] = []
        try:
            for path in sorted(self.stderr_dir.iterdir()):
                if path.is_file() and path.stat().st_size == 0:
                    path.unlink()
                elif path.is_file():
                    kept.append(path)
            self.stderr_dir.rmdir()  # only when empty
        except OSError:
            pass
        self.kept_stderr = kept

    @property
    def log_written(self) -> bool:
        """True once a game was written to :attr:`log_path` (the file is made with the first
        finished game: a match that ends before leaves no empty log)."""
        return self._log is not None

    async def _play_all(self, address: tuple[str, int], bots_nursery: trio.Nursery) -> None:
        slots = max(1, min(self.config.concurrency, self.config.games))
        async with trio.open_nursery() as nursery:
            for slot in range(slots):
                nursery.start_soon(self._slot, slot, address, bots_nursery)

    async def _slot(self, slot: int, address: tuple[str, int], bots_nursery: trio.Nursery) -> None:
        control = await self._connect(address, f"match-{slot + 1}", "player")
        self._controls.append(control)
        pool: dict[tuple[int, int], Player] = {}
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._read_control, control)
            # One generator shared by the slots: trio runs one task at a time, so each next()
            # hands out the next game exactly once.
            for plan in self.plans:
                if self.stopping:
                    break
                await self._play_one(plan, slot, address, control, pool, bots_nursery)
                for player in pool.values():  # who sits out until needed keeps answering pings
                    if player.relay is not None and player.idle is None:
                        await nursery.start(player.keep_alive)
            nursery.cancel_scope.cancel()
        await control.aclose()

    async def _read_control(self, control: Connection) -> None:
        """Keep the control connection read (pings answered); its reads bring the answers to
        ``create-table`` (:meth:`quinze_cli.client.Connection.create_table`)."""
        while True:
            try:
                await control.receive()
            except ClientError:
                return  # the next create_table reads the error itself

    async def _create_table(self, plan: GamePlan, control: Connection, address: tuple[str, int]) -> str:
        fields: dict[str, Any] = {"seed": plan.seed, "games": 1, "move_time": self.config.move_time}
        options = self.config.options
        if plan.position is not None:
            fields["position"] = self.config.positions[plan.position]
            options = {}  # the position's own
        own = self.config.bot_move_times
        if any(t is not None for t in own):
            fields["seat_move_times"] = [own[b] if b < len(own) else None for b in plan.seat_bots]
        with trio.move_on_after(30) as scope:
            try:
                info = await control.create_table(self.config.game, options, **fields)
            except RequestRefused as err:
                raise MatchError(f"the server refused the table: {err.reason} [{err.code}]") from None
            except ProtocolError as err:  # a field out of range: nothing was sent
                raise MatchError(f"cannot create the table: {err.message_text()} [{err.code}]") from None
            except ClientError as err:
                raise MatchError(_lost(address, err)) from None
        if scope.cancelled_caught:
            raise MatchError("the server did not answer create-table in 30 s")
        return info.table

    async def _play_one(self, plan: GamePlan, slot: int, address: tuple[str, int], control: Connection,
                        pool: dict[tuple[int, int], Player],
                        bots_nursery: trio.Nursery) -> None:
        seat_players: list[Player] = []
        counts: dict[int, int] = {}
        for bot_index in plan.seat_bots:
            k = counts.get(bot_index, 0)
            counts[bot_index] = k + 1
            key = (bot_index, k)
            if key not in pool:
                pool[key] = Player(self.config.bots[bot_index], slot, k)
                self.players.append(pool[key])
            player = pool[key]
            await player.wake()
            await self._ready(player, address, bots_nursery)
            seat_players.append(player)
        table = await self._create_table(plan, control, address)
        outcomes: list[GameOutcome | None] = [None] * len(seat_players)
        failures: list[tuple[int, Failure]] = []

        async def seat_task(seat: int, player: Player) -> None:
            relay = player.relay
            assert relay is not None
            try:
                await relay.join(table, seat)
                got = await relay.play(table, seat, games=1)
            except RelayError as err:
                ended = relay.conn.ended
                raise MatchError(f"{player.label} at table {table}: "
                                 + (_lost(address, ended) if ended is not None else str(err))) from None
            outcomes[seat] = got[0] if got else None
            if got:
                failure = got[0].failure
                player.played(got[0].moves, failure)
                if failure is not None:
                    failure.quiet = player.repeated_startup_crash(failure)
                    failures.append((plan.seat_bots[seat], failure))

        async with trio.open_nursery() as nursery:
            for seat, player in enumerate(seat_players):
                nursery.start_soon(seat_task, seat, player)
        over = next((o for o in outcomes if o is not None and o.game_over is not None), None)
        if over is None:
            raise MatchError(f"table {table} closed before its game ended")
        assert over.game_over is not None
        if over.game_over.result.get("reason") == ABORTED:
            # The server stopped during the game (PROTOCOL.md "Flow" 8): it counts for nobody, so it
            # is neither logged nor journaled; a --resume plays it again. Its bye follows.
            log.warning("game %d at table %s was aborted by the server's shutdown: not counted "
                        "(--resume plays it again)", plan.index + 1, table)
            raise MatchError(f"table {table}: " + _lost(address, "it shut down during the game"))
        self._write_game(over, self.config.positions[plan.position] if plan.position is not None else None)
        think = [(o.think, o.moves, o.max_think, o.near_limit) if o is not None else (0.0, 0, 0.0, 0) for o in outcomes]
        await self._count_game(GameReport(plan, table, over.game_over, failures, think))

    async def _count_game(self, report: GameReport) -> None:
        """Add a finished (and logged) game to the statistics (an SPRT that decides sets
        :attr:`stopping`), then tell the callbacks."""
        result, plan = report.game_over.result, report.plan
        self.stats.add_game(plan.seat_bots, result.get("points", []),
                            [(b, f.kind) for b, f in report.failures if f.forfeit], result.get("scores", []),
                            index=plan.index, deal=plan.seed, think=report.think, reason=result.get("reason"))
        if self.stats.sprt is not None and self.stats.sprt.result is not None:
            self.stopping = True
        for bot_index, failure in report.failures:
            if self.on_failure is not None:
                await self.on_failure(self.config.bots[bot_index].name, report.plan, failure)
        if self.on_game is not None:
            await self.on_game(report)

    # ------------------------------------------------------------------ bots

    async def _connect(self, address: tuple[str, int], name: str, role: str) -> Connection:
        try:
            return await connect(address[0], address[1], name[:32], role)
        except ClientError as err:
            raise MatchError(str(err)) from None

    async def _ready(self, player: Player, address: tuple[str, int], nursery: trio.Nursery) -> None:
        """Start the player's bot (and connection) if needed; restart it after a failure."""
        if player.relay is not None and not player.needs_restart and _alive(player.endpoint):
            return
        if player.relay is not None:
            if player.needs_restart:  # it failed in its last game: restarted, unless that keeps happening
                stop = player.give_up(self.config.max_restarts,
                                      str(player.endpoint.stderr_path) if _has_stderr(player.endpoint) else None)
                if stop is not None:
                    raise MatchError(stop)
            else:  # it ended between games, its game played through: no failure, said once
                if self.config.max_restarts == 0:  # no restart at all (quinze check-bot's games check)
                    raise MatchError(f"bot {player.label}: the program ended between its games; no restart allowed")
                note = player.ended_note()
                if note is not None:
                    log.warning("%s", note)
            player.restarts += 1
            await player.endpoint.stop(grace=0.2, term_wait=0.5)
        endpoint = self._make_endpoint(player)
        # Known to the player before it starts: a cancellation (Ctrl-C, a cluster stop) that lands
        # while the program is being spawned must still find it to stop it.
        player.endpoint = endpoint
        try:
            await endpoint.start(nursery)
        except BotError as err:
            raise MatchError(f"bot {player.label}: {err.reason}") from None
        player.started()
        if endpoint.pid is not None:
            self.all_pids.append(endpoint.pid)
        if player.relay is None:
            conn = await self._connect(address, player.label, "bot")
            player.relay = SeatRelay(conn, endpoint)
        else:
            player.relay.replace_bot(endpoint)

    def _make_endpoint(self, player: Player) -> Any:
        spec = player.spec
        if spec.builtin is not None:
            return BuiltinBot(spec.builtin, seed=self.config.seed if spec.seed is None else spec.seed)
        return BotProcess(
            spec.argv,
            wire=self.config.wire,
            name=player.label,
            stderr_path=self.stderr_dir / f"{player.label.replace('#', '-')}-slot{player.slot + 1}.log",
            stderr_cap=self.config.stderr_cap,
            env=self.config.bot_env,
        )

    async def _stop_all(self) -> None:
        """Stop every bot program (concurrently, bounded) and close the connections."""
        with trio.CancelScope(shield=True):
            async with trio.open_nursery() as nursery:
                for player in self.players:
                    if player.endpoint is not None:
                        nursery.start_soon(_stop_quietly, player.endpoint, self.fast_stop)
                    if player.relay is not None:
                        nursery.start_soon(player.relay.conn.aclose)
                for control in self._controls:
                    nursery.start_soon(control.aclose)

    def kill_all(self) -> None:
        """SIGKILL every bot program's process group at once (Ctrl-C)."""
        for player in self.players:
            if player.endpoint is not None:
                player.endpoint.kill_now()

    @property
    def pids(self) -> list[int]:
        """Process ids of the bot programs now in use (the latest of each restarted one)."""
        return [p.endpoint.pid for p in self.players if p.endpoint is not None and p.endpoint.pid is not None]

    # ------------------------------------------------------------------ the log

    def _write_game(self, outcome: GameOutcome, position: dict[str, Any] | None = None) -> None:
        """Append the game's records to the match log, flushed and fsynced."""
        over, start = outcome.game_over, outcome.game_start
        assert over is not None and start is not None
        now = utc_now()
        try:
            records = self._records(outcome, now, position)
        except (LogError, GameError) as err:  # the engine disagrees with the server: keep playing
            self.log_problems.append(f"game at table {over.table} not logged: {err}")
            log.error("%s", self.log_problems[-1])
            return
        self._append_records(records)

    def _append_records(self, records: list[dict[str, Any]] | str) -> None:
        """Append one game's records (or their JSON Lines text, :func:`dumps_records`) to the
        match log (made on the first call), flushed and fsynced."""
        if self._log is None:
            cut = cut_at_end(self.log_path)  # never glue a game onto a cut record
            self._log = open(self.log_path, "a", encoding="utf-8")
            if cut:
                self._log.write("\n")
        self._log.write(records if isinstance(records, str) else dumps_records(records))
        self._log.flush()
        os.fsync(self._log.fileno())

    def _records(self, outcome: GameOutcome, now: datetime, position: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        over, start = outcome.game_over, outcome.game_start
        assert over is not None and start is not None
        return game_records(
            start.game,
            start.options,
            over.seed,
            over.salt,
            list(start.players),
            [a.to_data() for a in over.actions],
            number=over.number,
            table=over.table,
            started=outcome.started or now,
            ended=outcome.ended or now,
            forfeit=over.forfeit.to_data() if over.forfeit is not None else None,
            result=over.result,
            position=position,
        )


def _lost(address: tuple[str, int], why: object) -> str:
    """The words for a server lost (closed, said ``bye``, shut down), naming its address."""
    return f"lost the server {address[0]}:{address[1]}: {why}"


def _first(group: BaseExceptionGroup, cls: type[BaseException]) -> BaseException | None:
    """The first exception of type ``cls`` in a (nested) exception group, or None."""
    for exc in group.exceptions:
        if isinstance(exc, cls):
            return exc
        if isinstance(exc, BaseExceptionGroup):
            found = _first(exc, cls)
            if found is not None:
                return found
    return None


def _has_stderr(endpoint: Any) -> bool:
    """True when the bot program wrote something to its stderr file."""
    path = getattr(endpoint, "stderr_path", None)
    try:
        return path is not None and path.stat().st_size > 0
    except OSError:
        return False


def _alive(endpoint: Any) -> bool:
    return endpoint is not None and endpoint.running


async def _stop_quietly(endpoint: Any, fast: bool) -> None:
    try:
        await endpoint.stop(grace=0.0 if fast else 0.5, term_wait=0.3 if fast else 0.5)
    except Exception:  # noqa: BLE001 - stopping must go on for the others
        log.exception("stopping %s", getattr(endpoint, "name", endpoint))


def validate_options(game: str, raw: Mapping[str, str], seats: int | None, bots: int) -> dict[str, Any]:
    """The table options of a match: ``raw`` (``--option``) with ``players`` from ``seats``
    (default: one seat per bot). Raises ``quinze_protocol.game.GameError`` (unknown game or option,
    bad value) or ``ValueError`` (``--seats`` and ``players`` disagree, fewer seats than bots)."""
    cls = get_game(game)
    merged: dict[str, Any] = dict(raw)
    if seats is not None:
        if "players" in merged and str(merged["players"]).strip() != str(seats):
            raise ValueError(f"--seats {seats} and --option players={merged['players']} disagree")
        merged["players"] = seats
    elif "players" not in merged:
        merged["players"] = bots
    options = cls.validate_options(merged, text=True)
    if options["players"] < bots:
        given = f"--seats {seats}" if seats is not None else f"--option players={raw['players']}"
        raise ValueError(f"{given}: {options['players']} seats for {bots} bots; a match needs at least as many "
                         "seats as bots: every bot needs a seat")
    return options
