"""Rules versions in logs (quinze_protocol.replaylog, ``Game.rules_version``): every header records the
game's rules version, and ``replay --verify`` of a log made under an earlier version says which
version it needs instead of reporting a divergence.

The fixtures in tests/data/ are real match logs written BEFORE the rules changes of issue 10 §6
(``quinze match builtin:greedy builtin:random --games 3 --seed 11``; ``threshold`` for
quinze-classique, which has no greedy bot), by the code of that time: their headers carry no
``rules`` field (version 1).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from quinze_protocol.game import get_bot, get_game
from quinze_protocol.replaylog import game_records, read_log
from quinze_protocol.replaysim import rules_needed, verify
from quinze_cli.app import app

DATA = Path(__file__).parent / "data"
VERSIONS = {"quinze": 1, "quatorze": 2, "quinze-classique": 2}
"""Expected rules versions: Le 14 and the classique changed how they play (issue 10 §6)."""


def fixture(game_id: str) -> Path:
    return DATA / f"rules-v1-{game_id}.jsonl"


@pytest.mark.parametrize("game_id", sorted(VERSIONS))
def test_each_game_has_its_rules_version(game_id: str) -> None:
    assert get_game(game_id).rules_version == VERSIONS[game_id]


@pytest.mark.parametrize("game_id", sorted(VERSIONS))
def test_every_header_records_the_rules_version(game_id: str) -> None:
    cls = get_game(game_id)
    g = cls.new({"players": 2}, 3)
    bots = [get_bot(game_id, "random", s) for s in range(2)]
    actions = []
    while not g.is_over:
        a = bots[g.to_act].choose(g.view(g.to_act), g.legal_actions())
        actions.append({"seat": g.to_act, "action": a.to_data()})
        g.apply(a)
    recs = game_records(game_id, {"players": 2}, 3, "s", ["a", "b"], actions, started=0.0, ended=1.0)
    assert recs[0]["rules"] == VERSIONS[game_id]
    game = read_log("".join(json.dumps(r) + "\n" for r in recs)).games[0]
    assert verify(game) is None and rules_needed(game.header) is None


def test_unchanged_game_still_verifies_byte_for_byte() -> None:
    log = read_log(fixture("quinze").read_text())
    assert len(log.games) == 3 and not log.problems
    for game in log.games:
        assert "rules" not in game.header
        assert verify(game) is None


@pytest.mark.parametrize("game_id", ["quatorze", "quinze-classique"])
def test_log_of_an_earlier_rules_version_says_which_version_it_needs(game_id: str) -> None:
    log = read_log(fixture(game_id).read_text())
    assert len(log.games) == 3 and not log.problems
    for game in log.games:
        assert rules_needed(game.header) == (1, VERSIONS[game_id])
        d = verify(game)
        assert d is not None and d.what == "rules-version" and d.index == 0
        assert d.found == 1 and d.expected == VERSIONS[game_id]
        assert "rules version 1" in d.reason and f"plays version {VERSIONS[game_id]}" in d.reason


@pytest.mark.parametrize("game_id", ["quatorze", "quinze-classique"])
def test_replay_verify_cli_names_the_version_instead_of_diverges(game_id: str) -> None:
    res = CliRunner().invoke(app, ["replay", "--verify", str(fixture(game_id))])
    assert res.exit_code == 1
    assert "DIVERGES" not in res.output
    assert res.output.count(f"made under {game_id} rules version 1") == 3
    res = CliRunner().invoke(app, ["replay", "--verify", "--json", str(fixture(game_id))])
    data = json.loads(res.output)
    assert [d["divergence"]["what"] for d in data] == ["rules-version"] * 3


def test_replay_verify_cli_of_the_unchanged_game() -> None:
    res = CliRunner().invoke(app, ["replay", "--verify", str(fixture("quinze"))])
    assert res.exit_code == 0 and res.output.count("verified") >= 3


def test_a_later_version_than_this_software_is_named_too() -> None:
    log = read_log(fixture("quinze").read_text())
    game = log.games[0]
    game.header["rules"] = 7
    d = verify(game)
    assert d is not None and d.what == "rules-version" and d.found == 7 and d.expected == 1
