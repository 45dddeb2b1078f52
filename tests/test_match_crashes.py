"""``quinze match`` with a bot program that crashes or hangs (real subprocess bots, the match's own
server): a crashed program loses that game and is restarted for the next one (cutechess-cli's and
fastchess's ``-recover``); ``--max-restarts`` bounds the restarts *in a row*, so a program that
crashes now and then plays the whole match (exit 0), one that keeps failing stops it (exit 1) with
one message saying what kept happening; a program that keeps crashing at start-up is said so
once. The results table and ``--json`` count every failure, each once (docs/match.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import clikit

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "tests" / "bots"
PY = sys.executable


def match(tmp_path: Path, bot: str, *args: str):
    result = clikit.quinze("match", bot, "builtin:random", "--seed", "1", "--log-dir", str(tmp_path / "logs"),
                           "--json", str(tmp_path / "r.json"), *args)
    data = json.loads((tmp_path / "r.json").read_text())
    lines = [line for line in result.stderr.splitlines() if " forfeits: " in line]
    return result, data, lines


def test_a_bot_that_crashes_once_loses_that_game_only(tmp_path: Path) -> None:
    bot = f"{PY} {BOTS / 'crash_in_games.py'} {tmp_path / 'count'} 3"
    result, data, lines = match(tmp_path, bot, "--games", "6")
    assert result.returncode == 0, result.stderr
    assert data["complete"] and data["played"] == 6
    assert lines == ["game 3: crash_in_games (seat 0) forfeits: crash (mid-game): the program exited with code 1; "
                     "stderr ends with: crash_in_games: exiting with code 1 in game 3"]
    assert [(f["game"], f["bot"], f["kind"], f["startup"]) for f in data["failures"]] == [(3, "crash_in_games", "crash", False)]
    assert data["bots"][0]["forfeits"] == {"crash": 1}


def test_crashes_now_and_then_beyond_max_restarts_do_not_stop_the_match(tmp_path: Path) -> None:
    # 4 crashes with --max-restarts 2, never two in a row: every one is restarted, the match ends.
    bot = f"{PY} {BOTS / 'crash_in_games.py'} {tmp_path / 'count'} 1,3,5,7"
    result, data, lines = match(tmp_path, bot, "--games", "8", "--max-restarts", "2")
    assert result.returncode == 0, result.stderr
    assert data["complete"] and data["played"] == 8 and data["error"] is None
    assert [f["game"] for f in data["failures"]] == [1, 3, 5, 7] and len(lines) == 4
    assert data["bots"][0]["forfeits"] == {"crash": 4}


def test_a_bot_that_always_crashes_at_start_is_said_once(tmp_path: Path) -> None:
    result, data, lines = match(tmp_path, f"{PY} {BOTS / 'exit_before_start.py'}", "--games", "40")
    assert result.returncode == 1
    assert lines == ["game 1: exit_before_start (seat 0) forfeits: crash (at start-up, before its first answer): "
                     "the program exited with code 3"]
    said = " ".join(result.stderr.split())
    assert ("error: the match stopped after 4 game(s): bot exit_before_start crashes at start-up: its program ended "
            "before answering anything in each of its last 4 games, restarted 3 time(s) in a row (the program exited "
            "with code 3); stopping the match") in said
    assert said.count("crashes at start-up") == 1
    assert data["played"] == 4 and not data["complete"] and "crashes at start-up" in data["error"]
    assert [f["game"] for f in data["failures"]] == [1, 2, 3, 4] and all(f["startup"] for f in data["failures"])
    assert data["bots"][0]["forfeits"] == {"crash": 4}


def test_a_bot_that_hangs_times_out_until_its_restarts_in_a_row_run_out(tmp_path: Path) -> None:
    result, data, lines = match(tmp_path, f"{PY} {BOTS / 'hang.py'}", "--games", "40", "--move-time", "0.5",
                                "--max-restarts", "1")
    assert result.returncode == 1
    assert len(lines) == 2 and all("forfeits: timeout (mid-game)" in line for line in lines)
    said = " ".join(result.stderr.split())
    assert ("bot hang failed again after 1 restart(s) in a row (in each of its last 2 games: timeout, timeout; "
            "the last: ") in said
    assert data["played"] == 2 and [f["kind"] for f in data["failures"]] == ["timeout", "timeout"]
    assert data["bots"][0]["forfeits"] == {"timeout": 2}
