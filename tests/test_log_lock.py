"""One run per log at a time (quinze_cli/loglock.py), and a damaged log refused on resume.

A ``quinze match`` or ``quinze tournament`` run holds an exclusive lock on its log for the whole
run: a second run of the same log (two ``--resume`` of one match, a ``--resume`` of a run still
playing) is refused, exit 2, naming the holder's pid, and changes nothing on disk; the first one
ends as if alone (its log verifies). A run killed with ``kill -9`` leaves no lock that blocks the
next ``--resume``. A log with a damaged line in its middle (not a cut tail) is refused on resume
with that line's number, the log and the journal left as they were.

Real ``quinze`` processes (forked from the suite's zygote: tests/forkkit.py), real bots
(tests/bots/gated.py holds a run alive until the test opens its gate: no sleep to guess)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import forkkit
from clikit import quinze
from clikit import summary_of_a_run as _final
from quinze_cli.loglock import LogInUse, LogLock, lock_path

PY = sys.executable
QUINZE = str(Path(PY).parent / "quinze")
GATED = Path(__file__).parent / "bots" / "gated.py"
TABLE = ["--seed", "5", "--option", "target=1", "--move-time", "300"]
IN_USE = "is in use by another quinze run (pid {pid}); wait for it or stop it"

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="flock and kill -9: Linux")


def _wait_for_lines(path: Path, lines: int, proc: subprocess.Popen[bytes]) -> None:
    """Until ``path`` holds ``lines`` whole lines (a guard of 120 s, not a measure)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if path.exists() and path.read_bytes().count(b"\n") >= lines:
            return
        time.sleep(0.02)
    raise AssertionError(f"{path} never held {lines} lines (run ended: {proc.poll()})")


