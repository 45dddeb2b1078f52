"""``quinze match`` keeps a journal beside its log; ``--resume LOG`` after ``kill -9`` plays only the
missing games and ends as an uninterrupted run (the real ``quinze`` process, forked from the suite's
zygote: tests/forkkit.py; built-in bots)."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from quinze_protocol.replaylog import read_log
import forkkit
from clikit import summary_of_a_run as _final

PY = sys.executable
QUINZE = str(Path(PY).parent / "quinze")
ARGS = ["builtin:greedy", "builtin:random", "--games", "24", "--seed", "4", "--duplicate", "--concurrency", "2",
        "--option", "target=1"]


def quinze(*args, cwd, timeout=120):
    return forkkit.run([QUINZE, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)




def _results(log: Path | None) -> int:
    """The games finished in ``log`` so far (its result records; 0 before it exists)."""
    try:
        return log.read_bytes().count(b'{"record":"result"') if log is not None else 0
    except FileNotFoundError:
        return 0


def _games(log: Path) -> list[tuple]:
    result = read_log(log.read_text())
    assert result.problems == [] and result.partial == []
    return sorted((g.header["seed"], tuple(g.header["players"]), json.dumps(g.actions, sort_keys=True),
                   json.dumps(g.result["result"], sort_keys=True)) for g in result.games)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="kill -9 timing: Linux")
def test_match_resumed_after_kill_9_ends_as_an_uninterrupted_run(tmp_path):
    ref = quinze("match", *ARGS, "--log-dir", "ref", "--json", "ref.json", cwd=tmp_path)
    assert ref.returncode == 0, ref.stderr
    ref_log = tmp_path / json.loads((tmp_path / "ref.json").read_text())["log"]
    rng = random.Random(7)
    log: Path | None = None
    kills = 0
    cmd = [QUINZE, "match", *ARGS, "--log-dir", "run"]
    for _ in range(5):
        # Killed once the log holds a game more than when this run started, at a random moment
        # of the next game: every run adds at least one game, and the 24 games outlast the kills
        # whatever the machine's speed (a random delay alone let a quiet machine finish first).
        before = _results(log)
        proc = forkkit.Popen(cmd, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and proc.poll() is None:
                if log is None:
                    found = list((tmp_path / "run").glob("match-*.journal"))
                    log = found[0].with_suffix(".jsonl") if found else None
                if log is not None and _results(log) > before:
                    break
                time.sleep(0.01)
            time.sleep(rng.uniform(0.0, 0.05))
            if proc.poll() is not None:
                break
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            kills += 1
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        assert log is not None
        cmd = [QUINZE, "match", "--resume", str(log), "--concurrency", "2"]
    assert kills >= 2
    done = quinze("match", "--resume", str(log), "--json", "resumed.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert _final(tmp_path / "resumed.json") == _final(tmp_path / "ref.json")
    assert _games(log) == _games(ref_log)
    # Other settings are refused, naming them; the journal's own are taken when none is given.
    bad = quinze("match", "--resume", str(log), "--games", "30", cwd=tmp_path)
    assert bad.returncode == 1 and "games: 24 in the journal, 30 now" in bad.stderr
    bad = quinze("match", "--resume", str(log.with_suffix(".journal")), "builtin:random", "builtin:random", cwd=tmp_path)
    assert bad.returncode == 1 and "bots:" in bad.stderr
    missing = quinze("match", "--resume", str(tmp_path / "nope.jsonl"), cwd=tmp_path)
    assert missing.returncode == 1 and "no journal" in missing.stderr
