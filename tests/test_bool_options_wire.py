"""A bool table option is a boolean on the wire (PROTOCOL.md `create-table` and "Game actions"):
``create-table`` with ``true`` or ``false`` makes the table, with anything else (the words
``"yes"``, ``"0"``..., the integers 0 and 1, nil) is ``bad-option`` naming the option, for every
bool option of every game, on the real server over loopback TCP and in a position's options.
The words are the command line's (``--option quick_place=yes``, a line typed in ``quinze play``'s
lobby): read there before anything is sent, as ``quinze match`` shows."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from clikit import quinze
from netclient import NetClient
from serverkit import serving

from quinze_protocol.game import Game, GameError, OptionError, get_game
from quinze_protocol.registry import game_ids

DOC = Path(__file__).resolve().parent.parent / "PROTOCOL.md"
GAMES = ("quinze", "quinze-classique", "quatorze")
BOOLS = [(g, o.name) for g in GAMES for o in get_game(g).option_specs if o.type is bool]
WORDS = {"true": True, "false": False, "yes": True, "no": False, "on": True, "off": False, "1": True, "0": False,
         "TRUE": True, " No ": False}
NOT_BOOLEANS: list[Any] = [*WORDS, "maybe", "", 0, 1, 0.0, 1.0, None, [], {}, [True]]


def test_the_three_games_are_covered_and_have_bool_options() -> None:
    assert set(GAMES) == set(game_ids()) and BOOLS  # a new game or option is taken in by the lists above


@pytest.mark.parametrize(("game", "name"), BOOLS)
def test_protocol_md_types_each_bool_option_as_bool(game: str, name: str) -> None:
    text = DOC.read_text(encoding="utf-8")
    section = text.split(f"(`{game}`)\n", 1)[1].split("\n### ", 1)[0]
    assert re.search(rf"`{name}` \(bool\b", section), (game, name)
    create = text.split("#### `create-table` — `CreateTable`", 1)[1].split("\n#### ", 1)[0]
    assert "a bool option takes `true` or `false`" in create


@pytest.mark.parametrize(("game", "name"), BOOLS)
def test_the_options_as_data_take_only_booleans(game: str, name: str) -> None:
    cls: type[Game] = get_game(game)
    for value in (True, False):
        assert cls.validate_options({name: value})[name] is value
    for wrong in NOT_BOOLEANS:
        with pytest.raises(OptionError) as info:
            cls.validate_options({name: wrong})
        assert info.value.field == name and info.value.reason.startswith("expects true or false"), wrong
        with pytest.raises(OptionError):
            cls.new({"players": cls.min_players, name: wrong}, 1)


@pytest.mark.parametrize(("game", "name"), BOOLS)
def test_the_command_line_words_are_read_as_booleans(game: str, name: str) -> None:
    cls: type[Game] = get_game(game)
    for word, value in WORDS.items():
        assert cls.validate_options({name: word}, text=True)[name] is value
        assert cls.validate_options({name: value}, text=True)[name] is value  # data passes as it is
    for wrong in ("maybe", "", "2", "truee"):
        with pytest.raises(OptionError) as info:
            cls.validate_options({name: wrong}, text=True)
        assert (info.value.field, info.value.reason) == (name, f"expects true or false (or yes/no, on/off, 1/0), got {wrong!r}")
    for wrong in (0, 1, None):  # data, not words: the data's rule
        with pytest.raises(OptionError):
            cls.validate_options({name: wrong}, text=True)
    # the command line's words do not leak into the data's rule through the cache of validations
    assert cls.validate_options({name: "yes"}, text=True)[name] is True
    with pytest.raises(OptionError):
        cls.validate_options({name: "yes"})


async def test_the_server_takes_only_booleans_for_every_bool_option() -> None:
    async with serving() as port:
        c = await NetClient.connect(port)
        for game, name in BOOLS:
            for value in (True, False):
                created = await c.request({"type": "create-table", "game": game, "options": {name: value}}, "table-created")
                assert created["table"]["options"][name] is value, (game, name)
            for wrong in NOT_BOOLEANS:
                await c.send({"type": "create-table", "game": game, "options": {name: wrong}})
                err = await c.expect("error")
                assert (err["code"], err["ref"]) == ("bad-option", "create-table"), (game, name, wrong)
                assert err["reason"].startswith(f"create-table.options.{name}: expects true or false"), err
                if isinstance(wrong, str):
                    assert "text is read only from the command line" in err["reason"]


@pytest.mark.parametrize(("game", "name"), BOOLS)
async def test_a_positions_bool_option_is_a_boolean_too(game: str, name: str) -> None:
    cls: type[Game] = get_game(game)
    async with serving() as port:
        c = await NetClient.connect(port)
        for value in (True, False):
            position = cls.new({"players": cls.min_players, name: value}, 5).to_position()
            created = await c.request({"type": "create-table", "game": game, "position": position}, "table-created")
            assert created["table"]["options"][name] is value
        for wrong in ("yes", "false", 1, 0):
            bad = {**position, "options": {**position["options"], name: wrong}}
            with pytest.raises(GameError):
                cls.from_position(bad)
            await c.send({"type": "create-table", "game": game, "position": bad})
            err = await c.expect("error")
            assert err["code"] == "bad-option" and name in err["reason"] and "expects true or false" in err["reason"], err


@pytest.mark.parametrize(("word", "value"), [("true", True), ("no", False), ("1", True)])
def test_quinze_match_reads_the_words_and_sends_booleans(tmp_path: Path, word: str, value: bool) -> None:
    game, name = next((g, n) for g, n in BOOLS if g == "quinze")
    done = quinze("match", "builtin:random", "builtin:greedy", "--game", game, "--games", "1", "--seed", "1",
                  "--option", f"{name}={word}", "--option", "target=5", "--json", "out.json", "--log-dir", "logs", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "out.json").read_text())["options"][name] is value
    header = json.loads(next((tmp_path / "logs").glob("*.jsonl")).read_text().splitlines()[0])
    assert header["options"][name] is value, header  # what the server was sent, and logged


def test_quinze_match_refuses_a_word_that_is_no_boolean(tmp_path: Path) -> None:
    done = quinze("match", "builtin:random", "builtin:greedy", "--games", "1", "--option", "quick_place=maybe",
                  cwd=tmp_path)
    said = " ".join(done.stderr.split())
    assert done.returncode == 1 and "quick_place: expects true or false (or yes/no, on/off, 1/0), got 'maybe'" in said, said
