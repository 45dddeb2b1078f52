"""Table clocks on a real server (PROTOCOL.md "Clocks", `notice`): per move, a time bank, none.

Time is trio's MockClock: the test sleeps minutes of clock time in no real time; the server's
connections are in-memory streams, so no bytes are in flight outside trio when the clock jumps. The heartbeat is set far apart so that clients which do not read meanwhile stay.
"""

from __future__ import annotations

import pytest
import trio
import trio.testing

from netclient import NetClient
from serverkit import TOY, create, memory_serving

SLOW_HEARTBEAT = {"heartbeat": 1e6}


@pytest.fixture
def clock() -> trio.testing.MockClock:
    return trio.testing.MockClock(autojump_threshold=0.02)


async def _pair(port: int, **fields):
    a = await NetClient.connect(port, "ana")
    b = await NetClient.connect(port, "bob")
    table = await create(a, TOY, **fields)
    await a.request({"type": "join", "table": table, "seat": 0}, "joined")
    await b.request({"type": "join", "table": table, "seat": 1}, "joined")
    return a, b, table


async def test_a_time_bank_is_charged_per_decision_plus_the_increment(clock: trio.testing.MockClock) -> None:
    async with memory_serving(**SLOW_HEARTBEAT) as port:
        bank = {"kind": "bank", "base": 100.0, "increment": 5.0}
        a, b, table = await _pair(port, clock=bank)
        lister = await NetClient.connect(port, "sue")
        created = await lister.request({"type": "list-tables"}, "tables")
        assert created["tables"][0]["clock"] == bank and created["tables"][0]["move_time"] is None
        req = await a.expect("action-request")
        assert req["clock"] == {"kind": "bank", "left": [100.0, 100.0], "increment": 5.0}
        assert req["deadline"] == 100.0
        notice = await b.expect("notice", kind="clock")  # bob is told whose clock runs
        assert notice["seat"] == 0 and notice["clock"]["left"] == [100.0, 100.0]
        await trio.sleep(30)  # ana thinks 30 s
        await a.send({"type": "action", "table": table, "request": req["request"], "action": req["legal"][0]})
        await a.expect("accepted")
        req_b = await b.expect("action-request")
        assert req_b["clock"]["left"][0] == pytest.approx(75.0, abs=0.5)  # 100 - 30 + 5
        await b.send({"type": "action", "table": table, "request": req_b["request"], "action": req_b["legal"][0]})
        req = await a.expect("action-request")
        assert req["deadline"] == pytest.approx(75.0, abs=0.5)
        await trio.sleep(80)  # more than the bank left: the game is forfeited on time
        over = await b.expect("game-over")
        assert over["forfeit"] == {"seat": 0, "kind": "timeout"}


async def test_the_per_move_clock_is_unchanged(clock: trio.testing.MockClock) -> None:
    async with memory_serving(**SLOW_HEARTBEAT) as port:
        a, b, table = await _pair(port, move_time=20.0)
        req = await a.expect("action-request")
        assert req["deadline"] == 20.0 and req["clock"] == {"kind": "move", "left": [20.0, None], "move": 20.0}
        await trio.sleep(21)
        assert (await b.expect("game-over"))["forfeit"] == {"seat": 0, "kind": "timeout"}


async def test_no_clock_never_forfeits_and_others_hear_of_a_long_think(clock: trio.testing.MockClock) -> None:
    async with memory_serving(**SLOW_HEARTBEAT) as port:
        a, b, table = await _pair(port, clock={"kind": "none"})
        req = await a.expect("action-request")
        assert req["clock"] == {"kind": "none", "left": [None, None]} and req["deadline"] == 86400.0
        thinking = await b.expect("notice", timeout=60, kind="thinking")  # after 30 s of clock time
        assert thinking["seat"] == 0 and thinking["seconds"] >= 30
        await trio.sleep(3 * 86400)  # three days: still ana's turn, no forfeit
        await a.send({"type": "action", "table": table, "request": req["request"], "action": req["legal"][0]})
        await a.expect("accepted")
        assert not any(m["type"] == "game-over" for m in b.seen)


async def test_bots_may_not_sit_at_a_table_without_a_clock() -> None:
    async with memory_serving() as port:
        ana = await NetClient.connect(port, "ana")
        table = await create(ana, TOY, clock={"kind": "none"})
        bot = await NetClient.connect(port, "robot", role="bot")
        err = await bot.request({"type": "join", "table": table}, "error")
        assert err["code"] == "no-clock" and "only people" in err["reason"]
        assert (await ana.request({"type": "join", "table": table}, "joined"))["seat"] == 0


async def test_built_in_bots_may_sit_there_on_a_local_server() -> None:
    async with memory_serving(builtin_bots=True) as port:
        ana = await NetClient.connect(port, "ana")
        table = await create(ana, TOY, clock={"kind": "none"})
        bot = await NetClient.connect(port, "greedy-1", role="bot")
        assert (await bot.request({"type": "join", "table": table}, "joined"))["seat"] == 0


async def test_people_hear_when_a_player_drops_and_comes_back() -> None:
    async with memory_serving() as port:
        a = await NetClient.connect(port, "ana")
        b = await NetClient.connect(port, "bob")
        table = await create(a, TOY)
        await a.request({"type": "join", "table": table, "seat": 0}, "joined")
        jb = await b.request({"type": "join", "table": table, "seat": 1}, "joined")
        await a.expect("action-request")
        await b.aclose()
        gone = await a.expect("notice", kind="disconnected")
        assert gone["seat"] == 1
        b2 = await NetClient.connect(port, "bob")
        await b2.request({"type": "join", "table": table, "token": jb["token"]}, "joined")
        back = await a.expect("notice", kind="reconnected")
        assert back["seat"] == 1


async def test_bots_get_no_notices() -> None:
    async with memory_serving() as port:
        bot = await NetClient.connect(port, "robot", role="bot")
        ana = await NetClient.connect(port, "ana")
        table = await create(bot, TOY, move_time=30.0)
        await bot.request({"type": "join", "table": table, "seat": 0}, "joined")
        await ana.request({"type": "join", "table": table, "seat": 1}, "joined")
        req = await bot.expect("action-request")
        await bot.send({"type": "action", "table": table, "request": req["request"], "action": req["legal"][0]})
        await ana.expect("action-request")
        assert any(m["type"] == "notice" for m in ana.seen)
        assert not any(m["type"] == "notice" for m in bot.seen)


@pytest.mark.parametrize("clock_spec", [{"kind": "bank", "base": 0}, {"kind": "wall"}])
async def test_a_bad_clock_is_refused_and_the_server_goes_on(clock_spec: dict) -> None:
    async with memory_serving() as port:
        ana = await NetClient.connect(port, "ana")
        await ana.send({"type": "create-table", "game": TOY, "clock": clock_spec})
        err = await ana.expect("error")
        assert err["code"] == "bad-field" and err["reason"].startswith("create-table.clock.")
        assert (await ana.request({"type": "list-tables"}, "tables"))["tables"] == []
