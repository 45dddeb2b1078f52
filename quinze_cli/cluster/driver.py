"""The driver of a cluster match: :class:`ClusterRunner`, on the machine that runs ``quinze``.

Same face as :class:`~quinze_cli.matchrun.MatchRunner` (``run``, ``stats``, ``log_path``,
``on_game``/``on_failure``, ``kill_all``), so ``quinze match`` shows, counts and logs a cluster
match exactly like a local one. What differs is who plays: the schedule is cut into shards of
``shard_size`` games, one Dask task each (:func:`quinze_cli.cluster.worker.play_shard`); the
driver takes the finished games off the run's queue, in the order they finish, and for each game
index not seen before appends its records to the log (fsynced), adds it to the statistics and
calls the callbacks. A game index seen twice (its shard ran again after a worker was lost) is
dropped: every game is counted once.

Stopping (the end, Ctrl-C, a shard that failed, an early stop) sets the run's stop event and
cancels the shards not finished, so no worker goes on playing or keeps a bot process.
"""

from __future__ import annotations

import math
import secrets
import zlib
from collections.abc import Iterator
from itertools import islice
from typing import Any

import trio

from quinze_cli.cluster import ClusterUnavailable, load_distributed
from quinze_cli.cluster.worker import check_commands, code_fingerprint, play_shard, queue_name, stop_name
from quinze_cli.matchrun import MatchConfig, MatchError, MatchRunner
from quinze_cli.schedule import GamePlan
from quinze_cli.stats import MatchStats

__all__ = ["ClusterRunner", "DEFAULT_SHARD_SIZE", "shards"]

DEFAULT_SHARD_SIZE = 24
"""Games per shard (``--shard-size``): enough that a task's start-up (a server, the bots) is
small against its games, few enough that a lost worker costs little and the load spreads."""

CONNECT_TIMEOUT = 10.0
"""Seconds to reach the scheduler and to wait for a first worker."""

WINDOW_PER_WORKER = 3
"""Shards kept submitted per worker: one playing, the next ones queued."""

POLL = 0.25
"""Seconds the driver waits on the queue before it looks at the shards' states."""


def shards(plans: Iterator[GamePlan], size: int) -> Iterator[list[GamePlan]]:
    """The schedule cut into consecutive lists of ``size`` plans (the last one shorter)."""
    while True:
        chunk = list(islice(plans, size))
        if not chunk:
            return
        yield chunk


