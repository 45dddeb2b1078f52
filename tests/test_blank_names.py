"""A name in ``hello`` must show at least one character (PROTOCOL.md ``hello``): a name that is
empty, only white space, only blank fillers or combining marks, or only control or format
characters (U+200B ZERO WIDTH SPACE ...) is refused with ``bad-field`` naming ``hello.name`` and
why, the connection left as it was before the ``hello`` (a good one may follow). Names with one
character that shows are kept exactly as sent (not stripped)."""

from __future__ import annotations

import unicodedata

import pytest
from clikit import quinze
from hypothesis import given, settings
from hypothesis import strategies as st
from netclient import NetClient
from serverkit import create, serving

from quinze_protocol.errors import ProtocolError
from quinze_protocol.fields import blank_problem, name_problem
from quinze_protocol.messages import CLIENT_TYPES, Hello, parse_message
from quinze_cli.tournament import make_bots

_ALL = [chr(i) for i in range(0x3000)] + [chr(i) for i in range(0xFE00, 0x10000)]
SPACES = [c for c in _ALL if c.isspace()]
"""Every white-space character (the ASCII controls among them, \\t \\n ..., are refused as controls)."""
MARKS = [c for c in _ALL if unicodedata.category(c) in ("Mn", "Me")]
FILLERS = ["\u115f", "\u1160", "\u3164", "\uffa0", "\u2800"]
HIDDEN = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u180e", "\u202e", "\x00", "\x1b", "\x7f"]

blankish = st.text(st.sampled_from(SPACES + MARKS + FILLERS + HIDDEN), min_size=0, max_size=32)
shown_char = st.characters(categories=["Lu", "Ll", "Lt", "Lm", "Lo", "Nd", "Nl", "No", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf",
                                       "Po", "Sm", "Sc", "Sk", "So", "Co"]).filter(lambda c: c not in FILLERS)
"""A character that shows: a letter, digit, punctuation or symbol (private use too: a font may draw it)."""
padding = st.text(st.sampled_from([" ", "\u00a0", "\u3000", *MARKS[:50]]), max_size=4)


def _refusal(name: str) -> ProtocolError:
    with pytest.raises(ProtocolError) as info:
        parse_message({"type": "hello", "version": 1, "name": name}, allowed=CLIENT_TYPES)
    return info.value


@settings(max_examples=300, deadline=None)
@given(blankish)
def test_a_blank_ish_name_is_refused_naming_the_field_and_why(name: str) -> None:
    err = _refusal(name)
    assert (err.code, err.field, err.ref, err.fatal) == ("bad-field", "hello.name", "hello", False)
    assert err.message_text().startswith("hello.name: must ")
    assert name_problem(name) == err.reason  # quinze play --name / bot --name say the same
    with pytest.raises(ProtocolError):
        Hello(version=1, name=name)  # a client of ours cannot send one either


@settings(max_examples=300, deadline=None)
@given(padding, st.lists(shown_char, min_size=1, max_size=8).map("".join), padding, st.text(st.sampled_from(" ab"), max_size=4))
def test_a_name_that_shows_a_character_is_accepted_as_sent(before: str, core: str, after: str, tail: str) -> None:
    name = (before + core + after + tail)[:32]
    if not any(not (c.isspace() or unicodedata.category(c) in ("Mn", "Me")) for c in name):
        name = core[:32]  # the cut took every shown character away
    msg = parse_message({"type": "hello", "version": 1, "name": name}, allowed=CLIENT_TYPES)
    assert isinstance(msg, Hello) and msg.name == name  # not stripped
    assert name_problem(name) is None and blank_problem(name) is None


def test_the_reasons_in_words() -> None:
    assert _refusal("").message_text() == "hello.name: must be 1..32 characters, got 0"
    assert _refusal("   ").message_text() == (
        "hello.name: must show at least one character, got only spaces or invisible characters: '   '")
    assert _refusal("\u3164\u00a0").reason.endswith(": '\\u3164\\xa0'")  # shown as ASCII escapes
    assert _refusal("\u200b").reason == "must not contain U+200B (ZERO WIDTH SPACE), a format character (character 1)"
    assert _refusal(" " * 33).reason == "must be 1..32 characters, got 33"
    assert blank_problem(" ana ") is None and blank_problem("e\u0301") is None


def test_a_tournament_refuses_a_blank_name_before_playing() -> None:
    with pytest.raises(ValueError, match=r"bot 1: the name '\\u3164' must show at least one character"):
        make_bots([{"cmd": "builtin:random", "name": "\u3164"}], "quinze")


def test_quinze_play_refuses_a_blank_name(tmp_path) -> None:
    done = quinze("play", "--name", "\u00a0 ", "--server", "127.0.0.1:1", cwd=tmp_path)
    assert done.returncode == 2, done
    assert "must show at least one character" in done.stderr


async def test_the_server_refuses_blank_names_over_tcp_and_the_connection_goes_on() -> None:
    async with serving() as port:
        c = await NetClient.connect(port, name=None)
        for name in ("", "   ", "\u3164", "\u200b", "\u00a0\u0301"):
            await c.send({"type": "hello", "version": 1, "name": name, "role": "player"})
            err = await c.recv()
            assert (err["type"], err["code"], err["ref"]) == ("error", "bad-field", "hello"), err
            assert err["reason"].startswith("hello.name: must "), err
        assert err["reason"] == ("hello.name: must show at least one character, got only spaces or invisible "
                                 "characters: '\\xa0\\u0301'")
        await c.send({"type": "hello", "version": 1, "name": " ana ", "role": "player"})
        assert (await c.recv())["type"] == "welcome"  # the same connection, greeted now
        table = await create(c)
        await c.request({"type": "join", "table": table}, "joined")
        listing = await c.request({"type": "list-tables", "table": table}, "tables")
        assert listing["tables"][0]["seats"][0]["name"] == " ana "  # as sent
