"""The load bench drives a real server process with many connections (figures measured, never asserted)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from quinze_cli.bench.load import Size, goal_rows, parse_sizes, run_load_bench, table_rows


def test_a_tiny_load_run_plays_and_reports() -> None:
    # quick: the --quick warm-up (0.5 s, not 2 s) before each of the three timed stretches of a
    # size (its window, the second wave of tables, the reference server's window); the sizes and
    # the window are this test's own.
    fig = run_load_bench(quick=True, sizes=(Size(2, 6), Size(3, 6), Size(2, 4, 5.0)), duration=0.4)
    assert [s["tables"] for s in fig["sizes"]] == [2, 3, 2]
    assert fig["rounds"] == 2
    for s in fig["sizes"]:
        assert s["actions"] > 0 and s["actions_per_s"] > 0
        # Every size was measured in the same rounds, one chunk each: its figures are the median
        # chunk's, with the lowest and highest beside them.
        assert len(s["chunks"]) == 2 and s["spread"]["chunks"] == 2
        assert s["actions"] == sum(c["actions"] for c in s["chunks"])
        for key in ("actions_per_s", "server_cpu_us_per_action", "generator_cpu_us_per_action"):
            low, high = s["spread"][key]
            assert low <= s[key] <= high, (key, s["spread"])
        assert s["generator_cpu_us_per_action"] > 0
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
        # The bare reference server ran the same size, answering with the real server's count of
        # frames per action and (within a few bytes: its ids are its own) their sizes.
        ref, wire = s["reference"], s["wire"]
        assert ref["actions_per_s"] > 0 and ref["errors"] == 0, ref["first_errors"]
        assert len(ref["chunks"]) == 2 and ref["spread"]["chunks"] == 2
        assert 0 <= ref["server_sys_us_per_action"] <= ref["server_cpu_us_per_action"]
        assert abs(ref["wire"]["other_frames_per_action"] - wire["other_frames_per_action"]) < 0.05
        for key in ("accepted_bytes", "request_bytes", "other_bytes", "action_bytes"):
            assert abs(ref["wire"][key] - wire[key]) <= 8, (key, ref["wire"], wire)
    assert fig["sizes"][0]["idle"] == 2 and fig["sizes"][1]["idle"] == 0
    assert fig["sizes"][0]["memory"]["idle_connection_kib"] is not None
    assert fig["fd_limit"] >= 2 * 6
    assert set(fig["goals"]) >= {"throughput_share", "p99_largest_ms", "cpu_per_action_growth", "gc_pause_largest_ms",
                                 "p99_thinking_ms", "full_collection_largest_ms",
                                 "reference_cpu_growth", "reference_throughput_share", "cpu_growth_over_reference",
                                 "throughput_share_over_reference"}
    # Sizes this small grow by well under load_report.SHARE_MIN_GROWTH (4 MiB): no share of so
    # little, and the memory goal only over the sizes that have one (none, at these).
    for s in fig["sizes"]:
        m = s["memory"]
        assert m["grown_mib"] >= 3.9 or (m["returned_share"] is None and m["reused_share"] is None), m
    shares = [s["memory"]["returned_share"] for s in fig["sizes"] if s["memory"]["returned_share"] is not None]
    assert ("memory_returned_share" in fig["goals"]) == bool(shares)
    assert fig["pinned"] is None
    # The ratio goals pair the chunks of each round: the median ratio and its lowest and highest.
    for key in ("throughput_share", "cpu_per_action_growth", "reference_cpu_growth", "reference_throughput_share"):
        goal = fig["goals"][key]
        assert goal["rounds"] == 2 and goal["spread"][0] <= goal["value"] <= goal["spread"][1], (key, goal)
    head, rows = table_rows(fig)
    assert len(head) == 4 and all(len(r) == 4 for r in rows)
    assert all(met in ("yes", "no") for *_, met in goal_rows(fig))


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2, reason="needs two processors")
def test_pinned_the_generator_and_the_server_run_on_two_processors_and_the_generator_gets_its_own_back() -> None:
    mine = os.sched_getaffinity(0)
    fig = run_load_bench(sizes=(Size(2, 4),), duration=0.3, reference=False, pin=True)
    assert fig["pinned"] == {"generator": min(mine), "server": max(mine)}
    assert fig["sizes"][0]["actions"] > 0 and fig["sizes"][0]["reference"] is None
    assert os.sched_getaffinity(0) == mine


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
    out = runner.invoke(app, ["bench", "--only", "load", "--load-rounds", "0"])
    assert out.exit_code == 2 and "--load-rounds must be 1 to 50" in out.output


def test_the_game_work_alone_plays_every_table_in_turn() -> None:
    from quinze_cli.bench.load_engine import round_robin

    out = round_robin(7, 10)
    assert out["tables"] == 7 and out["actions"] == 14  # whole rounds: every table acts as often
    assert out["cpu_us_per_action"] > 0
    assert round_robin(3, 400, seed=5)["actions"] == 402
    with pytest.raises(ValueError, match="at least one table"):
        round_robin(0, 10)


def test_the_game_work_alone_of_several_sizes_is_timed_in_turns() -> None:
    from quinze_cli.bench.load_engine import interleaved

    out = interleaved([3, 50], 400, chunk=100, seeds=[5, 6])
    assert [o["tables"] for o in out] == [3, 50]
    # Chunks of whole rounds (99 actions of 3 tables, 100 of 50) in turns, as many for each size,
    # until each had 400: five rounds.
    assert [len(o["chunks_us"]) for o in out] == [5, 5]
    assert [o["actions"] for o in out] == [495, 500]
    assert all(min(o["chunks_us"]) <= o["cpu_us_per_action"] <= max(o["chunks_us"]) for o in out)


def test_memory_shares_are_given_only_for_a_growth_of_several_arenas() -> None:
    from quinze_cli.bench.load_report import SHARE_MIN_GROWTH, memory_shares

    mib = 2**20
    # 1 MiB of growth, 5.5 MiB returned (an arena from before the tables trimmed too): no share.
    assert memory_shares(1 * mib, 5.5 * mib, 0.2 * mib) == (None, None)
    assert memory_shares(0, 0, 0) == (None, None) and memory_shares(-mib, mib, 0) == (None, None)
    assert memory_shares(SHARE_MIN_GROWTH, SHARE_MIN_GROWTH / 2, SHARE_MIN_GROWTH / 4) == (0.5, 0.75)
    assert memory_shares(20 * mib, 15 * mib, 6 * mib) == (0.75, 0.7)


def test_the_measured_trees_packages_are_compiled_before_its_server_starts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server and protocol packages of a measured tree get their bytecode, subpackages too,
    even with ``PYTHONDONTWRITEBYTECODE`` set (a server compiling its sources at start would
    start with their garbage in its memory); other folders are not touched, and a tree is
    compiled once per process."""
    from quinze_cli.bench import load_client

    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.setattr(load_client, "_COMPILED", set())
    for rel in ("server/__init__.py", "server/app.py", "protocol/__init__.py", "protocol/games/__init__.py",
                "protocol/games/quinze.py", "tests/test_x.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("X = 1\n")
    load_client.compile_tree(tmp_path)
    compiled = sorted(str(p.relative_to(tmp_path)).split("/__pycache__/")[0] + "/" + p.name.split(".")[0]
                      for p in tmp_path.rglob("*.pyc"))
    assert compiled == ["protocol/__init__", "protocol/games/__init__", "protocol/games/quinze", "server/__init__", "server/app"]
    (tmp_path / "server" / "late.py").write_text("Y = 2\n")
    load_client.compile_tree(tmp_path)  # once per process: nothing more
    assert not list((tmp_path / "server" / "__pycache__").glob("late.*.pyc"))
