"""Real Dask schedulers and workers on 127.0.0.1 for the cluster tests.

``.ci/run`` starts one scheduler and two workers before the suite and gives the address in
``QUINZE_TEST_SCHEDULER``; run alone, the tests start their own (:class:`LocalCluster` below, with
the ``dask`` commands of this environment) and stop them by pid. Also what the cluster tests
compare runs with (:func:`run`, :func:`games_by_deal`, :func:`untimed`): tests/test_cluster.py
(the tests on one scheduler shared by the module) and tests/test_cluster_standalone.py (those
that need none, or start their own).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import clikit

BIN = Path(sys.executable).parent
DASK = str(BIN / "dask")
QUINZE = str(BIN / "quinze")
ROOT = Path(__file__).resolve().parents[1]
VOLATILE = ("salt", "commitment", "started", "ended", "table", "number")
"""Header fields that differ between two runs of the same match (the server's salt, clocks,
table names): everything else must be equal record by record."""


QUIET = {
    "DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL": "500ms",
    "DASK_DISTRIBUTED__WORKER__PROFILE__INTERVAL": "200ms",
    "DASK_DISTRIBUTED__WORKER__PROFILE__CYCLE": "2000ms",
    "DASK_DISTRIBUTED__ADMIN__SYSTEM_MONITOR__INTERVAL": "2000ms",
}
"""Dask's samplers at a tenth of their pace or less (event-loop tick 20 ms -> 500 ms, profiler 10 ->
200 ms, system monitor 0.5 -> 2 s): idle, a scheduler and two workers took 0.7 s of CPU every 15 s
with the defaults and 0.26 s with these, through the whole cluster module. They are still there,
running (a shard still pauses them: test_cluster checks it); the heartbeats keep their pace."""


class LocalCluster:
    """A scheduler on a free loopback port and ``workers`` worker processes (one thread each,
    no nanny, so a SIGKILL really loses the worker). :meth:`add_worker` starts one more."""

    def __init__(self, workers: int = 2) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="quinze-dask-"))
        self.procs: list[subprocess.Popen[bytes]] = []
        info = self.dir / "scheduler.json"
        self.scheduler = self._spawn([DASK, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                      "--scheduler-file", str(info)], "scheduler")
        deadline = time.monotonic() + 60
        while not info.exists() or not info.read_text().strip():
            if time.monotonic() > deadline or self.scheduler.poll() is not None:
                self.close()
                raise RuntimeError(f"the dask scheduler did not start: {(self.dir / 'scheduler.log').read_text()[-2000:]}")
            time.sleep(0.1)
        self.address = json.loads(info.read_text())["address"]
        self.workers = [self.add_worker(wait=False) for _ in range(workers)]
        self.wait_for(workers)

    def _spawn(self, argv: list[str], name: str) -> subprocess.Popen[bytes]:
        log = open(self.dir / f"{name}.log", "wb")
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, cwd=Path(__file__).resolve().parents[1],
                                start_new_session=True, env={**os.environ, **QUIET})
        self.procs.append(proc)
        return proc

    def add_worker(self, *, wait: bool = True) -> subprocess.Popen[bytes]:
        proc = self._spawn([DASK, "worker", self.address, "--nthreads", "1", "--no-nanny", "--no-dashboard",
                            "--host", "127.0.0.1"], f"worker{len(self.procs)}")
        if wait:
            self.wait_for(len([p for p in self.procs[1:] if p.poll() is None]))
        return proc

    def wait_for(self, n: int, timeout: float = 60) -> None:
        """Wait until the scheduler knows ``n`` workers."""
        from distributed import Client

        with Client(self.address, timeout=timeout, set_as_default=False) as client:
            client.wait_for_workers(n, timeout=timeout)

    def close(self) -> None:
        for proc in reversed(self.procs):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """``quinze ARGS`` from the repository root, in this process (tests/clikit.py: the console
    script's own entry point; the results and logs are the subject). The tests that kill the
    driver start the executable instead."""
    return clikit.quinze(*args, cwd=ROOT)


def games_by_deal(log_dir: Path) -> dict[tuple[int, tuple[str, ...]], list[dict[str, Any]]]:
    """The games of the one log in ``log_dir``, keyed by (seed, seat names), volatile fields out."""
    (log,) = [log_dir / "games.jsonl"] if (log_dir / "games.jsonl").exists() else sorted(log_dir.glob("*.jsonl"))
    out: dict[tuple[int, tuple[str, ...]], list[dict[str, Any]]] = {}
    current: list[dict[str, Any]] = []
    for line in log.read_text().splitlines():
        record = json.loads(line)
        for key in VOLATILE:
            record.pop(key, None)
        if record["record"] == "action":
            record.pop("time", None)  # the seconds the bot took: the machine's, not the game's
        if record["record"] == "header":
            current = []
            key2 = (record["seed"], tuple(record["players"]))
            assert key2 not in out, f"game {key2} logged twice"
            out[key2] = current
        current.append(record)
    return out


def untimed(bots: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per-bot totals without the time the bots took (the machines' business, not the games')."""
    return [{k: v for k, v in b.items() if k != "time"} for b in bots]
