"""The load bench drives a real server process with many connections (figures measured, never asserted)."""

from __future__ import annotations

import pytest

from quinze_cli.bench.load import Size, goal_rows, parse_sizes, run_load_bench, table_rows


def test_a_tiny_load_run_plays_and_reports() -> None:
    fig = run_load_bench(sizes=(Size(2, 6), Size(3, 6), Size(2, 4, 5.0)), duration=0.4)
    assert [s["tables"] for s in fig["sizes"]] == [2, 3, 2]
    for s in fig["sizes"]:
        assert s["actions"] > 0 and s["actions_per_s"] > 0
        assert s["errors"] == 0, s["first_errors"]
        assert 0 < s["rtt_ms"]["p50"] <= s["rtt_ms"]["p90"] <= s["rtt_ms"]["p99"] <= s["rtt_ms"]["max"]
        assert s["server_cpu_us_per_action"] > 0
        assert s["tracked_objects"] > 0 and s["gc"]["pauses"] >= 0
        assert s["memory"]["rss_playing_mib"] > 0 and s["memory"]["second_wave_growth_mib"] is not None
        assert s["full_collection_ms"] >= 0 and s["gc"]["max_pause_cpu_ms"] >= 0
        assert 0 <= s["server_sys_us_per_action"] <= s["server_cpu_us_per_action"]
        assert s["order"] == "first come"  # as quinze serve runs (quinze_server.scheduling)
        assert s["forfeits"] == {}  # no game lost on time: the generator keeps up
        assert (s["engine_us_per_action"] is None) == bool(s["think_ms"])
        assert s["engine_us_per_action"] is None or s["engine_us_per_action"] > 0
    assert fig["sizes"][0]["idle"] == 2 and fig["sizes"][1]["idle"] == 0
    assert fig["sizes"][0]["memory"]["idle_connection_kib"] is not None
    assert fig["fd_limit"] >= 2 * 6
    assert set(fig["goals"]) >= {"throughput_share", "p99_largest_ms", "cpu_per_action_growth", "gc_pause_largest_ms",
                                 "p99_thinking_ms", "memory_returned_share", "full_collection_largest_ms"}
    head, rows = table_rows(fig)
    assert len(head) == 4 and all(len(r) == 4 for r in rows)
    assert all(met in ("yes", "no") for *_, met in goal_rows(fig))


def test_sizes_are_read_and_bad_ones_named() -> None:
    assert parse_sizes("10/20, 250/1000@50") == (Size(10, 20), Size(250, 1000, 50.0))
    assert parse_sizes("4").__getitem__(0) == Size(4, 8)
    for bad in ("x/2", "3/4", "2/4@-1"):
        with pytest.raises(ValueError, match="size"):
            parse_sizes(bad)


def test_bench_names_a_bad_load_option() -> None:
    from typer.testing import CliRunner

    from quinze_cli.app import app

    runner = CliRunner()
    out = runner.invoke(app, ["bench", "--only", "load", "--load-sizes", "3/4"])
    assert out.exit_code == 2 and "--load-sizes" in out.output
    out = runner.invoke(app, ["bench", "--only", "load", "--load-tree", "/nonexistent"])
    assert out.exit_code == 2 and "--load-tree" in out.output


def test_the_game_work_alone_plays_every_table_in_turn() -> None:
    from quinze_cli.bench.load_engine import round_robin

    out = round_robin(7, 10)
    assert out["tables"] == 7 and out["actions"] == 14  # whole rounds: every table acts as often
    assert out["cpu_us_per_action"] > 0
    assert round_robin(3, 400, seed=5)["actions"] == 402
    with pytest.raises(ValueError, match="at least one table"):
        round_robin(0, 10)
