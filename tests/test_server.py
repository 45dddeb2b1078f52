"""The server's conversation: handshake, lobby, whole games (PROTOCOL.md). Most tests run the
real server on in-memory streams (``memory_serving``); a few stay on real TCP on loopback (a
whole game, the version mismatch's bye and close, the heartbeat's drops, serving itself).

Every test ends by checking that the same server still plays a game to its end at a fresh table.
"""

from __future__ import annotations

import re

import hashlib

import trio
from netclient import NetClient
from serverkit import TOY, create, memory_serving, play_pair, second_table_plays, seated_pair, serving

from quinze_protocol.game import game_ids, get_game
from quinze_server.app import run_server
from quinze_server.config import ServerConfig


async def test_handshake_welcome_and_not_hello() -> None:
    async with memory_serving(heartbeat=5.0) as port:
        c = await NetClient.connect(port, name=None)
        await c.send({"type": "list-tables"})
        err = await c.recv()
        assert err == {"type": "error", "code": "not-hello", "reason": err["reason"], "ref": "list-tables"}
        await c.send({"type": "hello", "version": 1, "name": "ana", "role": "player"})
        welcome = await c.recv()
        assert welcome["type"] == "welcome" and welcome["version"] == 1
        assert welcome["server"].startswith("quinze ") and welcome["heartbeat"] == 5.0
        await c.send({"type": "hello", "version": 1, "name": "ana", "role": "player"})
        assert (await c.recv())["code"] == "bad-field"
        await c.send({"type": "ping", "nonce": 77})
        assert await c.recv() == {"type": "pong", "nonce": 77}
        await c.aclose()
        await second_table_plays(port)


async def test_version_mismatch_gets_error_then_bye() -> None:
    async with serving() as port:
        c = await NetClient.connect(port, name=None)
        await c.send({"type": "hello", "version": 2, "name": "ana", "role": "bot"})
        rest = await c.until_closed()
        assert [m["type"] for m in rest] == ["error", "bye"]
        assert rest[0]["code"] == "version-mismatch" and rest[0]["ref"] == "hello"
        assert rest[1] == {"type": "bye", "reason": "version-mismatch"}
        await second_table_plays(port)


async def test_lobby_list_create_join_leave_spectate() -> None:
    async with memory_serving(move_time=7.5) as port:
        a = await NetClient.connect(port, "ana")
        b = await NetClient.connect(port, "bob")
        assert (await a.request({"type": "list-tables"}, "tables"))["tables"] == []
        created = await a.request({"type": "create-table", "game": TOY, "options": {}, "games": 2}, "table-created")
        info = created["table"]
        t1 = info["table"]  # "<server run>-t1": unique across runs of a server
        assert re.fullmatch(r"[a-z2-9]{4}-t1", t1) and info["game"] == TOY and info["state"] == "waiting"
        assert info["options"] == {"players": 2, "secret_max": 1000} and info["games"] == 2
        assert info["move_time"] == 7.5 and info["number"] == 0 and info["spectators"] == 0
        assert info["seats"] == [{"seat": 0, "name": None, "connected": False}, {"seat": 1, "name": None, "connected": False}]

        # errors: unknown game, bad option (named), bad move_time, unknown table, bad seat
        await a.send({"type": "create-table", "game": "belote", "options": {}})
        assert (await a.recv())["code"] == "unknown-game"
        await a.send({"type": "create-table", "game": TOY, "options": {"secret_max": 0}})
        err = await a.recv()
        assert err["code"] == "bad-option" and "secret_max" in err["reason"]
        await a.send({"type": "create-table", "game": TOY, "options": {"colour": "red"}})
        err = await a.recv()
        assert err["code"] == "bad-option" and "colour" in err["reason"]
        await a.send({"type": "create-table", "game": TOY, "options": {}, "move_time": -1})
        err = await a.recv()
        assert err["code"] == "bad-field" and "move_time" in err["reason"]
        await a.send({"type": "join", "table": "t99"})
        assert (await a.recv())["code"] == "unknown-table"
        await a.send({"type": "join", "table": t1, "seat": 2})
        err = await a.recv()
        assert err["code"] == "bad-field" and "seat" in err["reason"]

        joined = await a.request({"type": "join", "table": t1, "seat": 1}, "joined")
        assert joined["seat"] == 1 and joined["resumed"] is False and len(joined["token"]) == 32
        await a.send({"type": "join", "table": t1})
        assert (await a.recv())["code"] == "seat-taken"
        await b.send({"type": "join", "table": t1, "seat": 1})
        assert (await b.recv())["code"] == "seat-taken"
        listed = (await b.request({"type": "list-tables"}, "tables"))["tables"][0]
        assert listed["seats"][1] == {"seat": 1, "name": "ana", "connected": True}

        # leave frees the seat; b watches; leave stops watching; not-seated when neither
        assert await a.request({"type": "leave", "table": t1}, "left") == {"type": "left", "table": t1}
        assert await b.request({"type": "spectate", "table": t1}, "spectating") == {"type": "spectating", "table": t1}
        listed = (await b.request({"type": "list-tables"}, "tables"))["tables"][0]
        assert listed["seats"][1]["name"] is None and listed["spectators"] == 1
        await b.request({"type": "leave", "table": t1}, "left")
        await b.send({"type": "leave", "table": t1})
        assert (await b.recv())["code"] == "not-seated"

        # join with no seat takes the first free one; a third joiner finds the table full
        c = await NetClient.connect(port, "cy")
        assert (await a.request({"type": "join", "table": t1}, "joined"))["seat"] == 0
        assert (await b.request({"type": "join", "table": t1}, "joined"))["seat"] == 1
        await c.send({"type": "join", "table": t1})
        assert (await c.recv())["code"] == "table-full"
        for x in (a, b, c):
            await x.aclose()
        await second_table_plays(port)


