"""Games logged before the engine was changed for search speed still verify byte for byte
(``quinze replay --verify``: same events from the same seed and actions, commitment included).
The fixtures were written by ``quinze match`` with the engines as they were before that work:
``*-before-mcts.jsonl`` before the search work (issue 13 §1–2), ``*-before-engine-speed.jsonl``
(several games each, random and greedy/threshold bots) before the engine speed work of issue 13 §4."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from quinze_cli.app import app

FIXTURES = Path(__file__).resolve().parent / "fixtures"
LOGS = sorted(FIXTURES.glob("*-before-*.jsonl"))


def test_the_fixtures_are_there() -> None:
    names = {p.name for p in LOGS}
    for game in ("quinze", "quatorze", "classique"):
        assert f"{game}-before-mcts.jsonl" in names and f"{game}-before-engine-speed.jsonl" in names


@pytest.mark.parametrize("log", LOGS, ids=[p.stem for p in LOGS])
def test_a_log_written_before_the_speed_work_still_verifies(log: Path) -> None:
    result = CliRunner().invoke(app, ["replay", "--verify", str(log)])
    assert result.exit_code == 0, result.output
    assert "verified" in result.output and "diverg" not in result.output.lower()
