"""The one registry of game CLI sides (quinze_cli/gameside.py): every registered game has every
piece (a test walks the registry, so a forgotten piece fails here instead of falling back to a
generic screen), and the toy game of tests/toygame.py, registered from this test through the same
public registration (tests/toycli.py), gets a board, narration, ``quinze replay`` of its log and a
``quinze match`` between two built-in bots."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from quinze_protocol.game import Event, game_ids, get_bot, get_game
from quinze_cli.app import app
from quinze_cli.gameside import GameSide, find_side, get_side, side_ids
from quinze_cli.narrate import Names, narrate_event
from quinze_cli.play.cards_ui import CardStyle
from quinze_cli.i18n import Catalogue
from quinze_cli.play.registry import GameUI, InputError, TableState, get_ui
from toycli import SIDE, TOY, ToyUI, toy_registered
from toygame import FirstToThree

OVERRIDDEN = ("board", "on_event", "on_request", "action_text", "parse", "help_lines")
"""What every game's GameUI draws or reads itself (the generic base only lists data)."""


def _event_kinds(game_id: str, seeds: range = range(4)) -> set[str]:
    """Every event kind of a few games between the first built-in bots."""
    cls = get_game(game_id)
    kinds: set[str] = set()
    for seed in seeds:
        g = cls.new({"players": cls.min_players}, seed)
        kinds |= {e.kind for e in g.opening_events}
        bot = get_bot(game_id, "random", seed)
        for _ in range(3000):
            if g.is_over:
                break
            kinds |= {e.kind for e in g.apply(bot.choose(g.view(g.to_act), g.legal_actions()), checked=False)}
    return kinds


def check_side(game_id: str) -> None:
    """Every piece of ``game_id``'s side is there and works together with its engine."""
    side = get_side(game_id)
    assert side.game == game_id
    ui = get_ui(game_id, Catalogue("en"), CardStyle("en", False))
    assert type(ui) is side.ui and ui.game_id == game_id
    for name in OVERRIDDEN:
        assert getattr(side.ui, name) is not getattr(GameUI, name), f"{game_id}: GameUI.{name} not drawn by the game"
    missing = _event_kinds(game_id) - set(side.narrators)
    assert not missing, f"{game_id}: event kinds without a narrator: {sorted(missing)}"
    for lang in ("en", "fr"):
        cat = Catalogue(lang, strict=True)
        assert cat.has(f"game.title.{game_id}"), (game_id, lang)
        ui = get_ui(game_id, cat, CardStyle(lang, False))
        assert ui.help_lines(), (game_id, lang)  # strict: every help line is in the namespace of both languages
        assert all(isinstance(line, str) and line for line in ui.help_lines())
        assert set(side.narrators_for(cat)) == set(side.narrators)


@pytest.mark.parametrize("game_id", game_ids())
def test_every_registered_game_has_every_piece_of_its_cli_side(game_id: str) -> None:
    check_side(game_id)


def test_the_registry_holds_exactly_the_registered_games() -> None:
    assert side_ids() == game_ids()
    assert find_side("no-such-game") is None
    with pytest.raises(LookupError, match="no-such-game"):
        get_side("no-such-game")


def test_a_side_missing_a_piece_is_refused() -> None:
    with pytest.raises(ValueError, match="subclass of GameUI"):
        GameSide(TOY, GameUI, SIDE.narrators, frozenset({"deal"}), "toy")
    with pytest.raises(ValueError, match="narrators"):
        GameSide(TOY, ToyUI, {}, frozenset({"deal"}), "toy")
    with pytest.raises(ValueError, match="sections"):
        GameSide(TOY, ToyUI, SIDE.narrators, frozenset({"no-such-kind"}), "toy")
    with pytest.raises(ValueError, match="locale"):
        GameSide(TOY, ToyUI, SIDE.narrators, frozenset({"deal"}), "")
    with pytest.raises(ValueError, match="outside toy"):
        GameSide(TOY, ToyUI, SIDE.narrators, frozenset({"deal"}), "toy", strings={"en": {"quinze.hand": "x"}})


# --------------------------------------------------------------------------- the toy game


def test_the_toy_game_passes_the_same_registry_walk() -> None:
    with toy_registered():
        assert TOY in game_ids() and TOY in side_ids()
        check_side(TOY)
    assert TOY not in side_ids() and TOY not in game_ids()


