"""Messages: every type round-trips through to_data/parse_message, and bad data is refused with
the field named (PROTOCOL.md, "Messages")."""

from __future__ import annotations

import dataclasses
import json
import unicodedata

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quinze_protocol.errors import ProtocolError
from quinze_protocol.fields import blank_problem
from quinze_protocol.messages import (
    CLIENT_TYPES,
    MESSAGE_TYPES,
    PROTOCOL_VERSION,
    SERVER_TYPES,
    ActionMessage,
    ActionRequest,
    CreateTable,
    EventMessage,
    GameOver,
    GameStart,
    Hello,
    Join,
    SeatInfo,
    TableInfo,
    commitment,
    parse_message,
)

C = commitment(42, "salt")
TABLE = {
    "table": "t1",
    "game": "quinze",
    "options": {"players": 2, "target": 101},
    "seats": [{"seat": 0, "name": "ana", "connected": True}, {"seat": 1, "name": None, "connected": False}],
    "state": "waiting",
    "number": 0,
    "games": 3,
    "move_time": 30.0,
    "spectators": 1,
}

SAMPLES: dict[str, dict] = {
    "hello": {"type": "hello", "version": 1, "name": "ana", "role": "player"},
    "list-tables": {"type": "list-tables"},
    "create-table": {"type": "create-table", "game": "quinze", "options": {"players": 2}, "seed": 7, "games": 2, "move_time": 12.5,
                     "seat_move_times": [None, 3.0], "position": {"game": "quinze"}},
    "join": {"type": "join", "table": "t1", "seat": None, "token": "abc"},
    "leave": {"type": "leave", "table": "t1"},
    "spectate": {"type": "spectate", "table": "t1"},
    "action": {"type": "action", "table": "t1", "request": 3, "action": {"type": "fifteen", "hand": ["7H"], "table": ["8C"]}},
    "forfeit": {"type": "forfeit", "table": "t1", "reason": "crash"},
    "ping": {"type": "ping", "nonce": 12},
    "pong": {"type": "pong", "nonce": 12},
    "bye": {"type": "bye", "reason": "shutdown"},
    "welcome": {"type": "welcome", "version": 1, "server": "quinze 0.1.0", "heartbeat": 10.0},
    "tables": {"type": "tables", "tables": [TABLE]},
    "table-created": {"type": "table-created", "table": TABLE},
    "joined": {"type": "joined", "table": "t1", "seat": 0, "token": "s3cr3t", "resumed": False},
    "left": {"type": "left", "table": "t1"},
    "spectating": {"type": "spectating", "table": "t1"},
    "game-start": {
        "type": "game-start",
        "table": "t1",
        "game": "quinze",
        "number": 1,
        "players": ["ana", "bob"],
        "options": {"players": 2},
        "commitment": C,
        "seat": None,
    },
    "event": {"type": "event", "table": "t1", "event": {"kind": "draw", "seat": 1, "card": "7H"}},
    "action-request": {
        "type": "action-request",
        "table": "t1",
        "request": 3,
        "seat": 0,
        "view": {"hand": ["7H", "BJ"], "table": ["8C"]},
        "legal": [{"type": "fifteen", "hand": ["7H"], "table": ["8C"]}, {"type": "end"}],
        "deadline": 29.5,
    },
    "view": {"type": "view", "table": "t1", "view": {"seat": None, "hand_sizes": [8, 9], "stock": 35}},
    "notice": {"type": "notice", "table": "t1", "kind": "clock", "seat": 1,
               "clock": {"kind": "bank", "left": [280.5, 300.0]}, "seconds": None},
    "accepted": {"type": "accepted", "table": "t1", "request": 3},
    "refused": {"type": "refused", "table": "t1", "request": 3, "code": "not-fifteen", "reason": "7 + 9 is 16"},
    "game-over": {
        "type": "game-over",
        "table": "t1",
        "number": 1,
        "result": {"points": [1.0, 0.0], "scores": [12, 140], "winners": [0], "reason": "target"},
        "seed": 42,
        "salt": "salt",
        "actions": [{"seat": 0, "action": {"type": "end"}}],
        "forfeit": {"seat": 1, "kind": "timeout"},
    },
    "table-closed": {"type": "table-closed", "table": "t1"},
    "error": {"type": "error", "code": "bad-field", "reason": "hello.name: must be 1..32 characters, got 0", "ref": "hello"},
}


