"""Framing: msgpack frames and JSON lines decode the same messages whatever the split of the
byte stream, and bad bytes give the stable error codes (PROTOCOL.md, "Framing")."""

from __future__ import annotations

import struct

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quinze_protocol.errors import ProtocolError
from quinze_protocol.fields import REQUEST_MAX
from quinze_protocol.framing import (
    DEFAULT_MAX_FRAME,
    FrameDecoder,
    LineDecoder,
    decode_frame,
    encode_frame,
    encode_line,
    loads_line,
    unpack_body,
)
from quinze_protocol.messages import CLIENT_TYPES, ActionMessage, Bye, EventMessage, Hello, Ping, parse_message

MESSAGES = [
    Hello(version=1, name="anaïs", role="bot"),
    Ping(nonce=7),
    ActionMessage(table="t1", request=4, action={"type": "fifteen", "hand": ["7H", "BJ"], "table": ["8C"]}),
    EventMessage(table="t1", event={"kind": "deal", "hands": [["AS", "10D"], []], "note": "é" * 300}),
    Bye(reason=""),
]


def frames_of(msgs) -> bytes:
    return b"".join(encode_frame(m) for m in msgs)


def lines_of(msgs) -> bytes:
    return b"".join(encode_line(m) for m in msgs)


def decode_in_chunks(decoder, stream: bytes, cuts: list[int]) -> list:
    out = []
    prev = 0
    for cut in sorted(set(cuts)) + [len(stream)]:
        decoder.feed(stream[prev:cut])
        out.extend(decoder.messages())
        prev = cut
    return out


def header(n: int) -> bytes:
    return struct.pack(">I", n)


# --------------------------------------------------------------------------- msgpack frames


def test_frame_layout() -> None:
    f = encode_frame(Ping(nonce=1))
    body = msgpack.packb({"type": "ping", "nonce": 1})
    assert f == header(len(body)) + body
    assert decode_frame(f) == Ping(nonce=1)


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_any_split_gives_the_same_messages(data) -> None:
    stream = frames_of(MESSAGES)
    cuts = data.draw(st.lists(st.integers(0, len(stream)), max_size=30))
    assert decode_in_chunks(FrameDecoder(), stream, cuts) == MESSAGES


def test_one_byte_at_a_time() -> None:
    stream = frames_of(MESSAGES)
    assert decode_in_chunks(FrameDecoder(), stream, list(range(len(stream)))) == MESSAGES
    lines = lines_of(MESSAGES)
    assert decode_in_chunks(LineDecoder(), lines, list(range(len(lines)))) == MESSAGES


def test_oversized_prefix_refused_before_the_body() -> None:
    dec = FrameDecoder(max_frame=100)
    dec.feed(frames_of([Ping(nonce=1)]))
    dec.feed(header(101)[:3])
    assert dec.next_message() == Ping(nonce=1)
    assert dec.next_message() is None  # three bytes of the prefix: not known yet
    with pytest.raises(ProtocolError) as info:
        dec.feed(header(101)[3:])  # the fourth byte: refused at once, no body sent
    assert info.value.code == "frame-too-large" and info.value.fatal
    assert dec.buffered == 0 and dec.failed is info.value
    # refuses everything afterwards
    with pytest.raises(ProtocolError) as again:
        dec.feed(encode_frame(Ping(nonce=2)))
    assert again.value.code == "frame-too-large"
    with pytest.raises(ProtocolError):
        dec.next_message()


def test_default_limit_is_one_mebibyte() -> None:
    assert DEFAULT_MAX_FRAME == 1_048_576
    dec = FrameDecoder()
    dec.feed(header(DEFAULT_MAX_FRAME))
    assert dec.next_message() is None  # allowed: waits for the body
    with pytest.raises(ProtocolError) as info:
        FrameDecoder().feed(header(DEFAULT_MAX_FRAME + 1))
    assert info.value.code == "frame-too-large"
    with pytest.raises(ProtocolError) as info:
        encode_frame(EventMessage(table="t1", event={"kind": "x", "blob": "a" * DEFAULT_MAX_FRAME}))
    assert info.value.code == "frame-too-large"


@pytest.mark.parametrize(
    ("body", "code", "fatal"),
    [
        (b"\xc1", "not-msgpack", True),  # reserved byte
        (b"", "not-msgpack", True),
        (msgpack.packb({"type": "ping", "nonce": 1}) + b"\x01", "not-msgpack", True),  # trailing data
        (msgpack.packb({"type": "ping"})[:-1], "not-msgpack", True),  # cut inside
        (msgpack.packb([1, 2, 3]), "not-a-map", False),
        (msgpack.packb("hello"), "not-a-map", False),
        (msgpack.packb({1: "x"}), "not-a-map", False),
        (b"\x81\xa4type\xa4\xff\xfe\xfd\xfc", "bad-utf8", False),
        (msgpack.packb({"nonce": 1}), "missing-type", False),
        (msgpack.packb({"type": "ping", "nonce": "one"}), "bad-field", False),
        (msgpack.packb({"type": "launch"}), "unknown-type", False),
    ],
)
def test_bad_frames(body: bytes, code: str, fatal: bool) -> None:
    dec = FrameDecoder()
    dec.feed(header(len(body)) + body + encode_frame(Ping(nonce=9)))
    with pytest.raises(ProtocolError) as info:
        dec.next_message()
    assert info.value.code == code
    assert info.value.fatal is fatal
    if fatal:
        with pytest.raises(ProtocolError):
            dec.next_message()
    else:  # the stream goes on with the next frame
        assert dec.next_message() == Ping(nonce=9)
        assert dec.next_message() is None


