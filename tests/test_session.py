"""The conversation layer (quinze_protocol.session): the transition table, the server's handshake,
the client's tables and game-scoped requests; in memory (sessions alone, then the real server
over in-memory streams). PROTOCOL.md "Flow", "Conversation states", "Game boundaries"."""

from __future__ import annotations

from typing import Any

import pytest
import trio
import trio.testing

from memserver import TOY, autoplay, memory_server
from quinze_cli.client import Connection, RequestRefused
from quinze_protocol.errors import ProtocolError
from quinze_protocol.messages import (
    CLIENT_TYPES,
    SERVER_TYPES,
    ActionRequest,
    Accepted,
    GameOver,
    GameStart,
    Hello,
    Joined,
    Ping,
    Pong,
    Refused,
)
from quinze_protocol.session import Asked, ClientSession, LocalProtocolError, RequestId, ServerSession
from quinze_protocol.transitions import CLIENT, SERVER, TABLE_STATES, TRANSITIONS

CONNECTION_STATES = ("greeting", "welcoming", "ready", "closed")


# --------------------------------------------------------------------------- the table itself


def test_the_table_has_every_role_and_state_and_only_known_targets() -> None:
    states = set(CONNECTION_STATES) | set(TABLE_STATES)
    for role in (CLIENT, SERVER):
        for state in states:
            assert (role, state) in TRANSITIONS, (role, state)
    for (role, state), moves in TRANSITIONS.items():
        assert set(moves.values()) <= states, (role, state)


def test_every_message_type_is_allowed_once_ready_and_bye_closes() -> None:
    assert set(TRANSITIONS[(CLIENT, "ready")]) == CLIENT_TYPES - {"hello"}
    assert set(TRANSITIONS[(SERVER, "ready")]) == SERVER_TYPES - {"welcome"}
    assert TRANSITIONS[(CLIENT, "ready")]["bye"] == TRANSITIONS[(SERVER, "ready")]["bye"] == "closed"


def test_table_close_and_leave_end_every_table_state() -> None:
    for state in TABLE_STATES:
        assert TRANSITIONS[(CLIENT, state)]["leave"] == "leaving"
        if state != "away":
            assert TRANSITIONS[(SERVER, state)]["table-closed"] == "away", state


# --------------------------------------------------------------------------- a session pair, no server


def pair() -> tuple[ClientSession, ServerSession]:
    """A client session and a server session after the handshake, messages passed by hand."""
    client, server = ClientSession(), ServerSession()
    got = server.receive(client.hello("ana").to_data())
    assert isinstance(got, Hello) and server.name == "ana" and server.client_role == "player"
    welcome = server.welcome("quinze test", 10.0)
    client.receive(welcome.to_data())
    assert client.state == server.state == "ready" and server.greeted
    return client, server


def test_handshake_through_both_sessions() -> None:
    client, server = pair()
    assert client.welcomed is not None and client.welcomed.heartbeat == 10.0
    server.receive(client.bye("done").to_data())
    assert server.closed and client.closed


def test_the_server_refuses_what_the_state_does_not_allow_with_the_documented_texts() -> None:
    server = ServerSession()
    with pytest.raises(ProtocolError) as err:
        server.receive({"type": "list-tables"})
    assert (err.value.code, err.value.message_text(), err.value.ref) == (
        "not-hello", "the first message must be hello, got list-tables", "list-tables")
    assert server.state == "greeting"  # unchanged: a hello may follow
    server.receive({"type": "hello", "version": 1, "name": "ana"})
    server.welcome("quinze test", 10.0)
    with pytest.raises(ProtocolError) as err:
        server.receive({"type": "hello", "version": 1, "name": "ana"})
    assert (err.value.code, err.value.message_text()) == ("bad-field", "hello: already greeted")
    assert server.greeted