async def test_whole_quinze_game_two_raw_clients() -> None:
    async with serving() as port:
        a, b, table, _ = await seated_pair(port, "quinze", options={"target": 1}, seed=1234)
        starts = [await a.expect("game-start"), await b.expect("game-start")]
        assert [s["seat"] for s in starts] == [0, 1]
        assert starts[0]["players"] == ["ana", "bob"] and starts[0]["number"] == 1
        over_a, over_b = await play_pair(a, b, table)
        assert over_a == over_b and over_a["forfeit"] is None and over_a["seed"] == 1234
        # the commitment of game-start is revealed by game-over
        expected = hashlib.sha256(f"{over_a['seed']}:{over_a['salt']}".encode("ascii")).hexdigest()
        assert starts[0]["commitment"] == starts[1]["commitment"] == expected
        # anyone can re-simulate the game from the revealed seed and the actions
        game = get_game("quinze").new(starts[0]["options"], over_a["seed"])
        for played in over_a["actions"]:
            assert game.to_act == played["seat"]
            game.apply(game.parse_action(played["action"]))
        assert game.is_over and game.result().to_data() == over_a["result"]
        requests = [m["request"] for m in a.seen + b.seen if m["type"] == "action-request"]
        assert sorted(requests) == list(range(1, len(over_a["actions"]) + 1))
        accepted = [m for m in a.seen + b.seen if m["type"] == "accepted"]
        assert len(accepted) == len(over_a["actions"])
        await a.expect("table-closed", table=table)
        await second_table_plays(port)


async def test_refused_illegal_action_state_unchanged_then_retry() -> None:
    async with memory_serving() as port:
        a, b, table, _ = await seated_pair(port)
        req = await a.expect("action-request")
        assert req["legal"] == [{"type": "say", "n": 1}, {"type": "say", "n": 2}] and req["seat"] == 0
        assert 0 < req["deadline"] <= 60
        await a.send({"type": "action", "table": table, "request": req["request"], "action": {"type": "say", "n": 3}})
        refused = await a.recv()
        assert refused["type"] == "refused" and refused["code"] == "wrong-number" and refused["request"] == req["request"]
        await a.send({"type": "action", "table": table, "request": req["request"], "action": {"type": "shout"}})
        refused = await a.recv()
        assert refused["code"] == "bad-action" and "type" in refused["reason"]
        await a.send({"type": "action", "table": table, "request": req["request"], "action": {"type": "say", "n": 2}})
        assert await a.recv() == {"type": "accepted", "table": table, "request": req["request"], "number": 1}
        deal = await b.expect("event")
        assert deal["event"]["kind"] == "deal" and "secret" in deal["event"]
        said = await b.expect("event")
        assert said["event"] == {"kind": "said", "seat": 0, "n": 2}
        req_b = await b.expect("action-request")
        assert req_b["view"]["last"] == 2 and req_b["request"] == req["request"] + 1
        assert req_b["legal"] == [{"type": "say", "n": 3}]
        await b.send({"type": "action", "table": table, "request": req_b["request"], "action": {"type": "say", "n": 3}})
        over = await a.expect("game-over")
        assert over["result"]["winners"] == [1] and len(over["actions"]) == 2
        await second_table_plays(port)


