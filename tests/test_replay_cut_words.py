"""``quinze replay --verify`` on a log cut mid-game says what it found, in a statement: where the
log ends (after move N of game G, without its end record), that the file is incomplete, and the
likely causes (no question mark); exit 1, the status of a verify that fails (PROTOCOL.md "Replay
log"). Real log files (the example match's), cut as a crash, a kill or ``head -c`` leaves them,
read by the ``quinze`` executable."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "positions" / "quinze-match.jsonl"
QUINZE = str(Path(sys.executable).with_name("quinze"))


def verify(log: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([QUINZE, "replay", str(log), "--verify"], capture_output=True, text=True, timeout=60)


def lines_through_action(n: int) -> list[str]:
    """The example game's lines up to and including its ``n``-th action record (with its events)."""
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)
    seen = 0
    for i, line in enumerate(lines):
        if json.loads(line)["record"] == "action":
            seen += 1
            if seen == n + 1:
                return lines[:i]
    raise AssertionError("the example game has fewer actions")


def test_a_log_cut_between_records_says_where_it_ends_and_why(tmp_path: Path) -> None:
    log = tmp_path / "cut.jsonl"
    kept = lines_through_action(12)
    log.write_text("".join(kept), encoding="utf-8")
    r = verify(log)
    assert r.returncode == 1, r.stdout + r.stderr
    line = r.stdout.splitlines()[0]
    assert line.startswith("game 1: INCOMPLETE: ")
    assert f"the log ends after move 12 of game 1 (line {len(kept)}) without the game's end record" in line
    assert "the file is incomplete" in line and "likely causes: the program writing it crashed or was killed" in line
    assert "?" not in line
    assert "its 12 actions verify" in line
    assert r.stdout.splitlines()[-1] == "0/1 verified; 1 incomplete (checked as far as they go)"


def test_a_log_cut_inside_a_record_says_where_it_ends_and_why(tmp_path: Path) -> None:
    log = tmp_path / "cut.jsonl"
    text = "".join(lines_through_action(20))
    log.write_text(text[:-15], encoding="utf-8")  # head -c: the last record (an event of move 20) loses its end
    r = verify(log)
    assert r.returncode == 1, r.stdout + r.stderr
    line = r.stdout.splitlines()[0]
    n = text.count("\n")
    assert line.startswith(f"game 1: CUT SHORT at line {n}: the log ends there, after move 20 of game 1, "
                           "without the game's end record: the file is incomplete; likely causes: ")
    assert "crash while writing?" not in line and "?" not in line
    assert "the 20 actions before it verify" in line


def test_a_cut_game_followed_by_another_run_says_the_next_header_follows(tmp_path: Path) -> None:
    log = tmp_path / "two.jsonl"
    kept = lines_through_action(5)
    log.write_text("".join(kept) + EXAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
    r = verify(log)
    assert r.returncode == 1, r.stdout + r.stderr
    first, second = r.stdout.splitlines()[:2]
    assert first.startswith(f"game 1: INCOMPLETE: the game's records stop after move 5 of game 1 (line {len(kept)}), "
                            f"and game 2's header follows at line {len(kept) + 1} without game 1's end record")
    assert "a later run appended to the file" in first and "the log ends" not in first
    assert second.startswith("game 2: verified")