@pytest.mark.parametrize("rid", [0, 2**63 + 1, REQUEST_MAX])
def test_a_map_with_a_bad_key_still_names_its_request_up_to_the_largest_id(rid: int) -> None:
    body = msgpack.packb({"type": "action", "request": rid, 1: "x"}, use_bin_type=True)
    with pytest.raises(ProtocolError) as err:
        unpack_body(body)
    assert err.value.code == "not-a-map" and err.value.request == rid  # error.request: REQUEST, 0 .. REQUEST_MAX


def test_wrong_field_type_names_the_field() -> None:
    dec = FrameDecoder()
    dec.feed(encode_frame({"type": "join", "table": "t1", "seat": "first"}))
    with pytest.raises(ProtocolError) as info:
        dec.next_message()
    assert (info.value.code, info.value.field) == ("bad-field", "join.seat")


def test_bin_and_ext_values_are_refused_as_fields() -> None:
    body = msgpack.packb({"type": "hello", "version": 1, "name": b"ana"}, use_bin_type=True)
    with pytest.raises(ProtocolError) as info:
        parse_message(unpack_body(body))
    assert info.value.field == "hello.name"
    body = msgpack.packb({"type": "create-table", "game": "q", "options": {"x": msgpack.ExtType(1, b"z")}})
    with pytest.raises(ProtocolError) as info:
        parse_message(unpack_body(body))
    assert info.value.field == "create-table.options.x"


def test_allowed_types() -> None:
    dec = FrameDecoder(allowed=CLIENT_TYPES)
    dec.feed(encode_frame({"type": "welcome", "version": 1, "server": "x", "heartbeat": 1.0}))
    with pytest.raises(ProtocolError) as info:
        dec.next_message()
    assert info.value.code == "unknown-type"


def test_deep_nesting_is_not_a_crash() -> None:
    body = b"\x81\xa4type" + b"\x91" * 5000 + b"\x01"
    dec = FrameDecoder()
    dec.feed(header(len(body)) + body)
    with pytest.raises(ProtocolError) as info:
        dec.next_message()
    assert info.value.code in ("not-msgpack", "bad-field", "missing-type")


# --------------------------------------------------------------------------- JSON lines


def test_line_layout() -> None:
    assert encode_line(Ping(nonce=1)) == b'{"type":"ping","nonce":1}\n'
    assert encode_line(Hello(version=1, name="é")) == '{"type":"hello","version":1,"name":"é","role":"player"}\n'.encode()


@settings(max_examples=60, deadline=None)
@given(data=st.data(), crlf=st.booleans())
def test_lines_any_split(data, crlf: bool) -> None:
    stream = lines_of(MESSAGES)
    if crlf:
        stream = stream.replace(b"\n", b"\r\n")
    cuts = data.draw(st.lists(st.integers(0, len(stream)), max_size=30))
    assert decode_in_chunks(LineDecoder(), stream, cuts) == MESSAGES


def test_lines_blank_crlf_and_garbage() -> None:
    dec = LineDecoder()
    dec.feed(b"\n\r\n   \n" + b'{"type":"ping","nonce":1}\r\n' + b"garbage\n" + b"[1,2]\n" + b"\xff\xfe\n")
    dec.feed(b'{"type":"ping","nonce":NaN}\n{"type":"ping","nonce":2}\n')
    assert dec.next_message() == Ping(nonce=1)
    for code in ("not-json", "not-a-map", "bad-utf8", "not-json"):
        with pytest.raises(ProtocolError) as info:
            dec.next_message()
        assert info.value.code == code and not info.value.fatal
    assert dec.next_message() == Ping(nonce=2)
    assert dec.next_message() is None


def test_line_without_newline_waits_until_eof() -> None:
    dec = LineDecoder()
    dec.feed(b'{"type":"ping","nonce":3}')
    assert dec.next_message() is None
    dec.feed_eof()
    assert dec.next_message() == Ping(nonce=3)
    assert dec.next_message() is None


def test_too_long_line_is_fatal_before_the_newline() -> None:
    dec = LineDecoder(max_line=50)
    dec.feed(encode_line(Ping(nonce=1)))
    dec.feed(b"x" * 51)  # no newline yet
    assert dec.next_message() == Ping(nonce=1)
    with pytest.raises(ProtocolError) as info:
        dec.next_message()
    assert info.value.code == "frame-too-large" and info.value.fatal
    with pytest.raises(ProtocolError):
        dec.feed(b"\n")
    # a line of exactly the limit is fine, CR not counted
    ok = LineDecoder(max_line=25)
    line = b'{"type":"ping","nonce":1}'
    assert len(line) == 25
    ok.feed(line + b"\r\n")
    assert ok.next_message() == Ping(nonce=1)


def test_loads_line() -> None:
    assert loads_line(b"  \r\n") is None
    assert loads_line(b'{"a":1}\r\n') == {"a": 1}
    with pytest.raises(ProtocolError) as info:
        loads_line(b'{"a":Infinity}')
    assert info.value.code == "not-json"


def test_both_wires_carry_the_same_maps() -> None:
    for m in MESSAGES:
        assert unpack_body(encode_frame(m)[4:]) == loads_line(encode_line(m)) == m.to_data()


def test_line_limit_with_pending_cr() -> None:
    line = b'{"type":"ping","nonce":1}'
    dec = LineDecoder(max_line=len(line))
    dec.feed(line + b"\r")  # the CR may be the start of the line end: wait
    assert dec.next_message() is None
    dec.feed(b"\n")
    assert dec.next_message() == Ping(nonce=1)
    dec.feed(line + b"xx")
    with pytest.raises(ProtocolError) as info:
        dec.next_message()
    assert info.value.code == "frame-too-large"
