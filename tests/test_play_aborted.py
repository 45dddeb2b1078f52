"""``quinze play`` at a table whose server stops mid-game (``quinze serve`` gets SIGINT or
SIGTERM while a person plays): the game is said to be aborted by the server, with no result, and
where its log is; none of a finished game's closing lines (the final totals, the winners, the
seed and salt to check the commitment with a replay). Real processes: ``quinze serve``, a
``quinze bot`` opponent and ``quinze play`` in a pseudo-terminal (pexpect)."""

from __future__ import annotations

import re
import signal
import subprocess

import pexpect
import pytest
from playkit import PROMPT, QUINZE, TIMEOUT, plain, spawn_play


def _serve(tmp_path) -> tuple[subprocess.Popen, int]:
    proc = subprocess.Popen([QUINZE, "serve", "--port", "0", "--no-announce", "--log-dir", str(tmp_path / "logs")],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    for _ in range(50):
        line = proc.stdout.readline()
        assert line, "the server ended early"
        m = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
        if m:
            return proc, int(m.group(1))
    raise AssertionError("no listening line")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["sigint", "sigterm"])
def test_a_server_stopping_mid_game_is_told_as_an_aborted_game(tmp_path, env, sig) -> None:
    server, port = _serve(tmp_path)
    bot = child = None
    try:
        bot = subprocess.Popen([QUINZE, "bot", "--server", f"127.0.0.1:{port}", "--create", "quinze", "--name", "b",
                                "--", "builtin:greedy"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert bot.stdout is not None
        table = bot.stdout.readline().strip()
        child = spawn_play(env, "--server", f"127.0.0.1:{port}", "--table", table, "--name", "ana", size=(40, 100))
        child.expect(PROMPT)  # mid-game, our turn
        server.send_signal(sig)
        child.expect(r"The server at 127\.0\.0\.1:\d+ stopped")
        said = " ".join(plain(child.before).split())
        assert "Game aborted by the server." in said
        assert ("Game 1 aborted by the server: it stopped before the end of the game, which has no result "
                "(nobody scores).") in said
        assert "keeps this game's log up to the abort" in said
        for finished in ("Game over.", "Final totals", "Winner(s)", "check the commitment", "salt"):
            assert finished not in said, said
        child.sendline("q")
        child.expect(pexpect.EOF)
        server.wait(timeout=TIMEOUT)  # its exit status is the subject of tests/test_serve_shutdown.py
        logged = (tmp_path / "logs" / f"{table}.jsonl").read_text(encoding="utf-8")
        assert '"aborted":"shutdown"' in logged  # what the text promised: the server kept the log
    finally:
        for p in (bot, server):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait(timeout=TIMEOUT)
        if child is not None:
            child.close(force=True)
