"""``quinze replay --seat N`` tells that seat's own actions in the second person, as ``quinze
play`` does ("You draw 7H", not "bob (you) draws"; issue 14), in the three games; the whole
table keeps the names. ``quinze replay`` on a real log file, run in this process (tests/clikit.py:
the console script's own entry point; its output and exit code are the subject)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from clikit import quinze
from test_replay_cli import played

from quinze_protocol.replaylog import dumps_records

GAMES = [("quinze", ("greedy", "random")), ("quatorze", ("greedy", "random")), ("quinze-classique", ("threshold", "random"))]
OLD = re.compile(r"\bbob \(you\) (draws|makes|places|ends|goes|lays|discards|swaps|passes|stands|will|checks|calls|"
                 r"raises|folds|is burnt|wins|deals|takes)\b")


def replay(log: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``quinze replay LOG ARGS``, which must exit 0."""
    done = quinze("replay", str(log), *args)
    assert done.returncode == 0, done.stderr
    return done


@pytest.mark.parametrize(("game", "bots"), GAMES)
def test_the_seat_told_is_you(tmp_path: Path, game: str, bots: tuple[str, str]) -> None:
    log = tmp_path / "game.jsonl"
    log.write_text(dumps_records(played(game, 5, bots)), encoding="utf-8")
    told = replay(log, "--seat", "1").stdout
    assert "seen by: seat 1, bob (you)" in told
    assert re.search(r"^#\d+\s+You [a-z]", told, re.M), told[:3000]  # our own actions: "You draw ..."
    assert not OLD.search(told), OLD.search(told)
    whole = replay(log).stdout
    assert not re.search(r"\bYou\b", whole)  # the whole table: every seat by its name


def test_the_seat_can_be_named_by_its_player(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    log.write_text(dumps_records(played("quatorze", 6, ("greedy", "random"))), encoding="utf-8")
    by_name = replay(log, "--seat", "bob")
    by_number = replay(log, "--seat", "1")
    assert by_name.stdout == by_number.stdout and "You draw" in by_name.stdout
    wrong = quinze("replay", str(log), "--seat", "cy")
    assert wrong.returncode == 1 and "--seat: game 1 has no player 'cy' (seats: 0 ana, 1 bob)" in wrong.stderr
    assert wrong.stdout == ""
