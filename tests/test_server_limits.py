"""The server's bounds and the errors a client can act on (PROTOCOL.md "Framing", "Errors",
"Timeouts", `list-tables`), against the real server on in-memory streams (one test stays on
loopback TCP in test_server_badinput.py: a client that stops reading): a frame of too many values is
refused cheaply and the connection kept, the table limits, a listing that always fits in a frame,
a thinking seat kept past its pongs, unknown keys in an action, ``version-mismatch`` for any
version, errors that name the message and the field in words."""

from __future__ import annotations

import struct

import msgpack
import trio
from netclient import NetClient
from serverkit import TOY, create, play_pair, second_table_plays, seated_pair, memory_serving


def frame(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body


async def test_a_frame_of_too_many_values_is_refused_and_the_connection_kept() -> None:
    async with memory_serving() as port:
        c = await NetClient.connect(port, "flood")
        # legal size (under 1 MiB), a million tiny values: a list of empty lists
        body = msgpack.packb({"type": "ping", "nonce": 1, "x": [[]] * 1_000_000})
        assert len(body) < 1_048_576
        nested = msgpack.packb({"type": "ping", "nonce": 2, "x": [[[]] * 4000] * 200})
        for b in (body, nested):
            await c.send_raw(frame(b))
            err = await c.recv()
            assert err["type"] == "error" and err["code"] == "too-many-elements", err
            assert "4096" in err["reason"]
        # the connection is still served, and so is everybody else
        assert (await c.request({"type": "list-tables"}, "tables"))["tables"] == []
        await second_table_plays(port)


async def test_integer_map_keys_name_the_message_and_the_map_in_words() -> None:
    async with memory_serving() as port:
        a, b, table, _ = await seated_pair(port)
        req = await a.expect("action-request")
        body = msgpack.packb({"type": "action", "table": table, "request": req["request"], "action": {1: "say"}})
        await a.send_raw(frame(body))
        err = await a.expect("error")
        assert err["code"] == "not-a-map" and err["ref"] == "action" and err["request"] == req["request"], err
        assert err["reason"].startswith("action.action: map keys must be text") and "1 (an integer)" in err["reason"]
        assert "strict_map_key" not in err["reason"]  # our words, not the library's
        await a.send_raw(frame(b"\xc1"))  # a byte that starts no msgpack value: fatal
        rest = await a.until_closed()
        assert rest[0]["code"] == "not-msgpack" and "starts no msgpack value" in rest[0]["reason"]
        await second_table_plays(port)


async def test_any_other_version_is_version_mismatch() -> None:
    async with memory_serving() as port:
        for version in (2, 0, 2**40, -7):
            c = await NetClient.connect(port, name=None)
            await c.send({"type": "hello", "version": version, "name": "future"})
            rest = await c.until_closed()
            assert [m["type"] for m in rest] == ["error", "bye"], (version, rest)
            assert rest[0]["code"] == "version-mismatch" and str(version) in rest[0]["reason"]
            await c.aclose()


async def test_unknown_keys_inside_an_action_are_ignored() -> None:
    async with memory_serving() as port:
        a, b, table, _ = await seated_pair(port, game="quinze", options={"players": 2, "target": 1})
        req, a = await first_request(a, b)
        action = {**req["legal"][0], "comment": "a key of a later version", "confidence": 0.9}
        await a.send({"type": "action", "table": table, "request": req["request"], "action": action,
                      "number": req["number"], "sent_at": 12.5})
        accepted = await a.expect("accepted")
        assert accepted["request"] == req["request"] and accepted["number"] == 1


async def first_request(*clients: NetClient) -> tuple[dict, NetClient]:
    """The first action-request any of ``clients`` gets, and that client."""
    got: list = []
    async with trio.open_nursery() as nursery:
        async def wait(c: NetClient) -> None:
            msg = await c.expect("action-request")
            got.append((msg, c))
            nursery.cancel_scope.cancel()
        for c in clients:
            nursery.start_soon(wait, c)
    return got[0]


async def test_codes_at_a_closed_table_and_at_ones_own_table_say_what_happened() -> None:
    async with memory_serving() as port:
        a, b, table, _ = await seated_pair(port)
        err = await a.request({"type": "spectate", "table": table}, "error")
        assert err["code"] == "seat-taken" and "leave it to watch" in err["reason"]
        await a.request({"type": "leave", "table": table}, "left")
        await b.expect("table-closed")
        err = await b.request({"type": "action", "table": table, "request": 1, "action": {"type": "say", "n": 1}}, "error")
        assert err["code"] == "not-seated" and "closed" in err["reason"] and err["ref"] == "action"


async def test_table_limits_per_connection_and_per_server() -> None:
    async with memory_serving(max_tables=5, max_tables_per_connection=3) as port:
        one = await NetClient.connect(port, "one")
        for _ in range(3):
            await create(one)
        err = await one.request({"type": "create-table", "game": TOY}, "error")
        assert err["code"] == "too-many-tables" and "max_tables_per_connection 3" in err["reason"]
        two = await NetClient.connect(port, "two")
        await create(two)
        await create(two)
        err = await two.request({"type": "create-table", "game": TOY}, "error")
        assert err["code"] == "too-many-tables" and "max_tables 5" in err["reason"]
        listed = await one.request({"type": "list-tables"}, "tables")
        assert listed["total"] == 5 and len(listed["tables"]) == 5
        # a table that closes (its game played) makes room again
        tid = listed["tables"][0]["table"]
        await one.request({"type": "join", "table": tid}, "joined")
        await two.request({"type": "join", "table": tid}, "joined")
        await play_pair(one, two, tid)
        await one.expect("table-closed", table=tid)
        assert (await one.request({"type": "list-tables"}, "tables"))["total"] == 4  # closed: not listed
        assert (await one.request({"type": "list-tables", "closed": True}, "tables"))["total"] == 5
        await create(one)


async def test_the_tables_answer_always_fits_in_a_frame_and_pages() -> None:
    async with memory_serving(max_frame=4096, max_tables_per_connection=60) as port:
        maker = await NetClient.connect(port, "maker-with-a-long-name-for-size")
        made = [await create(maker, options={"secret_max": 999_999}) for _ in range(60)]
        listed = await maker.request({"type": "list-tables"}, "tables")
        assert listed["total"] == 60 and 0 < len(listed["tables"]) < 60  # cut to fit 4096 bytes
        assert len(msgpack.packb(listed)) <= 4096
        seen = []
        while len(seen) < 60:
            page = await maker.request({"type": "list-tables", "offset": len(seen), "limit": 10}, "tables")
            assert page["offset"] == len(seen) and page["tables"]
            seen += [t["table"] for t in page["tables"]]
        assert seen == made
        one = await maker.request({"type": "list-tables", "table": made[41]}, "tables")
        assert [t["table"] for t in one["tables"]] == [made[41]] and one["total"] == 1


async def test_a_seat_thinking_on_its_request_is_not_dropped_for_missing_pongs(autojump_clock) -> None:
    # trio's mock clock: the minutes below pass in no real time
    async with memory_serving(heartbeat=10.0) as port:
        a, b, table, _ = await seated_pair(port, move_time=200.0)
        req = await a.expect("action-request")
        a.auto_pong = False
        await trio.sleep(80)  # eight heartbeats without reading nor answering a ping: thinking
        await a.send({"type": "action", "table": table, "request": req["request"], "action": req["legal"][0]})
        a.auto_pong = True
        assert (await a.expect("accepted"))["request"] == req["request"]
        # a client silent with no request of its own is still dropped
        quiet = await NetClient.connect(port, "mute")
        quiet.auto_pong = False
        rest = await quiet.until_closed(timeout=300)
        assert rest[-1]["type"] == "bye" and "pong" in rest[-1]["reason"]


async def test_a_message_that_cannot_be_sent_is_told_to_the_client_and_logged(caplog) -> None:
    import logging

    caplog.set_level(logging.WARNING, logger="quinze.server")
    async with memory_serving(max_frame=300) as port:  # Le Quinze's action-request (view and legal list) is larger
        a, b, table, _ = await seated_pair(port, game="quinze", options={"players": 2})

        async def told(c: NetClient) -> dict:
            return await c.expect("error", code="server-error", timeout=10)

        got: list = []
        async with trio.open_nursery() as nursery:
            async def wait(c: NetClient) -> None:
                got.append(await told(c))
                nursery.cancel_scope.cancel()
            for c in (a, b):
                nursery.start_soon(wait, c)
        assert "action-request" in got[0]["reason"]
    logged = [r.getMessage() for r in caplog.records if "cannot send" in r.getMessage()]
    assert logged and "action-request" in logged[0] and "300" in logged[0]
