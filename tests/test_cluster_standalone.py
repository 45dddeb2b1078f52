"""``quinze match --cluster`` without the shared scheduler of tests/test_cluster.py: a worker
killed mid-match (on a scheduler and worker of its own), the errors given before any scheduler
is reached, what a shard sends back and the cluster bench's clock (quinze_cli/cluster,
docs/scale.md). Apart from test_cluster.py because that module is one unit of the suite (its
module-scoped cluster: tests/conftest.py) and these need not wait for it."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(importlib.util.find_spec("distributed") is None, reason="needs distributed")
"""Found, not imported: collecting the suite does not pay Dask's import in every worker."""

from clusterkit import QUINZE, ROOT, LocalCluster, games_by_deal, run, untimed  # noqa: E402


def test_a_worker_killed_mid_match_loses_no_game_and_counts_none_twice(tmp_path: Path) -> None:
    # 15 games in 5 shards of 3: the worker is killed once 4 games are logged (in its second shard),
    # so at least one shard dies with it and others wait, as with more games (30 before, twice the play).
    cluster = LocalCluster(1)  # one worker, so the one we kill surely holds shards
    try:
        victim = cluster.workers[0]
        proc = subprocess.Popen(
            [QUINZE, "match", "builtin:greedy", "builtin:random", "--games", "15", "--seed", "21", "--shard-size", "3",
             "--option", "target=30", "--cluster", cluster.address, "--log-dir", str(tmp_path / "far"), "--json", str(tmp_path / "far.json")],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while True:  # wait until the victim has delivered some games
            logs = list((tmp_path / "far").glob("*.jsonl"))
            if logs and logs[0].read_text().count('"record":"header"') >= 4:
                break
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.05)
        os.kill(victim.pid, signal.SIGKILL)
        victim.wait()
        assert logs[0].read_text().count('"record":"header"') < 15  # killed mid-match: its shards must run again
        cluster.add_worker()  # the lost shards run again here
        out, err = proc.communicate(timeout=240)
        assert proc.returncode == 0, err
    finally:
        cluster.close()
    local = run("match", "builtin:greedy", "builtin:random", "--games", "15", "--seed", "21", "--option", "target=30",
                "--log-dir", str(tmp_path / "local"), "--json", str(tmp_path / "local.json"))
    assert local.returncode == 0, local.stderr
    assert games_by_deal(tmp_path / "far") == games_by_deal(tmp_path / "local")
    far = json.loads((tmp_path / "far.json").read_text())
    assert far["played"] == 15 and untimed(far["bots"]) == untimed(json.loads((tmp_path / "local.json").read_text())["bots"])


