"""``quinze play``: leaving a table (Ctrl-C, ``q``, ``quit`` and its question), seat tokens of
people sharing one account, the ``--local`` replay logs, and prompt lines that always end. The
client runs in a pseudo-terminal (pexpect) or as a subprocess against a real server on loopback
(``tests/play_host.py``) or its own ``--local`` one. No duration is asserted.
"""

from __future__ import annotations

import json
import os
import subprocess

import pexpect
from playkit import QUINZE, TIMEOUT, plain
import forkkit

PROMPT_EN = r"Your move(?: \(\d+ s\))?> "


def spawn(env, *args: str, cwd: str | None = None) -> pexpect.spawn:
    return forkkit.spawn(QUINZE, ["play", *args], env=env, encoding="utf-8", timeout=TIMEOUT,
                         dimensions=(24, 80), cwd=cwd)


def test_ctrl_c_leaves_the_table_and_exits_130(env, tmp_path):
    child = spawn(env, "--local", "--seed", "3", "--name", "Ana", cwd=str(tmp_path))
    child.expect(PROMPT_EN)
    child.sendintr()
    child.expect("Interrupted: leaving the table. Bye.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert "Traceback" not in plain(child.before)


def test_q_during_a_game_does_not_leave_and_quit_asks_first(env, tmp_path):
    child = spawn(env, "--local", "--seed", "3", "--name", "Ana", cwd=str(tmp_path))
    child.expect(PROMPT_EN)
    child.sendline("q")  # the queen, or a slip: never a forfeit
    child.expect("To leave the table, type quit.")
    child.expect(PROMPT_EN)
    child.sendline("quit")
    child.expect(r"Leave the table and forfeit this game\? \[y/N\] ")
    child.sendline("")  # Enter: no
    child.expect("You stay at the table.")
    child.expect(PROMPT_EN)
    child.sendline("1")  # still playing
    child.expect(PROMPT_EN)
    child.sendline("quit")
    child.expect(r"forfeit this game\? \[y/N\] ")
    child.sendline("y")
    child.expect("Bye.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_quit_confirmation_in_french(env, tmp_path):
    child = spawn(env, "--local", "--seed", "3", "--name", "Ana", "--lang", "fr", cwd=str(tmp_path))
    child.expect(r"Votre coup(?: \(\d+ s\))?> ")
    child.sendline("quitter")
    child.expect(r"Quitter la table et perdre cette partie par forfait \? \[o/N\] ")
    child.sendline("oui")
    child.expect("Au revoir.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_q_outside_a_game_still_quits_at_once(host, env):
    port, _ = host(3)
    child = spawn(env, "--server", f"127.0.0.1:{port}", "--name", "Cy")
    child.expect("lobby> ")
    child.sendline("c")
    child.expect(r"Game \(")
    child.sendline("quinze")
    child.expect(r"Seats \(")
    child.sendline("2")
    child.expect("Options as KEY=VALUE")
    child.sendline("")
    child.expect("Waiting for the other players")
    child.sendline("q")  # no game running: nothing to forfeit, no question
    child.expect("Bye.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def _create_waiting_table(child) -> str:
    """At the lobby: create a quinze table for two people, no bots, and sit at seat 0; its id
    (``<server run>-t2``: the host made t1)."""
    child.expect("lobby> ")
    child.sendline("c")
    child.expect(r"Game \(")
    child.sendline("quinze")
    child.expect(r"Seats \(")
    child.sendline("2")
    child.expect("Options as KEY=VALUE")
    child.sendline("target=1")
    child.expect(r"You sit at table ([a-z2-9]{4}-t2), seat 0\.")
    table = child.match.group(1)
    child.expect("Waiting for the other players")
    return table


def _both_play(first, second) -> None:
    """The game starts for both: neither was thrown out of its seat; the two seats of one name
    are told apart by their seat wherever they are named."""
    for child in (first, second):
        child.expect(r"Game 1 starts: Ana \(seat 0\), Ana \(seat 1\)\.")
    for child in (first, second):
        assert "You are back" not in plain(child.before)
        child.sendintr()
        child.expect(pexpect.EOF)
        child.close()


def test_same_account_and_name_in_the_lobby_takes_a_free_seat(host, env, tmp_path):
    """Two people, one account (one token cache), the same name: the second one choosing the
    table in the lobby sits in the free seat instead of resuming the first one's seat."""
    port, _ = host(3)
    first = spawn(env, "--server", f"127.0.0.1:{port}", "--name", "Ana")
    t2 = _create_waiting_table(first)
    second = spawn(env, "--server", f"127.0.0.1:{port}", "--name", "Ana")
    second.expect("lobby> ")
    second.sendline(t2)
    second.expect("Your kept seat 0 is held by a connected client: taking a free seat.")
    second.expect(f"You sit at table {t2}, seat 1.")
    _both_play(first, second)


def test_same_account_and_name_with_table_option_takes_a_free_seat(host, env, tmp_path):
    port, _ = host(3)
    first = spawn(env, "--server", f"127.0.0.1:{port}", "--name", "Ana")
    t2 = _create_waiting_table(first)
    second = spawn(env, "--server", f"127.0.0.1:{port}", "--name", "Ana", "--table", t2)
    second.expect(f"You sit at table {t2}, seat 1.")
    _both_play(first, second)


def test_tokens_are_kept_per_player_name(host, env, tmp_path):
    """Bo, on the same account, never takes Ana's kept token (another key)."""
    port, _ = host(3)
    first = spawn(env, "--server", f"127.0.0.1:{port}", "--name", "Ana")
    t2 = _create_waiting_table(first)
    kept = json.loads((tmp_path / "cache" / "quinze" / "seats.json").read_text())
    assert set(kept) == {f"127.0.0.1:{port}/{t2}/Ana"}
    second = spawn(env, "--server", f"127.0.0.1:{port}", "--name", "Bo", "--table", t2)
    second.expect(f"You sit at table {t2}, seat 1.")
    assert "kept seat" not in plain(second.before)
    first.expect(r"Game 1 starts: Ana, Bo\.")
    for child in (first, second):
        child.sendintr()
        child.expect(pexpect.EOF)
        child.close()


def test_local_game_is_logged_in_logs_and_the_path_is_said(env, tmp_path):
    child = spawn(env, "--local", "--seed", "3", "--name", "Ana", "--option", "target=1", cwd=str(tmp_path))
    child.expect(PROMPT_EN)
    child.sendline("quit")  # a forfeited game is logged too
    child.expect(r"forfeit this game\? \[y/N\] ")
    child.sendline("y")
    child.expect(r"Replay log: (logs/[a-z2-9]{4}-t1\.jsonl) \(game 1 of the file\)\.")
    first_log = child.match.group(1)
    child.expect(r"Check it with: quinze replay " + first_log + r" --game 1 --verify")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    check = forkkit.run([QUINZE, "replay", first_log, "--game", "1", "--verify"], cwd=str(tmp_path),
                           capture_output=True, text=True, env=env, timeout=TIMEOUT)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "verified" in check.stdout
    # a second local game is another server run: its own table id and file, never mixed with the first
    again = spawn(env, "--local", "--seed", "4", "--name", "Ana", "--log-dir", "logs", cwd=str(tmp_path))
    again.expect(PROMPT_EN)
    again.sendline("quit")
    again.expect(r"\[y/N\] ")
    again.sendline("y")
    again.expect(r"Replay log: (logs/[a-z2-9]{4}-t1\.jsonl) \(game 1 of the file\)")
    assert again.match.group(1) != first_log
    again.expect(pexpect.EOF)


def test_no_log_writes_nothing_and_log_options_need_local(env, tmp_path):
    child = spawn(env, "--local", "--seed", "3", "--name", "Ana", "--no-log", cwd=str(tmp_path))
    child.expect(PROMPT_EN)
    child.sendline("quit")
    child.expect(r"\[y/N\] ")
    child.sendline("y")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "Replay log" not in plain(child.before)
    assert not (tmp_path / "logs").exists()
    proc = forkkit.run([QUINZE, "play", "--server", "127.0.0.1:1", "--no-log"], capture_output=True, text=True,
                          env=env, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2 and "--no-log go with --local" in proc.stdout + proc.stderr


def test_empty_answers_end_the_prompt_line_in_a_terminal(host, env):
    port, _ = host(3)
    child = spawn(env, "--server", f"127.0.0.1:{port}")
    child.expect(r"Your name \[[^\]]*\]: ")
    child.send("\r")  # the default name
    child.expect("Tables at")
    assert plain(child.before).startswith("\r\n"), repr(child.before)
    child.expect("lobby> ")
    child.send("\r")  # refresh
    child.expect("Tables at")
    assert plain(child.before).startswith("\r\n"), repr(child.before)  # not "lobby> Tables at"
    child.expect("lobby> ")
    child.sendline("q")
    child.expect(pexpect.EOF)


def test_answers_end_the_prompt_line_when_stdin_is_a_pipe(host, env):
    port, _ = host(3)
    proc = forkkit.Popen([QUINZE, "play", "--server", f"127.0.0.1:{port}"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    seen = b""
    try:
        for marker, count, answer in ((b"Your name [", 1, b"\n"), (b"lobby> ", 1, b"\n"), (b"lobby> ", 2, b"q\n")):
            while seen.count(marker) < count:
                chunk = os.read(proc.stdout.fileno(), 4096)
                assert chunk, seen.decode()
                seen += chunk
            proc.stdin.write(answer)
            proc.stdin.flush()
        assert proc.wait(timeout=TIMEOUT) == 0
    finally:
        proc.kill()
    out = seen.decode() + proc.stdout.read().decode()
    proc.stdin.close()
    lines = out.splitlines()
    assert any(ln.startswith("Your name [") and ln.endswith(": ") for ln in lines), out
    assert sum(1 for ln in lines if ln == "lobby> ") == 2, out  # each answer ends the prompt's line
    assert "lobby> Tables" not in out and "Bye." in lines, out
