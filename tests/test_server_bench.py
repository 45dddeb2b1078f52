"""The server bench runs and reports its figures (values are measured, never asserted)."""

from __future__ import annotations

from quinze_cli.bench.server import server_figures, table_rows


async def test_server_figures_smoke() -> None:
    for separate in (False, True):
        fig = await server_figures(30, separate=separate)
        assert fig["rounds"] >= 30 and fig["separate"] is separate
        assert fig["cycle_us"] > 0 and fig["echo_us"] > 0 and fig["ratio"] > 0
        assert fig["request_bytes"] > fig["action_bytes"] > 0
        if separate:  # each server process's own CPU time, per action and per echoed frame
            assert fig["server_cpu_us"] > 0 and fig["echo_cpu_us"] > 0 and fig["cpu_ratio"] > 0
        else:
            assert fig["server_cpu_us"] is fig["echo_cpu_us"] is fig["cpu_ratio"] is None
        rows = table_rows(fig)
        assert len(rows) == (5 if separate else 4) and all(len(r) == 4 for r in rows)
        assert fig["met"] is (fig["ratio"] <= fig["target_ratio"])
        assert rows[3][2:] == (f"<= {fig['target_ratio']:g}x", "yes" if fig["met"] else "no")


def test_worst_frame_figures_every_hostile_frame_is_refused() -> None:
    from quinze_cli.bench.frames import frame_figures, table_rows as frame_rows

    fig = frame_figures(quick=True, reference=False)
    assert fig["worst_frame"] in fig["frames"] and fig["worst_frame_us"] > 0
    for name, f in fig["frames"].items():
        assert f["bytes"] <= 1_048_576 and f["outcome"] in ("too-many-elements", "not-msgpack"), name
    assert len(frame_rows(fig)) == 1  # the unbounded reference is not measured here