def test_a_version_the_server_does_not_speak_gets_version_mismatch() -> None:
    server = ServerSession()
    server.receive({"type": "hello", "version": 99, "name": "ana"})
    answer = server.welcome("quinze test", 10.0)
    assert answer.type == "error" and answer.code == "version-mismatch"  # type: ignore[union-attr]
    assert answer.reason == "this server speaks protocol version 1, the client 99"  # type: ignore[union-attr]
    assert server.state == "greeting"
    server.bye("version-mismatch")
    assert server.closed


def test_a_client_cannot_send_before_hello_or_after_bye() -> None:
    client = ClientSession()
    with pytest.raises(LocalProtocolError):
        client.create_table(TOY)
    client, _ = pair()
    client.bye()
    with pytest.raises(LocalProtocolError):
        client.join("t1")


def test_ping_gets_pong_from_the_session() -> None:
    client, _ = pair()
    client.receive(Ping(nonce=7).to_data())
    assert client.take_outbox() == [Pong(nonce=7)]
    assert client.take_outbox() == []


def _request(table: str, number: int, request: int) -> dict[str, Any]:
    return ActionRequest(table=table, request=request, seat=0, view={}, legal=({"type": "say", "n": 1},),
                         deadline=5.0, number=number).to_data()


def _start(table: str, number: int) -> dict[str, Any]:
    return GameStart(table=table, game=TOY, number=number, players=("ana", "bob"), options={"players": 2},
                     commitment="0" * 64, seat=0).to_data()


def test_a_seat_through_two_games_with_requests_scoped_to_their_game() -> None:
    client, _ = pair()
    msg, ask = client.join("t1", seat=0)
    assert client.track("t1").state == "joining" and not ask.done
    client.receive(Joined(table="t1", seat=0, token="a" * 32).to_data())
    assert ask.done and isinstance(ask.reply, Joined)
    track = client.track("t1")
    assert (track.state, track.seat) == ("seated", 0)
    client.receive(_start("t1", 1))
    assert (track.state, track.number) == ("playing", 1)
    with pytest.raises(LocalProtocolError):
        client.answer("t1", {"type": "say", "n": 1})  # nothing asked yet
    client.receive(_request("t1", 1, 5))
    assert track.state == "to-act" and client.open_request("t1") == RequestId("t1", 1, 5)
    action = client.answer("t1", {"type": "say", "n": 1})
    assert (action.table, action.request, action.number) == ("t1", 5, 1)
    assert track.state == "answered"
    client.receive(Refused(table="t1", request=5, code="wrong-number", number=1).to_data())
    assert track.state == "to-act"  # the seat may retry
    client.answer("t1", {"type": "say", "n": 2})
    client.receive(Accepted(table="t1", request=5, number=1).to_data())
    assert track.state == "playing" and client.open_request("t1") is None
    client.receive(GameOver(table="t1", number=1, result={}, seed=1, salt="s").to_data())
    assert track.state == "seated"
    client.receive(_start("t1", 2))
    client.receive(_request("t1", 2, 9))
    # a late refusal of game 1's request is news about another game: the open request stays
    late = Refused(table="t1", request=5, code="stale-request", number=1)
    assert not client.is_current(late)
    client.receive(late.to_data())
    assert track.state == "to-act" and client.open_request("t1") == RequestId("t1", 2, 9)
    assert client.is_current(_request("t1", 2, 9)) and not client.is_current(_request("t1", 1, 9))
    client.answer("t1", {"type": "say", "n": 1})
    # the deadline passed before the answer came: no retry, the request is closed
    client.receive(Refused(table="t1", request=9, code="stale-request", number=2).to_data())
    assert track.state == "playing" and client.open_request("t1") is None
    assert list(client.unexpected) == []