async def test_out_of_turn_stale_request_and_not_seated() -> None:
    async with memory_serving() as port:
        a, b, table, _ = await seated_pair(port)
        c = await NetClient.connect(port, "cy")
        req = await a.expect("action-request")
        say1 = {"type": "say", "n": 1}
        # seat 1 acting while seat 0 is to act
        await b.send({"type": "action", "table": table, "request": req["request"], "action": say1})
        refused = await b.expect("refused")
        assert refused["code"] == "not-your-turn"
        # a stale (or future) request id
        for wrong in (req["request"] - 1, req["request"] + 5):
            await a.send({"type": "action", "table": table, "request": wrong, "action": say1})
            refused = await a.recv()
            assert refused["type"] == "refused" and refused["code"] == "stale-request" and refused["request"] == wrong
        # somebody with no seat, and a table that does not exist
        await c.send({"type": "action", "table": table, "request": req["request"], "action": say1})
        assert (await c.recv())["code"] == "not-seated"
        await c.send({"type": "action", "table": "t77", "request": req["request"], "action": say1})
        assert (await c.recv())["code"] == "unknown-table"
        await c.send({"type": "forfeit", "table": table, "reason": "crash"})
        assert (await c.recv())["code"] == "not-seated"
        # nothing of that changed the game: the same request still stands
        await a.send({"type": "action", "table": table, "request": req["request"], "action": say1})
        assert (await a.recv())["type"] == "accepted"
        over_a, _ = await play_pair(a, b, table)
        assert [x["action"]["n"] for x in over_a["actions"]][0] == 1
        await c.aclose()
        await second_table_plays(port)


async def test_an_answer_to_an_earlier_request_is_stale_even_out_of_turn() -> None:
    """A seat whose answer was accepted sends it again (or an older request id) while the other
    seat is to act: ``stale-request`` (late, not illegal: PROTOCOL.md "Flow" 3), not
    ``not-your-turn``, which stays for the open request or an id not yet given (a tester's
    report: a re-sent accepted answer got ``not-your-turn``). Nothing changes: the seat to act
    still acts with its request."""
    async with memory_serving() as port:
        a, b, table, _ = await seated_pair(port)
        req = await a.expect("action-request")
        await a.send({"type": "action", "table": table, "request": req["request"], "action": {"type": "say", "n": 1}})
        assert (await a.expect("accepted"))["request"] == req["request"]
        req_b = await b.expect("action-request")
        for old in (req["request"], req["request"] - 1, 1):
            await a.send({"type": "action", "table": table, "request": old, "action": {"type": "say", "n": 2}})
            refused = await a.expect("refused")
            assert refused["code"] == "stale-request" and refused["request"] == old, refused
            assert f"the open one: {req_b['request']}" in refused["reason"]
        for not_yet in (req_b["request"], req_b["request"] + 7):
            await a.send({"type": "action", "table": table, "request": not_yet, "action": {"type": "say", "n": 2}})
            refused = await a.expect("refused")
            assert refused["code"] == "not-your-turn" and refused["request"] == not_yet, refused
        await b.send({"type": "action", "table": table, "request": req_b["request"], "action": {"type": "say", "n": 3}})
        over = await a.expect("game-over")
        assert [x["action"]["n"] for x in over["actions"]] == [1, 3]


async def test_deadline_expiry_forfeits_with_timeout() -> None:
    async with memory_serving() as port:
        a, b, table, _ = await seated_pair(port, move_time=0.3)
        req = await a.expect("action-request")
        assert req["deadline"] <= 0.3
        over = await b.expect("game-over")
        assert over["forfeit"] == {"seat": 0, "kind": "timeout"}
        assert over["result"]["points"] == [0.0, 1.0] and over["result"]["winners"] == [1]
        assert over["result"]["reason"] == "forfeit" and over["actions"] == []
        # an answer after the deadline is refused
        await a.send({"type": "action", "table": table, "request": req["request"], "action": {"type": "say", "n": 1}})
        late = await a.expect("error")
        assert late["code"] in ("game-not-running", "not-seated", "unknown-table")
        await b.expect("table-closed", table=table)
        await second_table_plays(port)


