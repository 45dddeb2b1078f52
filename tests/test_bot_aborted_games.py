"""``quinze bot`` counts as finished only the games that reached their end (a forfeit's included),
and says how many were aborted (the server stopped them: result reason ``aborted``, no result, no
point). It said ``1 game(s) finished`` for a game the server aborted.

Real processes and TCP: ``quinze serve``, two ``quinze bot`` relays (a bot program from tests/bots/
and a built-in), the server stopped by SIGTERM while the second game runs (the program says when
it started, then answers nothing), or a table played to its end."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from test_play_aborted import _serve

PY = sys.executable
QUINZE = str(Path(PY).with_name("quinze"))
ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "tests" / "bots"
TIMEOUT = 60


def _bots(port: int, program: list[str], games: int) -> tuple[subprocess.Popen, subprocess.Popen, str]:
    first = subprocess.Popen([QUINZE, "bot", "--server", f"127.0.0.1:{port}", "--create", "quinze", "--games", str(games),
                              "--option", "target=1", "--name", "first", "--", *program],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert first.stdout is not None
    table = first.stdout.readline().strip()
    second = subprocess.Popen([QUINZE, "bot", "--server", f"127.0.0.1:{port}", "--table", table, "--name", "greedy",
                               "--", "builtin:greedy"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return first, second, table


def _wait_for(check, what: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def test_a_game_the_server_aborted_is_not_counted_finished(tmp_path: Path) -> None:
    server, port = _serve(tmp_path)
    first = second = None
    try:
        mark = tmp_path / "second-game"
        first, second, table = _bots(port, [PY, str(BOTS / "stall_second.py"), str(mark)], games=3)
        _wait_for(mark.exists, "game 2 never started")
        server.send_signal(signal.SIGTERM)
        errs = [p.communicate(timeout=TIMEOUT)[1] for p in (first, second)]
    finally:
        for p in (first, second, server):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait(timeout=TIMEOUT)
    for err in errs:
        assert re.search(r"^game 1: points \[[^]]*\], winners \[\d\], reason target$", err, re.M), err
        assert "game 2: points [0.0, 0.0], winners [], reason aborted" in err, err
        assert re.search(r"^summary: 1 game\(s\) finished, 1 aborted, [01] point\(s\) for this seat, 0 bot failure\(s\)$",
                         err, re.M), err
    points = [float(re.search(r"finished, 1 aborted, (\S+) point", err).group(1)) for err in errs]
    assert sorted(points) == [0.0, 1.0]  # game 1's point, nothing for the aborted game


def test_a_table_played_through_has_no_aborted_games_said(tmp_path: Path) -> None:
    server, port = _serve(tmp_path)
    first = second = None
    try:
        first, second, table = _bots(port, [PY, str(ROOT / "examples" / "bots" / "random_bot.py")], games=2)
        errs = [p.communicate(timeout=TIMEOUT)[1] for p in (first, second)]
        assert [p.returncode for p in (first, second)] == [0, 0], errs
    finally:
        for p in (first, second, server):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait(timeout=TIMEOUT)
    for err in errs:
        assert f"table {table} closed after 2 game(s)\n" in err, err
        assert re.search(r"^summary: 2 game\(s\) finished, [012] point\(s\) for this seat, 0 bot failure\(s\)$", err, re.M), err
        assert "aborted" not in err