def test_a_request_is_dated_on_the_clock_given_and_says_when_it_expires() -> None:
    """The session dates each action-request on the caller's clock: what the request is (id, seat,
    deadline in seconds as on the wire) and when it expires; the one owed an answer is the to-act
    one, and the last one asked is kept after it closes (a late answer's lateness)."""
    now = [100.0]
    client, server = ClientSession(clock=lambda: now[0]), ServerSession()
    server.receive(client.hello("ana").to_data())
    client.receive(server.welcome("quinze test", 10.0).to_data())
    client.join("t1", 0)
    client.receive_data(Joined(table="t1", seat=0, token="a" * 32).to_data())
    client.receive_data(_start("t1", 1))
    assert client.to_answer("t1") is None and client.last_asked("t1") is None
    client.receive_data(_request("t1", 1, 4))
    asked = client.to_answer("t1")
    assert asked == Asked(RequestId("t1", 1, 4), 0, 5.0, 100.0) and asked.deadline_at == 105.0
    now[0] = 103.5
    assert asked.waited(now[0]) == 3.5 and asked.late(now[0]) == -1.5
    client.answer("t1", {"type": "say", "n": 1})
    assert client.to_answer("t1") is None and client.last_asked("t1") == asked  # answered: owed no more
    client.receive_data(Refused(table="t1", request=4, code="wrong-number", number=1).to_data())
    assert client.to_answer("t1") == asked  # open again, the same expiry
    client.receive(GameOver(table="t1", number=1, result={}, seed=1, salt="s").to_data())
    assert client.to_answer("t1") is None and client.last_asked("t1") == asked
    client.receive_data(_start("t1", 2))
    assert client.last_asked("t1") is None  # a new game asked nothing yet
    plain, _ = pair()  # no clock: the request carries no instant
    plain.join("t1", 0)
    plain.receive_data(Joined(table="t1", seat=0, token="a" * 32).to_data())
    plain.receive_data(_start("t1", 1))
    plain.receive_data(_request("t1", 1, 4))
    bare = plain.to_answer("t1")
    assert bare is not None and bare.at is None and bare.deadline_at is None and bare.deadline == 5.0


def test_errors_settle_the_oldest_question_of_their_kind() -> None:
    client, _ = pair()
    _, first = client.join("t1")
    _, second = client.join("t2")
    client.receive({"type": "error", "code": "unknown-table", "reason": "no table 't1'", "ref": "join"})
    assert first.error is not None and first.error.code == "unknown-table" and not second.done
    assert client.track("t1").state == "away" and client.track("t2").state == "joining"
    _, created = client.create_table(TOY)
    client.receive({"type": "error", "code": "unknown-game", "reason": "no game", "ref": "create-table"})
    assert created.error is not None and created.error.code == "unknown-game"


def test_a_server_oddity_at_a_table_is_noted_never_raised() -> None:
    client, _ = pair()
    client.receive(_request("t9", 1, 3))  # never joined t9
    assert client.track("t9").state == "away"
    assert list(client.unexpected) == [("t9", "away", "action-request")]
    with pytest.raises(ProtocolError) as err:
        client.receive({"type": "welcome", "version": 1, "server": "x", "heartbeat": 1.0})
    assert err.value.code == "unexpected-message"


# --------------------------------------------------------------------------- the real server, in memory


async def test_create_join_play_close_in_memory() -> None:
    async with memory_server() as server:
        ana, bob = await server.connect("ana"), await server.connect("bob")
        info = await ana.create_table(TOY, {"players": 2}, seed=3, games=1)
        assert info.game == TOY and info.state == "waiting"
        ja = await ana.join(info.table, 0)
        jb = await bob.join(info.table)
        assert (ja.seat, jb.seat) == (0, 1) and not ja.resumed
        overs: list[GameOver] = []

        async def play(conn: Connection) -> None:
            overs.append(await autoplay(conn, info.table))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(play, ana)
            nursery.start_soon(play, bob)
        assert overs[0].to_data() == overs[1].to_data() and overs[0].number == 1
        for conn in (ana, bob):
            track = conn.session.track(info.table)
            assert track.state == "seated" and track.number == 1 and track.request is None
            while conn.session.track(info.table).state != "away":  # table-closed follows
                await conn.receive()
            assert list(conn.session.unexpected) == []


