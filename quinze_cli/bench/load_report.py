"""The load bench's goals and its table (:mod:`quinze_cli.bench.load`), from the figures of one run.

A ratio goal (the largest size against the smallest) is read from *paired* chunks: the sizes'
measured windows were taken in turns, round by round (:func:`quinze_cli.bench.load.load_figures`),
so each round gives one ratio of two chunks timed seconds apart; the goal's ``value`` is the
median of those ratios and ``spread`` their lowest and highest, so that a drift of the machine
over the run falls on both sizes alike and the spread says how far one round can stray.
"""

from __future__ import annotations

from statistics import median
from typing import Any

from quinze_cli.bench.load_client import Size

SHARE_MIN_GROWTH = 4 * 2**20
"""Bytes the resident set must grow by while the tables play for the shares of that growth
returned after the close and reused by a second wave to be given (:func:`memory_shares`).
CPython's allocator takes and gives back memory by 1 MiB arenas and glibc trims its heap by
whole pages: below a few arenas of growth (the 10 tables of the default sizes grow by about
1 MiB, ``--quick``'s sizes by well under), one arena from before the tables, given back by the
trim after the close, reads as more returned than grew (228% and 191% in docs/server-rounds.md's
ninth round, 546% in a ``--quick`` run), and the share says nothing of the tables."""


def memory_shares(grown: float, returned: float, second_growth: float) -> tuple[float | None, float | None]:
    """``(returned_share, reused_share)`` of a size's growth while playing (bytes): what the
    close gave back of it, and ``1 - `` what a second wave of as many tables grew by over it;
    ``(None, None)`` when it grew by less than :data:`SHARE_MIN_GROWTH` (shown as "n/a", and left
    out of the memory goal)."""
    if grown < SHARE_MIN_GROWTH:
        return None, None
    return round(returned / grown, 2), round(1 - second_growth / grown, 2)

__all__ = ["goal_rows", "goals", "paired", "table_rows"]


def paired(big: list[float | None], small: list[float | None]) -> tuple[float, list[float], int] | None:
    """The median of ``big[i] / small[i]`` over the rounds both have a figure for (None, zero
    and missing ones left out), ``[lowest, highest]`` of those ratios and how many there were;
    None if there is none."""
    ratios = [b / s for b, s in zip(big, small) if b is not None and s]
    if not ratios:
        return None
    return round(median(ratios), 3), [round(min(ratios), 3), round(max(ratios), 3)], len(ratios)


def _of(rows: list[dict[str, Any]], key: str) -> list[Any]:
    return [c.get(key) for c in rows]


def _ratio_goal(pair: tuple[float, list[float], int] | None, fallback: float, target: float, at_least: bool,
                of: str) -> dict[str, Any]:
    """A ratio goal from :func:`paired` (``fallback``, the ratio of the two figures, where the
    sizes have no chunks to pair)."""
    value, spread, n = (round(pair[0], 2), [round(x, 2) for x in pair[1]], pair[2]) if pair else (round(fallback, 2), None, 0)
    return {"value": value, "target": target, "met": value >= target if at_least else value <= target, "of": of,
            "spread": spread, "rounds": n}


