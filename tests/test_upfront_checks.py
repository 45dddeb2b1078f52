"""The up-front check of a program (quinze_cli.progcheck): every command that starts a program
(match, tournament, bot --create, bench --anchor) refuses one that cannot start, before anything
is played or made, with an error naming what is wrong, and never a traceback.

The bad programs are real files in tmp_path: a file that is not executable, a folder, a script
whose #! interpreter does not exist, a path that does not exist, a missing script given to an
interpreter, and a script argument that is a folder.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from pathlib import Path

import forkkit
import pytest
import trio
from clikit import quinze
from serverkit import serving

from quinze_cli.progcheck import program_problem

PY = sys.executable
QUINZE = str(Path(sys.executable).with_name("quinze"))


def _bad(tmp_path: Path, kind: str) -> tuple[list[str], str]:
    """A command of ``kind`` that cannot start and a word its error must contain."""
    if kind == "not-executable":
        f = tmp_path / "plain.sh"
        f.write_text("#!/bin/sh\nexit 0\n")
        f.chmod(0o644)
        return [str(f)], "not executable"
    if kind == "folder":
        d = tmp_path / "adir"
        d.mkdir()
        return [str(d)], "folder"
    if kind == "missing-interpreter":
        f = tmp_path / "badshebang.sh"
        f.write_text("#!/nonexistent/interp\n")
        f.chmod(0o755)
        return [str(f)], "'/nonexistent/interp', does not exist"
    if kind == "interpreter-not-executable":
        interp = tmp_path / "interp"
        interp.write_text("not a program\n")
        interp.chmod(0o644)
        f = tmp_path / "bot.sh"
        f.write_text(f"#!{interp} -x\n")
        f.chmod(0o755)
        return [str(f)], f"{str(interp)!r}, is not an executable program"
    if kind == "missing-path":
        return [str(tmp_path / "nope")], "no such file"
    if kind == "missing-script":
        return [PY, str(tmp_path / "nope.py")], f"no file {str(tmp_path / 'nope.py')!r}"
    if kind == "script-is-folder":
        d = tmp_path / "pkg.py"
        d.mkdir()
        return [PY, str(d)], "folder"
    if kind == "not-on-path":
        return ["no-such-program-quinze-test"], "not found on PATH"
    raise AssertionError(kind)


KINDS = ["not-executable", "folder", "missing-interpreter", "interpreter-not-executable", "missing-path",
         "missing-script", "script-is-folder", "not-on-path"]


def _cmd(argv: list[str]) -> str:
    return " ".join(argv)


def _refused(proc: subprocess.CompletedProcess[str], code: int, *words: str) -> None:
    text = " ".join((proc.stdout + proc.stderr).split())
    assert proc.returncode == code, text
    assert "Traceback" not in text and "error:" in text, text
    for w in words:
        assert w in text, (w, text)


def test_program_problem_passes_programs_that_can_start(tmp_path: Path) -> None:
    good = tmp_path / "good.sh"
    good.write_text("#!/bin/sh\nexit 0\n")
    good.chmod(0o755)
    script = tmp_path / "bot.py"
    script.write_text("print(1)\n")
    env_style = tmp_path / "env.sh"
    env_style.write_text("#!/usr/bin/env python3\n")
    env_style.chmod(0o755)
    for argv in ([str(good)], [PY, str(script)], [str(env_style)], ["sh", "-c", "exit 0"], []):
        assert program_problem(argv) is None, argv


@pytest.mark.parametrize("kind", KINDS)
def test_match_refuses_a_program_that_cannot_start(kind: str, tmp_path: Path) -> None:
    argv, word = _bad(tmp_path, kind)
    logs = tmp_path / "logs"
    proc = quinze("match", "builtin:greedy", _cmd(argv), "--games", "1", "--log-dir", str(logs), cwd=tmp_path)
    _refused(proc, 1, "BOT ", word)
    assert not logs.exists()  # nothing played, nothing made


@pytest.mark.parametrize("kind", KINDS)
def test_tournament_refuses_a_program_that_cannot_start(kind: str, tmp_path: Path) -> None:
    argv, word = _bad(tmp_path, kind)
    logs = tmp_path / "logs"
    for spec in (_cmd(argv), f"name=x cmd='{_cmd(argv)}'"):
        proc = quinze("tournament", "builtin:greedy", spec, "--games-per-pairing", "2", "--log-dir", str(logs),
                      cwd=tmp_path)
        _refused(proc, 1, "BOT ", word)
        assert "forfeits" not in proc.stderr
        assert not logs.exists() or not any(logs.iterdir())  # no event directory


@pytest.mark.parametrize("kind", KINDS)
def test_bench_anchor_refuses_a_program_that_cannot_start(kind: str, tmp_path: Path) -> None:
    argv, word = _bad(tmp_path, kind)
    proc = quinze("bench", "--only", "engine", "--quick", "--anchor", _cmd(argv), cwd=tmp_path)
    _refused(proc, 2, "--anchor", word)


async def _bot_create(port: int, argv: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``quinze bot --server 127.0.0.1:PORT --create quinze -- ARGV``, a real process (forked from
    the suite's zygote, tests/forkkit.py), waited for in a thread while this test's server serves
    it; raises :class:`subprocess.TimeoutExpired` (the process killed) after ``timeout`` s (no
    duration asserted: a hang fails the test)."""
    return await trio.to_thread.run_sync(functools.partial(
        forkkit.run, [QUINZE, "bot", "--server", f"127.0.0.1:{port}", "--create", "quinze", "--", *argv],
        capture_output=True, text=True, cwd=cwd, env={**os.environ, "COLUMNS": "300"}, timeout=timeout))