def test_samples_cover_every_type() -> None:
    assert set(SAMPLES) == set(MESSAGE_TYPES)
    assert CLIENT_TYPES | SERVER_TYPES == set(MESSAGE_TYPES)
    assert CLIENT_TYPES & SERVER_TYPES == {"ping", "pong", "bye"}
    assert PROTOCOL_VERSION == 1


@pytest.mark.parametrize("t", sorted(SAMPLES))
def test_round_trip(t: str) -> None:
    data = SAMPLES[t]
    msg = parse_message(data)
    assert type(msg) is MESSAGE_TYPES[t]
    assert msg.type == t
    assert msg.to_data() == data
    # through both wires' encodings and back
    assert parse_message(msgpack.unpackb(msgpack.packb(msg.to_data()), raw=False)) == msg
    assert parse_message(json.loads(json.dumps(msg.to_data()))) == msg
    # and rebuilt from its own fields
    assert type(msg)(**{f.name: getattr(msg, f.name) for f in dataclasses.fields(msg)}) == msg


def test_optional_fields_take_defaults_and_unknown_keys_are_ignored() -> None:
    m = parse_message({"type": "create-table", "game": "quinze", "future": 1})
    assert m == CreateTable(game="quinze", options={}, seed=None, games=1, move_time=None)
    assert parse_message({"type": "join", "table": "t2"}) == Join(table="t2")
    assert parse_message({"type": "bye"}).reason == ""


def test_nested_records_are_values() -> None:
    info = TableInfo.from_data(TABLE)
    assert info.seats[1] == SeatInfo(seat=1, name=None, connected=False)
    assert info.to_data() == TABLE
    go = parse_message(SAMPLES["game-over"])
    assert isinstance(go, GameOver)
    assert go.forfeit is not None and go.forfeit.seat == 1 and go.forfeit.kind == "timeout"
    assert go.actions[0].seat == 0 and go.actions[0].action == {"type": "end"}