async def test_forfeit_message_ends_game() -> None:
    async with memory_serving() as port:
        a, b, table, _ = await seated_pair(port)
        await a.expect("action-request")
        await b.send({"type": "forfeit", "table": table, "reason": "crash"})
        over = await a.expect("game-over")
        assert over["forfeit"] == {"seat": 1, "kind": "crash"} and over["result"]["points"] == [1.0, 0.0]
        await b.expect("table-closed", table=table)
        await b.send({"type": "forfeit", "table": table, "reason": "crash"})
        assert (await b.expect("error"))["code"] in ("not-seated", "game-not-running")
        await second_table_plays(port)


async def test_reconnect_with_token_and_bad_token() -> None:
    async with memory_serving() as port:
        a, b, table, tokens = await seated_pair(port)
        req = await a.expect("action-request")
        await b.aclose()  # seat 1 drops in the middle of the game
        await a.send({"type": "action", "table": table, "request": req["request"], "action": {"type": "say", "n": 1}})
        await a.expect("accepted")
        intruder = await NetClient.connect(port, "eve")
        await intruder.send({"type": "join", "table": table, "seat": 1})
        assert (await intruder.recv())["code"] == "table-full"
        await intruder.send({"type": "join", "table": table, "token": "0" * 32})
        assert (await intruder.recv())["code"] == "bad-token"
        await intruder.send({"type": "join", "table": table, "seat": 0, "token": tokens[1]})
        assert (await intruder.recv())["code"] == "bad-token"
        listed = (await intruder.request({"type": "list-tables"}, "tables"))["tables"][0]
        assert listed["seats"][1] == {"seat": 1, "name": "bob", "connected": False} and listed["state"] == "playing"

        b2 = await NetClient.connect(port, "bob")
        joined = await b2.request({"type": "join", "table": table, "token": tokens[1]}, "joined")
        assert joined == {"type": "joined", "table": table, "seat": 1, "token": tokens[1], "resumed": True}
        start = await b2.recv()
        assert start["type"] == "game-start" and start["seat"] == 1
        view = await b2.recv()  # the seat's view comes before the pending request
        assert view["type"] == "view" and view["table"] == table
        pending = await b2.recv()
        assert pending["type"] == "action-request" and pending["request"] == req["request"] + 1
        assert pending["view"]["last"] == 1
        assert view["view"] == pending["view"]
        # the intruder cannot act for seat 1
        await intruder.send({"type": "action", "table": table, "request": pending["request"], "action": {"type": "say", "n": 2}})
        assert (await intruder.recv())["code"] == "not-seated"
        await b2.send({"type": "action", "table": table, "request": pending["request"], "action": {"type": "say", "n": 3}})
        over = await a.expect("game-over")
        assert over["result"]["winners"] == [1] and over["forfeit"] is None
        await intruder.aclose()
        await second_table_plays(port)


async def test_spectator_never_sees_a_hand() -> None:
    async with memory_serving() as port:
        a = await NetClient.connect(port, "ana")
        b = await NetClient.connect(port, "bob")
        s = await NetClient.connect(port, "sue", role="spectator")
        table = await create(a, "quinze", options={"target": 1})
        await s.request({"type": "spectate", "table": table}, "spectating")
        await a.request({"type": "join", "table": table}, "joined")
        await b.request({"type": "join", "table": table}, "joined")
        start = await s.expect("game-start")
        assert start["seat"] is None

        async def watch() -> None:
            await s.expect("game-over", timeout=10)

        async with trio.open_nursery() as n:
            n.start_soon(watch)
            await play_pair(a, b, table)
        over = next(m for m in s.seen if m["type"] == "game-over")
        watched = [m["event"] for m in s.seen if m["type"] == "event"]
        assert not any(m["type"] == "action-request" for m in s.seen)
        # re-simulated: the spectator got exactly the public part of every event, nothing private
        game = get_game("quinze").new(start["options"], over["seed"])
        events = list(game.opening_events)
        for played in over["actions"]:
            events += game.apply(game.parse_action(played["action"]))
        assert watched == [ev.for_seat(None) for ev in events]
        assert any(ev.private for ev in events)  # there were hands to hide
        # players do see their own hand
        assert any(m["type"] == "event" and m["event"]["kind"] == "deal" and "hand" in m["event"] for m in a.seen)
        # the toy game: secrets never reach a spectator
        await s.aclose()
        a2, b2, t2, _ = await seated_pair(port, names=("x", "y"))
        s2 = await NetClient.connect(port, "sue")
        await s2.request({"type": "spectate", "table": t2}, "spectating")
        await play_pair(a2, b2, t2)
        await s2.expect("game-over")
        assert "'secret': " not in repr(s2.seen)
        assert "'secret': " in repr(a2.seen)
        await s2.aclose()
        await second_table_plays(port)