@pytest.mark.parametrize("kind", KINDS)
async def test_bot_create_refuses_a_program_before_the_table_is_made(kind: str, tmp_path: Path) -> None:
    argv, word = _bad(tmp_path, kind)
    servers: list = []
    async with serving(servers) as port:
        proc = await _bot_create(port, argv, tmp_path)
    _refused(proc, 1, "cannot start the bot", word)
    assert proc.stdout == ""  # no table id: no table made


# --------------------------------------------------------------------------- quinze play --local --log-dir


def _bad_log_dir(tmp_path: Path, kind: str) -> tuple[Path, str]:
    """A --log-dir of ``kind`` that no log can be written in, and a word its error must contain."""
    afile = tmp_path / "afile"
    afile.write_text("x")
    return {
        "missing-under-proc": (Path("/proc/nope"), "cannot write there"),
        "proc-itself": (Path("/proc/self"), "cannot write there"),
        "a-file": (afile, "not a directory"),
        "under-a-file": (afile / "logs", "cannot write there"),
        "deep-under-a-file": (afile / "a" / "b", "cannot write there"),
    }[kind]


@pytest.mark.parametrize("kind", ["missing-under-proc", "proc-itself", "a-file", "under-a-file", "deep-under-a-file"])
def test_play_local_refuses_a_log_dir_it_cannot_write_before_playing(kind: str, tmp_path: Path) -> None:
    path, word = _bad_log_dir(tmp_path, kind)
    proc = quinze("play", "--local", "--log-dir", str(path), "--name", "a", cwd=tmp_path)
    _refused(proc, 2, f"--log-dir {path}", word)
    assert "No game was logged" not in proc.stdout + proc.stderr  # refused before any game


def test_log_dir_check_leaves_nothing_behind(tmp_path: Path) -> None:
    from quinze_cli.options import check_log_dir

    check_log_dir(tmp_path / "new" / "deep")  # can be made: passes, and is not made by the check
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "there").mkdir()
    check_log_dir(tmp_path / "there")
    assert list((tmp_path / "there").iterdir()) == []


# --------------------------------------------------------------------------- quinze bot: a program dead before its first game


@pytest.mark.parametrize("program, word", [
    ("import sys; sys.exit(3)", "exited with code 3"),
    ("pass", "exited with code 0"),
    ("import os, signal; os.kill(os.getpid(), signal.SIGKILL)", "SIGKILL"),
    ("import sys; sys.stderr.write('boom\\n'); raise SystemExit(1)", "boom"),
])
async def test_bot_whose_program_ends_before_the_first_game_leaves_with_an_error(program: str, word: str,
                                                                               tmp_path: Path) -> None:
    """It passes the up-front check (the program is there) and ends before the table fills: quinze
    bot leaves the table and exits 1 naming why, instead of sitting at a table it cannot play."""
    async with serving() as port:
        proc = await _bot_create(port, [PY, "-c", program], tmp_path, timeout=90)  # a hang fails the test
    _refused(proc, 1, "ended before its first game", word, "leaving table")
    assert proc.stdout.strip()  # the table was made (the program could start), its id printed
    assert "summary: 0 game(s) finished" in proc.stderr


@pytest.mark.parametrize("kind", KINDS)
def test_check_bot_refuses_a_program_that_cannot_start(kind: str, tmp_path: Path) -> None:
    argv, word = _bad(tmp_path, kind)
    proc = quinze("check-bot", "--game", "quinze", "--", *argv, cwd=tmp_path)
    _refused(proc, 1, "cannot start the bot", word)
    assert "PASS" not in proc.stdout and "FAIL" not in proc.stdout  # refused before any check ran


@pytest.mark.parametrize("kind", ["proc-itself", "a-file", "under-a-file"])
@pytest.mark.parametrize("command", [
    ["serve", "--port", "0", "--no-announce"],
    ["match", "builtin:random", "builtin:greedy", "--games", "1"],
    ["tournament", "builtin:random", "builtin:greedy", "--games-per-pairing", "2"],
])
def test_serve_match_and_tournament_refuse_a_log_dir_they_cannot_write(command: list[str], kind: str,
                                                                     tmp_path: Path) -> None:
    """The same check as play's (quinze_cli.options.check_log_dir): a usage error naming why (a file
    is "not a directory", not the system's "File exists"), before any game or listening socket."""
    path, word = _bad_log_dir(tmp_path, kind)
    proc = quinze(*command, "--log-dir", str(path), cwd=tmp_path)
    _refused(proc, 2, f"--log-dir {path}", word)
    assert "File exists" not in proc.stderr
    if kind == "a-file":
        assert path.read_text() == "x"  # left as it was
