"""A bot program's stderr without a path given (``BotProcess(stderr_path=None)``: ``quinze bot``
without ``--stderr``, the benches) goes to ``stderr.log`` in a fresh ``quinze-bot-*`` temporary
directory: when the program is stopped the directory is removed if the program wrote nothing,
kept (and its path reported) if it did. Real programs, a real ``quinze serve`` for ``quinze bot``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import trio

from quinze_cli.botproc import BotExited, BotProcess

ROOT = Path(__file__).resolve().parent.parent
QUINZE = str(Path(sys.executable).with_name("quinze"))
TIMEOUT = 60


@pytest.fixture
def temp(tmp_path, monkeypatch) -> Path:
    """A temporary folder of the test's own as tempfile's default (what TMPDIR sets for a process)."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def _bot_dirs(folder: Path) -> list[Path]:
    return sorted(folder.glob("quinze-bot-*"))


async def _start_stop(code: str) -> BotProcess:
    async with trio.open_nursery() as nursery:
        bot = BotProcess([sys.executable, "-c", code])
        await bot.start(nursery)
        assert bot.stderr_path is not None and bot.stderr_path.parent.name.startswith("quinze-bot-")
        await bot.stop(grace=5)
    return bot


async def test_a_bot_that_wrote_nothing_on_stderr_leaves_no_temporary_dir(temp: Path) -> None:
    bot = await _start_stop("import sys; sys.stdin.read()")  # waits for its input to end
    assert _bot_dirs(temp) == [] and bot.kept_stderr is None


async def test_a_bot_that_wrote_on_stderr_keeps_its_file(temp: Path) -> None:
    bot = await _start_stop("import sys; print('last words', file=sys.stderr); sys.stdin.read()")
    [kept] = _bot_dirs(temp)
    assert bot.kept_stderr == kept / "stderr.log"
    assert bot.kept_stderr.read_text() == "last words\n"


async def test_a_bot_that_cannot_start_leaves_no_temporary_dir(temp: Path) -> None:
    async with trio.open_nursery() as nursery:
        bot = BotProcess([str(temp / "no-such-program")])
        with pytest.raises(BotExited):
            await bot.start(nursery)
    assert _bot_dirs(temp) == []


def _serve(tmp_path: Path) -> tuple[subprocess.Popen, int]:
    proc = subprocess.Popen([QUINZE, "serve", "--port", "0", "--no-announce", "--no-log"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    for _ in range(50):
        m = re.search(r"listening on 127\.0\.0\.1:(\d+)", proc.stdout.readline())
        if m:
            return proc, int(m.group(1))
    raise AssertionError("no listening line")


@pytest.mark.parametrize(("program", "writes"), [
    ([str(ROOT / "examples" / "bots" / "random_bot.py")], False),
    ([str(ROOT / "tests" / "bots" / "exit_midgame.py"), "1"], True),  # says why it exits, then exits 1
], ids=["quiet", "chatty"])
def test_quinze_bot_removes_or_names_the_temporary_stderr(tmp_path: Path, program: list[str], writes: bool) -> None:
    folder = tmp_path / "tmp"
    folder.mkdir()
    env = dict(os.environ, TMPDIR=str(folder))
    server, port = _serve(tmp_path)
    try:
        bot = subprocess.Popen([QUINZE, "bot", "--server", f"127.0.0.1:{port}", "--create", "quinze", "--games", "1",
                                "--", sys.executable, *program], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
        assert bot.stdout is not None
        table = bot.stdout.readline().strip()
        other = subprocess.run([QUINZE, "bot", "--server", f"127.0.0.1:{port}", "--table", table, "--", "builtin:random"],
                               capture_output=True, text=True, timeout=TIMEOUT)
        _, err = bot.communicate(timeout=TIMEOUT)
        assert f"table {table} closed after 1 game(s)" in err, (err, other.stderr)
    finally:
        server.kill()
        server.wait(timeout=TIMEOUT)
    dirs = _bot_dirs(folder)
    if not writes:
        assert dirs == [] and not [line for line in err.splitlines() if line.startswith("bot stderr:")]
        return
    [kept] = dirs
    path = kept / "stderr.log"
    assert f"bot stderr: {path}" in err.splitlines()
    assert "exit_midgame: exiting with code 1" in path.read_text()
