"""``quinze match --server`` when that server shuts down (SIGINT) in the middle of a game.

Real processes: ``quinze serve`` and ``quinze match`` (forked from the suite's zygote:
tests/forkkit.py). The second game is held open by a bot program that stops answering at its
first request of its second game (after making a marker file); the test then sends SIGINT to the
server, which aborts that game (``game-over`` with result reason ``"aborted"``) and says
``bye`` ``"shutdown"`` (PROTOCOL.md "Flow" 8). The match must end as for a lost server (exit 1,
``error: ... lost the server HOST:PORT ...``, the ``--resume`` line), no traceback, the aborted
game neither logged nor journaled; ``--resume`` then plays it and the rest. No duration is
asserted: the waits are generous bounds.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import forkkit
from quinze_protocol.replaylog import read_log

QUINZE = str(Path(sys.executable).with_name("quinze"))

STALL_BOT = r'''
import json, os, sys
marker = sys.argv[1]
starts = 0
for line in sys.stdin.buffer:
    msg = json.loads(line)
    if msg.get("type") == "game-start":
        starts += 1
    elif msg.get("type") == "action-request":
        if starts == 2 and not os.path.exists(marker):
            open(marker, "w").close()  # the test stops the server now; this request is never answered
            continue
        answer = {"type": "action", "table": msg["table"], "request": msg["request"], "action": msg["legal"][0]}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
'''


def _journal_games(path: Path) -> list[dict]:
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    assert lines[0]["kind"] == "match"
    return lines[1:]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="POSIX signals to a subprocess")
def test_a_server_shut_down_mid_game_ends_the_match_as_a_lost_server_and_resume_finishes(tmp_path):
    (tmp_path / "stall_bot.py").write_text(STALL_BOT)
    marker = tmp_path / "stalled"
    (tmp_path / "srv").mkdir()
    server = forkkit.Popen([QUINZE, "serve", "--no-announce", "--port", "0"], cwd=tmp_path / "srv",
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        assert server.stdout is not None
        seen = b""
        while not (m := re.search(rb"listening on \S*?127\.0\.0\.1:(\d+)", seen)):
            chunk = server.stdout.read1(4096)
            assert chunk, f"the server ended early: {seen!r}"
            seen += chunk
        port = int(m.group(1))
        match = forkkit.Popen(
            [QUINZE, "match", f"{sys.executable} stall_bot.py {marker}", "builtin:greedy", "--games", "3",
             "--seed", "5", "--option", "target=1", "--move-time", "120", "--log-dir", "logs",
             "--server", f"127.0.0.1:{port}"],
            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 60
            while not marker.exists() and match.poll() is None and time.monotonic() < deadline:
                time.sleep(0.02)
            assert marker.exists(), "the second game never reached the stalling bot"
            server.send_signal(signal.SIGINT)
            out, err = match.communicate(timeout=60)
        finally:
            if match.poll() is None:
                match.kill()
                match.wait()
        assert server.wait(timeout=30) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    assert match.returncode == 1, err
    assert "Traceback" not in err and "ExceptionGroup" not in err and "LocalProtocolError" not in err, err
    assert "in state closed" not in err, err  # the game-over before the bye is taken in, not dropped
    assert "not logged" not in err, err
    assert "game 2 at table" in err and "was aborted by the server's shutdown" in err, err
    last = err.strip().splitlines()[-1]
    assert last.startswith("error: the match stopped after 1 game(s): ") and f"lost the server 127.0.0.1:{port}" in last, err
    logs = sorted((tmp_path / "logs").glob("match-*.jsonl"))
    assert len(logs) == 1
    log = logs[0]
    assert f"go on with: quinze match --resume {Path('logs') / log.name}" in err, err
    assert [g["index"] for g in _journal_games(log.with_suffix(".journal"))] == [0]  # the aborted game is not played
    read = read_log(log.read_text())
    assert len(read.games) == 1 and read.problems == [] and read.partial == []

    again = forkkit.run([QUINZE, "match", "--resume", str(log)], cwd=tmp_path, capture_output=True, text=True,
                        timeout=120)
    assert again.returncode == 0, again.stderr
    assert "resuming: 1 done" in again.stderr
    games = _journal_games(log.with_suffix(".journal"))
    assert sorted(g["index"] for g in games) == [0, 1, 2]
    assert all(sum(g["points"]) == 1 for g in games)  # every game played to its end, none aborted
    read = read_log(log.read_text())
    assert len(read.games) == 3 and read.problems == [] and read.partial == []
