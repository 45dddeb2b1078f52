"""``quinze replay LOG --verify`` stopped by Ctrl-C (a real SIGINT, stdout a pipe): the summary
line on stdout says it was interrupted and how many of how many games were checked, so that a
script reading stdout alone does not take it for a complete check (it read ``591/591 verified``);
``--json``'s list ends with ``{"interrupted": true, ...}``. Exit 130 and the stderr line stay."""

from __future__ import annotations

import json
import re
import signal
import subprocess
from pathlib import Path

import pytest
from clikit import quinze
from playkit import QUINZE, TIMEOUT


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> Path:
    where = tmp_path_factory.mktemp("verify")
    done = quinze("match", "builtin:random", "builtin:random", "--games", "2", "--seed", "2", "--log-dir", "logs",
                  cwd=where)
    assert done.returncode == 0, done.stderr
    two = next((where / "logs").glob("match-*.jsonl")).read_text(encoding="utf-8")
    path = where / "big.jsonl"
    path.write_text(two * 1000, encoding="utf-8")  # 2000 games: far more than are checked before the SIGINT
    return path


def _interrupted(big: Path, *args: str) -> tuple[str, str, int]:
    """Start ``replay BIG --verify ARGS`` with SIGINT at its default (a test run in the background
    inherits it ignored), wait for it to be busy checking, SIGINT it; its stdout, stderr, status."""
    proc = subprocess.Popen([QUINZE, "replay", str(big), "--verify", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.stdout is not None and proc.stderr is not None
    try:
        if args:  # --json: nothing on stdout before the end; stderr is quiet too, so wait for the CPU
            for _ in range(200):
                if proc.poll() is not None or _cpu_seconds(proc.pid) > 1.0:
                    break
                subprocess.run(["sleep", "0.05"], check=True)
        else:
            first = proc.stdout.readline()  # game 1 checked: the loop is running
            assert first.startswith("game 1: verified"), first
        proc.send_signal(signal.SIGINT)
        if args:
            out, err = proc.communicate(timeout=TIMEOUT)
        else:  # on through the stream readline() read: communicate(timeout) would miss what it buffered
            out, err = proc.stdout.read(), proc.stderr.read()
            proc.wait(TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return (first if not args else "") + out, err, proc.returncode


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100  # utime + stime, in clock ticks (100 a second)


def test_the_summary_line_says_the_check_was_interrupted(big: Path) -> None:
    out, err, code = _interrupted(big)
    assert code == 130, err
    m = re.search(r"interrupted after (\d+) of 2000 game\(s\) checked", err)
    assert m and 1 <= int(m.group(1)) < 2000, err
    checked = int(m.group(1))
    last = out.splitlines()[-1]
    assert last == f"{checked}/{checked} verified (interrupted: {checked} of 2000 games checked)", out[-300:]
    assert len([line for line in out.splitlines() if line.startswith("game ")]) == checked, out


def test_the_json_list_ends_with_the_interruption(big: Path) -> None:
    out, err, code = _interrupted(big, "--json")
    assert code == 130, err
    data = json.loads(out)
    checked = int(re.search(r"interrupted after (\d+) of 2000", err).group(1))
    assert data[-1] == {"interrupted": True, "checked": checked, "games": 2000}
    assert len(data) == checked + 1 and all(r["verified"] for r in data[:-1])


def test_a_complete_check_says_nothing_of_an_interruption(big: Path) -> None:
    log = next((big.parent / "logs").glob("match-*.jsonl"))  # the two games the big log repeats
    done = quinze("replay", str(log), "--verify")
    assert done.returncode == 0 and done.stdout.splitlines()[-1] == "2/2 verified", done.stdout
    reports = json.loads(quinze("replay", str(log), "--verify", "--json").stdout)
    assert [r["game"] for r in reports] == [1, 2] and all(r["verified"] for r in reports)