def goals(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The goals of the load bench, checked on the figures of one run (ratios to its own
    reference; see the module docstring for the paired ratios)."""
    plain = [r for r in rows if not r["think_ms"]]
    think = [r for r in rows if r["think_ms"]]
    out: dict[str, Any] = {}
    if len(plain) >= 2:
        ref, big = min(plain, key=lambda r: r["tables"]), max(plain, key=lambda r: r["tables"])
        of = f"{big['tables']} vs {ref['tables']} tables"
        rc, bc = ref.get("chunks") or [], big.get("chunks") or []
        share = big["actions_per_s"] / ref["actions_per_s"] if ref["actions_per_s"] else 0.0
        out["throughput_share"] = _ratio_goal(paired(_of(bc, "actions_per_s"), _of(rc, "actions_per_s")), share, 0.8, True, of)
        out["p99_largest_ms"] = {"value": big["rtt_ms"]["p99"], "target": 100, "met": big["rtt_ms"]["p99"] <= 100,
                                 "of": f"{big['tables']} tables"}
        if ref["server_cpu_us_per_action"] and big["server_cpu_us_per_action"]:
            growth = big["server_cpu_us_per_action"] / ref["server_cpu_us_per_action"]
            engine = engine_spread = None
            cpu_of = of
            if ref.get("engine_us_per_action") and big.get("engine_us_per_action"):
                # The game work alone, its chunks paired by round too (load_engine.interleaved).
                pair = paired(big.get("engine_chunks_us") or [], ref.get("engine_chunks_us") or [])
                engine = round(pair[0] if pair else big["engine_us_per_action"] / ref["engine_us_per_action"], 2)
                engine_spread = [round(x, 2) for x in pair[1]] if pair else None
                cpu_of += f"; the game work alone ×{engine}"
            out["cpu_per_action_growth"] = {**_ratio_goal(paired(_of(bc, "server_cpu_us_per_action"),
                                                                 _of(rc, "server_cpu_us_per_action")), growth, 1.15, False, cpu_of),
                                            "engine_growth": engine, "engine_spread": engine_spread}
        rr, rb = ref.get("reference"), big.get("reference")
        if rr and rb and rr["actions_per_s"] and rr["server_cpu_us_per_action"] and rb["server_cpu_us_per_action"]:
            # The same goals for the bare reference server of the same run, and ours relative to it:
            # what the machine (kernel, loopback, caches, the generator) gives any Python server.
            rrc, rbc = rr.get("chunks") or [], rb.get("chunks") or []
            ref_of = of + ", the bare reference server"
            out["reference_throughput_share"] = _ratio_goal(paired(_of(rbc, "actions_per_s"), _of(rrc, "actions_per_s")),
                                                            rb["actions_per_s"] / rr["actions_per_s"], 0.8, True, ref_of)
            out["reference_cpu_growth"] = _ratio_goal(
                paired(_of(rbc, "server_cpu_us_per_action"), _of(rrc, "server_cpu_us_per_action")),
                rb["server_cpu_us_per_action"] / rr["server_cpu_us_per_action"], 1.15, False, ref_of)
            ref_growth = out["reference_cpu_growth"]["value"]
            ref_share = out["reference_throughput_share"]["value"]
            if "cpu_per_action_growth" in out and ref_growth:
                rel = out["cpu_per_action_growth"]["value"] / ref_growth
                out["cpu_growth_over_reference"] = {"value": round(rel, 2), "target": 1.15, "met": rel <= 1.15,
                                                    "of": of + ", ours / the reference's"}
            if ref_share:
                rel = out["throughput_share"]["value"] / ref_share
                out["throughput_share_over_reference"] = {"value": round(rel, 2), "target": 0.8, "met": rel >= 0.8,
                                                          "of": of + ", ours / the reference's"}
        pause = big["gc"]["max_pause_ms"]
        out["gc_pause_largest_ms"] = {"value": pause, "target": 20, "met": pause <= 20, "of": f"{big['tables']} tables"}
        full = big["full_collection_cpu_ms"]  # the pause to expect when a full collection does come
        every = big.get("every_collection_cpu_ms")  # a sweep of the frozen objects too: rare, not the goal's
        out["full_collection_largest_ms"] = {"value": full, "target": 20, "met": full <= 20,
                                             "of": f"{big['tables']} tables, CPU" + (f"; every object {every} ms" if every else "")}
    for r in think:
        out["p99_thinking_ms"] = {"value": r["rtt_ms"]["p99"], "target": 50, "met": r["rtt_ms"]["p99"] <= 50,
                                  "of": f"{r['tables']} tables, think {r['think_ms']:g} ms"}
    # Only the sizes whose growth makes the share mean something (memory_shares); none at --quick's.
    returned = [r["memory"]["returned_share"] for r in rows if r["memory"]["returned_share"] is not None]
    if returned:
        worst = min(returned)
        out["memory_returned_share"] = {"value": worst, "target": 0.75, "met": worst >= 0.75,
                                        "of": f"worst size of those growing {SHARE_MIN_GROWTH / 2**20:g} MiB or more"}
    return out


def _span(r: dict[str, Any], key: str, fmt: str = "{:g}") -> str:
    """``low – high`` of a figure over a size's chunks (``-`` without)."""
    s = (r.get("spread") or {}).get(key)
    return "-" if not s else f"{fmt.format(s[0])} – {fmt.format(s[1])}"


def table_rows(fig: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Header (``figure`` then one column per size) and rows (one per figure) of a rich table."""
    head = ["figure"] + [Size(r["tables"], r["connections"], r["think_ms"]).label for r in fig["sizes"]]

    def conn(m: dict[str, Any]) -> str:
        return "-" if m["idle_connection_kib"] is None else f"{m['idle_connection_kib']:g}"

    def back(m: dict[str, Any]) -> str:
        share = " (n/a)" if m["returned_share"] is None else f" ({m['returned_share']:.0%})"
        return f"{m['rss_playing_mib']:g} → {m['rss_after_close_mib']:g}{share}"

    def reuse(m: dict[str, Any]) -> str:
        share = " (n/a)" if m["reused_share"] is None else f" ({m['reused_share']:.0%})"
        return f"{m['second_wave_growth_mib']:g}{share}"

    def ref(key: str, fmt: str = "{}") -> Any:
        return lambda r: "-" if not r.get("reference") else fmt.format(r["reference"][key])

    def gen(r: dict[str, Any]) -> str:
        us = r.get("generator_cpu_us_per_action")
        return f"{r['server_cpu_share']:.0%} / {r['generator_cpu_share']:.0%}" + (f" ({us:g} µs per action)" if us else "")

    figures = [
        ("actions/s (median chunk)", lambda r: f"{r['actions_per_s']:,.0f}"),
        ("  the chunks' lowest – highest", lambda r: _span(r, "actions_per_s", "{:,.0f}")),
        ("the bare reference server: actions/s", ref("actions_per_s", "{:,.0f}")),
        ("round trip ms p50 / p90", lambda r: f"{r['rtt_ms']['p50']} / {r['rtt_ms']['p90']}"),
        ("round trip ms p99 / max", lambda r: f"{r['rtt_ms']['p99']} / {r['rtt_ms']['max']}"),
        ("  p99 of the chunks, lowest – highest", lambda r: _span(r, "rtt_p99_ms")),
        ("server CPU per action, µs (median chunk)", lambda r: f"{r['server_cpu_us_per_action']}"),
        ("  the chunks' lowest – highest", lambda r: _span(r, "server_cpu_us_per_action")),
        ("of which in the kernel, µs", lambda r: f"{r.get('server_sys_us_per_action')}"),
        ("the bare reference server: CPU per action, µs (kernel)",
         lambda r: "-" if not r.get("reference") else
         f"{r['reference']['server_cpu_us_per_action']} ({r['reference']['server_sys_us_per_action']})"),
        ("the bare reference server: round trip ms p50 / p99",
         lambda r: "-" if not r.get("reference") else f"{r['reference']['rtt_ms']['p50']} / {r['reference']['rtt_ms']['p99']}"),
        ("server CPU per action / the reference's",
         lambda r: "-" if not r.get("reference") or not r["reference"]["server_cpu_us_per_action"] else
         f"{r['server_cpu_us_per_action'] / r['reference']['server_cpu_us_per_action']:.2f}"),
        ("the game work alone (no server), µs per action", lambda r: f"{r.get('engine_us_per_action') or '-'}"),
        ("  the chunks' lowest – highest", lambda r: _span(r, "engine_us_per_action")),
        ("server / generator CPU (share of a core)", gen),
        ("longest collector pause ms wall / CPU (generation)",
         lambda r: f"{r['gc']['max_pause_ms']:.1f} / {r['gc']['max_pause_cpu_ms']:.1f} ({r['gc']['max_pause_gen']})"),
        ("collections in the window / their total ms", lambda r: f"{r['gc']['pauses']} / {r['gc']['total_ms']:.0f}"),
        ("objects tracked by the collector, walked / frozen",
         lambda r: f"{r['tracked_objects']:,} / " + (f"{r['frozen_objects']:,}" if r.get("frozen_objects") is not None else "-")),
        ("a full collection then, ms wall / CPU", lambda r: f"{r['full_collection_ms']} / {r['full_collection_cpu_ms']}"),
        ("a collection of every object, frozen too, ms CPU", lambda r: f"{r.get('every_collection_cpu_ms', '-')}"),
        ("memory KiB per idle connection", lambda r: conn(r["memory"])),
        ("memory KiB per table", lambda r: f"{r['memory']['table_kib']:g}"),
        ("RSS MiB playing → after close (returned)", lambda r: back(r["memory"])),
        ("RSS growth MiB of a second wave of tables (reused)", lambda r: reuse(r["memory"])),
        ("lobby listing p99 ms (listings)", lambda r: f"{r['listing_ms']['p99']} ({r['listing_ms']['n']})"),
        ("frames / bytes sent to the players per action",
         lambda r: "-" if not r.get("wire") else
         f"{2 + r['wire']['other_frames_per_action']:.2f} / "
         f"{r['wire']['accepted_bytes'] + r['wire']['request_bytes'] + r['wire']['other_frames_per_action'] * r['wire']['other_bytes']:,.0f}"),
        ("errors", lambda r: f"{r['errors'] + (r['reference'] or {}).get('errors', 0)}"),
    ]
    return head, [[name] + [cell(r) for r in fig["sizes"]] for name, cell in figures]


def goal_rows(fig: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """``(goal, value, target, met)`` rows (``met`` "yes"/"no"); a paired ratio's value is given
    with its rounds' lowest and highest."""
    names = {
        "p99_thinking_ms": ("round trip p99 with think time, ms", "<= {}"),
        "throughput_share": ("actions/s, largest / smallest size", ">= {}"),
        "p99_largest_ms": ("round trip p99 at the largest size, ms", "<= {}"),
        "cpu_per_action_growth": ("server CPU per action, largest / smallest", "<= {}"),
        "gc_pause_largest_ms": ("longest collector pause at the largest size, ms", "<= {}"),
        "full_collection_largest_ms": ("a full collection at the largest size (forced), ms", "<= {}"),
        "memory_returned_share": ("memory returned after the tables close (share)", ">= {}"),
        "reference_throughput_share": ("actions/s, largest / smallest size", ">= {}"),
        "reference_cpu_growth": ("server CPU per action, largest / smallest", "<= {}"),
        "throughput_share_over_reference": ("actions/s share, largest / smallest size", ">= {}"),
        "cpu_growth_over_reference": ("server CPU per action growth, largest / smallest", "<= {}"),
    }
    out = []
    for key, (label, target) in names.items():
        g = fig["goals"].get(key)
        if g is not None:
            spread = g.get("spread")
            value = f"{g['value']}" + (f" ({spread[0]} – {spread[1]}, {g['rounds']} rounds)" if spread else "")
            out.append((f"{label} ({g['of']})", value, target.format(g["target"]), "yes" if g["met"] else "no"))
    return out
