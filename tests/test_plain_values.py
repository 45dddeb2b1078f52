"""Only plain data travels (PROTOCOL.md "Conventions", "Framing", "JSON-lines wire"): a binary or
extension value or a float that is NaN or infinite, anywhere in a message (known field, unknown
field, game data, nested), is ``bad-field`` naming its dotted path on the msgpack wire, and
``not-json`` naming it on the JSON wire; the decoder, and the server on it, go on with the next
message. An empty frame is ``not-msgpack`` saying so. Checked on the decoders (any message, any
place: hypothesis), on the real server for every client message type, and on a bot relay's reading
of both wires."""

from __future__ import annotations

import json
import math
import struct
import sys
from typing import Any

import msgpack
import pytest
import trio
from hypothesis import given, settings
from hypothesis import strategies as st
from netclient import NetClient
from serverkit import TOY, memory_serving, second_table_plays, seated_pair

from quinze_cli.botproc import BotGarbage, BotProcess
from quinze_protocol.errors import ProtocolError
from quinze_protocol.framing import FrameDecoder, LineDecoder, encode_frame, loads_line, unpack_body
from quinze_protocol.messages import CLIENT_TYPES, Ping

FORBIDDEN: list[tuple[Any, str]] = [
    (b"abc", "binary values are not allowed"),
    (b"", "binary values are not allowed"),
    (b"x" * 70000, "binary values are not allowed"),  # bin 32
    (msgpack.ExtType(5, b"zz"), "msgpack ext type 5"),
    (msgpack.ExtType(0, b""), "msgpack ext type 0"),
    (msgpack.ExtType(127, b"y" * 300), "msgpack ext type 127"),  # ext 16
    (msgpack.Timestamp(1, 0), "msgpack ext type -1"),
    (float("nan"), "must be a finite number, got nan"),
    (float("inf"), "must be a finite number, got inf"),
    (float("-inf"), "must be a finite number, got -inf"),
]


def frame(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body


def pack(data: Any, single_float: bool = False) -> bytes:
    return msgpack.packb(data, use_bin_type=True, use_single_float=single_float)


def refusal(body: bytes) -> ProtocolError:
    """The error a decoder gives for ``body``, after which it reads the next frame (a ping)."""
    dec = FrameDecoder()
    dec.feed(frame(body) + encode_frame(Ping(nonce=9)))
    with pytest.raises(ProtocolError) as info:
        dec.next_message()
    assert not info.value.fatal
    assert dec.next_message() == Ping(nonce=9)
    return info.value


@pytest.mark.parametrize(("value", "why"), FORBIDDEN, ids=lambda v: repr(v)[:20])
@pytest.mark.parametrize("single_float", [False, True])
def test_a_forbidden_value_anywhere_is_a_bad_field_naming_its_path(value: Any, why: str, single_float: bool) -> None:
    places = [
        ({"type": "ping", "nonce": 1, "x": value}, "ping.x"),  # an unknown field
        ({"type": "create-table", "game": TOY, "options": {}, "zz": [1, value]}, "create-table.zz[1]"),
        ({"type": "create-table", "game": TOY, "options": {"a": {"b": [value]}}}, "create-table.options.a.b[0]"),
        ({"type": "hello", "version": 1, "name": value}, "hello.name"),  # a known field
        ({"type": "action", "table": "t1", "request": 7, "action": {"type": "say", "n": value}}, "action.action.n"),
        ({"type": "welcome", "version": 1, "server": "q", "heartbeat": value}, "welcome.heartbeat"),
    ]
    for data, path in places:
        err = refusal(pack(data, single_float))
        assert (err.code, err.field, err.ref) == ("bad-field", path, data["type"]), err
        assert why in err.reason and err.message_text().startswith(path + ": ")
        assert err.request == (7 if data["type"] == "action" else None)


def test_a_float_that_is_finite_and_its_look_alikes_pass() -> None:
    # floats whose bytes look like a mark: the largest, the smallest, negative, and marks inside text and ints
    doubles = [(x, False) for x in (1.7976931348623157e308, -1.7976931348623157e308, 5e-324, -0.0, 60.0, 1e-7)]
    singles = [(x, True) for x in (3.4028234663852886e38, -3.4028234663852886e38, 1e-45, -0.0, 60.0)]
    for x, single in doubles + singles:
        body = pack({"type": "ping", "nonce": 0xCACBC4D8, "x": [x, "\u0100\u0540\u05ff", 0xC4, -0x28]}, single)
        assert unpack_body(body)["nonce"] == 0xCACBC4D8


plain = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats(allow_nan=False, allow_infinity=False)
    | st.floats(allow_nan=False, allow_infinity=False, width=32) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=20,
)