def _snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every file under ``folder`` and its bytes (None: a directory)."""
    return {str(p.relative_to(folder)): (None if p.is_dir() else p.read_bytes()) for p in sorted(folder.rglob("*"))}


def _verified(log: Path, games: int) -> None:
    check = quinze("replay", str(log), "--verify")
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.strip().splitlines()[-1] == f"{games}/{games} verified"




def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def test_two_resumes_of_one_match_at_once_the_second_is_refused_and_the_first_ends_as_if_alone(tmp_path):
    gate = tmp_path / "gate"
    bots = [f"{PY} {GATED} {gate}", "builtin:random", "--games", "4", *TABLE]
    gate.touch()  # the reference: the gate open, the match uninterrupted
    ref = quinze("match", *bots, "--log-dir", "ref", "--json", "ref.json", cwd=tmp_path)
    assert ref.returncode == 0, ref.stderr
    gate.unlink()

    first = forkkit.Popen([QUINZE, "match", *bots, "--log-dir", "run"], cwd=tmp_path,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not list((tmp_path / "run").glob("*.journal")) and time.monotonic() < deadline and first.poll() is None:
            time.sleep(0.02)
        journal = next((tmp_path / "run").glob("*.journal"))
        log = journal.with_suffix(".jsonl")
        _wait_for_lines(journal, 2, first)  # its first game is in: it waits at the second
        first.send_signal(signal.SIGKILL)  # killed while holding the lock
        first.wait()
    finally:
        _stop(first)
    assert lock_path(log).exists()  # the file stays behind; the lock went with the process

    a = forkkit.Popen([QUINZE, "match", "--resume", str(log), "--json", "a.json"], cwd=tmp_path,
                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _wait_for_lines(journal, 3, a)  # the dead run's lock did not stop it; it waits at its second game
        before = _snapshot(tmp_path / "run")
        b = quinze("match", "--resume", str(log), "--json", "b.json", cwd=tmp_path)
        assert b.returncode == 2, b.stderr
        assert f"--resume {log}: {log} " + IN_USE.format(pid=a.pid) in " ".join(b.stderr.split()), b.stderr
        assert "Traceback" not in b.stderr and b.stdout == ""
        assert _snapshot(tmp_path / "run") == before  # nothing changed on disk
        assert not (tmp_path / "b.json").exists()
        gate.touch()
        _, err = a.communicate(timeout=300)
    finally:
        _stop(a)
    assert a.returncode == 0, err
    assert _final(tmp_path / "a.json") == _final(tmp_path / "ref.json")
    _verified(log, 4)
    assert journal.read_text().count("\n") == 1 + 4
    assert not lock_path(log).exists()  # the run that ended removed its lock file
    again = quinze("match", "--resume", str(log), cwd=tmp_path)  # nothing left, nothing cut back
    assert again.returncode == 0 and "resuming: 4 done" in " ".join(again.stderr.split()), again.stderr
    _verified(log, 4)


def test_a_tournament_resumed_while_it_plays_is_refused_and_the_event_ends_whole(tmp_path):
    pytest.importorskip("openskill")
    gate = tmp_path / "gate"
    first = forkkit.Popen([QUINZE, "tournament", f"{PY} {GATED} {gate}", "builtin:random", "--games-per-pairing", "4",
                           *TABLE, "--log-dir", "run", "--json", "first.json"], cwd=tmp_path,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while not list((tmp_path / "run").glob("tournament-*/journal.jsonl")) and time.monotonic() < deadline:
            time.sleep(0.02)
        event = next((tmp_path / "run").glob("tournament-*"))
        _wait_for_lines(event / "journal.jsonl", 2, first)  # a game in; the next waits
        before = _snapshot(event)
        second = quinze("tournament", "--resume", str(event), "--json", "second.json", cwd=tmp_path)
        assert second.returncode == 2, second.stderr
        assert f"--resume {event}: {event / 'games.jsonl'} " + IN_USE.format(pid=first.pid) \
            in " ".join(second.stderr.split()), second.stderr
        assert "Traceback" not in second.stderr
        assert _snapshot(event) == before and not (tmp_path / "second.json").exists()
        gate.touch()
        _, err = first.communicate(timeout=300)
    finally:
        _stop(first)
    assert first.returncode == 0, err
    games = json.loads((tmp_path / "first.json").read_text())["games"]
    _verified(event / "games.jsonl", games)
    assert not lock_path(event / "games.jsonl").exists()


def _damage_the_middle(log: Path) -> int:
    """Put a line that is not JSON inside the log's second game (more of its records after it);
    its line number."""
    lines = log.read_bytes().split(b"\n")
    headers = [i for i, line in enumerate(lines) if line.startswith(b'{"record":"header"')]
    at = headers[1] + 2
    lines.insert(at, b"garbage, not a record")
    log.write_bytes(b"\n".join(lines))
    return at + 1


def test_match_resume_refuses_a_log_damaged_in_its_middle_and_changes_nothing(tmp_path):
    done = quinze("match", "builtin:greedy", "builtin:random", "--games", "4", *TABLE, "--log-dir", "run",
                  "--json", "ref.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    log = tmp_path / json.loads((tmp_path / "ref.json").read_text())["log"]
    line = _damage_the_middle(log)
    replay = quinze("replay", str(log), "--verify")
    assert f"DAMAGED at line {line}" in replay.stdout
    before = _snapshot(tmp_path / "run")
    res = quinze("match", "--resume", str(log), "--json", "res.json", cwd=tmp_path)
    assert res.returncode == 1, res.stderr
    said = " ".join(res.stderr.split())
    assert f"--resume {log}: DAMAGED at line {line} of {log}" in said, res.stderr
    assert "not cut by a crash" in said and "nothing was changed" in said
    assert _snapshot(tmp_path / "run") == before and not (tmp_path / "res.json").exists()


def test_tournament_resume_refuses_a_log_damaged_in_its_middle_and_changes_nothing(tmp_path):
    pytest.importorskip("openskill")
    done = quinze("tournament", "builtin:greedy", "builtin:random", "--games-per-pairing", "4", *TABLE,
                  "--log-dir", "run", "--json", "ref.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    event = tmp_path / json.loads((tmp_path / "ref.json").read_text())["dir"]
    with open(event / "journal.jsonl", "ab") as fh:
        fh.write(b'{"index": 9')  # and a journal line cut mid-write: not mended either when refused
    line = _damage_the_middle(event / "games.jsonl")
    before = _snapshot(event)
    res = quinze("tournament", "--resume", str(event), cwd=tmp_path)
    assert res.returncode == 1, res.stderr
    said = " ".join(res.stderr.split())
    assert f"--resume {event}: DAMAGED at line {line} of {event / 'games.jsonl'}" in said, res.stderr
    assert "dropped" not in said
    assert _snapshot(event) == before


def test_a_resume_still_drops_a_cut_last_line(tmp_path):
    done = quinze("match", "builtin:greedy", "builtin:random", "--games", "4", *TABLE, "--log-dir", "run",
                  "--json", "ref.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    log = tmp_path / json.loads((tmp_path / "ref.json").read_text())["log"]
    log.write_bytes(log.read_bytes()[:-30])  # the last result record cut mid-write
    res = quinze("match", "--resume", str(log), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "1 unfinished or unrecorded game(s) dropped" in " ".join(res.stderr.split())
    _verified(log, 4)


def test_the_lock_refuses_a_second_holder_and_outlives_no_process(tmp_path):
    log = tmp_path / "games.jsonl"
    held = LogLock.take(log)
    assert lock_path(log).read_text() == f"{os.getpid()}\n"
    with pytest.raises(LogInUse) as refused:
        LogLock.take(log)  # another open file of the same lock, even in this process
    assert refused.value.pid == os.getpid() and not log.exists()
    held.release()
    held.release()
    assert not lock_path(log).exists()
    lock_path(log).write_text("12345\n")  # what a killed run leaves: a file, no lock
    again = LogLock.take(log)
    assert lock_path(log).read_text() == f"{os.getpid()}\n"
    again.release()
