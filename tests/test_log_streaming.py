"""Readers of game logs take them a game at a time (quinze_protocol.replaylog.iter_log), never the
whole file: the resume of match and tournament cutting the log back to the journal's games
(quinze_cli.journal.reconcile_log), the count of a local player's logged games
(quinze_cli.play.local.count_logged); and ``quinze replay --seat`` checks the seat in the first
game before anything is printed, a later game without it said in its place."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from clikit import quinze
from test_replay_cli import played

from quinze_protocol.replaylog import dumps_records, read_log


@pytest.fixture
def whole_reads_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading a whole file or parsing a whole log fails: what passes streams."""

    def whole(*_: Any, **__: Any) -> Any:
        raise AssertionError("the whole log was read")

    monkeypatch.setattr(Path, "read_bytes", whole)
    monkeypatch.setattr(Path, "read_text", whole)
    monkeypatch.setattr("quinze_protocol.replaylog.read_log", whole)


def games(*seeds: int) -> list[list[dict[str, Any]]]:
    return [played("quinze", seed, ("greedy", "random"), n) for n, seed in enumerate(seeds, 1)]


def test_reconcile_keeps_the_journals_games_line_for_line(tmp_path: Path, whole_reads_fail: None) -> None:
    from quinze_cli.journal import reconcile_log

    first, second, third = (dumps_records(g) for g in games(5, 6, 7))
    cut = dumps_records(games(8)[0][:4])[:-9]  # a game cut mid-record by a crash
    log = tmp_path / "games.jsonl"
    with open(log, "w", encoding="utf-8") as fh:  # open(), not Path.write_text: the fixture refuses whole reads only
        fh.write(first + second.replace("\n", "\r\n", 1) + cut + "\n" + third)
    points = {seed: g[-1]["result"]["points"] for seed, g in zip((5, 6, 7), games(5, 6, 7))}
    keep = {(5, ("ana", "bob")): points[5], (7, ("ana", "bob")): points[7], (6, ("ana", "bob")): [0.0, 0.0]}
    kept, dropped = reconcile_log(log, keep)
    assert kept == {(5, ("ana", "bob")), (7, ("ana", "bob"))}
    assert dropped == 2  # game 6: other points than the journal's; game 8: cut
    with open(log, encoding="utf-8") as fh:
        assert fh.read() == first + third


def test_count_logged_reads_a_game_at_a_time(tmp_path: Path, whole_reads_fail: None) -> None:
    from quinze_cli.play.local import count_logged

    log = tmp_path / "t1.jsonl"
    with open(log, "w", encoding="utf-8") as fh:
        fh.write("".join(dumps_records(g) for g in games(5, 6)) + dumps_records(games(7)[0][:3]))
    assert count_logged(log) == 3  # two whole games and one cut short
    assert count_logged(tmp_path / "none.jsonl") == 0


def test_whole_marks_what_read_log_lists_in_games(tmp_path: Path) -> None:
    good, flawed = games(5, 6)
    flawed = [flawed[0], {"record": "nonsense"}, *flawed[1:]]
    text = dumps_records(good) + dumps_records(flawed)
    found = read_log(text)
    assert [g.whole for g in found.games] == [True] and [g.whole for g in found.partial] == [False]
    assert found.partial[0].complete and found.partial[0].flawed


@pytest.fixture
def two_tables(tmp_path: Path) -> Path:
    """A log of two games: ana and bob, then ana and cy."""
    first, second = games(5, 6)
    for rec in second:
        if rec["record"] == "header":
            rec["players"] = ["ana", "cy"]
    log = tmp_path / "two.jsonl"
    log.write_text(dumps_records(first) + dumps_records(second), encoding="utf-8")
    return log


def test_replay_checks_the_seat_in_the_first_game_before_printing(two_tables: Path) -> None:
    picked = quinze("replay", str(two_tables), "--game", "2", "--seat", "bob")
    assert picked.returncode == 1 and "--seat: game 2 has no player 'bob'" in picked.stderr and picked.stdout == ""
    for args in ([], ["--json"]):
        wrong = quinze("replay", str(two_tables), "--seat", "cy", *args)
        assert wrong.returncode == 1 and "--seat: game 1 has no player 'cy' (seats: 0 ana, 1 bob)" in wrong.stderr
        assert wrong.stdout == ""


def test_replay_says_a_later_game_without_the_seat_in_its_place(two_tables: Path) -> None:
    told = quinze("replay", str(two_tables), "--seat", "bob")
    assert told.returncode == 1
    assert "seen by: seat 1, bob (you)" in told.stdout
    assert "Game 2: not told (game 2 has no player 'bob' (seats: 0 ana, 1 cy))" in told.stdout
    assert "warning: --seat: game 2 has no player 'bob'" in told.stderr
    as_json = quinze("replay", str(two_tables), "--seat", "bob", "--json")
    assert as_json.returncode == 1 and "game 2 has no player 'bob'" in as_json.stderr
    assert len(json.loads(as_json.stdout)) == 1  # whole JSON: the games before the one without bob
    both = quinze("replay", str(two_tables), "--seat", "ana", "--json")
    assert both.returncode == 0 and len(json.loads(both.stdout)) == 2