def put(data: Any, where: int, value: Any, path: str) -> str | None:
    """Put ``value`` at the ``where``-th list or map of ``data`` (depth first); its path, or None."""
    stack = [(data, path)]
    seen = 0
    while stack:
        v, p = stack.pop()
        if isinstance(v, (list, dict)):
            if seen == where:
                if isinstance(v, list):
                    v.append(value)
                    return f"{p}[{len(v) - 1}]"
                key = "\u00e9" * 5  # longer than any generated key
                v[key] = value
                return f"{p}.{key}"
            seen += 1
            items = list(v.items()) if isinstance(v, dict) else list(enumerate(v))
            stack.extend((item, f"{p}.{k}" if isinstance(v, dict) else f"{p}[{k}]") for k, item in reversed(items))
    return None


@settings(max_examples=150, deadline=None)
@given(data=plain, where=st.integers(0, 8), bad=st.sampled_from([v for v, _ in FORBIDDEN if v != b"x" * 70000]))
def test_any_plain_message_passes_and_one_forbidden_value_is_found(data: Any, where: int, bad: Any) -> None:
    msg = {"type": "ping", "nonce": 1, "data": data}
    assert unpack_body(pack(msg)) == msg  # never a false refusal
    path = put(msg, where, bad, "ping")
    if path is None:  # fewer lists and maps than that
        return
    err = refusal(pack(msg))
    assert err.code == "bad-field"
    # the first forbidden value depth first is the one put there (the rest is plain)
    assert err.field == path, (err, msg)


def test_an_empty_frame_says_so() -> None:
    dec = FrameDecoder()
    dec.feed(frame(b""))
    with pytest.raises(ProtocolError) as info:
        dec.next_message()
    assert info.value.code == "not-msgpack" and info.value.fatal
    assert info.value.reason == "the frame is empty (its length prefix is 0): a frame holds one msgpack map"
    cut = FrameDecoder()
    cut.feed(frame(pack({"type": "ping"})[:-1]))
    with pytest.raises(ProtocolError, match="cut short"):  # a body cut short is still told as such
        cut.next_message()


@pytest.mark.parametrize(
    ("line", "where"),
    [
        (b'{"type":"action","table":"t1","request":4,"action":{"type":"pass","score":NaN}}', ": action.action.score is NaN"),
        (b'{"type":"ping","nonce":Infinity}', ": ping.nonce is Infinity"),
        (b'{"type":"ping","nonce":1,"x":[1,{"y":-Infinity}]}', ": ping.x[1].y is -Infinity"),
        (b'[NaN]', ": message[0] is NaN"),
        (b'{"type":"ping","x":NaN,', ""),  # not JSON further on: not named
    ],
)
def test_nan_and_infinity_lines_say_they_are_not_json_and_where(line: bytes, where: str) -> None:
    with pytest.raises(ProtocolError) as info:
        loads_line(line)
    assert info.value.code == "not-json"
    assert info.value.reason == f"line is not JSON: NaN/Infinity is not JSON{where}"
    dec = LineDecoder()
    dec.feed(line + b"\n" + b'{"type":"ping","nonce":9}\n')
    with pytest.raises(ProtocolError, match="NaN/Infinity is not JSON"):
        dec.next_message()
    assert dec.next_message() == Ping(nonce=9)


def bad_message(t: str) -> dict[str, Any]:
    """A message of type ``t`` with an unknown field holding binary (its other fields may be anything)."""
    return {"type": t, "zz": [b"q"]}


