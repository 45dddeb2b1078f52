"""A per-bot figure over no game is no figure: ``-`` in the results tables, null in ``--json``,
never ``0.0`` (which reads as a Le Quinze total of 0, the best there is, or a score of 0).

- Score and Win rate (per game played): none when the bot played no game (the match stopped
  before the first one finished).
- The game's own score (``game_score``, ``game_score_mean``: over the games ended without a
  forfeit): none when no game did, ``- (0 of N)`` as docs/match.md "Results" says.

Real processes: ``quinze match`` and ``quinze tournament`` with real bot programs (tests/bots/)
and their own servers; the interrupted match is the executable, stopped by SIGINT while its bots
hang in the first game."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import clikit

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "tests" / "bots"
PY = sys.executable
QUINZE = str(Path(PY).with_name("quinze"))
DEAD = f"{PY} {BOTS / 'exit_before_start.py'}"
HANG = f"{PY} {BOTS / 'hang.py'}"


def _row(out: str, bot: str) -> list[str]:
    line = next(line for line in out.splitlines() if line.startswith(f"│ {bot} "))
    return [cell.strip() for cell in line.strip("│").split("│")]


def test_a_match_with_no_finished_game_has_no_figures(tmp_path: Path) -> None:
    proc = subprocess.Popen([QUINZE, "match", HANG, HANG, "--games", "4", "--move-time", "60",
                             "--log-dir", str(tmp_path / "logs"), "--json", str(tmp_path / "r.json")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not _hanging(proc.pid):
            assert time.monotonic() < deadline, "the bots never started"
            time.sleep(0.05)
        time.sleep(0.5)  # both programs up, the first game running: it cannot finish (they hang)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "interrupted: no game finished" in err
    for bot in ("hang", "hang-2"):
        # Bot, Games, Points, Score, Mean total, Forfeits
        assert _row(out, bot) == [bot, "0", "0", "-", "- (0 of 0)", "-"], out
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["played"] == 0
    for b in data["bots"]:
        assert (b["games"], b["scored_games"]) == (0, 0)
        assert b["score"] is None and b["win_rate"] is None and b["game_score"] is None and b["game_score_mean"] is None
        assert b["time"]["mean"] is None


def _hanging(parent: int) -> bool:
    """Whether two hang.py programs run under ``parent``."""
    n = 0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                cmd = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            n += int(stat.rsplit(")", 1)[1].split()[1]) == parent and b"hang.py" in cmd
    return n >= 2


def test_games_all_forfeited_have_no_game_score(tmp_path: Path) -> None:
    result = clikit.quinze("match", DEAD, DEAD, "--games", "4", "--seed", "1", "--log-dir", str(tmp_path / "logs"),
                           "--json", str(tmp_path / "r.json"), env={"COLUMNS": "200"})
    assert result.returncode == 0, result.stderr
    # Which of two programs that both die at once forfeits a game is a race (the first failure the
    # server takes): each game has one forfeit, so the points add up to the games, however split.
    rows = [_row(result.stdout, bot) for bot in ("exit_before_start", "exit_before_start-2")]
    assert all(r[1] == "4" and r[4] == "- (0 of 4)" for r in rows), result.stdout
    assert float(rows[0][2]) + float(rows[1][2]) == 4, result.stdout
    data = json.loads((tmp_path / "r.json").read_text())
    assert sum(b["score"] for b in data["bots"]) == 1.0
    for b in data["bots"]:
        assert (b["games"], b["scored_games"]) == (4, 0)
        assert b["game_score"] is None and b["game_score_mean"] is None


def test_a_tournament_of_forfeits_has_no_game_score(tmp_path: Path) -> None:
    result = clikit.quinze("tournament", DEAD, "builtin:random", "--games-per-pairing", "2", "--seed", "1",
                           "--log-dir", str(tmp_path / "logs"), "--json", str(tmp_path / "t.json"), env={"COLUMNS": "200"})
    assert result.returncode == 0, result.stderr
    for bot in ("exit_before_start", "random"):
        row = next(r for r in (_standing(line) for line in result.stdout.splitlines()) if r and r[1] == bot)
        assert row[2] == "2" and row[5] == "- (0 of 2)", result.stdout
    data = json.loads((tmp_path / "t.json").read_text())
    rows = data["standings"]
    assert rows and all(r["game_score"] is None and r["game_score_mean"] is None for r in rows), rows


def _standing(line: str) -> list[str] | None:
    if not line.startswith("│ "):
        return None
    return [cell.strip() for cell in line.strip("│").split("│")]


def test_a_tournament_stopped_before_its_first_game_ended_says_so_on_stdout(tmp_path: Path) -> None:
    """Match prints its table of '-' there; the tournament has no standings to print, and says so
    on stdout (a script reading it sees how it ended), exit 130 as for any Ctrl-C."""
    import signal
    import subprocess
    import sys
    import time

    hang = Path(__file__).parent / "bots" / "hang.py"
    quinze = str(Path(sys.executable).parent / "quinze")
    proc = subprocess.Popen([quinze, "tournament", f"{sys.executable} {hang}", "builtin:random", "--games-per-pairing", "2",
                             "--move-time", "60", "--log-dir", str(tmp_path / "logs")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    assert "event directory" in proc.stderr.readline()  # started: the first game waits on the bot
    deadline = time.monotonic() + 30
    while not list((tmp_path / "logs").glob("*/journal.jsonl")) and time.monotonic() < deadline:
        time.sleep(0.05)  # the games are under way (the hung bot keeps the first from ending)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert out.strip() == "Standings: none, no game finished (0 of 2)", out
    assert "interrupted after 0 of 2 game(s)" in err
