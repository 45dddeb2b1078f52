"""Names, ids, codes and tokens hold no control or format characters (PROTOCOL.md "Conventions"):
one rule (quinze_protocol.fields.plain_text_problem) for every such field of every message on
the server, and for the names the commands take (play, bot, serve, tournament), which say the
character (U+202E). A tournament's bot entries are checked for their types and an empty name."""

from __future__ import annotations

from pathlib import Path

import pytest
from clikit import quinze
from netclient import NetClient
from serverkit import memory_serving, second_table_plays

from quinze_protocol.errors import ProtocolError
from quinze_protocol.fields import CODE, GAME_ID, NAME, TABLE_ID, TOKEN, name_problem, plain_text_problem
from quinze_cli.tournament import load_config, make_bots

HIDDEN = [
    ("\u202e", "U+202E (RIGHT-TO-LEFT OVERRIDE), a format character"),
    ("\u200b", "U+200B (ZERO WIDTH SPACE), a format character"),
    ("\u2066", "U+2066 (LEFT-TO-RIGHT ISOLATE), a format character"),
    ("\ufeff", "U+FEFF (ZERO WIDTH NO-BREAK SPACE), a format character"),
    ("\u00ad", "U+00AD (SOFT HYPHEN), a format character"),
    ("\x07", "U+0007, a control character"),
    ("\x85", "U+0085, a control character"),
    ("\u2028", "U+2028 (LINE SEPARATOR), a line separator"),
    ("\udc80", "U+DC80, a lone surrogate"),
]


@pytest.mark.parametrize(("char", "said"), HIDDEN)
def test_every_plain_field_refuses_hidden_characters_naming_them(char: str, said: str) -> None:
    text = "ev" + char + "il"
    assert plain_text_problem(text) == f"must not contain {said} (character 3)"
    for check in (NAME, TABLE_ID, GAME_ID, CODE, TOKEN):
        with pytest.raises(ProtocolError) as info:
            check(text, "x.y")
        assert (info.value.code, info.value.field) == ("bad-field", "x.y") and said in info.value.reason
    assert name_problem(text) == plain_text_problem(text)


def test_visible_text_stays_a_name() -> None:
    for text in ("ana", "Anaïs Ø", "名前", "a\u00a0b", "x y", "\U0001f600", "\ue000"):
        assert plain_text_problem(text) is None and name_problem(text) is None
    assert name_problem("") == "must be 1..32 characters, got 0"
    assert name_problem("a" * 33) == "must be 1..32 characters, got 33"


async def test_the_server_refuses_such_a_hello_name_and_reads_on() -> None:
    async with memory_serving() as port:
        c = await NetClient.connect(port, name=None)
        await c.send({"type": "hello", "version": 1, "name": "ev\u202eil", "role": "player"})
        err = await c.recv()
        assert err["code"] == "bad-field" and err["ref"] == "hello"
        assert err["reason"] == "hello.name: must not contain U+202E (RIGHT-TO-LEFT OVERRIDE), a format character (character 3)"
        await c.send({"type": "hello", "version": 1, "name": "evil", "role": "player"})
        assert (await c.recv())["type"] == "welcome"
        await second_table_plays(port)


@pytest.mark.parametrize(
    "args",
    [
        ("play", "--name", "ev\u202eil", "--server", "127.0.0.1:1"),
        ("bot", "--name", "ev\u202eil", "--create", "quinze", "--server", "127.0.0.1:1", "builtin:random"),
        ("serve", "--name", "ev\u202eil", "--port", "0"),
        ("tournament", "name=ev\u202eil cmd=builtin:random", "builtin:greedy", "--games-per-pairing", "1"),
    ],
    ids=lambda a: a[0],
)
def test_commands_refuse_such_names_naming_the_character(args: tuple[str, ...], tmp_path: Path) -> None:
    done = quinze(*args, cwd=tmp_path)
    assert done.returncode == 2, done
    assert "U+202E (RIGHT-TO-LEFT OVERRIDE), a format character" in done.stderr
    assert "\u202e" not in done.stderr.replace("'ev\u202eil'", "")  # shown only quoted, never raw


