"""How deep a message may nest (PROTOCOL.md "Framing" and "Conventions"), as a peer sees it over
real TCP: a frame nests at most MAX_NESTING (1024) arrays and maps, the message's map counting
one; a deeper one is ``not-msgpack`` (fatal: ``error``, ``bye`` ``not-msgpack``, closed). Game
data (``create-table.options`` ...) nests at most MAX_DEPTH (32) levels below its field; deeper
is ``bad-field`` naming the path, not fatal. A JSON line too deep for Python's parser is
``not-json``, not fatal."""

from __future__ import annotations

import struct

import msgpack
import pytest
from netclient import NetClient
from serverkit import serving

from quinze_protocol.errors import ProtocolError
from quinze_protocol.fields import MAX_DEPTH
from quinze_protocol.framing import MAX_NESTING, FrameDecoder, LineDecoder
from quinze_protocol.messages import CLIENT_TYPES

TOO_DEEP = {"type": "error", "code": "not-msgpack",
            "reason": "the frame body is not one msgpack value: values are nested too deeply", "ref": None}


def ping_nested(levels: int) -> bytes:
    """A ``ping`` frame whose extra field ``x`` makes the frame ``levels`` containers deep: the
    message's map, then ``levels - 1`` arrays one inside the other around a 0 (built by hand:
    msgpack's packer stops at 512 levels)."""
    body = b"\x83" + msgpack.packb({"type": "ping", "nonce": 1})[1:] + msgpack.packb("x")
    body += b"\x91" * (levels - 1) + b"\x00"
    return struct.pack(">I", len(body)) + body


def nested(levels: int) -> object:
    v: object = 0
    for _ in range(levels):
        v = [v]
    return v


def test_the_decoder_reads_a_frame_at_the_limit_and_stops_one_past_it() -> None:
    dec = FrameDecoder(allowed=CLIENT_TYPES, max_elements=4096)
    dec.feed(ping_nested(MAX_NESTING))
    assert dec.next_message().type == "ping"
    dec.feed(ping_nested(MAX_NESTING + 1))
    with pytest.raises(ProtocolError) as info:
        dec.next_message()
    assert info.value.fatal and info.value.to_error().to_data() == TOO_DEEP


async def test_a_frame_at_the_limit_is_read_and_one_past_it_closes_the_connection() -> None:
    async with serving() as port:
        c = await NetClient.connect(port)
        await c.send_raw(ping_nested(MAX_NESTING))
        assert await c.expect("pong") == {"type": "pong", "nonce": 1}
        await c.send({"type": "ping", "nonce": 2})
        assert (await c.expect("pong"))["nonce"] == 2  # read on
        await c.send_raw(ping_nested(MAX_NESTING + 1))
        assert await c.until_closed() == [TOO_DEEP, {"type": "bye", "reason": "not-msgpack"}]
        other = await NetClient.connect(port, name="bob")  # the server goes on
        await other.send({"type": "ping", "nonce": 3})
        assert (await other.expect("pong"))["nonce"] == 3


async def test_game_data_deeper_than_max_depth_is_bad_field_and_the_connection_goes_on() -> None:
    async with serving() as port:
        c = await NetClient.connect(port)
        # options.x is level 1; MAX_DEPTH - 1 arrays put the 0 at level MAX_DEPTH: read, then
        # refused as an option the game does not know
        await c.send({"type": "create-table", "game": "quinze", "options": {"x": nested(MAX_DEPTH - 1)}})
        err = await c.expect("error")
        assert err["code"] == "bad-option", err
        await c.send({"type": "create-table", "game": "quinze", "options": {"x": nested(MAX_DEPTH)}})
        err = await c.expect("error")
        path = "create-table.options.x" + "[0]" * MAX_DEPTH
        assert err == {"type": "error", "code": "bad-field", "reason": f"{path}: nested deeper than 32 levels",
                       "ref": "create-table"}
        created = await c.request({"type": "create-table", "game": "quinze", "options": {}}, "table-created")
        assert created["table"]["game"] == "quinze"


def test_a_json_line_too_deep_for_the_parser_is_not_json_and_reading_goes_on() -> None:
    dec = LineDecoder(max_elements=10_000)
    deep = b'{"type":"ping","nonce":1,"x":' + b"[" * 2000 + b"0" + b"]" * 2000 + b"}\n"
    fine = b'{"type":"ping","nonce":2,"x":' + b"[" * 500 + b"0" + b"]" * 500 + b"}\n"
    dec.feed(deep + fine)
    with pytest.raises(ProtocolError) as info:
        dec.next_message()
    assert (info.value.code, info.value.fatal) == ("not-json", False)
    assert info.value.reason.startswith("line is not JSON (nested too deeply): ")
    assert dec.next_message().nonce == 2
