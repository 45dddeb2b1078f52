"""Abandoned tables close, so no client can fill the server's open tables for good (PROTOCOL.md
"Timeouts and limits"): a waiting table with no seat held closes when the connection that created
it goes, an emptied one once its creator is gone, and one where nobody takes a seat for
``table_idle`` seconds. Also the refusal of an answer naming a game that is not the current one
(over, not started, or never played), and the ``quinze play`` lobby saying when its list is one
page of more tables. A real server on loopback TCP, raw clients."""

from __future__ import annotations

import io
from typing import Any

import trio
from rich.console import Console

from netclient import NetClient
from serverkit import create, play_pair, seated_pair, serving
from quinze_cli.client import connect
from quinze_cli.i18n import Catalogue
from quinze_cli.play.cards_ui import CardStyle
from quinze_cli.play.lobby import _pick, lobby
from quinze_cli.play.session import PlayOptions, Quit, Session
from quinze_cli.play.terminal import LineReader


async def _open_total(client: NetClient, want: int) -> dict[str, Any]:
    """``list-tables`` asked again until its ``total`` is ``want`` (the server sees a closed
    connection a moment after the client closed it); the last answer."""
    with trio.fail_after(10):
        while True:
            listed = await client.request({"type": "list-tables"}, "tables")
            if listed["total"] == want:
                return listed
            await trio.sleep(0.02)


async def test_tables_nobody_sat_at_close_when_their_creator_goes() -> None:
    async with serving(max_tables=10, max_tables_per_connection=5) as port:
        watcher = await NetClient.connect(port, "watcher")
        made: list[str] = []
        for k in range(2):  # the tester's flood, smaller: every creator fills its quota and goes
            raw = await NetClient.connect(port, f"raw{k}")
            made += [await create(raw) for _ in range(5)]
            if k == 0:
                await watcher.request({"type": "spectate", "table": made[0]}, "spectating")
            await raw.aclose()
        # the one watched is closed for its spectator with the documented message
        await watcher.expect("table-closed", table=made[0])
        await _open_total(watcher, 0)
        closed = await watcher.request({"type": "list-tables", "closed": True}, "tables")
        assert {t["table"]: t["state"] for t in closed["tables"]} == {t: "closed" for t in made}
        # the server's limit is free again: a fresh client creates a table
        fresh = await NetClient.connect(port, "fresh")
        table = await create(fresh)
        listed = await fresh.request({"type": "list-tables"}, "tables")
        assert [t["table"] for t in listed["tables"]] == [table]


async def test_a_table_with_players_stays_then_closes_once_emptied() -> None:
    async with serving() as port:
        maker = await NetClient.connect(port, "maker")
        bob = await NetClient.connect(port, "bob")
        watcher = await NetClient.connect(port, "watcher")
        table = await create(maker)
        unseated = await create(maker)
        await bob.request({"type": "join", "table": table, "seat": 0}, "joined")
        await watcher.request({"type": "spectate", "table": table}, "spectating")
        await watcher.request({"type": "spectate", "table": unseated}, "spectating")
        await maker.aclose()
        await watcher.expect("table-closed", table=unseated)  # the server has seen the creator go
        # but bob sits at the other one: it waits on
        listed = await watcher.request({"type": "list-tables", "table": table}, "tables")
        assert listed["tables"][0]["state"] == "waiting"
        await bob.request({"type": "leave", "table": table}, "left")
        await watcher.expect("table-closed", table=table)  # nobody left to play it
        await _open_total(watcher, 0)

        # a creator that sat at its own table and dropped (``quinze bot --create``): it closes
        ana = await NetClient.connect(port, "ana")
        own = await create(ana)
        await ana.request({"type": "join", "table": own}, "joined")
        await watcher.request({"type": "spectate", "table": own}, "spectating")
        await ana.aclose()
        await watcher.expect("table-closed", table=own)