@pytest.mark.parametrize(
    ("data", "field", "words"),
    [
        ({"type": "hello", "version": 1, "name": "", "role": "player"}, "hello.name", "1..32 characters"),
        ({"type": "hello", "version": 1, "name": "x" * 33, "role": "player"}, "hello.name", "1..32 characters"),
        ({"type": "hello", "version": 1, "name": "a\x1bb", "role": "player"}, "hello.name", "control"),
        ({"type": "hello", "version": "1", "name": "a", "role": "player"}, "hello.version", "integer"),
        ({"type": "hello", "version": True, "name": "a", "role": "player"}, "hello.version", "integer"),
        ({"type": "hello", "name": "a"}, "hello.version", "missing"),
        ({"type": "hello", "version": 1, "name": "a", "role": "god"}, "hello.role", "player, bot, spectator"),
        ({"type": "join", "table": "t1", "seat": -1}, "join.seat", "at least 0"),
        ({"type": "join", "table": 5}, "join.table", "text"),
        ({"type": "create-table", "game": "quinze", "options": [1]}, "create-table.options", "map"),
        ({"type": "create-table", "game": "quinze", "games": 0}, "create-table.games", "at least 1"),
        ({"type": "create-table", "game": "quinze", "seed": 2**63}, "create-table.seed", "at most"),
        ({"type": "create-table", "game": "quinze", "move_time": 0}, "create-table.move_time", "more than 0"),
        ({"type": "create-table", "game": "quinze", "move_time": "5"}, "create-table.move_time", "number of seconds"),
        ({"type": "create-table", "game": "quinze", "seat_move_times": [0]}, "create-table.seat_move_times[0]", "more than 0"),
        ({"type": "create-table", "game": "quinze", "options": {"x": b"\x00"}}, "create-table.options.x", "plain data"),
        ({"type": "action", "table": "t1", "request": 1, "action": {"hand": []}}, "action.action.type", "missing"),
        ({"type": "action", "table": "t1", "request": 1.0, "action": {"type": "end"}}, "action.request", "integer"),
        ({"type": "welcome", "version": 1, "server": "q", "heartbeat": float("nan")}, "welcome.heartbeat", "finite"),
        ({"type": "welcome", "version": 1, "server": "q", "heartbeat": -1}, "welcome.heartbeat", "at least"),
        ({**SAMPLES["game-start"], "commitment": "xyz"}, "game-start.commitment", "hex"),
        ({**SAMPLES["game-start"], "players": ["a", 3]}, "game-start.players[1]", "text"),
        ({**SAMPLES["game-over"], "actions": [{"seat": 0}]}, "game-over.actions[0].action", "missing"),
        ({**SAMPLES["game-over"], "forfeit": {"seat": "x", "kind": "t"}}, "game-over.forfeit.seat", "integer"),
        ({**SAMPLES["game-over"], "salt": "sé"}, "game-over.salt", "ASCII"),
        ({**SAMPLES["action-request"], "legal": [{"type": "end"}, 3]}, "action-request.legal[1]", "map"),
        ({**SAMPLES["event"], "event": {"seat": 1}}, "event.event.kind", "missing"),
        (
            {"type": "tables", "tables": [{**TABLE, "seats": [{"seat": 0, "connected": "yes"}]}]},
            "tables.tables[0].seats[0].connected",
            "true or false",
        ),
        ({"type": "tables", "tables": [{**TABLE, "state": "open"}]}, "tables.tables[0].state", "waiting"),
    ],
)
def test_bad_field_is_named(data: dict, field: str, words: str) -> None:
    with pytest.raises(ProtocolError) as info:
        parse_message(data)
    e = info.value
    assert e.code == "bad-field"
    assert e.field == field
    assert words in e.reason
    assert not e.fatal
    err = e.to_error()
    assert err.code == "bad-field" and err.reason.startswith(field + ": ") and err.ref == data["type"]


def test_constructor_validates_too() -> None:
    with pytest.raises(ProtocolError) as info:
        Hello(version=1, name="", role="player")
    assert info.value.field == "hello.name"
    with pytest.raises(ProtocolError):
        ActionRequest(table="t1", request=0, seat=0, view={}, legal=[{"type": "end"}], deadline=float("inf"))
    # ints accepted for times, made floats
    assert ActionRequest(table="t1", request=0, seat=0, view={}, legal=[], deadline=5).deadline == 5.0


@pytest.mark.parametrize(
    ("data", "code"),
    [
        ({"name": "a"}, "missing-type"),
        ({"type": 3}, "missing-type"),
        ({"type": "shout"}, "unknown-type"),
        ([1, 2], "not-a-map"),
    ],
)
def test_type_errors(data: object, code: str) -> None:
    with pytest.raises(ProtocolError) as info:
        parse_message(data)
    assert info.value.code == code and not info.value.fatal


def test_allowed_restricts_direction() -> None:
    with pytest.raises(ProtocolError) as info:
        parse_message(SAMPLES["welcome"], allowed=CLIENT_TYPES)
    assert info.value.code == "unknown-type" and info.value.ref == "welcome"
    assert isinstance(parse_message(SAMPLES["ping"], allowed=CLIENT_TYPES), MESSAGE_TYPES["ping"])


def test_commitment_is_sha256_of_seed_colon_salt() -> None:
    import hashlib

    assert commitment(42, "abc") == hashlib.sha256(b"42:abc").hexdigest()
    assert commitment(-1, "x") == hashlib.sha256(b"-1:x").hexdigest()
    assert len(commitment(0, "z")) == 64


