"""The long-running commands on SIGHUP (their terminal closed, their ssh connection dropped) stop
as on SIGTERM (quinze_cli/interrupt.py): ``quinze match`` and ``quinze tournament`` stop their bot
programs, keep the finished games and say how to go on, ``quinze bot`` stops its program, ``quinze
play`` leaves its table (a running game forfeited at once, kind ``leave``) and says ``bye``; all
exit 130. The default action of SIGHUP killed them on the spot (exit 129): no summary, no
``--json``, and ``play``'s seat held until its move clock ran out.

Real processes: the executables with pipes and ``kill -HUP``, or in a pseudo-terminal whose master
side the test closes (the kernel hangs it up; later writes to it fail with ``EIO``); a real
``quinze serve`` and ``quinze bot`` for ``play``. Nothing asserts a duration."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import forkkit
from playkit import PROMPT, spawn_play
from test_play_aborted import _serve
from clikit import alive as _alive

PY = sys.executable
QUINZE = str(Path(PY).with_name("quinze"))
ROOT = Path(__file__).resolve().parent.parent
RANDOM_BOT = f"{PY} {ROOT / 'examples' / 'bots' / 'random_bot.py'}"
TIMEOUT = 60


def _headers(path: Path) -> int:
    try:
        return path.read_text(encoding="utf-8").count('"record":"header"')
    except OSError:
        return 0


def _wait_for(check, what: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def _wait_exit(pid: int) -> int:
    deadline = time.monotonic() + TIMEOUT
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        assert time.monotonic() < deadline, "still running"
        time.sleep(0.05)


def test_sighup_stops_a_match_as_sigterm_does(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    proc = subprocess.Popen([QUINZE, "match", RANDOM_BOT, "builtin:random", "--games", "2000", "--option", "target=1",
                             "--log-dir", str(logs), "--json", str(tmp_path / "r.json")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(lambda: any(_headers(p) >= 3 for p in logs.glob("match-*.jsonl")), "no games logged")
        proc.send_signal(signal.SIGHUP)
        out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, (out, err)
    assert "Traceback" not in err
    log = next(logs.glob("match-*.jsonl"))
    assert re.search(rf"^interrupted after \d+ game\(s\); the finished games are in {re.escape(str(log))}; "
                     rf"go on with: quinze match --resume {re.escape(str(log))}$", err, re.M), err
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["interrupted"] is True and 3 <= data["played"] < 2000 and data["played"] == _headers(log)


def test_closing_the_terminal_of_a_tournament_stops_it_with_its_bots(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    child = forkkit.spawn(QUINZE, ["tournament", RANDOM_BOT, "builtin:random", "--games-per-pairing", "2000",
                                   "--option", "target=1", "--log-dir", str(logs)],
                          encoding="utf-8", timeout=TIMEOUT, dimensions=(24, 200))
    try:
        _wait_for(lambda: any(_headers(p / "games.jsonl") >= 3 for p in logs.glob("tournament-*")), "no games logged")
        bots = _bot_pids(child.pid)
        assert bots, "no bot program running"
        os.close(child.child_fd)  # the terminal window closes
        code = _wait_exit(child.pid)
    finally:
        if _alive(child.pid):
            os.kill(child.pid, signal.SIGKILL)
    assert code == 130
    _wait_for(lambda: not any(_alive(p) for p in bots), "a bot program still runs")
    event = next(logs.glob("tournament-*"))
    games = (event / "journal.jsonl").read_text(encoding="utf-8").splitlines()[1:]
    assert len(games) == _headers(event / "games.jsonl") >= 3  # every finished game in the journal: --resume goes on


def _bot_pids(parent: int) -> list[int]:
    """The random_bot.py programs among ``parent``'s children."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmd = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == parent and b"random_bot.py" in cmd:
            found.append(int(entry.name))
    return found


def test_sighup_stops_quinze_bot_and_its_program(tmp_path: Path) -> None:
    server, port = _serve(tmp_path)
    bot = None
    try:
        bot = subprocess.Popen([QUINZE, "bot", "--server", f"127.0.0.1:{port}", "--create", "quinze", "--name", "b",
                                "--", *RANDOM_BOT.split()], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert bot.stdout is not None
        bot.stdout.readline()  # the table id: seated, waiting for a player
        _wait_for(lambda: _bot_pids(bot.pid), "no bot program")
        program = _bot_pids(bot.pid)
        bot.send_signal(signal.SIGHUP)
        out, err = bot.communicate(timeout=TIMEOUT)
        assert bot.returncode == 130, (out, err)
        assert "interrupted: stopping the bot" in err and "Traceback" not in err
        _wait_for(lambda: not any(_alive(p) for p in program), "the bot program still runs")
    finally:
        for p in (bot, server):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait(timeout=TIMEOUT)


def test_closing_the_terminal_of_play_leaves_the_table_at_once(tmp_path: Path, env) -> None:
    server, port = _serve(tmp_path)
    bot = child = None
    try:
        bot = subprocess.Popen([QUINZE, "bot", "--server", f"127.0.0.1:{port}", "--create", "quinze", "--name", "b",
                                "--move-time", "600", "--", "builtin:greedy"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert bot.stdout is not None
        table = bot.stdout.readline().strip()
        child = spawn_play(env, "--server", f"127.0.0.1:{port}", "--table", table, "--name", "ana", size=(40, 100))
        child.expect(PROMPT)  # mid-game, our turn, 600 s on our clock
        os.close(child.child_fd)  # the terminal window closes
        child.child_fd = -1
        assert _wait_exit(child.pid) == 130
        log = tmp_path / "logs" / f"{table}.jsonl"
        _wait_for(lambda: '"kind":"leave"' in (log.read_text(encoding="utf-8") if log.exists() else ""),
                  "the game was not forfeited by leaving")  # not held for 600 s as a lost connection's seat
    finally:
        for p in (bot, server):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait(timeout=TIMEOUT)
        if child is not None and _alive(child.pid):
            os.kill(child.pid, signal.SIGKILL)
