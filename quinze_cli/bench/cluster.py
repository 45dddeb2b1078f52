"""Bench figures of cluster matches (``quinze bench --only cluster``; docs/scale.md).

One match of built-in bots (``greedy`` against ``random``, Le Quinze, two seats, a fixed seed)
is played four ways on this machine: locally at concurrency 1 and 2 (one process, the embedded
server), and through a Dask scheduler started here on 127.0.0.1 with one worker, then two
(worker processes of one thread each, so two workers use two cores where a local match uses one
process). For each: games per second; for the cluster runs also the driver's CPU per game (the
process that writes the log and keeps the statistics) and the scheduler's (it carries the
games from the workers to the driver), the bytes one game costs on the way back
(the compressed records) and the overhead against the local run of the same parallelism (one
worker against concurrency 1; each worker has imported the shard code before it is timed, as a
worker does once in its life). The overhead is given two ways: per game once the match is under
way (the time from the first game counted to the last, per game: what each further game costs,
the figure the target is about), and over the whole run, with the cost per match apart (reaching
the scheduler, the code and command checks, the first shard's start, the end). Nothing is asserted; without Dask installed the
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


def _timed(runner: MatchRunner) -> dict[str, float]:
    """Times of ``runner.run()`` in this process, in seconds: ``wall`` and ``cpu`` (this process's
    CPU: the driver's, for a cluster run), ``first`` (the first game counted, from the start),
    ``steady`` (per game, from the first game counted to the last: what one more game costs once
    the match is under way) and ``tail`` (from the last game counted to the end)."""
    done: list[float] = []

    async def counted(report: Any) -> None:
        done.append(time.perf_counter())

    runner.on_game = counted
    wall, cpu = time.perf_counter(), time.process_time()
    trio.run(runner.run)
    end, cpu = time.perf_counter(), time.process_time() - cpu
    steady = (done[-1] - done[0]) / (len(done) - 1) if len(done) > 1 else end - wall
    return {"wall": end - wall, "cpu": cpu, "first": done[0] - wall if done else end - wall, "steady": steady,
            "tail": end - done[-1] if done else 0.0}


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
        # A process group of its own (stopped with killpg), in this session: a new session would
        # also be a new scheduling group (Linux autogroup) apart from the bench's own processes.
        self.procs.append(subprocess.Popen([self.dask, *args], stdout=log, stderr=subprocess.STDOUT, process_group=0))

    def add_worker(self) -> None:
        from distributed import Client

        self._spawn("worker", self.address, "--nthreads", "1", "--no-nanny", "--no-dashboard", "--host", "127.0.0.1")
        with Client(self.address, timeout=60, set_as_default=False) as client:
            client.wait_for_workers(len(self.procs) - 1, timeout=60)
            # A fresh worker imports the shard code with its first task (about half a second, once
            # in its life); the local runs have it imported already, so the worker does it first.
            client.run(importlib.import_module, "quinze_cli.cluster.worker")

    def scheduler_cpu(self) -> float:
        """CPU seconds the scheduler process has used so far (psutil comes with Dask)."""
        import psutil

        times = psutil.Process(self.procs[0].pid).cpu_times()
        return float(times.user + times.system)

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
        return {"skipped": "Dask distributed is not installed (pip install '.[cluster]' in the Quinze folder)"}
    dask = _dask()
    if dask is None:
        return {"skipped": "the 'dask' command is not on PATH"}
    from quinze_cli.cluster.driver import ClusterRunner

    games = 24 if quick else 120
    out: dict[str, Any] = {"games": games, "game": "quinze", "bots": ["builtin:greedy", "builtin:random"]}
    with tempfile.TemporaryDirectory(prefix="quinze-bench-cluster-") as tmp:
        folder = Path(tmp)
        for c in (1, 2):
            t = _timed(MatchRunner(_config(games, folder / f"local{c}", c)))
            out[f"local_c{c}"] = _figures(t, games)
        cluster = _Cluster(dask, folder)
        try:
            for workers in (1, 2):
                cluster.add_worker()
                runner = ClusterRunner(_config(games, folder / f"cluster{workers}"), cluster.address)
                before = cluster.scheduler_cpu()
                t = _timed(runner)
                out[f"cluster_w{workers}"] = {**_figures(t, games), "driver_cpu_ms_per_game": round(1000 * t["cpu"] / games, 2),
                                              "scheduler_cpu_ms_per_game":
                                                  round(1000 * (cluster.scheduler_cpu() - before) / games, 2),
                                              "retried": runner.retried}
                if workers == 1:
                    out["game_bytes"] = round(runner.bytes_received / games)
        finally:
            cluster.close()
    local1, w1 = out["local_c1"], out["cluster_w1"]  # one worker against concurrency 1
    out["overhead_per_game"] = round(w1["steady_ms_per_game"] / local1["steady_ms_per_game"] - 1, 3)
    out["overhead_whole_run"] = round(w1["seconds"] / local1["seconds"] - 1, 3)
    out["fixed_cost_seconds"] = round((w1["first_game_seconds"] + w1["tail_seconds"])
                                      - (local1["first_game_seconds"] + local1["tail_seconds"]), 3)
    return out


def _figures(t: dict[str, float], games: int) -> dict[str, float]:
    return {"seconds": round(t["wall"], 3), "games_per_second": round(games / t["wall"], 2),
            "steady_ms_per_game": round(1000 * t["steady"], 2), "first_game_seconds": round(t["first"], 3),
            "tail_seconds": round(t["tail"], 3)}


def table_rows(fig: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """Rows (figure, value, target, met) for the bench table."""
    if "skipped" in fig:
        return [("cluster", fig["skipped"], "", "")]
    rows = [(f"games/s, {fig['games']} games: local --concurrency 1 / 2",
             f"{fig['local_c1']['games_per_second']} / {fig['local_c2']['games_per_second']}", "", "")]
    for w in (1, 2):
        c = fig[f"cluster_w{w}"]
        rows.append((f"games/s through the cluster, {w} worker(s); CPU ms per game: driver, scheduler",
                     f"{c['games_per_second']}; {c['driver_cpu_ms_per_game']}, {c['scheduler_cpu_ms_per_game']}", "", ""))
    rows.append(("compressed log bytes per game sent back by a worker", str(fig["game_bytes"]), "", ""))
    met = fig["overhead_per_game"] <= 0.10
    rows.append(("ms per game once under way (first game to last): local --concurrency 1 / cluster, 1 worker",
                 f"{fig['local_c1']['steady_ms_per_game']} / {fig['cluster_w1']['steady_ms_per_game']}", "", ""))
    rows.append(("cluster overhead per game (1 worker vs --concurrency 1, once under way)",
                 f"{fig['overhead_per_game']:+.1%}", "<= +10%", "yes" if met else "no"))
    rows.append(("cluster cost per match, s (connecting, checks, first shard; the end)",
                 f"{fig['fixed_cost_seconds']:+.2f}", "", ""))
    rows.append(("cluster overhead over the whole run (fixed cost included)", f"{fig['overhead_whole_run']:+.1%}", "", ""))
    return rows