class ClusterRunner(MatchRunner):
    """Runs one match on the Dask scheduler at ``address`` (``tcp://HOST:PORT``).

    Raises :class:`~quinze_cli.matchrun.MatchError` from :meth:`run` when the scheduler cannot be
    reached or has no worker, when a bot command is missing on a worker (named), or when a shard
    fails (the worker's message)."""

    def __init__(self, config: MatchConfig, address: str, *, shard_size: int = DEFAULT_SHARD_SIZE, **kwargs: Any) -> None:
        super().__init__(config, **kwargs)
        self.address = address
        self.shard_size = shard_size
        self.run_id = secrets.token_hex(6)
        self.retried = 0
        """Games received again from a shard that ran a second time (dropped)."""
        self.workers: list[str] = []
        self.bytes_received = 0
        self._submitted_all = False
        self._expected: set[int] = set()
        """Indexes of the games handed to shards so far (the plans may be a subset: a resume)."""
        """Compressed log bytes received from the workers (each game once)."""

    async def run(self) -> MatchStats:
        if self.stopping:  # a resumed match whose SPRT had decided already
            return self.stats
        try:
            distributed = load_distributed()
        except ClusterUnavailable as err:
            raise MatchError(str(err)) from None
        self.config.log_dir.mkdir(parents=True, exist_ok=True)
        client = await trio.to_thread.run_sync(_connect, distributed, self.address)
        futures: list[Any] = []
        stop = None
        try:
            self.workers = await trio.to_thread.run_sync(_wait_for_workers, client)
            await trio.to_thread.run_sync(self._preflight, client)
            queue = distributed.Queue(queue_name(self.run_id), client=client)
            stop = distributed.Event(stop_name(self.run_id), client=client)
            size = self.effective_shard_size(len(self.workers))
            self._pending = enumerate(shards(self.plans, size))
            self._window = WINDOW_PER_WORKER * max(1, len(self.workers))
            self._top_up(client, futures)
            await self._collect(client, queue, futures)
        finally:
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(_shut, client, stop, futures)
            if self._log is not None:
                self._log.close()
        return self.stats

    def effective_shard_size(self, workers: int) -> int:
        """``shard_size``, made smaller for a match too short to give every worker two shards."""
        return max(1, min(self.shard_size, math.ceil(self.config.games / (2 * max(1, workers)))))

    def _preflight(self, client: Any) -> None:
        """Before any game: every worker runs the same code as here and has every bot command."""
        here = code_fingerprint()
        for worker, theirs in sorted(client.run(code_fingerprint).items()):
            if theirs != here:
                raise MatchError(f"worker {worker} runs {theirs}, this machine {here}: install the same quinze on "
                                 "every worker and restart it")
        argvs = [list(b.argv) for b in self.config.bots if b.builtin is None]
        if not argvs:
            return
        missing = client.run(check_commands, argvs)
        for worker, names in sorted(missing.items()):
            if names:
                raise MatchError(f"on worker {worker}: {names[0]}: the bot commands must exist on every worker, with "
                                 "the same paths (relative ones from the worker's folder)")

    def _top_up(self, client: Any, futures: list[Any]) -> None:
        """Submit shards until :attr:`_window` are unfinished (the schedule is read lazily: a
        100,000-game SPRT match submits a few shards at a time, not thousands up front)."""
        futures[:] = [f for f in futures if f.status != "finished"]  # their games are on the queue
        unfinished = sum(1 for f in futures if f.status in ("pending", "lost"))
        for _ in range(self._window - unfinished):
            nxt = next(self._pending, None)
            if nxt is None:
                self._submitted_all = True
                return
            i, shard = nxt
            self._expected.update(plan.index for plan in shard)
            futures.append(client.submit(play_shard, self.config, shard, self.run_id,
                                         key=f"quinze-{self.run_id}-shard-{i}", pure=False))

    async def _collect(self, client: Any, queue: Any, futures: list[Any]) -> None:
        seen: set[int] = set()
        while not (self._submitted_all and self._expected <= seen):
            await trio.to_thread.run_sync(self._top_up, client, futures)
            items = await trio.to_thread.run_sync(_take, queue, POLL)
            if not items:
                failed = next((f for f in futures if f.status == "error"), None)
                if failed is not None:
                    raise MatchError(f"a shard failed: {await trio.to_thread.run_sync(failed.exception)}")
                if self._submitted_all and not futures:
                    items = await trio.to_thread.run_sync(_take, queue, POLL)
                    if not items:
                        raise MatchError(f"the shards ended with {len(self._expected - seen)} game(s) not received")
                continue
            for index, packed, report in items:
                if index in seen:
                    self.retried += 1
                    continue
                seen.add(index)
                self.bytes_received += len(packed)
                self._append_records(zlib.decompress(packed).decode("utf-8"))
                await self._count_game(report)
                if self.stopping:  # the SPRT decided: the shards still out are stopped on the way out
                    return


def _connect(distributed: Any, address: str) -> Any:
    try:
        return distributed.Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError) as err:
        raise MatchError(f"cannot reach the Dask scheduler at {address}: {err} (start one with 'dask scheduler')") from None


def _wait_for_workers(client: Any) -> list[str]:
    try:
        client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
    except TimeoutError:
        raise MatchError(f"the Dask scheduler has no worker after {CONNECT_TIMEOUT:g} s "
                         "(start some with 'dask worker tcp://HOST:8786')") from None
    return sorted(client.scheduler_info()["workers"])


def _take(queue: Any, timeout: float) -> list[Any]:
    """Every game waiting on ``queue`` as ``(index, packed log, report)``, after waiting up to
    ``timeout`` s for the first batch (a shard puts its finished games as lists)."""
    try:
        first = queue.get(timeout=timeout)
    except TimeoutError:
        return []
    return [game for batch in (first, *queue.get(batch=True)) for game in batch]


def _shut(client: Any, stop: Any, futures: list[Any]) -> None:
    try:
        if stop is not None:
            stop.set()
        if futures:
            client.cancel(futures, force=True)
    finally:
        client.close()
