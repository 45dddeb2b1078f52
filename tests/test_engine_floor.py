"""The engine diagnostics of issue 13 §4 (``python -m quinze_cli.bench.engine_floor``) replay the
very games they recorded and report each figure (never a duration asserted)."""

from __future__ import annotations

import pytest

from quinze_cli.bench.engine_floor import cold_warm, floor


@pytest.mark.parametrize("game_id", ["quatorze", "quinze-classique"])
def test_the_ready_made_replay_plays_the_recorded_games(game_id: str) -> None:
    out = floor(game_id, games=2)
    assert out["decisions"] > 0 and out["replayed_decisions"] == out["decisions"]
    assert out["legal_per_decision"] >= 1
    for key in ("floor_us", "floor_quiet_us", "engine_warm_us", "engine_warm_quiet_us"):
        assert out[key] >= 0


def test_cold_warm_reports_each_run_with_the_collector() -> None:
    out = cold_warm("quatorze", seconds=0.0, runs=2)
    assert len(out["runs"]) == 2
    for run in out["runs"]:
        assert run["decisions"] > 0 and run["gc_s"] >= 0 and "gc_us_per_decision" in run
