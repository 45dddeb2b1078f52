"""Two bots failing in one game (real subprocess bots, ``quinze match`` and ``quinze tournament``
in the test process, their own server): the game has one forfeit, the first failure, the one its
result in the log names. The other bot's failure came after the game was decided: it is no
forfeit (Forfeits, points, the journal's ``forfeits`` and ``--json`` agree with the log), said on
its own line and listed in ``failures`` with ``"forfeit": false`` (docs/match.md "When a bot
fails"). Both orders of failure, both commands.

The server's game-over is delayed (its table task sleeps first, a loaded server), so the second
failure is always seen by its relay before the game-over: the order of the failures is the bots'
delays', not a race."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import trio

import clikit

ROOT = Path(__file__).resolve().parent.parent
BOT = ROOT / "tests" / "bots" / "fail_on_game_start.py"
PY = sys.executable


@pytest.fixture
def slow_game_over(monkeypatch):
    from quinze_server.table import Table

    original = Table._game_over

    async def late_game_over(self, game):
        await trio.sleep(1.0)
        await original(self, game)

    monkeypatch.setattr(Table, "_game_over", late_game_over)


def results(log: Path) -> list[dict]:
    return [r for r in map(json.loads, log.read_text().splitlines()) if r["record"] == "result"]


@pytest.mark.parametrize("command", ["match", "tournament"])
@pytest.mark.parametrize("first", ["crash", "garbage"])
def test_one_forfeit_per_game_the_first_failure(tmp_path: Path, slow_game_over, command: str, first: str) -> None:
    later = "garbage" if first == "crash" else "crash"
    delay = {first: 0.0, later: 0.3}
    for k in ("crash", "garbage"):  # two programs named by their file (the bots' names)
        (tmp_path / k).write_text(f"#!/bin/sh\nexec {PY} {BOT} {k} {delay[k]}\n")
        (tmp_path / k).chmod(0o755)
    bots = [str(tmp_path / "crash"), str(tmp_path / "garbage")]
    args = [command, *bots, "--games" if command == "match" else "--games-per-pairing", "2"]
    result = clikit.quinze(*args, "--seed", "1", "--log-dir", str(tmp_path / "logs"), "--json", str(tmp_path / "r.json"))
    assert result.returncode == 0, result.stderr
    data = json.loads((tmp_path / "r.json").read_text())
    log = Path(data["log"])
    journal = log.parent / "journal.jsonl" if command == "tournament" else log.with_suffix(".journal")
    entries = [json.loads(line) for line in journal.read_text().splitlines()[1:]]
    names = ["crash", "garbage"]

    # The log: each game forfeited by the first failer's seat, the other seat won it.
    over = results(log)
    assert len(over) == 2 and len(entries) == 2
    for entry, rec in zip(sorted(entries, key=lambda e: e["index"]), over):
        seat = entry["seat_bots"].index(names.index(first))
        assert rec["forfeit"] == {"seat": seat, "kind": first}
        assert rec["result"]["winners"] == [1 - seat]
        # The journal: one forfeit, the log's; both failures, the later one no forfeit.
        assert entry["forfeits"] == [[names.index(first), first]]
        assert sorted((f["kind"], f["forfeit"]) for f in entry["failures"]) == sorted([(first, True), (later, False)]), json.dumps(entry)

    # The results and --json: Forfeits count only the forfeits; the later failer won both games.
    per_bot = {b["name"]: b for b in (data["bots"] if command == "match" else data["standings"])}
    assert per_bot[first]["forfeits"] == {first: 2}
    assert per_bot[later]["forfeits"] == {}
    assert per_bot[later]["points"] == 2 and per_bot[first]["points"] == 0
    assert sorted((f["kind"], f["forfeit"]) for f in data["failures"]) == \
        sorted([(first, True), (first, True), (later, False), (later, False)])

    # The stderr lines: the forfeits (a start-up crash in a row is said once), the later failure
    # said as no forfeit.
    lines = [line for line in result.stderr.splitlines() if line.startswith("game ")]
    forfeits = [line for line in lines if f": {first} (seat " in line and " forfeits: " in line]
    assert len(forfeits) == (1 if first == "crash" else 2), lines
    after = [line for line in lines if f": {later} (seat " in line]
    assert len(after) == 2 and all(" failed after the game was decided (no forfeit): " + later in line for line in after), lines
    assert not any(f": {later} (seat " in line and " forfeits: " in line for line in lines)
