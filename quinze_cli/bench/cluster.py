"""Bench figures of cluster matches (``quinze bench --only cluster``; docs/scale.md).

One match of built-in bots (``greedy`` against ``random``, Le Quinze, two seats, a fixed seed)
is played four ways on this machine: locally at concurrency 1 and 2 (one process, the embedded
server), and through a Dask scheduler started here on 127.0.0.1 with one worker, then two
(worker processes of one thread each, so two workers use two cores where a local match uses one
process). For each: games per second; for the cluster runs also the driver's CPU per game (the
process that writes the log and keeps the statistics), the bytes one game costs on the way back
(the pickled records and report) and the overhead per game against the local run of the same
parallelism (one worker against concurrency 1; each worker has imported the shard code before it is timed,
as a worker does once in its life). Nothing is asserted; without Dask installed the
section says so and measures nothing.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trio

from quinze_cli.matchrun import MatchConfig, MatchRunner, parse_bot_spec, validate_options

__all__ = ["run_cluster_bench", "table_rows"]

SEED = 20261201


def _config(games: int, log_dir: Path, concurrency: int = 1) -> MatchConfig:
    bots = [parse_bot_spec("builtin:greedy", "quinze"), parse_bot_spec("builtin:random", "quinze", ["greedy"])]
    return MatchConfig(game="quinze", bots=bots, games=games, seed=SEED, options=validate_options("quinze", {}, None, 2),
                       log_dir=log_dir, concurrency=concurrency)


def _timed(runner: MatchRunner) -> tuple[float, float]:
    """Wall and CPU seconds of ``runner.run()`` in this process."""
    wall, cpu = time.perf_counter(), time.process_time()
    trio.run(runner.run)
    return time.perf_counter() - wall, time.process_time() - cpu


def _dask() -> str | None:
    here = Path(sys.executable).with_name("dask")
    return str(here) if here.exists() else shutil.which("dask")


class _Cluster:
    """A scheduler and workers started here (stopped by pid in :meth:`close`)."""

    def __init__(self, dask: str, folder: Path) -> None:
        self.dask, self.folder = dask, folder
        self.procs: list[subprocess.Popen[bytes]] = []
        info = folder / "scheduler.json"
        self._spawn("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file", str(info))
        deadline = time.monotonic() + 60
        while not (info.exists() and info.read_text().strip()):
            if time.monotonic() > deadline:
                raise RuntimeError("the Dask scheduler did not start in 60 s")
            time.sleep(0.1)
        self.address = json.loads(info.read_text())["address"]

    def _spawn(self, *args: str) -> None:
        log = open(self.folder / f"{args[0]}-{len(self.procs)}.log", "wb")
        self.procs.append(subprocess.Popen([self.dask, *args], stdout=log, stderr=subprocess.STDOUT,
                                           start_new_session=True))

    def add_worker(self) -> None:
        from distributed import Client

        self._spawn("worker", self.address, "--nthreads", "1", "--no-nanny", "--no-dashboard", "--host", "127.0.0.1")
        with Client(self.address, timeout=60, set_as_default=False) as client:
            client.wait_for_workers(len(self.procs) - 1, timeout=60)
            # A fresh worker imports the shard code with its first task (about half a second, once
            # in its life); the local runs have it imported already, so the worker does it first.
            client.run(importlib.import_module, "quinze_cli.cluster.worker")

    def close(self) -> None:
        for proc in reversed(self.procs):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def run_cluster_bench(*, quick: bool = False) -> dict[str, Any]:
    """The figures described in the module docstring, as a dict."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        return {"skipped": "Dask distributed is not installed (pip install 'quinze[cluster]')"}
    dask = _dask()
    if dask is None:
        return {"skipped": "the 'dask' command is not on PATH"}
    from quinze_cli.cluster.driver import ClusterRunner

    games = 24 if quick else 120
    out: dict[str, Any] = {"games": games, "game": "quinze", "bots": ["builtin:greedy", "builtin:random"]}
    with tempfile.TemporaryDirectory(prefix="quinze-bench-cluster-") as tmp:
        folder = Path(tmp)
        for c in (1, 2):
            wall, _ = _timed(MatchRunner(_config(games, folder / f"local{c}", c)))
            out[f"local_c{c}"] = {"seconds": round(wall, 3), "games_per_second": round(games / wall, 2)}
        cluster = _Cluster(dask, folder)
        try:
            for workers in (1, 2):
                cluster.add_worker()
                runner = ClusterRunner(_config(games, folder / f"cluster{workers}"), cluster.address)
                wall, cpu = _timed(runner)
                out[f"cluster_w{workers}"] = {
                    "seconds": round(wall, 3), "games_per_second": round(games / wall, 2),
                    "driver_cpu_ms_per_game": round(1000 * cpu / games, 2), "retried": runner.retried,
                }
                if workers == 1:
                    out["game_bytes"] = round(runner.bytes_received / games)
        finally:
            cluster.close()
    local1, w1 = out["local_c1"]["seconds"], out["cluster_w1"]["seconds"]
    out["overhead_per_game"] = round((w1 - local1) / local1, 3)  # one worker against concurrency 1
    return out


def table_rows(fig: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """Rows (figure, value, target, met) for the bench table."""
    if "skipped" in fig:
        return [("cluster", fig["skipped"], "", "")]
    rows = [(f"games/s, {fig['games']} games: local --concurrency 1 / 2",
             f"{fig['local_c1']['games_per_second']} / {fig['local_c2']['games_per_second']}", "", "")]
    for w in (1, 2):
        c = fig[f"cluster_w{w}"]
        rows.append((f"games/s through the cluster, {w} worker(s); driver CPU ms per game",
                     f"{c['games_per_second']}; {c['driver_cpu_ms_per_game']}", "", ""))
    rows.append(("compressed log bytes per game sent back by a worker", str(fig["game_bytes"]), "", ""))
    met = fig["overhead_per_game"] <= 0.10
    rows.append(("cluster overhead per game (1 worker vs --concurrency 1)", f"{fig['overhead_per_game']:+.1%}",
                 "<= +10%", "yes" if met else "no"))
    return rows