async def test_a_table_whose_creator_stays_is_kept_and_played() -> None:
    # ``quinze match --server``: the control connection creates the table and stays, the bots
    # (other connections) sit; a player who sits and leaves does not close it
    async with serving() as port:
        control = await NetClient.connect(port, "control")
        a = await NetClient.connect(port, "a")
        b = await NetClient.connect(port, "b")
        table = await create(control)
        await a.request({"type": "join", "table": table, "seat": 0}, "joined")
        await a.request({"type": "leave", "table": table}, "left")
        listed = await control.request({"type": "list-tables", "table": table}, "tables")
        assert listed["tables"][0]["state"] == "waiting"
        await a.request({"type": "join", "table": table, "seat": 0}, "joined")
        await b.request({"type": "join", "table": table, "seat": 1}, "joined")
        over_a, _ = await play_pair(a, b, table)
        assert over_a["forfeit"] is None


async def test_a_waiting_table_nobody_joins_closes_after_its_idle_time() -> None:
    # a short configured idle time; nothing here depends on how long anything takes
    async with serving(table_idle=0.3) as port:
        ana = await NetClient.connect(port, "ana")
        table = await create(ana)
        await ana.request({"type": "join", "table": table, "seat": 0}, "joined")
        await ana.expect("table-closed", table=table)  # the other seat was never taken
        listed = await _open_total(ana, 0)
        assert listed["tables"] == []
        closed = await ana.request({"type": "list-tables", "table": table, "closed": True}, "tables")
        assert closed["tables"][0]["state"] == "closed"
        # a table whose seats are taken in time plays: its game does not close on idle
        a, b, full, _ = await seated_pair(port)
        over_a, _ = await play_pair(a, b, full)
        assert over_a["number"] == 1 and over_a["forfeit"] is None


async def test_an_answer_naming_a_game_not_yet_played_is_refused_in_those_words() -> None:
    async with serving() as port:
        a, b, table, _ = await seated_pair(port, games=2)
        req = await a.expect("action-request", number=1)
        answer = {"type": "action", "table": table, "request": req["request"], "action": req["legal"][0]}
        await a.send({**answer, "number": 99})
        refused = await a.expect("refused")
        assert refused["code"] == "stale-request" and refused["number"] == 99
        assert "game 99" in refused["reason"] and "does not exist" in refused["reason"]
        assert "over" not in refused["reason"] and "plays 2 games" in refused["reason"]
        await a.send({**answer, "number": 2})
        refused = await a.expect("refused")
        assert refused["code"] == "stale-request" and "has not started" in refused["reason"]
        assert "game 1 is the current one" in refused["reason"]
        await b.send({"type": "forfeit", "table": table, "reason": "timeout", "number": 99})
        err = await b.expect("error")
        assert err["code"] == "stale-game" and "game 99" in err["reason"] and "does not exist" in err["reason"]
        # the state is unchanged: the same request is answered for game 1
        await a.send({**answer, "number": 1})
        assert (await a.expect("accepted"))["number"] == 1


async def test_the_lobby_says_how_many_tables_its_page_shows() -> None:
    async with serving(page_size=3) as port:
        maker = await NetClient.connect(port, "maker")
        made = [await create(maker) for _ in range(5)]
        buf = io.StringIO()
        console = Console(file=buf, width=120, no_color=True, force_terminal=False)
        s = Session(PlayOptions(host="127.0.0.1", port=port, name="ana"), console, Catalogue("en"),
                    CardStyle("en", False), LineReader())
        conn = await connect("127.0.0.1", port, "ana", "player")
        s.conn = conn
        async with trio.open_nursery() as nursery:
            s.nursery = nursery
            nursery.start_soon(s._pump, conn, s.generation)

            async def typist() -> None:  # each line once its prompt is shown (lines typed before are not read)
                for i, line in enumerate(("5", "q"), 1):
                    while buf.getvalue().count("lobby> ") < i:
                        await trio.sleep(0.01)
                    s.send_ch.send_nowait(("input", line))

            nursery.start_soon(typist)
            try:
                with trio.fail_after(10):
                    await lobby(s)
            except Quit:
                pass
            nursery.cancel_scope.cancel()
        await conn.aclose()
        out = buf.getvalue()
        assert "Showing 3 of 5 tables" in out
        assert "No table 5 in the list: it shows 3 of 5 tables" in out
        assert made[0] in out and made[4] not in out
    # a table id not on the cut page is asked for all the same; a number off the page is not
    page = [{"table": t} for t in made[:3]]
    assert _pick(page, made[4], cut=True) == made[4]
    assert _pick(page, made[4]) is None and _pick(page, "5", cut=True) is None
    assert _pick(page, "2", cut=True) == made[1]