def test_an_empty_tournament_name_is_a_usage_error(tmp_path: Path) -> None:
    done = quinze("tournament", "name= cmd=builtin:random", "builtin:greedy", "--games-per-pairing", "1", cwd=tmp_path)
    assert done.returncode == 2 and "bot 1: a name is 1 to 28 characters" in done.stderr and "got ''" in done.stderr
    assert not list(tmp_path.iterdir())  # nothing started


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        ({"cmd": 5}, "bot 1: cmd must be text (cmd=builtin:NAME or cmd='python3 bot.py'), got 5"),
        ({"cmd": ["builtin:random"]}, "bot 1: cmd must be text"),
        ({}, "bot 1: cmd is missing"),
        ({"cmd": "  "}, "bot 1: cmd is empty"),
        ({"cmd": "builtin:random", "name": 5}, "bot 1: name must be text, got 5"),
        ({"cmd": "builtin:random", "name": ""}, "bot 1: a name is 1 to 28 characters"),
        ({"cmd": "python3 x.py", "args": 5}, "bot 1: args must be text or a list of text, got 5"),
        ({"cmd": "python3 x.py", "args": ["-d", 3]}, "bot 1: args must be text or a list of text"),
        ({"cmd": "builtin:random", "movetime": True}, "bot 1: movetime must be a number of seconds, got true"),
        ({"cmd": "builtin:random", "movetime": "x"}, "bot 1: movetime must be seconds, got 'x'"),
        ({"cmd": "builtin:random", "seed": 1.5}, "bot 1: seed must be an integer, got 1.5"),
        ({"cmd": "builtin:random", "seed": False}, "bot 1: seed must be an integer, got false"),
    ],
)
def test_bot_entries_are_checked_for_their_types(entry: dict, said: str) -> None:
    with pytest.raises(ValueError) as info:
        make_bots([entry, {"cmd": "builtin:greedy"}], "quinze")
    assert str(info.value).startswith(said), info.value


def test_entries_of_the_right_types_make_bots() -> None:
    specs, times = make_bots([{"cmd": "builtin:random", "name": "r", "seed": 3, "movetime": 2},
                              {"cmd": "builtin:greedy", "seed": "4", "movetime": "1.5"},
                              {"cmd": "python3 bot.py", "args": ["--depth", "3"]}], "quinze")
    assert [s.name for s in specs] == ["r", "greedy", "bot"] and times == [2.0, 1.5, None]
    assert specs[1].seed == 4 and specs[2].argv[-2:] == ("--depth", "3")


@pytest.mark.parametrize(
    ("toml", "said"),
    [
        ("concurrency = 'x'", "concurrency must be an integer, got 'x'"),
        ("duplicate = 'no'", "duplicate must be true or false, got 'no'"),
        ("move_time = 'fast'", "move_time must be a number of seconds, got 'fast'"),
        ("seats = true", "seats must be an integer, got true"),
        ("game = 5", "game must be text, got 5"),
        ("options = 5", "options must be a table (options = { target = 50 }), got 5"),
        ("bots = 5", "bots must be a list of tables ([[bots]] with cmd = ...), got 5"),
        ("max_restarts = 1.5", "max_restarts must be an integer, got 1.5"),
    ],
)
def test_event_file_values_are_checked_for_their_types(tmp_path: Path, toml: str, said: str) -> None:
    path = tmp_path / "event.toml"
    path.write_text(toml + "\n", encoding="utf-8")
    with pytest.raises(ValueError) as info:
        load_config(path)
    assert str(info.value) == f"{path}: {said}"
    done = quinze("tournament", "--config", str(path), cwd=tmp_path)
    assert done.returncode == 2 and said in done.stderr


def test_an_event_file_bot_with_a_number_for_cmd_says_cmd_must_be_text(tmp_path: Path) -> None:
    path = tmp_path / "event.toml"
    path.write_text("[[bots]]\ncmd = 5\n[[bots]]\ncmd = 'builtin:random'\n", encoding="utf-8")
    done = quinze("tournament", "--config", str(path), "--games-per-pairing", "1", cwd=tmp_path)
    assert done.returncode == 2 and "bot 1: cmd must be text" in done.stderr and "missing" not in done.stderr
