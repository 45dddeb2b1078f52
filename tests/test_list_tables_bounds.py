"""Every bound of a ``list-tables`` field is the one PROTOCOL.md gives where the field is
described (`list-tables`): the integer ranges are read from the document's table and tried
at their edges, on the decoder and on the real server over loopback TCP (``offset`` up to 2**31,
``limit`` 1..1000); the text field ``table`` keeps the table ids' 1..32 characters
(Conventions), ``closed`` takes only a boolean."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from netclient import NetClient
from serverkit import serving

from quinze_protocol.errors import ProtocolError
from quinze_protocol.messages import ListTables, parse_message

DOC = Path(__file__).resolve().parent.parent / "PROTOCOL.md"


def documented_types() -> dict[str, str]:
    """``list-tables``'s fields and their type column, from PROTOCOL.md."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("#### `list-tables` — `ListTables`", 1)[1].split("\n#### ", 1)[0]
    return {m[1]: m[2] for m in re.finditer(r"^\| (\w+) \| ((?:[^|\\]|\\\|)+?) \|", section, re.M) if m[1] != "field"}


def number(text: str) -> int:
    base, _, power = text.partition("**")
    return int(base) ** int(power) if power else int(text)


def documented_range(field: str) -> tuple[int, int]:
    m = re.match(r"int (\S+) ?\.\. ?(\d[\d*]*)", documented_types()[field])
    assert m, f"list-tables.{field}: no range in PROTOCOL.md: {documented_types()[field]!r}"
    return number(m[1]), number(m[2])


INT_FIELDS = [name for name, check in ListTables.__dataclass_fields__.items() if check.type in ("int", "int | None")]


def test_every_field_is_documented_and_every_integer_with_both_ends() -> None:
    assert set(documented_types()) == {"closed", "table", "offset", "limit"} == set(ListTables._checks)
    assert set(INT_FIELDS) == {"offset", "limit"}
    assert documented_range("offset") == (0, 2**31)
    assert documented_range("limit") == (1, 1000)
    assert "2147483648" in documented_types()["offset"]


def refusal(data: dict[str, object]) -> ProtocolError:
    with pytest.raises(ProtocolError) as info:
        parse_message({"type": "list-tables", **data})
    return info.value


@pytest.mark.parametrize("field", INT_FIELDS)
def test_the_decoder_takes_the_documented_range_and_nothing_past_it(field: str) -> None:
    lo, hi = documented_range(field)
    for ok in (lo, lo + 1, hi - 1, hi):
        assert getattr(parse_message({"type": "list-tables", field: ok}), field) == ok
    for wrong, words in ((hi + 1, f"must be at most {hi}, got {hi + 1}"), (hi * 2, f"must be at most {hi}, got {hi * 2}"),
                         (2**63, f"must be at most {hi}, got {2**63}"), (lo - 1, f"must be at least {lo}, got {lo - 1}")):
        err = refusal({field: wrong})
        assert (err.code, err.message_text()) == ("bad-field", f"list-tables.{field}: {words}")


def test_the_other_fields_keep_their_bounds() -> None:
    assert parse_message({"type": "list-tables", "table": "t" * 32}).table == "t" * 32
    for table in ("", "t" * 33):
        assert refusal({"table": table}).code == "bad-field"
    for closed in (0, 1, "true"):
        assert refusal({"closed": closed}).message_text().startswith("list-tables.closed: must be true or false")


async def test_the_server_pages_up_to_the_documented_offset_and_refuses_past_it() -> None:
    lo, hi = documented_range("offset")
    async with serving() as port:
        c = await NetClient.connect(port)
        await c.request({"type": "create-table", "game": "quinze", "options": {"players": 2}}, "table-created")
        for offset, shown in ((lo, 1), (1, 0), (hi - 1, 0), (hi, 0)):
            page = await c.request({"type": "list-tables", "offset": offset}, "tables")
            assert (len(page["tables"]), page["total"], page["offset"]) == (shown, 1, offset)
        for offset in (hi + 1, 2**40, lo - 1):
            await c.send({"type": "list-tables", "offset": offset})
            err = await c.expect("error")
            bound = f"at most {hi}" if offset > hi else f"at least {lo}"
            assert err == {"type": "error", "code": "bad-field", "ref": "list-tables",
                           "reason": f"list-tables.offset: must be {bound}, got {offset}"}
        lo, hi = documented_range("limit")
        for limit in (lo, hi):
            assert len((await c.request({"type": "list-tables", "limit": limit}, "tables"))["tables"]) == 1
        for limit in (lo - 1, hi + 1):
            await c.send({"type": "list-tables", "limit": limit})
            assert (await c.expect("error"))["code"] == "bad-field"
