"""The worker side of a cluster match: :func:`play_shard`, run by Dask on a worker.

A shard is a list of :class:`~quinze_cli.schedule.GamePlan` (index, seed, seat → bot). The
worker plays them with the ordinary :class:`~quinze_cli.matchrun.MatchRunner` (its own embedded
server on 127.0.0.1, its own bot processes, concurrency 1: a worker's parallelism is its number
of Dask threads or processes), and instead of writing a log it sends each finished game to the
driver as ``(index, log text, report)`` (the game's JSON Lines, zlib-compressed; the report
without the actions, which the log holds: :func:`slim_report`) through the run's Dask queue. Nothing is written on the
worker but the bots' stderr, in a temporary folder removed at the end.

The games go back in batches: a sender task takes every game finished since its last send and puts
them on the queue as one list, in a thread, while the next game plays (a put is a round trip to
the scheduler; waiting for it after every game cost a few percent of a game's time). While any
shard plays, the worker's frequent samplers are paused (:data:`PAUSED_CALLBACKS`): its
statistical profiler samples every thread's stack every 10 ms, which cost a CPU-bound shard about
8% of its CPU, and its event-loop tick and system monitor wake the loop 50 times a second, which
took the GIL from the shard's thread for about 6% more (docs/scale.md); the samples of a shard,
all Trio internals, tell nothing.

The driver's stop (an SPRT decision, Ctrl-C, a failed shard) is a Dask event that the shard
polls every half second; on it the shard's bots are killed and the task ends. The bot programs
die with the worker process too (parent-death signal), so a killed worker leaves none behind.
"""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any

import zlib

import trio

from quinze_protocol.replaylog import dumps_records
from quinze_cli.cluster import load_distributed
from quinze_cli.matchrun import GameReport, MatchConfig, MatchError, MatchRunner
from quinze_cli.schedule import GamePlan

__all__ = ["ShardRunner", "check_commands", "code_fingerprint", "play_shard", "queue_name", "slim_report", "stop_name"]

STOP_POLL = 0.5
"""Seconds between two looks at the run's stop event."""

SEND_BUFFER = 64
"""Finished games a shard may hold before its next game waits for the sender."""

COMPRESS_LEVEL = 1
"""zlib level of the log text sent back (level 6 costs several times the CPU for a little less)."""


def queue_name(run_id: str) -> str:
    """The Dask queue that carries one run's finished games to the driver."""
    return f"quinze-games-{run_id}"


def stop_name(run_id: str) -> str:
    """The Dask event that tells one run's shards to stop."""
    return f"quinze-stop-{run_id}"


class ShardRunner(MatchRunner):
    """A :class:`MatchRunner` that plays only ``plans`` and hands each finished game to
    ``deliver(index, records, report)`` (awaited) instead of appending it to a log file."""

    def __init__(self, config: MatchConfig, plans: list[GamePlan], deliver: Any) -> None:
        super().__init__(config, on_game=self._delivered)
        self.plans = iter(plans)
        self._deliver = deliver
        self._records_by_table: dict[str, list[dict[str, Any]]] = {}

    def _append_records(self, records: list[dict[str, Any]] | str) -> None:
        """Keep the game's records for :meth:`_delivered` (by its table, named in the header)
        instead of writing them to a file."""
        assert isinstance(records, list)
        self._records_by_table[records[0]["table"]] = records

    async def _delivered(self, report: GameReport) -> None:
        records = self._records_by_table.pop(report.table, None)
        if records is None:  # the engine refused the server's actions: reported as a log problem
            raise MatchError(f"game {report.plan.index + 1} could not be logged: {'; '.join(self.log_problems)}")
        await self._deliver(report.plan.index, records, report)


def play_shard(config: MatchConfig, plans: list[GamePlan], run_id: str) -> list[int]:
    """Play ``plans`` on this worker; each finished game goes to the run's queue. Returns the
    indexes of the games played. Raises :class:`MatchError` (a bot failing beyond its restarts,
    a bot command missing here: the message names the worker)."""
    distributed = load_distributed()
    queue = distributed.Queue(queue_name(run_id))
    stop = distributed.Event(stop_name(run_id))
    here = _worker_address(distributed)
    if stop.is_set():  # a shard that starts after the run stopped plays nothing
        return []
    scratch = Path(tempfile.mkdtemp(prefix="quinze-shard-"))
    local = dataclasses.replace(config, log_dir=scratch, server=None, concurrency=1)
    played: list[int] = []

    send, receive = trio.open_memory_channel[tuple[int, bytes, GameReport]](SEND_BUFFER)

    async def deliver(index: int, records: list[dict[str, Any]], report: GameReport) -> None:
        packed = zlib.compress(dumps_records(records).encode("utf-8"), COMPRESS_LEVEL)
        await send.send((index, packed, slim_report(report)))

    async def sender(done: trio.Event) -> None:
        """Puts the finished games on the queue, every game waiting at once as one list."""
        async with receive:
            async for first in receive:
                batch = [first]
                while True:
                    try:
                        batch.append(receive.receive_nowait())
                    except (trio.WouldBlock, trio.EndOfChannel):
                        break
                await trio.to_thread.run_sync(queue.put, batch)
                played.extend(index for index, _, _ in batch)
        done.set()

    async def main() -> None:
        runner = ShardRunner(local, plans, deliver)
        sent = trio.Event()
        async with trio.open_nursery() as nursery:

            async def watch_stop() -> None:
                while True:
                    if await trio.to_thread.run_sync(stop.is_set):
                        runner.fast_stop = True
                        runner.kill_all()
                        nursery.cancel_scope.cancel()
                        return
                    await trio.sleep(STOP_POLL)

            nursery.start_soon(watch_stop)
            nursery.start_soon(sender, sent)
            async with send:
                try:
                    await runner.run()
                except MatchError as err:
                    raise MatchError(f"on worker {here}: {err}") from None
            await sent.wait()  # every game is on the queue
            nursery.cancel_scope.cancel()

    paused = _pause_profiler(distributed)
    try:
        trio.run(main)
    except BaseExceptionGroup as group:  # say what went wrong, not "Exceptions from Trio nursery"
        leaf = _leaf(group)
        if isinstance(leaf, MatchError):
            raise leaf from None
        raise MatchError(f"on worker {here}: {leaf.__class__.__name__}: {leaf}") from group
    finally:
        _resume_profiler(paused)
        shutil.rmtree(scratch, ignore_errors=True)
    return played