async def test_the_server_refuses_them_for_every_client_type_and_keeps_the_connection() -> None:
    async with memory_serving() as port:
        a, b, table, _ = await seated_pair(port)
        req = await a.expect("action-request")
        # the frequent message, read by hand on the server's fast path, and its action's own keys
        good = {"type": "action", "table": table, "request": req["request"], "action": req["legal"][0]}
        for data, path in [({**good, "q": b"x"}, "action.q"),
                           ({**good, "action": {**req["legal"][0], "zz": float("nan")}}, "action.action.zz"),
                           ({**good, "action": {**req["legal"][0], "zz": msgpack.ExtType(3, b"")}}, "action.action.zz")]:
            await a.send_raw(frame(pack(data)))
            err = await a.expect("error")
            assert (err["code"], err["ref"], err["request"]) == ("bad-field", "action", req["request"]), err
            assert err["reason"].startswith(path + ": ")
        c = await NetClient.connect(port, "cy")
        for t in sorted(CLIENT_TYPES):
            await c.send_raw(frame(pack(bad_message(t))))
            err = await c.recv()
            assert err["type"] == "error" and err["code"] == "bad-field" and err["ref"] == t, err
            assert err["reason"] == f"{t}.zz[0]: binary values are not allowed in a message (text is the msgpack str type)"
        # nothing happened: no table made, no bye taken, the seat still owes its answer
        assert [t["table"] for t in (await c.request({"type": "list-tables"}, "tables"))["tables"]] == [table]
        await a.send(good)
        assert (await a.expect("accepted"))["request"] == req["request"]
        await c.send_raw(frame(b""))
        rest = await c.until_closed()
        assert rest[0]["code"] == "not-msgpack" and rest[0]["reason"].startswith("the frame is empty")
        await second_table_plays(port)


@pytest.mark.parametrize(
    ("wire", "write", "reason"),
    [
        ("json", "print(json.dumps({'type': 'action', 'action': {'type': 'pass', 'score': float('nan')}}), flush=True)",
         "line is not JSON: NaN/Infinity is not JSON: action.action.score is NaN [not-json]"),
        ("msgpack", "w(pack({'type': 'action', 'action': {'type': 'pass', 'score': float('inf')}}))",
         "action.action.score: must be a finite number, got inf"),
        ("msgpack", "w(pack({'type': 'action', 'action': {'type': 'pass'}, 'note': b'raw'}))",
         "action.note: binary values are not allowed in a message"),
    ],
)
async def test_a_bot_writing_them_is_garbage_and_reading_goes_on(tmp_path, wire: str, write: str, reason: str) -> None:
    script = ("import json, struct, sys, msgpack\n"
              "def pack(m):\n    b = msgpack.packb(m, use_bin_type=True)\n    return struct.pack('>I', len(b)) + b\n"
              "def w(b):\n    sys.stdout.buffer.write(b); sys.stdout.flush()\n"
              f"{write}\n"
              "if sys.argv[1] == 'json':\n    print(json.dumps({'type': 'pong', 'nonce': 1}), flush=True)\n"
              "else:\n    w(pack({'type': 'pong', 'nonce': 1}))\n")
    bot = BotProcess([sys.executable, "-c", script, wire], wire=wire, stderr_path=tmp_path / "e.log")
    async with trio.open_nursery() as nursery:
        await bot.start(nursery)
        with trio.fail_after(30), pytest.raises(BotGarbage) as info:
            await bot.receive()
        assert reason in info.value.reason and not info.value.fatal
        with trio.fail_after(30):
            assert await bot.receive() == {"type": "pong", "nonce": 1}
        await bot.stop()


def test_the_check_bot_hint_tells_how_to_write_finite_json() -> None:
    from quinze_cli.checkbot.report import HINTS

    assert "allow_nan=False" in HINTS["well-formed"] and "NaN" in HINTS["well-formed"]
    assert json.dumps(math.nan) == "NaN"  # the default the hint warns about


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=80))
def test_the_marks_are_found_by_the_byte_table_as_by_the_pattern(body: bytes) -> None:
    """The decoder's first look for a binary, extension or float mark (a table of the bytes
    that are none, deleted) finds a mark exactly where the pattern of the marks does; every
    byte value alone too."""
    from quinze_protocol.framing import _MARK_TABLE, _MARKS

    for b in range(256):
        one = bytes((b,))
        assert (1 not in one.translate(_MARK_TABLE)) == (_MARKS.search(one) is None), b
    assert (1 not in body.translate(_MARK_TABLE)) == (_MARKS.search(body) is None)
