"""``quinze match --cluster``: real Dask scheduler and worker processes on 127.0.0.1, the real
``quinze`` command (the console script's entry point in this process, tests/clikit.py; the
``quinze`` executable where the driver is killed), real bot programs, real log files
(quinze_cli/cluster, docs/scale.md). The tests here share the module's one scheduler and two
workers; those that need none, or start their own, are in tests/test_cluster_standalone.py, so
that the suite's workers run them beside this module (one unit of the suite: tests/conftest.py)."""

from __future__ import annotations

import fcntl
import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.skipif(importlib.util.find_spec("distributed") is None, reason="needs distributed")
"""Found, not imported: collecting the suite does not pay Dask's import in every worker."""

from clusterkit import QUINZE, ROOT, LocalCluster, games_by_deal, run, untimed  # noqa: E402


@pytest.fixture(scope="module")
def cluster_address() -> Iterator[str]:
    given = os.environ.get("QUINZE_TEST_SCHEDULER")
    if given:  # .ci/run's scheduler: wait for its two workers
        from distributed import Client

        with Client(given, timeout=60, set_as_default=False) as client:
            client.wait_for_workers(2, timeout=60)
        yield given
        return
    cluster = LocalCluster(2)
    try:
        yield cluster.address
    finally:
        cluster.close()


