"""Text that is not UTF-8 is ``bad-utf8`` naming the message type and the field's dotted path, as
every other bad field is (``hello.name: ...``; PROTOCOL.md "Errors"), on both wires: msgpack
frames (the server's, ``--wire msgpack`` bots) and the JSON-lines bot wire. It said only
``text that is not valid UTF-8 at byte 2 of a string``, with no ``ref``.

The decoders fed one byte at a time and whole; a real server on loopback TCP (not fatal: the
connection goes on); real bot programs (tests/bots/bad_utf8.py) in ``quinze match`` on each wire."""

from __future__ import annotations

import json
import re
import struct
import sys
from pathlib import Path

import clikit
import msgpack
import pytest
from netclient import NetClient
from serverkit import serving

from quinze_protocol.errors import ProtocolError
from quinze_protocol.framing import FrameDecoder, LineDecoder

BAD = b"\xff\xfe"
ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable


def _frame(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body


def _with_bad(value: object) -> bytes:
    """``value`` packed, every "@@" in it made the two bytes ff fe (same length: headers stay right)."""
    return msgpack.packb(value).replace(b"@@", BAD)


CASES = [
    # (message with "@@" where the bad bytes go, field, reason, ref)
    ({"type": "hello", "version": 1, "name": "an@@a"}, "hello.name", "text that is not valid UTF-8 (byte 2 of the string)", "hello"),
    ({"type": "action", "table": "t1", "request": 7, "action": {"type": "play", "cards": ["7c", "x@@"]}},
     "action.action.cards[1]", "text that is not valid UTF-8 (byte 1 of the string)", "action"),
    ({"type": "list-tables", "@@x": 1}, "list-tables", "a map key is text that is not valid UTF-8 (byte 0 of the key)", "list-tables"),
    ({"type": "pi@@ng"}, "message.type", "text that is not valid UTF-8 (byte 2 of the string)", None),
]


def _feed_bytewise(decoder, data: bytes) -> ProtocolError:
    for i in range(len(data)):
        decoder.feed(data[i:i + 1])
    with pytest.raises(ProtocolError) as info:
        decoder.next_data()
    return info.value


@pytest.mark.parametrize(("msg", "field", "reason", "ref"), CASES, ids=[c[1] for c in CASES])
def test_a_frame_names_the_field(msg, field, reason, ref) -> None:
    body = _with_bad(msg)
    for err in (_feed_bytewise(FrameDecoder(), _frame(body) + _frame(msgpack.packb({"type": "ping", "nonce": 1}))),):
        assert (err.code, err.field, err.reason, err.ref, err.fatal) == ("bad-utf8", field, reason, ref, False)
        assert err.message_text() == f"{field}: {reason}"
    if msg.get("request") is not None:
        assert err.request == msg["request"]
    dec = FrameDecoder()
    dec.feed(_frame(body) + _frame(msgpack.packb({"type": "ping", "nonce": 1})))
    with pytest.raises(ProtocolError):
        dec.next_data()
    assert dec.next_data() == {"type": "ping", "nonce": 1}  # the stream goes on


@pytest.mark.parametrize(("msg", "field", "reason", "ref"), CASES, ids=[c[1] for c in CASES])
def test_a_json_line_names_the_field(msg, field, reason, ref) -> None:
    line = json.dumps(msg, separators=(",", ":")).encode().replace(b"@@", BAD) + b"\n"
    err = _feed_bytewise(LineDecoder(), line + b'{"type":"ping","nonce":1}\n')
    assert (err.code, err.field, err.reason, err.ref, err.fatal) == ("bad-utf8", field, reason, ref, False)


@pytest.mark.parametrize("line", [b"\xff" + b'{"type":"ping"}', b'["' + BAD + b'"]', b'{"type":"ping",' + BAD + b'}'])
def test_a_json_line_with_bad_bytes_outside_an_object_string_names_the_byte(line) -> None:
    dec = LineDecoder()
    dec.feed(line + b"\n")
    with pytest.raises(ProtocolError) as info:
        dec.next_data()
    assert info.value.code == "bad-utf8" and info.value.field is None
    assert info.value.reason == f"line is not valid UTF-8 (byte {line.index(BAD[:1])})"


async def test_the_server_names_the_field_and_reads_on() -> None:
    async with serving() as port:
        c = await NetClient.connect(port, None)
        await c.send_raw(_frame(_with_bad({"type": "hello", "version": 1, "name": "an@@a"})))
        err = await c.recv()
        assert err == {"type": "error", "code": "bad-utf8", "ref": "hello",
                       "reason": "hello.name: text that is not valid UTF-8 (byte 2 of the string)"}
        await c.send({"type": "hello", "version": 1, "name": "ana"})
        assert (await c.recv())["type"] == "welcome"
        await c.send_raw(_frame(_with_bad({"type": "list-tables", "filter": ["x", "a@@"]})))
        err = await c.recv()
        assert (err["code"], err["ref"], err["reason"]) == (
            "bad-utf8", "list-tables", "list-tables.filter[1]: text that is not valid UTF-8 (byte 1 of the string)")
        assert (await c.request({"type": "list-tables"}, "tables"))["type"] == "tables"
        await c.aclose()


@pytest.mark.parametrize("wire", ["json", "msgpack"])
def test_a_bot_program_is_told_which_field(tmp_path: Path, wire: str) -> None:
    result = clikit.quinze("match", f"{PY} {ROOT / 'tests' / 'bots' / 'bad_utf8.py'} {wire}", "builtin:random",
                           "--games", "1", "--seed", "2", "--option", "target=1", "--log-dir", str(tmp_path / "logs"),
                           "--wire", wire)
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if " forfeits: " in line]
    assert len(lines) == 1 and re.search(
        r"forfeits: garbage \(mid-game\): output that is not a message: action\.action\.type: text that is not valid UTF-8 "
        r"\(byte \d+ of the string\) \[bad-utf8\]$", lines[0]), result.stderr