def _plain(renderable: Any) -> str:
    console = Console(width=80, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def test_the_toy_game_gets_a_board_and_typed_input_in_play() -> None:
    with toy_registered():
        g = FirstToThree.new({}, seed=5)
        for lang, last, secret in (("en", "Last said: 2", "Your secret number"), ("fr", "Dernier nombre dit : 2", "Votre nombre secret")):
            ui = get_ui(TOY, Catalogue(lang, strict=True), CardStyle(lang, False))
            assert isinstance(ui, ToyUI)
            state = TableState(table="t1", game=TOY, seat=0, players=["Ana", "Bob"], options=dict(g.options))
            ui.start(state)
            copy = g.copy()
            for e in copy.opening_events:
                ui.on_event(state, e.for_seat(0))
            for e in copy.apply({"type": "say", "n": 2}):
                ui.on_event(state, e.for_seat(0))
            state.view, state.legal = copy.view(1), copy.legal_data()
            board = _plain(ui.board(state))
            assert last in board and f"{secret}" in board and str(g.secrets[0]) in board
            assert ui.parse(state, "3") == {"type": "say", "n": 3}
            with pytest.raises(InputError, match="3"):
                ui.parse(state, "say 5")


def test_the_toy_game_is_narrated_in_play_and_in_replay() -> None:
    from quinze_cli.play.events_ui import tell

    with toy_registered():
        state = TableState(table="t1", game=TOY, seat=1, players=["Ana", "Bob"])
        said = Event("said", {"seat": 0, "n": 1}).for_seat(1)
        assert tell(TOY, state, said, None, "(vous)", cat=Catalogue("fr", strict=True)) == ["Ana dit 1."]
        deal = Event("deal", {"players": 2}, {0: {"secret": 7}, 1: {"secret": 9}})
        section, lines = narrate_event(TOY, deal.full(), Names(["Ana", "Bob"]), None)
        assert section and lines == ["Secret numbers are dealt to 2 seats.", "  Ana: 7", "  Bob: 9"]
        _, seen = narrate_event(TOY, deal.full(), Names(["Ana", "Bob"], 1), 1)
        assert seen == ["Secret numbers are dealt to 2 seats.", "  Bob (you): 9"]  # seat 1 sees only its own


def test_the_toy_game_plays_a_match_between_builtin_bots_and_replays_its_log(tmp_path: Path) -> None:
    runner = CliRunner()
    with toy_registered():
        done = runner.invoke(app, ["match", "builtin:random", "builtin:random", "--game", TOY, "--games", "4",
                                   "--seed", "3", "--log-dir", str(tmp_path), "--json", str(tmp_path / "r.json")])
        assert done.exit_code == 0, done.output
        assert FirstToThree.score_label in done.output  # the score column named by the game class
        results = json.loads((tmp_path / "r.json").read_text())
        assert sum(b["games"] for b in results["bots"]) == 8 and results["game"] == TOY
        (log,) = tmp_path.glob("match-*.jsonl")
        told = runner.invoke(app, ["replay", str(log), "--game", "2"])
        assert told.exit_code == 0, told.output
        assert "First to say 3 (first-to-three)" in told.output
        assert re.search(r"\S+ says 1\.|\S+ says 2\.", told.output) and "said 3 and wins." in told.output
        checked = runner.invoke(app, ["replay", str(log), "--verify"])
        assert checked.exit_code == 0 and "4/4 verified" in checked.output, checked.output


def test_the_toy_game_gets_the_step_through_viewer(tmp_path: Path) -> None:
    from quinze_protocol.replaylog import read_log
    from quinze_cli.viewer.screen import Viewer

    with toy_registered():
        done = CliRunner().invoke(app, ["match", "builtin:random", "builtin:random", "--game", TOY, "--games", "1",
                                        "--seed", "8", "--log-dir", str(tmp_path)])
        assert done.exit_code == 0, done.output
        (log,) = tmp_path.glob("match-*.jsonl")
        (logged,) = read_log(log.read_bytes()).games
        viewer = Viewer(logged, 1, seat=0, color=False)
        screen = _plain(viewer.render(Console(width=80, height=24, color_system=None)))
        assert "Last said: 0" in screen and "Your secret number" in screen and "say 1" in screen
        viewer.index = viewer.timeline.last
        assert "said 3 and wins." in _plain(viewer.render(Console(width=80, height=24, color_system=None)))