async def test_several_games_derive_seeds_then_close() -> None:
    async with memory_serving() as port:
        a, b, table, _ = await seated_pair(port, games=3, seed=40)
        for number in (1, 2, 3):
            over_a, _ = await play_pair(a, b, table)
            assert over_a["number"] == number and over_a["seed"] == 40 + number - 1
        await a.expect("table-closed", table=table)
        assert (await a.request({"type": "list-tables"}, "tables"))["tables"] == []  # closed: not listed by default
        listed = (await a.request({"type": "list-tables", "closed": True}, "tables"))["tables"][0]
        assert listed["state"] == "closed" and listed["number"] == 3
        await second_table_plays(port)


async def test_heartbeat_drops_a_silent_client(autojump_clock) -> None:
    # trio's mock clock: the minutes of heartbeats below pass in no real time
    async with serving(heartbeat=10.0) as port:
        quiet = await NetClient.connect(port, "mute")
        quiet.auto_pong = False
        rest = await quiet.until_closed(timeout=300)
        assert [m["type"] for m in rest][-1] == "bye" and "pong" in rest[-1]["reason"]
        assert [m["type"] for m in rest].count("ping") >= 2
        mute = await NetClient.connect(port, name=None)  # never says hello
        rest = await mute.until_closed(timeout=300)
        assert [m["type"] for m in rest] == ["bye"] and "hello" in rest[0]["reason"]
        await mute.aclose()
        lively = await NetClient.connect(port, "talk")
        with trio.move_on_after(50):  # five heartbeats, each ping answered by recv
            await lively.recv(100)
        assert (await lively.request({"type": "list-tables"}, "tables"))["type"] == "tables"
        await second_table_plays(port)


async def test_shutdown_says_bye_to_everyone() -> None:
    async with trio.open_nursery() as nursery:
        port = await nursery.start(run_server, ServerConfig(port=0, shutdown_grace=1.0))
        a, b, table, _ = await seated_pair(port, "quinze")
        idle = await NetClient.connect(port, "idle")
        await a.expect("game-start")
        nursery.cancel_scope.cancel()
        with trio.CancelScope(shield=True):
            for c in (a, b, idle):
                rest = await c.until_closed()
                assert rest[-1] == {"type": "bye", "reason": "shutdown"}
                await c.aclose()


async def test_the_toy_game_is_registered_only_while_serving() -> None:
    assert TOY not in game_ids()
    async with serving():
        assert TOY in game_ids()
    assert TOY not in game_ids()


async def test_quinze_refusals_carry_the_engine_codes_and_change_nothing() -> None:
    async with memory_serving() as port:
        a, b, table, _ = await seated_pair(port, "quinze", options={"target": 1}, seed=1234)
        req = await _first_request(a, b)
        me = a if req["seat"] == 0 else b
        view = req["view"]
        not_held = next(c for c in ("AS", "AH", "AD", "AC", "2S", "2H") if c not in view["hand"] and c not in view["table"])
        tries = [
            ({"type": "fifteen", "hand": [not_held], "table": []}, "card-not-held"),
            ({"type": "fifteen", "hand": "7H"}, "bad-action"),
        ]
        if all(x["type"] != "end" for x in req["legal"]):
            tries.append(({"type": "end"}, "must-make-fifteen"))
        for action, code in tries:
            await me.send({"type": "action", "table": table, "request": req["request"], "action": action})
            refused = await me.expect("refused")
            assert refused["code"] == code and refused["request"] == req["request"], refused
        await me.send({"type": "list-tables"})  # the request still stands, the game has not moved
        assert (await me.expect("tables"))["tables"][0]["state"] == "playing"
        await me.send({"type": "action", "table": table, "request": req["request"], "action": req["legal"][0]})
        assert (await me.expect("accepted"))["request"] == req["request"]
        over, _ = await play_pair(a, b, table)
        first = over["actions"][0]
        assert {k: first[k] for k in ("seat", "action")} == {"seat": req["seat"], "action": req["legal"][0]}
        assert first["time"] >= 0  # the seconds the seat took
        await second_table_plays(port)


async def _first_request(a: NetClient, b: NetClient) -> dict:
    """The first action-request, whichever of the two seats gets it."""
    got: list[dict] = []

    async def wait(c: NetClient) -> None:
        got.append(await c.expect("action-request"))
        n.cancel_scope.cancel()

    async with trio.open_nursery() as n:
        n.start_soon(wait, a)
        n.start_soon(wait, b)
    return got[0]