@pytest.fixture
def scheduler(cluster_address: str) -> Iterator[str]:
    """The scheduler's address, held by this test alone: .ci/run's one scheduler is shared by every
    xdist worker, and some tests look at everything its workers run (no shard left, the profiler)."""
    with open(Path(tempfile.gettempdir()) / f"quinze-test-dask-{cluster_address.replace('/', '_').replace(':', '_')}.lock",
              "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield cluster_address


def test_a_cluster_match_equals_the_local_match_record_by_record(scheduler: str, tmp_path: Path) -> None:
    # Games to 30 points (two or three deals each, not eight or nine): 10 games in 4 shards (the last one
    # short) over two workers, for a twelfth of the play of 40 whole games (20 games before: record
    # by record, each game is compared on its own, so more of them add play, not cases).
    common = ["match", "builtin:greedy", "builtin:random", "--games", "10", "--seed", "11", "--option", "target=30"]
    local = run(*common, "--log-dir", str(tmp_path / "local"), "--json", str(tmp_path / "local.json"))
    assert local.returncode == 0, local.stderr
    far = run(*common, "--cluster", scheduler, "--shard-size", "3", "--log-dir", str(tmp_path / "far"),
              "--json", str(tmp_path / "far.json"))
    assert far.returncode == 0, far.stderr
    a, b = games_by_deal(tmp_path / "local"), games_by_deal(tmp_path / "far")
    assert len(a) == len(b) == 10
    assert a == b
    ja, jb = (json.loads((tmp_path / f).read_text()) for f in ("local.json", "far.json"))
    assert untimed(ja["bots"]) == untimed(jb["bots"]) and ja["elo"] == jb["elo"] and jb["complete"]
    # the log verifies like any other
    verify = run("replay", str(next((tmp_path / "far").glob("*.jsonl"))), "--verify")
    assert verify.returncode == 0, verify.stdout + verify.stderr


def test_a_bot_program_plays_through_the_cluster(scheduler: str, tmp_path: Path) -> None:
    got = run("match", f"{sys.executable} examples/bots/random_bot.py", "builtin:greedy", "--games", "6", "--seed", "3",
              "--option", "target=30",
              "--cluster", scheduler, "--shard-size", "2", "--log-dir", str(tmp_path / "logs"),
              "--json", str(tmp_path / "r.json"))
    assert got.returncode == 0, got.stderr
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["played"] == 6 and data["complete"]
    assert len(games_by_deal(tmp_path / "logs")) == 6


def test_a_bot_command_missing_on_the_workers_is_named_before_any_game(scheduler: str, tmp_path: Path) -> None:
    got = run("match", "builtin:greedy", "no-such-bot-program --fast", "--games", "4", "--cluster", scheduler,
              "--log-dir", str(tmp_path))
    assert got.returncode == 1
    assert "on worker tcp://127.0.0.1:" in got.stderr and "'no-such-bot-program'" in got.stderr
    assert "not found on PATH" in got.stderr
    assert not list(tmp_path.glob("*.jsonl"))
    got = run("match", "builtin:greedy", f"{sys.executable} examples/bots/no_such_bot.py", "--games", "4",
              "--cluster", scheduler, "--log-dir", str(tmp_path))
    assert got.returncode == 1 and "no_such_bot.py" in got.stderr
    shebang = tmp_path / "badshebang.sh"  # the workers run the same check as a local match
    shebang.write_text("#!/nonexistent/interp\n")
    shebang.chmod(0o755)
    got = run("match", "builtin:greedy", str(shebang), "--games", "4", "--cluster", scheduler, "--log-dir", str(tmp_path))
    assert got.returncode == 1 and "'/nonexistent/interp', does not exist" in " ".join(got.stderr.split())


def test_ctrl_c_stops_the_shards_and_leaves_no_bot_process_on_the_workers(scheduler: str, tmp_path: Path) -> None:
    marker = f"quinze-cluster-test-{os.getpid()}"
    bot = f"{sys.executable} examples/bots/random_bot.py {marker}"
    proc = subprocess.Popen([QUINZE, "match", bot, "builtin:greedy", "--games", "400", "--shard-size", "4",
                             "--cluster", scheduler, "--log-dir", str(tmp_path)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not (list(tmp_path.glob("*.jsonl")) and _bot_pids(marker, proc.pid)):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    games = sum(1 for line in next(tmp_path.glob("*.jsonl")).read_text().splitlines() if '"record":"header"' in line)
    assert 0 < games < 400
    deadline = time.monotonic() + REAPED_WITHIN  # the shards see the stop within a poll, then stop their bots
    while _bot_pids(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _bot_pids(marker) == []


REAPED_WITHIN = 30
"""Seconds a stopped match's bots on the workers get to be gone. What is asserted is that they go,
not how fast: 10 s failed once in a fresh-clone CI run (load about 4, one bot of a shard still there)
and passed alone and beside two CPU burners (why that bot took longer is not known yet)."""


def _bot_pids(marker: str, *exclude: int) -> list[int]:
    """Processes whose command line holds ``marker`` (the bot programs), but ``exclude``."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    pids.append(int(entry.name))
            except OSError:
                pass
    return [p for p in pids if p != os.getpid() and p not in exclude]


def test_an_sprt_decision_stops_the_cluster_match_and_its_shards(scheduler: str, tmp_path: Path) -> None:
    # Games to 30 points, as above (two or three deals, not eight or nine): about thirty games to
    # the decision where whole games took some twenty, for a little more than half the play.
    got = run("match", "builtin:greedy", "builtin:random", "--sprt", "elo0=0,elo1=50", "--seed", "3", "--shard-size", "4",
              "--option", "target=30",
              "--cluster", scheduler, "--log-dir", str(tmp_path / "logs"), "--json", str(tmp_path / "r.json"))
    assert got.returncode == 0, got.stderr
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["sprt"]["result"] == "H1" and data["complete"]
    assert data["played"] == data["sprt"]["decided_at"] < 100
    assert len(games_by_deal(tmp_path / "logs")) == data["played"]  # nothing after the decision is logged
    from distributed import Client

    with Client(scheduler, timeout=30, set_as_default=False) as client:  # no shard of it goes on playing
        deadline = time.monotonic() + 10
        while any(client.processing().values()) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(client.processing().values())


def _event(doc_path: Path) -> dict[str, Any]:
    """A tournament's JSON without what differs between two runs of it (time use, paths)."""
    doc = json.loads(doc_path.read_text())
    for key in ("dir", "log"):
        doc.pop(key, None)
    doc["standings"] = untimed(doc["standings"])
    return doc


def test_a_cluster_tournament_killed_and_resumed_equals_the_local_one(scheduler: str, tmp_path: Path) -> None:
    # 12 games (4 per pairing; 6 before): the driver is killed once 5 journal lines are written, so
    # most of the event is left to the resume, as with more games.
    bots = ["builtin:greedy", "builtin:random", "name=r2 cmd=builtin:random seed=3"]
    common = ["tournament", *bots, "--games-per-pairing", "4", "--seed", "7", "--option", "target=30"]
    local = run(*common, "--log-dir", str(tmp_path / "local"), "--json", str(tmp_path / "local.json"))
    assert local.returncode == 0, local.stderr
    proc = subprocess.Popen([QUINZE, *common, "--cluster", scheduler, "--shard-size", "2",
                             "--log-dir", str(tmp_path / "far"), "--json", str(tmp_path / "far.json")],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while True:  # kill -9 the driver once a few games are in the journal
        journals = list((tmp_path / "far").glob("tournament-*/journal.jsonl"))
        if journals and len(journals[0].read_text().splitlines()) >= 5:
            break
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.02)
    proc.kill()
    proc.wait()
    event = journals[0].parent
    again = run("tournament", "--resume", str(event), "--cluster", scheduler, "--json", str(tmp_path / "far.json"))
    assert again.returncode == 0, again.stderr
    resumed = re.search(r"resuming .*: (\d+) of (\d+) games done", " ".join(again.stderr.split()))  # (wrapped)
    assert resumed and int(resumed[1]) < int(resumed[2]), again.stderr  # the kill struck mid-event
    assert _event(tmp_path / "far.json") == _event(tmp_path / "local.json")
    (local_event,) = (tmp_path / "local").glob("tournament-*")
    assert games_by_deal(event) == games_by_deal(local_event)


def test_a_bot_failing_beyond_its_restarts_stops_the_cluster_match(scheduler: str, tmp_path: Path) -> None:
    marker = f"quinze-cluster-crash-{os.getpid()}"
    got = run("match", f"{sys.executable} tests/bots/exit_midgame.py 2 {marker}", "builtin:greedy", "--games", "200",
              "--max-restarts", "1", "--shard-size", "4", "--cluster", scheduler, "--log-dir", str(tmp_path),
              "--json", str(tmp_path / "r.json"))
    assert got.returncode == 1
    assert "failed again after 1 restart(s)" in got.stderr and "on worker tcp://127.0.0.1:" in got.stderr
    data = json.loads((tmp_path / "r.json").read_text())
    assert not data["complete"] and data["played"] < 200
    deadline = time.monotonic() + REAPED_WITHIN
    while _bot_pids(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _bot_pids(marker) == []


def test_a_cluster_match_killed_and_resumed_equals_the_local_one(scheduler: str, tmp_path: Path) -> None:
    # 16 games (30 before): the driver is killed once 6 are journaled, so the resume has most to play.
    common = ["match", "builtin:greedy", "builtin:random", "--games", "16", "--seed", "13", "--option", "target=30"]
    local = run(*common, "--log-dir", str(tmp_path / "local"), "--json", str(tmp_path / "local.json"))
    assert local.returncode == 0, local.stderr
    proc = subprocess.Popen([QUINZE, *common, "--cluster", scheduler, "--shard-size", "2",
                             "--log-dir", str(tmp_path / "far")], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while True:  # kill -9 the driver once a few games are journaled
        journals = list((tmp_path / "far").glob("*.journal"))
        if journals and journals[0].read_text().count("\n") >= 6:
            break
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.02)
    proc.kill()
    proc.wait()
    again = run("match", "--resume", str(journals[0]), "--cluster", scheduler, "--json", str(tmp_path / "far.json"))
    assert again.returncode == 0, again.stderr
    resumed = re.search(r"resuming: (\d+) done", " ".join(again.stderr.split()))
    assert resumed and int(resumed[1]) < 16, again.stderr  # the kill struck mid-match
    assert games_by_deal(tmp_path / "far") == games_by_deal(tmp_path / "local")
    a, b = (json.loads((tmp_path / f).read_text()) for f in ("local.json", "far.json"))
    assert untimed(a["bots"]) == untimed(b["bots"]) and a["elo"] == b["elo"] and b["complete"]


def test_a_shard_pauses_the_worker_samplers_while_it_plays_and_restores_them(scheduler: str, tmp_path: Path) -> None:
    from distributed import Client

    def probe() -> list[bool]:
        import time

        import distributed

        from quinze_cli.cluster import worker as shard_side

        callbacks = [distributed.get_worker().periodic_callbacks[n] for n in shard_side.PAUSED_CALLBACKS]
        heartbeat = distributed.get_worker().periodic_callbacks["heartbeat"]

        def state() -> bool | None:
            states = {c.is_running() for c in callbacks}
            return states.pop() if len(states) == 1 else None  # None: some paused, some not

        def settled(running: bool) -> bool | None:
            deadline = time.monotonic() + 10
            while state() != running and time.monotonic() < deadline:
                time.sleep(0.01)
            return state()

        seen = [state()]
        first = shard_side._pause_profiler(distributed)
        second = shard_side._pause_profiler(distributed)  # two shards on one worker
        seen.append(settled(False))
        assert heartbeat.is_running()  # the scheduler still hears from the worker
        shard_side._resume_profiler(second)
        time.sleep(0.2)
        seen.append(state())  # one shard still plays: still paused
        shard_side._resume_profiler(first)
        seen.append(settled(True))
        return seen

    with Client(scheduler, timeout=60, set_as_default=False) as client:
        assert client.submit(probe, pure=False).result(timeout=60) == [True, False, False, True]
    # and a whole match leaves every worker's profiler running
    done = run("match", "builtin:greedy", "builtin:random", "--games", "6", "--seed", "5", "--option", "target=30",
               "--cluster", scheduler,
               "--log-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    with Client(scheduler, timeout=60, set_as_default=False) as client:
        # The samplers come back when the last shard on a worker ends, which may be a shard of an
        # earlier test's killed driver still playing out under load (a worker is not told its driver died).
        deadline = time.monotonic() + 60
        while True:
            running = client.run(lambda dask_worker: [dask_worker.periodic_callbacks[n].is_running()
                                                      for n in ("profile", "tick", "ticks", "monitor")])
            if (running and all(all(r) for r in running.values())) or time.monotonic() > deadline:
                break
            time.sleep(0.1)
    assert running and all(all(r) for r in running.values())


