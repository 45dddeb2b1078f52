"""A command whose output cannot be written any more still does its work and writes its files.

- Its terminal hung up *without* a SIGHUP reaching it (``cmd &`` then ``exit``: bash sends none
  to a background job; ``disown``): every write to the terminal fails with ``EIO``. The command
  carries on (what it prints goes nowhere: quinze_cli/stdio.py) and ends as it would have:
  ``--json`` written, exit 0; ``quinze serve`` still stops with 0 on SIGTERM. Emulated with a
  pseudo-terminal that is not the command's controlling terminal (a new session), whose master
  side is closed.
- Its stdout is a pipe closed early (``| head -1``) or a full disk (``> /dev/full``): the
  ``--json`` file is written before the tables, so it is there whatever became of them.

Real ``quinze`` processes, built-in bots, real files."""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

PY = sys.executable
QUINZE = str(Path(PY).parent / "quinze")
MATCH = ["match", "builtin:greedy", "builtin:random", "--option", "target=1"]
TOURNAMENT = ["tournament", "builtin:greedy", "builtin:random", "--option", "target=1"]
ENV = {**os.environ, "NO_COLOR": "1", "TERM": "xterm", "COLUMNS": "80", "LINES": "24"}


def _hang_up(master: int, proc: subprocess.Popen, wait_for: bytes = b"") -> bytes:
    """Read the pty until ``wait_for`` shows (or 30 s), then close its master side: the
    terminal is gone. Returns what was read."""
    seen = b""
    end = time.monotonic() + 30
    while wait_for not in seen and time.monotonic() < end and proc.poll() is None:
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                seen += os.read(master, 65536)
            except OSError:
                break
    os.close(master)
    return seen


def _in_lost_terminal(args: list[str], cwd: Path, stdout: int | None = None) -> tuple[subprocess.Popen, int]:
    master, slave = os.openpty()
    proc = subprocess.Popen([QUINZE, *args], cwd=cwd, stdin=subprocess.DEVNULL, stdout=stdout if stdout is not None else slave,
                            stderr=slave, start_new_session=True, env=ENV)  # a new session: no SIGHUP from this pty
    os.close(slave)
    return proc, master


def _results(log_dir: Path) -> int:
    return sum(p.read_bytes().count(b'{"record":"result"') for p in log_dir.glob("*.jsonl"))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty hang-up semantics: Linux")
@pytest.mark.parametrize("stdout_to_file", [False, True])
def test_a_match_whose_terminal_hung_up_without_a_sighup_plays_on_and_writes_its_json(tmp_path: Path,
                                                                                      stdout_to_file: bool) -> None:
    out = (tmp_path / "out.txt").open("wb") if stdout_to_file else None
    proc, master = _in_lost_terminal([*MATCH, "--games", "40", "--log-dir", "logs", "--json", "r.json"], tmp_path,
                                     stdout=out.fileno() if out else None)
    _hang_up(master, proc, b"game(s) between")
    assert proc.wait(120) == 0
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["games"] == 40 and _results(tmp_path / "logs") == 40
    if out is not None:
        out.close()
        table = (tmp_path / "out.txt").read_text()
        assert "greedy" in table and "log: " in table  # stdout was a file: the results are all there


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty hang-up semantics: Linux")
def test_a_tournament_whose_terminal_hung_up_without_a_sighup_ends_whole(tmp_path: Path) -> None:
    proc, master = _in_lost_terminal([*TOURNAMENT, "--games-per-pairing", "30", "--json", "t.json"], tmp_path)
    _hang_up(master, proc, b"event directory")
    assert proc.wait(120) == 0
    assert json.loads((tmp_path / "t.json").read_text())["games"] == 30


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty hang-up semantics: Linux")
def test_serve_whose_terminal_hung_up_still_stops_with_0_on_sigterm(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc, master = _in_lost_terminal(["serve", "--port", str(port), "--no-announce", "--log-dir", "logs"], tmp_path)
    _hang_up(master, proc, b"listening")
    try:
        # the server still serves once its terminal is gone: a match against it, its log lines nowhere
        done = subprocess.run([QUINZE, *MATCH, "--games", "2", "--server", f"127.0.0.1:{port}", "--log-dir", "mlogs"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=120, env=ENV)
        assert done.returncode == 0, done.stderr
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("command", ["match", "tournament"])
def test_json_is_written_when_stdout_is_a_pipe_closed_early(tmp_path: Path, command: str) -> None:
    args = [*MATCH, "--games", "6"] if command == "match" else [*TOURNAMENT, "--games-per-pairing", "6"]
    done = subprocess.run(f"{QUINZE} {' '.join(args)} --json r.json 2>/dev/null | head -c 1 >/dev/null; "
                          "echo ${PIPESTATUS[0]}", shell=True, executable="/bin/bash", cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, env=ENV)
    assert done.stdout.strip() in ("0", "141")  # 0: the table fit in the pipe before head closed it
    assert json.loads((tmp_path / "r.json").read_text())["games"] == 6


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("command", ["match", "tournament"])
def test_json_is_written_when_stdout_is_a_full_disk(tmp_path: Path, command: str) -> None:
    args = [*MATCH, "--games", "6"] if command == "match" else [*TOURNAMENT, "--games-per-pairing", "6"]
    with open("/dev/full", "w") as full:
        done = subprocess.run([QUINZE, *args, "--json", "r.json"], cwd=tmp_path, stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=120, env=ENV)
    assert done.returncode == 1 and "cannot write the output: No space left on device" in done.stderr
    assert json.loads((tmp_path / "r.json").read_text())["games"] == 6


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty hang-up semantics: Linux")
def test_a_bot_whose_terminal_hung_up_without_a_sighup_plays_its_table_through(tmp_path: Path) -> None:
    from test_play_aborted import _serve

    server, port = _serve(tmp_path)
    bot = None
    bot_program = f"{PY} {Path(__file__).resolve().parent.parent / 'examples' / 'bots' / 'random_bot.py'}"
    try:
        bot, master = _in_lost_terminal(["bot", "--server", f"127.0.0.1:{port}", "--create", "quinze", "--name", "lost",
                                         "--games", "3", "--option", "target=1", "--", *bot_program.split()], tmp_path)
        seen = _hang_up(master, bot, b"\n")  # its first line names the table; then the terminal is gone
        table = seen.decode().split()[0]
        other = subprocess.run([QUINZE, "bot", "--server", f"127.0.0.1:{port}", "--table", table, "--name", "here",
                                "--", *bot_program.split()], capture_output=True, text=True, timeout=120, env=ENV)
        assert other.returncode == 0, other.stderr
        assert "3 game(s) finished" in other.stdout + other.stderr, other.stdout + other.stderr
        assert bot.wait(60) == 0
    finally:
        for p in (bot, server):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