async def test_leaving_a_seat_mid_game_forfeits_and_closes_the_table() -> None:
    async with memory_serving() as port:
        a, b, table, _ = await seated_pair(port, games=3)
        await a.expect("action-request")
        assert await b.request({"type": "leave", "table": table}, "left") == {"type": "left", "table": table}
        over = await a.expect("game-over")
        assert over["forfeit"] == {"seat": 1, "kind": "leave"} and over["result"]["winners"] == [0]
        await a.expect("table-closed", table=table)  # a seat is no longer held: no second game
        await b.request({"type": "list-tables"}, "tables")  # anything sent to b before now is read
        assert "game-over" not in [m["type"] for m in b.seen]
        await second_table_plays(port)


async def test_token_takes_over_a_live_seat_and_late_spectator_gets_game_start() -> None:
    async with memory_serving() as port:
        a, b, table, tokens = await seated_pair(port)
        req = await a.expect("action-request")
        a2 = await NetClient.connect(port, "ana")
        await a2.request({"type": "join", "table": table, "token": tokens[0]}, "joined")
        assert (await a2.expect("game-start"))["seat"] == 0
        pending = await a2.expect("action-request")
        assert pending["request"] == req["request"] and pending["deadline"] <= req["deadline"]
        assert await a.expect("left") == {"type": "left", "table": table}
        await a.send({"type": "action", "table": table, "request": req["request"], "action": {"type": "say", "n": 1}})
        assert (await a.expect("error"))["code"] == "not-seated"
        late = await NetClient.connect(port, "late")
        await late.request({"type": "spectate", "table": table}, "spectating")
        start = await late.recv()
        assert start["type"] == "game-start" and start["seat"] is None and start["players"] == ["ana", "bob"]
        assert (await late.recv())["type"] == "view"
        await a2.send({"type": "action", "table": table, "request": pending["request"], "action": {"type": "say", "n": 1}})
        over_a, over_b = await play_pair(a2, b, table)
        assert over_a == over_b == await late.expect("game-over")
        assert {k: over_a["actions"][0][k] for k in ("seat", "action")} == {"seat": 0, "action": {"type": "say", "n": 1}}
        await a.aclose()
        await late.aclose()
        await second_table_plays(port)


async def test_mid_game_arrivals_get_a_view() -> None:
    """PROTOCOL.md "Flow" 6, `view`: a spectator arriving mid-deal gets the public view (no hand);
    a seat resumed while it is not its turn gets its own view (its hand), right after game-start."""
    async with memory_serving() as port:
        a, b, table, tokens = await seated_pair(port, "quinze", seed=42)
        start = await a.expect("game-start")
        req = await a.expect("action-request")
        assert req["seat"] == 0
        played = req["legal"][0]
        await a.send({"type": "action", "table": table, "request": req["request"], "action": played})
        await a.expect("accepted")
        # the same game, re-simulated: what each arrival must see now
        game = get_game("quinze").new(start["options"], 42)
        game.apply(game.parse_action(played))

        s = await NetClient.connect(port, "sue", role="spectator")
        await s.request({"type": "spectate", "table": table}, "spectating")
        assert (await s.recv())["type"] == "game-start"
        view = await s.recv()
        assert view["clock"]["kind"] == "move" and view["clock"]["left"][1] is None  # seat 0's clock runs
        assert view == {"type": "view", "table": table, "view": game.view(None), "number": 1, "clock": view["clock"]}
        assert "hand" not in view["view"] and view["view"]["hand_sizes"] == game.view(None)["hand_sizes"]

        await b.aclose()  # seat 1 drops and comes back while seat 0 is still to act
        b2 = await NetClient.connect(port, "bob")
        joined = await b2.request({"type": "join", "table": table, "token": tokens[1]}, "joined")
        assert joined["resumed"] is True
        assert (await b2.recv())["type"] == "game-start"
        mine = await b2.recv()
        assert mine == {"type": "view", "table": table, "view": game.view(1), "number": 1, "clock": mine["clock"]}
        assert len(mine["view"]["hand"]) == mine["view"]["hand_sizes"][1] > 0
        await a.send({"type": "forfeit", "table": table, "reason": "crash"})
        over = await b2.expect("game-over")
        assert over["forfeit"] == {"seat": 0, "kind": "crash"}
        assert not any(m["type"] == "action-request" for m in b2.seen)  # it was never seat 1's turn
        assert over == await s.expect("game-over")
        await s.aclose()
        await second_table_plays(port)
