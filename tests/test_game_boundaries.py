"""Nothing addressed to one game acts on another (PROTOCOL.md "Game boundaries"): every message
about a game names its table and number, request ids are never reused in a server run, and the
server refuses an ``action`` or a ``forfeit`` meant for a game that is over. The real server, on in-memory
streams; the relay's side (real bot programs) is in test_relay_boundaries.py."""

from __future__ import annotations

from netclient import NetClient
from serverkit import create, play_pair, seated_pair, memory_serving


async def test_a_late_forfeit_does_not_end_the_next_game() -> None:
    async with memory_serving() as port:
        a, b, table, _ = await seated_pair(port, games=2)
        await play_pair(a, b, table)  # game 1 over
        start = await b.expect("game-start", number=2)
        # a forfeit meant for game 1 (sent after a stall, say) arrives during game 2
        await b.send({"type": "forfeit", "table": table, "reason": "timeout", "number": 1})
        err = await b.expect("error")
        assert err["code"] == "stale-game" and err["ref"] == "forfeit" and "game 1" in err["reason"]
        over_a, over_b = await play_pair(a, b, table)  # game 2 is played to its end, by the moves
        assert over_a["number"] == start["number"] == 2 and over_a["forfeit"] is None
        assert over_a["result"]["reason"] == "said-three"


async def test_an_answer_naming_an_earlier_game_is_refused_not_played() -> None:
    async with memory_serving() as port:
        a, b, table, _ = await seated_pair(port, games=2)
        await play_pair(a, b, table)
        req = await a.expect("action-request", number=2)
        stale = {"type": "action", "table": table, "request": req["request"], "action": req["legal"][0], "number": 1}
        await a.send(stale)
        refused = await a.expect("refused")
        assert refused["code"] == "stale-request" and refused["number"] == 1 and "game 1" in refused["reason"]
        # the state is unchanged: the same request is still open and can be answered
        await a.send({**stale, "number": 2})
        assert (await a.expect("accepted"))["number"] == 2


async def test_request_ids_are_never_reused_across_tables_and_games() -> None:
    async with memory_serving() as port:
        seen: list[tuple[str, int, int]] = []
        for _ in range(2):
            a, b, table, _ = await seated_pair(port, games=2)
            for _ in range(2):
                await play_pair(a, b, table)
            seen += [(m["table"], m["number"], m["request"]) for c in (a, b) for m in c.seen if m["type"] == "action-request"]
            await a.aclose()
            await b.aclose()
        ids = [r for _, _, r in seen]
        assert len(ids) == len(set(ids)) and len({(t, n) for t, n, _ in seen}) == 4


async def test_every_game_message_names_its_game() -> None:
    async with memory_serving() as port:
        a, b, table, _ = await seated_pair(port, games=2)
        watcher = await NetClient.connect(port, "eve", "spectator")
        await watcher.request({"type": "spectate", "table": table}, "spectating")
        for _ in range(2):
            await play_pair(a, b, table)
        for c in (a, b, watcher):
            await c.expect("table-closed")
        kinds = {"game-start", "event", "action-request", "accepted", "refused", "game-over", "view"}
        for c in (a, b, watcher):
            game_msgs = [m for m in c.seen if m["type"] in kinds]
            assert game_msgs and all(m["table"] == table and m["number"] in (1, 2) for m in game_msgs)
        await create(a)  # the server serves on
