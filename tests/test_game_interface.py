"""The shape of the Game interface (protocol/game.py), the same in every game: ``apply`` written
once in the base class, ``parse_action`` a class method (no game built to read a legal entry),
public ``check``, ``copy``, ``stats`` and ``check_options`` part of the interface, ``view()["result"]``
and a last ``game-end`` event everywhere; Le Quinze classique's coup logic a collaborator over an
explicit state object."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from quinze_protocol.game import Game, OptionError, get_bot, get_game
from quinze_protocol.games.classique import ClassiqueGame
from quinze_protocol.games.classique_coup import ClassiqueState, CoupFlow
from toygame import FirstToThree

ROOT = Path(__file__).resolve().parent.parent
CLASSES = [get_game("quinze"), get_game("quatorze"), get_game("quinze-classique"), FirstToThree]


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.id)
def test_one_apply_and_the_same_names_everywhere(cls: type[Game]) -> None:
    assert cls.apply is Game.apply  # data -> parse_action -> check -> the game's own _play
    assert isinstance(inspect.getattr_static(cls, "parse_action"), classmethod)
    assert isinstance(inspect.getattr_static(cls, "check_options"), classmethod)
    for name in ("check", "_play", "copy", "stats", "view", "result", "to_position", "from_position", "legal_actions"):
        assert callable(getattr(cls, name)), name
    assert not hasattr(cls, "check_action") and not hasattr(cls, "_check")


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.id)
def test_legal_entries_read_without_a_game(cls: type[Game]) -> None:
    g = cls.new({}, 5)
    for entry in g.legal_data():
        parsed = cls.parse_action(entry)  # the class alone reads it
        assert parsed.to_data() == entry
    assert isinstance(g.stats(), dict)
    assert g.view(None)["result"] is None


def test_options_refused_together_are_refused_without_a_game() -> None:
    with pytest.raises(OptionError) as err:
        ClassiqueGame.validate_options({"players": 3, "caves": "100,80"})
    assert err.value.field == "caves"
    assert ClassiqueGame.validate_options({"players": 3, "caves": "100,80,120"})["caves"] == "100,80,120"


def test_no_dummy_game_is_built_to_read_legal_entries() -> None:
    for path in ("quinze_cli/builtin.py", "quinze_cli/play/registry.py", "quinze_cli/play/render_classique.py",
                 "server/lobby.py"):
        text = (ROOT / path).read_text(encoding="utf-8")
        assert ".new(" not in text, path


def test_classique_coup_flow_is_a_collaborator_over_an_explicit_state() -> None:
    assert CoupFlow not in ClassiqueGame.__mro__
    g = ClassiqueGame.new({"players": 3}, 2)
    assert isinstance(g.state, ClassiqueState) and g.flow.state is g.state
    assert g.chips is g.state.chips and g.dealer == g.state.dealer  # the game reads its state
    # the whole changing state is declared in one place: the state's slots
    assert set(ClassiqueState.__slots__) >= {"chips", "pot", "stakes", "talon", "hidden", "phase", "turn", "rng"}
    c = g.copy()
    assert c.state is not g.state and c.flow.state is c.state
    bot = get_bot("quinze-classique", "random", 1)
    before = g.to_position()
    while not c.is_over:
        a = bot.choose(c.view(c.to_act), c.legal_actions())
        if a.to_data()["type"] == "raise" and a.amount is None:
            a = a.with_amount(a.min)
        c.apply(a)
    assert g.to_position() == before