def slim_report(report: GameReport) -> GameReport:
    """``report`` without the game's actions in its ``game_over``: the driver reads only the
    result from it, and the actions are in the log records sent beside it. (Pickled, the actions
    were about 14 KB a game, twice the compressed log, and crossed the scheduler twice.)"""
    return dataclasses.replace(report, game_over=dataclasses.replace(report.game_over, actions=()))


def _leaf(group: BaseExceptionGroup) -> BaseException:
    """The first exception in a (nested) exception group that is not a group."""
    first = group.exceptions[0]
    return _leaf(first) if isinstance(first, BaseExceptionGroup) else first


def check_commands(argvs: list[list[str]]) -> list[str]:
    """On a worker: why each bot command of ``argvs`` cannot start there, as the sentences of
    :func:`quinze_cli.progcheck.program_problem` (the check ``quinze match`` runs locally; empty
    when all can start). Used by the driver before any game."""
    from quinze_cli.progcheck import program_problem

    return [problem for argv in argvs if (problem := program_problem(argv)) is not None]


def code_fingerprint() -> str:
    """``"quinze 0.1.0 <12 hex>"``: the version and a SHA-256 of the sources of the three packages
    as installed here. Driver and workers must agree: a worker on other code would deal or judge
    games differently (or fail to read the shard)."""
    import hashlib

    import quinze_protocol
    import quinze_cli
    import quinze_server

    digest = hashlib.sha256()
    for package in (quinze_protocol, quinze_server, quinze_cli):
        assert package.__file__ is not None, "a regular package, not a namespace one"
        root = Path(package.__file__).parent
        for path in sorted(root.rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return f"quinze {quinze_protocol.__version__} {digest.hexdigest()[:12]}"


PAUSED_CALLBACKS = ("profile", "tick", "ticks", "monitor")
"""The worker's periodic samplers a shard pauses while it plays: the statistical profiler (every
10 ms), the event loop's tick (every 20 ms) and its counter, the system monitor (every 0.5 s).
Each wakes the worker's event loop, which then takes the GIL from the shard's thread: together
about 6% of a CPU-bound shard's time (docs/scale.md). The heartbeat to the scheduler and the
memory monitor (which guards the worker against running out of memory) keep running."""

_paused_shards: dict[int, int] = {}
"""Shards playing on each worker object (by id) that paused its samplers."""
_paused_lock = threading.Lock()


def _pause_profiler(distributed: Any) -> Any:
    """Stop the worker's samplers (:data:`PAUSED_CALLBACKS`) while a shard plays (the first shard
    stops them, the last one to end starts them again). Returns the worker, or None outside a
    worker or when it has none of them running (e.g. ``distributed.worker.profile.enabled: False``
    turns the profiler off; only the samplers running when the first shard starts are paused)."""
    try:
        worker = distributed.get_worker()
    except ValueError:
        return None
    with _paused_lock:
        _paused_shards[id(worker)] = _paused_shards.get(id(worker), 0) + 1
        if _paused_shards[id(worker)] == 1:
            worker._quinze_paused = [n for n in PAUSED_CALLBACKS
                                     if n in worker.periodic_callbacks and worker.periodic_callbacks[n].is_running()]
            for name in worker._quinze_paused:
                worker.loop.add_callback(worker.periodic_callbacks[name].stop)
    return worker


def _resume_profiler(worker: Any) -> None:
    """Undo :func:`_pause_profiler` (the last shard playing on ``worker`` starts them again)."""
    if worker is None:
        return
    with _paused_lock:
        _paused_shards[id(worker)] -= 1
        if _paused_shards[id(worker)] == 0:
            del _paused_shards[id(worker)]
            for name in getattr(worker, "_quinze_paused", ()):
                worker.loop.add_callback(worker.periodic_callbacks[name].start)
            worker._quinze_paused = []


def _worker_address(distributed: Any) -> str:
    try:
        return str(distributed.get_worker().address)
    except ValueError:
        return "(not on a worker)"
