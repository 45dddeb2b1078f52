"""Replay logs written by the server: one file per table, each game fsynced when it ends
(PROTOCOL.md "Replay log"), forfeited games included."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from netclient import NetClient
from serverkit import play_pair, second_table_plays, seated_pair, memory_serving

from quinze_protocol.messages import commitment
from quinze_protocol.replaylog import read_log
from quinze_protocol.replaysim import verify


@pytest.fixture
def fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every os.fsync call of a file (still done for real). The fsync of the logs' folder once a
    new log is linked in (quinze_server.logs: its name made durable) is done but not listed."""
    calls: list[int] = []
    real = os.fsync

    def spy(fd: int) -> None:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            calls.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", spy)
    return calls


async def test_each_game_is_logged_and_fsynced(tmp_path: Path, fsyncs: list[int]) -> None:
    logs = tmp_path / "logs"
    async with memory_serving(log_dir=logs) as port:
        a, b, table, _ = await seated_pair(port, "quinze", options={"target": 1}, games=2, seed=9)
        overs = [await play_pair(a, b, table) for _ in range(2)]
        await a.expect("table-closed", table=table)  # sent once the last game is on disk
        text = (logs / f"{table}.jsonl").read_text(encoding="utf-8")
        assert len(fsyncs) == 2
        read = read_log(text)
        assert not read.problems and not read.truncated and len(read.games) == 2
        for logged, (over, _) in zip(read.games, overs):
            h = logged.header
            assert (h["game"], h["table"], h["number"], h["seed"], h["salt"]) == ("quinze", table, over["number"], over["seed"], over["salt"])
            assert h["commitment"] == commitment(over["seed"], over["salt"]) and h["players"] == ["ana", "bob"]
            assert logged.actions == [{"seat": x["seat"], "action": x["action"]} for x in over["actions"]]
            assert logged.times == [x["time"] for x in over["actions"]]  # the seconds each seat took
            assert logged.result["result"] == over["result"]
            assert verify(logged) is None
        # events are full information: the private hands are in the log
        first_event = json.loads(text.splitlines()[1])
        assert first_event["record"] == "event" and "private" in first_event["event"]
        await second_table_plays(port)
        assert len(fsyncs) == 3  # the second table's game, too


async def test_a_forfeited_game_is_logged(tmp_path: Path, fsyncs: list[int]) -> None:
    async with memory_serving(log_dir=tmp_path) as port:
        a, b, table, _ = await seated_pair(port)
        req = await a.expect("action-request")
        await a.send({"type": "action", "table": table, "request": req["request"], "action": {"type": "say", "n": 1}})
        await a.expect("accepted")
        await a.send({"type": "forfeit", "table": table, "reason": "garbage"})
        over = await b.expect("game-over")
        await b.expect("table-closed", table=table)
        read = read_log((tmp_path / f"{table}.jsonl").read_text(encoding="utf-8"))
        (logged,) = read.games
        assert logged.result["forfeit"] == {"seat": 0, "kind": "garbage"} == over["forfeit"]
        assert logged.result["result"]["reason"] == "forfeit" and len(logged.actions) == 1
        assert len(fsyncs) == 1
        await second_table_plays(port)


async def test_no_log_dir_no_files(tmp_path: Path, fsyncs: list[int]) -> None:
    async with memory_serving() as port:
        a, b, table, _ = await seated_pair(port)
        await play_pair(a, b, table)
        await a.expect("table-closed")
        assert fsyncs == []
        c = await NetClient.connect(port, "cy")
        await c.aclose()