async def test_refusals_come_back_as_request_refused() -> None:
    async with memory_server() as server:
        ana = await server.connect("ana")
        with pytest.raises(RequestRefused) as err:
            await ana.create_table("no-such-game")
        assert err.value.code == "unknown-game"
        with pytest.raises(RequestRefused) as err:
            await ana.join("nowhere-t1")
        assert err.value.code == "unknown-table" and ana.session.track("nowhere-t1").state == "away"
        info = await ana.create_table(TOY)
        with pytest.raises(RequestRefused) as err:
            await ana.leave(info.table)
        assert err.value.code == "not-seated"
        with pytest.raises(RequestRefused) as err:
            await ana.join(info.table, seat=5)
        assert err.value.code == "bad-field" and "seats 0..1" in err.value.reason


async def test_spectate_then_leave_in_memory() -> None:
    async with memory_server() as server:
        ana, eve = await server.connect("ana"), await server.connect("eve", "spectator")
        info = await ana.create_table(TOY)
        await eve.spectate(info.table)
        assert eve.session.track(info.table).state == "watching"
        await eve.leave(info.table)
        assert eve.session.track(info.table).state == "away"


async def test_a_seat_taken_back_with_its_token_leaves_the_old_connection_away() -> None:
    async with memory_server() as server:
        ana, bob = await server.connect("ana"), await server.connect("bob")
        info = await ana.create_table(TOY, games=1)
        ja = await ana.join(info.table, 0)
        await bob.join(info.table, 1)
        ana2 = await server.connect("ana")
        back = await ana2.join(info.table, token=ja.token)
        assert back.resumed and back.seat == 0
        while ana.session.track(info.table).state != "away":  # the old connection gets left
            await ana.receive()
        while ana2.session.track(info.table).state not in ("to-act", "playing"):
            await ana2.receive()  # game-start, view, perhaps its request
        assert ana2.session.track(info.table).number == 1


async def test_a_keep_alive_reader_settles_the_question() -> None:
    """While another task reads the connection (as quinze match's control connection does),
    create_table waits for that task's reads to bring the answer."""
    async with memory_server() as server:
        ana = await server.connect("ana")
        seen: list[str] = []

        async def reader() -> None:
            while True:
                seen.append((await ana.receive()).type)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(reader)
            await trio.testing.wait_all_tasks_blocked()
            info = await ana.create_table(TOY)
            nursery.cancel_scope.cancel()
        assert "table-created" in seen and info.state == "waiting"


def test_a_relay_feeds_maps_and_reads_what_each_did() -> None:
    """receive_data: the frequent maps are read only for the fields used; each says its Step."""
    client, _ = pair()
    client.join("t1", 0)
    client.receive_data(Joined(table="t1", seat=0, token="a" * 32).to_data())
    client.receive_data(_start("t1", 1))
    step = client.receive_data(_request("t1", 1, 4))
    assert step is not None and (step.key, step.before, step.after) == ("action-request", "playing", "to-act")
    assert client.track("t1").deadline == 5.0 and client.message is None  # not read whole
    with pytest.raises(ProtocolError) as err:
        client.receive_data({**_request("t1", 1, 5), "deadline": "soon"})
    assert err.value.field == "action-request.deadline" and client.open_request("t1") == RequestId("t1", 1, 4)
    client.answer("t1", {"type": "say", "n": 1})
    step = client.receive_data(Refused(table="t1", request=3, code="wrong-number", number=1).to_data())
    assert step is not None and step.key == "refused:other" and step.after == "answered"
    step = client.receive_data({"type": "table-closed", "table": "t1"})
    assert step is not None and step.after == "away" and "t1" not in client.tables  # nothing kept
