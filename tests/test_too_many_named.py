"""A frame of too many values is refused naming its message (PROTOCOL.md "Framing", values per
frame): the server does not read such a frame whole, but the type (and an ``action``'s request
id) it reads from the entries its map begins with, up to the first array or map value, go into
the ``error`` (``ref``, ``request``, and the reason ``ping: a message holds at most 4096 values
...``), as for the other errors of a well-framed message. Where the map does not begin so (a
container before the type, a type that is not text or not UTF-8, not a map at all), ``ref`` is nil
and the reason unnamed, as before. The decoder as the server configures it, then the real server
on loopback TCP."""

from __future__ import annotations

import struct
from typing import Any

import msgpack
import pytest
from netclient import NetClient
from serverkit import second_table_plays, seated_pair, serving

from quinze_protocol.errors import ProtocolError
from quinze_protocol.framing import FrameDecoder
from quinze_protocol.messages import CLIENT_TYPES

LIMIT = 4096  # ServerConfig.max_elements
WORDS = f"a message holds at most {LIMIT} values (arrays, maps, their elements and entries); this one holds more"


def frame(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body


def ping(x: Any, nonce: int = 1) -> bytes:
    return msgpack.packb({"type": "ping", "nonce": nonce, "x": x})


# (body, the ref, the request) of frames over the limit: several element counts and kinds of values
NAMED: list[tuple[str, bytes, str | None, int | None]] = [
    ("ping, 5000 zeros", ping([0] * 5000), "ping", None),
    ("ping, one past the limit", ping([0] * (LIMIT - 7)), "ping", None),  # 8 + k values: 4097
    ("ping, 20 000 empty lists", ping([[]] * 20_000), "ping", None),
    ("ping, a million empty lists", ping([[]] * 1_000_000), "ping", None),
    ("ping, 5000 empty maps", ping([{}] * 5000), "ping", None),
    ("ping, 5000 strings", ping(["abc"] * 5000), "ping", None),
    ("ping, nested 200 x 40", ping([[0] * 40] * 200), "ping", None),
    ("ping, a map of 3000 entries", ping({f"k{i}": i for i in range(3000)}), "ping", None),
    ("ping, the type after scalars", msgpack.packb({"nonce": 1, "n": None, "f": 1.5, "b": True, "type": "ping",
                                                   "x": [0] * 5000}), "ping", None),
    ("ping, 5000 entries of its own map", msgpack.packb({"type": "ping", **{f"k{i}": 0 for i in range(5000)}}), "ping", None),
    ("list-tables", msgpack.packb({"type": "list-tables", "table": [0] * 5000}), "list-tables", None),
    ("create-table", msgpack.packb({"type": "create-table", "game": "quinze", "options": {"x": [0] * 5000}}),
     "create-table", None),
    ("action, its request read", msgpack.packb({"type": "action", "table": "t1", "request": 7,
                                                "action": {"type": "end", "x": [0] * 5000}}), "action", 7),
    ("action, a request that is not an integer", msgpack.packb({"type": "action", "request": "7", "x": [0] * 5000}),
     "action", None),
    ("a type of 300 characters (str 16), cut to 64", msgpack.packb({"type": "u" * 300, "x": [0] * 5000}), "u" * 64, None),
    ("the type the 16th entry", msgpack.packb({**{f"k{i}": i for i in range(15)}, "type": "ping", "x": [0] * 5000}),
     "ping", None),
    ("an unknown type", msgpack.packb({"type": "no-such", "x": [0] * 5000}), "no-such", None),
    ("a long type, cut to 64", msgpack.packb({"type": "t" * 100, "x": [0] * 5000}), "t" * 64, None),
]

UNNAMED: list[tuple[str, bytes]] = [
    ("the type after the array", msgpack.packb({"x": [0] * 5000, "type": "ping", "nonce": 1})),
    ("the type the 17th entry", msgpack.packb({**{f"k{i}": i for i in range(16)}, "type": "ping", "x": [0] * 5000})),
    ("no type", msgpack.packb({"nonce": 1, "x": [0] * 5000})),
    ("a type that is not text", msgpack.packb({"type": 5, "x": [0] * 5000})),
    ("a type that is a list", msgpack.packb({"type": ["ping"], "x": [0] * 5000})),
    ("a type that is binary", msgpack.packb({"type": b"ping", "x": [0] * 5000}, use_bin_type=True)),
    ("a type that is not UTF-8", b"\x82\xa4type\xa4p\xffng\xa1x" + msgpack.packb([[0] * 10] * 400)),
    ("not a map", msgpack.packb([{"type": "ping"}] + [0] * 5000)),
]


def refused(body: bytes) -> ProtocolError:
    dec = FrameDecoder(allowed=CLIENT_TYPES, max_elements=LIMIT)
    dec.feed(frame(body) + frame(ping(0, nonce=9)))
    with pytest.raises(ProtocolError) as info:
        dec.next_message()
    assert not dec.failed
    assert dec.next_message().to_data() == {"type": "ping", "nonce": 9}  # the decoder reads on
    return info.value


@pytest.mark.parametrize(("name", "body", "ref", "request_id"), NAMED, ids=[n[0] for n in NAMED])
def test_the_decoder_names_the_type_the_map_begins_with(name: str, body: bytes, ref: str, request_id: int | None) -> None:
    err = refused(body)
    assert (err.code, err.ref, err.request) == ("too-many-elements", ref, request_id), name
    assert err.message_text() == f"{ref}: {WORDS}"


@pytest.mark.parametrize(("name", "body"), UNNAMED, ids=[n[0] for n in UNNAMED])
def test_without_a_leading_text_type_the_error_names_no_message(name: str, body: bytes) -> None:
    err = refused(body)
    assert (err.code, err.ref, err.request, err.message_text()) == ("too-many-elements", None, None, WORDS), name


def test_a_frame_at_the_limit_is_still_read() -> None:
    dec = FrameDecoder(allowed=CLIENT_TYPES, max_elements=LIMIT)
    dec.feed(frame(ping([0] * (LIMIT - 8))))  # exactly 4096 values
    assert dec.next_message().type == "ping"


async def test_the_server_names_the_message_of_a_frame_of_too_many_values() -> None:
    async with serving() as port:
        c = await NetClient.connect(port, "flood")
        for name, body, ref, request in NAMED:
            await c.send_raw(frame(body))
            err = await c.expect("error")
            want = {"type": "error", "code": "too-many-elements", "reason": f"{ref}: {WORDS}", "ref": ref}
            if request is not None:
                want["request"] = request
            assert err == want, name
        for name, body in UNNAMED:
            await c.send_raw(frame(body))
            err = await c.expect("error")
            assert err == {"type": "error", "code": "too-many-elements", "reason": WORDS, "ref": None}, name
        assert (await c.request({"type": "ping", "nonce": 3}, "pong"))["nonce"] == 3  # the connection goes on
        # a seated player's action of too many values: its request is named, the game goes on
        a, b, table, _ = await seated_pair(port)
        req = await a.expect("action-request")
        await a.send_raw(frame(msgpack.packb({"type": "action", "table": table, "request": req["request"],
                                              "action": {"type": "x", "pad": [[]] * 10_000}})))
        err = await a.expect("error")
        assert (err["code"], err["ref"], err["request"]) == ("too-many-elements", "action", req["request"]), err
        await second_table_plays(port)