def cluster_match_after(prelude: str, tmp_path: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    """``quinze match builtin:greedy builtin:random --games 2 --cluster tcp://127.0.0.1:9`` in a real
    Python process that first runs ``prelude`` (a line of Python), logs in ``tmp_path``."""
    code = f"{prelude}\nimport sys\nfrom quinze_cli.app import main; sys.argv = ['quinze'] + sys.argv[1:]; main()"
    return subprocess.run([sys.executable, "-c", code, "match", "builtin:greedy", "builtin:random", "--games", "2",
                           "--cluster", "tcp://127.0.0.1:9", "--log-dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def test_without_dask_the_option_says_how_to_get_it(tmp_path: Path) -> None:
    got = cluster_match_after("import sys; sys.modules['distributed'] = None", tmp_path, timeout=60)
    assert got.returncode == 1
    assert "pip install '.[cluster]' in the Quinze folder" in got.stderr  # README's install, not the index's
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("args, message", [
    (["--server", "127.0.0.1:1"], "--cluster and --server"),
    (["--shard-size", "0"], "--shard-size must be at least 1"),
])
def test_cluster_usage_errors(args: list[str], message: str, tmp_path: Path) -> None:
    got = run("match", "builtin:greedy", "builtin:random", "--cluster", "tcp://127.0.0.1:9", *args,
              "--log-dir", str(tmp_path))
    assert got.returncode == 2 and message in got.stderr


def test_an_unreachable_scheduler_is_a_clear_error(tmp_path: Path) -> None:
    # The real command, with its connect timeout (10 s: a slow network) cut to 1 s: the wait is not
    # what is tested here, and it was the longest idle stretch of the suite.
    got = cluster_match_after("import quinze_cli.cluster.driver as driver; driver.CONNECT_TIMEOUT = 1.0", tmp_path,
                              timeout=120)
    assert got.returncode == 1
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in got.stderr


def test_a_worker_sends_the_report_without_the_actions_and_the_driver_counts_it_the_same(tmp_path: Path) -> None:
    """The report a shard sends back drops the game's actions (they are in the log records beside
    it): the journal entry and the statistics made from it are those of the full report."""
    import pickle

    import trio

    from quinze_cli.bench.cluster import _config
    from quinze_cli.cluster.worker import slim_report
    from quinze_cli.matchjournal import game_entry
    from quinze_cli.matchrun import GameReport, MatchRunner
    from quinze_cli.stats import MatchStats

    reports: list[GameReport] = []

    async def keep(report: GameReport) -> None:
        reports.append(report)

    runner = MatchRunner(_config(3, tmp_path), on_game=keep)
    trio.run(runner.run)
    assert len(reports) == 3
    stats = MatchStats([(b.name, b.name) for b in runner.config.bots])
    for report in reports:
        slim = slim_report(report)
        assert report.game_over.actions and slim.game_over.actions == ()
        assert slim.game_over.result == report.game_over.result and slim.plan == report.plan
        assert game_entry(slim) == game_entry(report)
        assert len(pickle.dumps(slim)) < len(pickle.dumps(report)) / 2
        result = slim.game_over.result
        stats.add_game(slim.plan.seat_bots, result.get("points", []), [], result.get("scores", []),
                       index=slim.plan.index, deal=slim.plan.seed, think=slim.think)
    assert stats.games == runner.stats.games == 3
    assert [(b.points, b.wins, b.game_score) for b in stats.bots] == [(b.points, b.wins, b.game_score) for b in runner.stats.bots]


def test_the_cluster_bench_times_a_run_from_its_games(tmp_path: Path) -> None:
    """``quinze bench --only cluster``'s clock: per game once under way (first game counted to the
    last), the time to the first game and after the last, and the table rows made from them."""
    from quinze_cli.bench.cluster import _config, _figures, _timed, table_rows
    from quinze_cli.matchrun import MatchRunner

    t = _timed(MatchRunner(_config(4, tmp_path / "a")))
    assert 0 < t["first"] < t["wall"] and 0 <= t["tail"] < t["wall"] and t["cpu"] > 0
    assert 0 < 3 * t["steady"] <= t["wall"] - t["first"] - t["tail"] + 1e-6
    a, b = _figures(t, 4), _figures(_timed(MatchRunner(_config(4, tmp_path / "b"))), 4)
    fig = {"games": 4, "local_c1": a, "local_c2": a, "cluster_w1": {**b, "driver_cpu_ms_per_game": 1.0, "scheduler_cpu_ms_per_game": 1.0},
           "cluster_w2": {**b, "driver_cpu_ms_per_game": 1.0, "scheduler_cpu_ms_per_game": 1.0}, "game_bytes": 1,
           "overhead_per_game": round(b["steady_ms_per_game"] / a["steady_ms_per_game"] - 1, 3),
           "overhead_whole_run": 0.0, "fixed_cost_seconds": 0.0}
    rows = {r[0]: r for r in table_rows(fig)}
    (overhead,) = [r for name, r in rows.items() if name.startswith("cluster overhead per game")]
    assert overhead[2] == "<= +10%" and overhead[3] == ("yes" if fig["overhead_per_game"] <= 0.10 else "no")
