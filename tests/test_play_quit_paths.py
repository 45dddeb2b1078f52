"""How ``quinze play`` ends when the person is at no table, and when its input ends while the
server has yet to answer (docs/play.md "Exit codes").

- Ctrl-C or end of input in the lobby (or at the name prompt) says ``Interrupted. Bye.`` /
  ``Input closed. Bye.``: there is no table to leave (it said "leaving the table").
- The end of input right after a join does not cut the wait for the server's answer short: a
  refusal is said (it was lost) and the exit status is 1 (it was 0), as a shell's status is its
  last command's; a later command that works makes it 0 again.
- Lines from a pipe typed ahead while the lobby waits for the server are kept for after its
  answer (they were answered "Please wait" and dropped).

Real processes: ``quinze serve``, two ``quinze bot`` relays holding a table's two seats, and
``quinze play`` in a pseudo-terminal (pexpect) or with its stdin a pipe or ``/dev/null``."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import forkkit
import pexpect
import pytest
from playkit import QUINZE, TIMEOUT, spawn_play
from test_play_aborted import _serve

HANG = [sys.executable, str(Path(__file__).resolve().parent / "bots" / "hang.py")]


@pytest.fixture
def full_table(tmp_path) -> Iterator[tuple[int, str]]:
    """A server and a table of Le Quinze whose two seats are held (a game running, 600 s per move)."""
    server, port = _serve(tmp_path)
    bots: list[subprocess.Popen] = []
    try:
        first = subprocess.Popen([QUINZE, "bot", "--server", f"127.0.0.1:{port}", "--create", "quinze", "--name", "a",
                                  "--move-time", "600", "--", *HANG], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                 text=True)
        bots.append(first)
        assert first.stdout is not None
        table = first.stdout.readline().strip()
        second = subprocess.Popen([QUINZE, "bot", "--server", f"127.0.0.1:{port}", "--table", table, "--name", "b",
                                   "--", "builtin:greedy"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        bots.append(second)
        assert second.stderr is not None
        assert "seated at table" in second.stderr.readline()
        yield port, table
    finally:
        for p in (*bots, server):
            if p.poll() is None:
                p.kill()
                p.wait(timeout=TIMEOUT)


def _play(port: int, *args: str, stdin: str | None, env) -> subprocess.CompletedProcess[str]:
    return forkkit.run([QUINZE, "play", "--server", f"127.0.0.1:{port}", "--name", "ana", *args],
                       input=stdin, stdin=subprocess.DEVNULL if stdin is None else None, capture_output=True, text=True,
                       env=dict(env, COLUMNS="40"), timeout=TIMEOUT)


def test_a_refused_join_with_no_input_left_is_said_and_fails(full_table, env) -> None:
    port, table = full_table
    proc = _play(port, "--table", table, stdin=None, env=env)
    assert proc.returncode == 1, proc.stdout
    assert re.search(rf"^Cannot sit at table {table}: table {table} is playing; .* \[table-full\]$", proc.stdout, re.M), \
        proc.stdout  # one line, not wrapped at the 40 columns COLUMNS says: not a terminal
    assert "Input closed: leaving the table" not in proc.stdout and "Traceback" not in proc.stdout + proc.stderr


def test_the_lobby_takes_a_pipes_lines_and_ends_with_the_last_commands_status(full_table, env) -> None:
    port, table = full_table
    refused = _play(port, stdin="1\n", env=env)  # sit at table 1 (full), then the input ends
    assert refused.returncode == 1, refused.stdout
    out = refused.stdout
    assert "Please wait" not in out  # the line was kept for after the table list, not dropped
    assert out.index(f"Cannot sit at table {table}") < out.index("Input closed. Bye.")
    assert "leaving the table" not in out
    mended = _play(port, stdin="1\n\nq\n", env=env)  # refused, then Enter (a refresh) and quit: fine
    assert mended.returncode == 0, mended.stdout
    assert "Cannot sit at table" in mended.stdout and mended.stdout.rstrip().endswith("Bye.")
    unknown = _play(port, stdin="7\n", env=env)  # no table 7: said, and the status says so
    assert unknown.returncode == 1 and "7" in unknown.stdout and "Input closed. Bye." in unknown.stdout


@pytest.mark.parametrize(("lang", "words"), [("en", "Interrupted. Bye."), ("fr", "Interrompu. Au revoir.")])
def test_ctrl_c_in_the_lobby_leaves_no_table(full_table, env, lang: str, words: str) -> None:
    port, _ = full_table
    child = spawn_play(env, "--server", f"127.0.0.1:{port}", "--name", "ana", lang=lang)
    child.expect("lobby> " if lang == "en" else "salon> ")
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    said = child.before
    assert words in said, said
    assert "leaving the table" not in said and "quittez la table" not in said
    assert child.exitstatus == 130


def test_ctrl_c_or_end_of_input_at_the_name_prompt(full_table, env) -> None:
    port, _ = full_table
    for send, words, code in ((lambda c: c.sendintr(), "Interrupted. Bye.", 130), (lambda c: c.sendeof(), "Input closed. Bye.", 0)):
        child = spawn_play(env, "--server", f"127.0.0.1:{port}")
        child.expect(r"Your name \[")
        send(child)
        child.expect(pexpect.EOF)
        child.close()
        assert words in child.before and "leaving the table" not in child.before, child.before
        assert child.exitstatus == code


def test_bytes_that_are_not_utf8_at_the_name_prompt_are_asked_again(full_table, env) -> None:
    """'\\xff\\xfe' typed at the name prompt was taken as the name '\\ufffd\\ufffd' (what the
    input's decoding made of them); it is refused and the name asked again."""
    port, _ = full_table
    done = subprocess.run([QUINZE, "play", "--server", f"127.0.0.1:{port}"], input=b"\xff\xfe\nAna\nq\n",
                          capture_output=True, timeout=60, env=env)
    out = done.stdout.decode("utf-8", "replace")
    assert "the input sent bytes that are not UTF-8" in out, out
    assert out.count("Your name [") == 2, out
    assert done.returncode == 0, out  # the second name was taken, then q
