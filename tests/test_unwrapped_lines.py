"""A command's lines of text are never cut by rich when they go to a file or a pipe: there rich
takes 80 columns (or ``COLUMNS``) and wrapped a long line in two, so ``grep forfeits`` on a saved
stderr found half of a tournament's failure line. On a terminal rich may wrap at its width (the
person reads it there). One way for every command: :func:`quinze_cli.stdio.line_console`.

Real executables with stderr in a real file, real crashing bot programs (tests/bots/), the
commands' own servers, ``quinze serve``'s log; ``COLUMNS=40`` makes every line here longer than
the width."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import clikit

from quinze_cli.stdio import line_console

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "tests" / "bots"
PY = sys.executable
QUINZE = str(Path(PY).with_name("quinze"))
CRASH = f"{PY} {BOTS / 'exit_midgame.py'} 2"
WHOLE = re.compile(r"^game \d+: exit_midgame \(seat \d\) forfeits: crash \(mid-game\): the program exited with code 1; "
                   r"stderr ends with: exit_midgame: exiting with code 1$")


def test_tournament_failure_lines_in_a_file_are_whole(tmp_path: Path) -> None:
    err = tmp_path / "stderr.txt"
    with err.open("w") as f:
        proc = subprocess.run([QUINZE, "tournament", "builtin:random", CRASH, "--games-per-pairing", "2", "--seed", "3",
                               "--option", "target=1", "--log-dir", str(tmp_path / "logs")],
                              stdout=subprocess.PIPE, stderr=f, text=True, timeout=120,
                              env=dict(os.environ, COLUMNS="40"))
    assert proc.returncode == 0, err.read_text()
    lines = err.read_text().splitlines()
    failures = [line for line in lines if line.startswith("game ")]
    assert len(failures) == 2 and all(WHOLE.match(line) for line in failures), lines
    event = next(p for p in (tmp_path / "logs").iterdir())
    assert any(line.startswith("quinze round-robin: 2 bots") and line.endswith(f"event directory {event}") for line in lines), lines
    assert all(line.startswith(("game ", "quinze round-robin")) or not line.strip() or "tournament" in line for line in lines), lines
    assert any(line.startswith("log: ") and line.endswith("games.jsonl") for line in proc.stdout.splitlines()), proc.stdout


def test_match_lines_in_a_pipe_are_whole(tmp_path: Path) -> None:
    result = clikit.quinze("match", CRASH, "builtin:random", "--games", "2", "--seed", "3", "--option", "target=1",
                           "--log-dir", str(tmp_path / "logs"), env={"COLUMNS": "40"})
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert [line for line in lines if line.startswith("game ")] and all(WHOLE.match(line) for line in lines if line.startswith("game ")), lines
    assert any(line == "quinze: 2 game(s) between exit_midgame, random, 2 seats, seed 3" for line in lines), lines


def test_on_a_terminal_lines_wrap_at_its_width(monkeypatch) -> None:
    leader, follower = os.openpty()
    try:
        with os.fdopen(follower, "w", closefd=False) as tty:
            monkeypatch.setattr(sys, "stderr", tty)
            assert line_console(stderr=True).soft_wrap is False
        with (Path(os.devnull).open("w")) as null:
            monkeypatch.setattr(sys, "stdout", null)
            assert line_console().soft_wrap is True
    finally:
        os.close(leader)
        os.close(follower)


def test_the_server_log_in_a_file_is_one_line_per_record(tmp_path: Path) -> None:
    import trio
    from netclient import NetClient

    err = tmp_path / "stderr.txt"
    name = "a-rather-long-player-name-here"
    with err.open("w") as f:
        proc = subprocess.Popen([QUINZE, "serve", "--port", "0", "--no-announce", "--log-dir", str(tmp_path / "logs")],
                                stdout=subprocess.PIPE, stderr=f, text=True, env=dict(os.environ, COLUMNS="40"))
        try:
            assert proc.stdout is not None
            first = proc.stdout.readline()
            port = int(re.search(r"listening on 127\.0\.0\.1:(\d+)", first).group(1))

            async def visit() -> None:
                client = await NetClient.connect(port, name)
                await client.aclose()

            trio.run(visit)
            deadline = time.monotonic() + 60
            while "disconnected" not in err.read_text():  # the server's line about the visit
                assert time.monotonic() < deadline, err.read_text()
                time.sleep(0.05)
            proc.send_signal(signal.SIGTERM)
            # Read on through the same stream: communicate(timeout=...) reads the pipe's descriptor
            # itself and would miss what readline() above already took into the stream's buffer
            # (the lines written with the first, in one chunk).
            out = first + proc.stdout.read()
            proc.wait(60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert proc.returncode == 0
    lines = err.read_text().splitlines()
    stamp = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d INFO "
    assert any(re.fullmatch(stamp + r"listening on 127\.0\.0\.1:\d+ \(server run \w+: table ids \w+-t1, \w+-t2, \.\.\.\)", line)
               for line in lines), lines
    assert any(re.fullmatch(stamp + rf"{name} \(127\.0\.0\.1:\d+\) connected as player", line) for line in lines), lines
    assert all(re.match(stamp.replace("INFO", r"[A-Z]+"), line) for line in lines), lines
    assert any(line.startswith("replay logs in ") and line.endswith("(table ids start with this server run's id)")
               for line in out.splitlines()), out
