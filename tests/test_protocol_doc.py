"""PROTOCOL.md's examples are real: every ```hex frame decodes to the ```json message right after
it, both parse with the code, and every message type of the registry has an example."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from quinze_protocol.errors import FATAL_CODES
from quinze_protocol.framing import FrameDecoder, LineDecoder, decode_frame, encode_frame, encode_line, unpack_body
from quinze_protocol.messages import MESSAGE_TYPES, GameOver, GameStart, commitment, parse_message

DOC = Path(__file__).resolve().parent.parent / "PROTOCOL.md"
PAIR = re.compile(r"```hex\n(.*?)```\s*```json\n(.*?)```", re.S)


def examples() -> list[tuple[str, str]]:
    return PAIR.findall(DOC.read_text(encoding="utf-8"))


def test_doc_has_examples() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert len(examples()) == text.count("```hex") >= len(MESSAGE_TYPES)


@pytest.mark.parametrize("pair", examples(), ids=lambda p: json.loads(p[1])["type"])
def test_example(pair: tuple[str, str]) -> None:
    hex_text, json_text = pair
    frame = bytes.fromhex("".join(hex_text.split()))
    data = json.loads(json_text)
    # the frame is the JSON message, byte for byte as our encoder writes it
    assert unpack_body(frame[4:]) == data
    assert int.from_bytes(frame[:4], "big") == len(frame) - 4
    msg = decode_frame(frame)
    assert msg.to_data() == data
    assert parse_message(data) == msg
    assert encode_frame(msg) == frame
    # the JSON text is the line our encoder writes
    assert encode_line(msg) == json_text.strip().encode("utf-8") + b"\n"
    lines = LineDecoder()
    lines.feed(json_text.encode("utf-8"))
    lines.feed_eof()
    assert lines.next_message() == msg


def test_every_type_has_an_example_and_its_section() -> None:
    text = DOC.read_text(encoding="utf-8")
    shown = {json.loads(j)["type"] for _, j in examples()}
    assert shown == set(MESSAGE_TYPES)
    for t, cls in MESSAGE_TYPES.items():
        assert f"`{t}` — `{cls.__name__}`" in text, t


def test_all_examples_as_one_stream() -> None:
    stream = b"".join(bytes.fromhex("".join(h.split())) for h, _ in examples())
    dec = FrameDecoder()
    dec.feed(stream)
    assert [m.to_data() for m in dec.messages()] == [json.loads(j) for _, j in examples()]


def test_commitment_example_checks_out() -> None:
    msgs = [parse_message(json.loads(j)) for _, j in examples()]
    start = next(m for m in msgs if isinstance(m, GameStart))
    over = next(m for m in msgs if isinstance(m, GameOver))
    assert start.commitment == commitment(over.seed, over.salt)
    assert commitment(over.seed, over.salt) in DOC.read_text(encoding="utf-8")


def test_error_codes_documented() -> None:
    text = DOC.read_text(encoding="utf-8")
    codes = set(FATAL_CODES) | {"not-json", "not-a-map", "bad-utf8", "missing-type", "unknown-type", "bad-field"}
    spec = "version-mismatch not-hello unknown-table unknown-game bad-option seat-taken table-full bad-token not-seated not-your-turn stale-request game-not-running"
    for code in codes | set(spec.split()):
        assert f"| `{code}` |" in text, code


def test_game_over_example_replays() -> None:
    from quinze_protocol.game import Result
    from quinze_protocol.replaylog import game_records, read_log, dumps_records
    from quinze_protocol.replaysim import verify

    msgs = [parse_message(json.loads(j)) for _, j in examples()]
    start = next(m for m in msgs if isinstance(m, GameStart))
    over = next(m for m in msgs if isinstance(m, GameOver))
    assert over.forfeit is not None
    recs = game_records(
        start.game, start.options, over.seed, over.salt, start.players, over.actions,
        started=0, ended=1, forfeit=over.forfeit.to_data(), result=over.result,
    )
    assert over.result == Result.forfeit(len(start.players), over.forfeit.seat).to_data()
    (game,) = read_log(dumps_records(recs)).games
    assert verify(game) is None