def test_game_data_is_copied_not_shared() -> None:
    action = {"type": "place", "cards": ["7H"]}
    m = ActionMessage(table="t1", request=0, action=action)
    action["cards"].append("8H")
    assert m.action == {"type": "place", "cards": ["7H"]}
    ev = EventMessage(table="t1", event={"kind": "x", "cards": ("7H", "8H")})
    assert ev.to_data()["event"]["cards"] == ["7H", "8H"]


json_data = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=10),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=6), kids, max_size=4),
    max_leaves=20,
)


HIDDEN = ("Cc", "Cf", "Cs", "Zl", "Zp")
"""Unicode categories a name may not hold: control, format, surrogate, line and paragraph separators."""


@settings(max_examples=60, deadline=None)
@given(
    name=st.text(min_size=1, max_size=32).filter(lambda s: not any(unicodedata.category(c) in HIDDEN for c in s)
                                                  and blank_problem(s) is None),  # a name must show a character
    nonce=st.integers(-(2**63), 2**64 - 1),
    options=st.dictionaries(st.text(max_size=8), json_data, max_size=5),
)
def test_round_trip_any_values(name: str, nonce: int, options: dict) -> None:
    for msg in (
        Hello(version=PROTOCOL_VERSION, name=name, role="bot"),
        MESSAGE_TYPES["ping"](nonce=nonce),
        CreateTable(game="quinze", options=options, seed=nonce & (2**63 - 1)),
        GameStart(table="t1", game="quinze", number=1, players=[name], options=options, commitment=C, seat=0),
    ):
        wire = msgpack.unpackb(msgpack.packb(msg.to_data(), use_bin_type=True), raw=False)
        assert parse_message(wire) == msg


def test_clock_fields_round_trip_and_are_left_out_when_nil() -> None:
    bank = {"kind": "bank", "base": 300.0, "increment": 5.0}
    msg = parse_message({"type": "create-table", "game": "quinze", "clock": {"kind": "bank", "base": 300, "increment": 5}})
    assert msg.to_data()["clock"] == bank
    assert "clock" not in parse_message({"type": "create-table", "game": "quinze"}).to_data()
    none = parse_message({"type": "create-table", "game": "quinze", "clock": {"kind": "none"}})
    assert none.to_data()["clock"] == {"kind": "none"}


@pytest.mark.parametrize(
    ("clock", "path"),
    [
        ({"kind": "sundial"}, "create-table.clock.kind"),
        ({"kind": "move"}, "create-table.clock.move"),
        ({"kind": "move", "move": 0}, "create-table.clock.move"),
        ({"kind": "bank", "base": 300, "increment": -1}, "create-table.clock.increment"),
        ({"kind": "bank", "base": float("inf")}, "create-table.clock.base"),
        ("bank", "create-table.clock"),
    ],
)
def test_a_bad_clock_is_refused_naming_the_part(clock: object, path: str) -> None:
    with pytest.raises(ProtocolError) as err:
        parse_message({"type": "create-table", "game": "quinze", "clock": clock})
    assert err.value.code == "bad-field" and err.value.field == path


def test_clock_text_spellings() -> None:
    from quinze_protocol.clocks import clock_text, parse_clock_text

    assert parse_clock_text("none") == {"kind": "none"}
    assert parse_clock_text("move:45") == {"kind": "move", "move": 45.0}
    assert parse_clock_text("90") == {"kind": "move", "move": 90.0}
    assert parse_clock_text("bank:300+5") == {"kind": "bank", "base": 300.0, "increment": 5.0}
    assert parse_clock_text("600+0") == {"kind": "bank", "base": 600.0, "increment": 0.0}
    assert clock_text(parse_clock_text("bank:300+5")) == "bank:300+5"
    for bad_text in ("bank:x", "move:-3", "move:0", "sometimes", "bank:1e9"):
        with pytest.raises(ValueError) as err:
            parse_clock_text(bad_text)
        assert "clock" in str(err.value) and repr(bad_text) in str(err.value)
