"""The server under load (``quinze bench --only load``): many tables and connections at once.

One generator process (asyncio protocols, real TCP on 127.0.0.1) drives a real server running in a
process of its own (:mod:`quinze_cli.bench.load_server`). For each size ``TABLES/CONNECTIONS``
(``@THINK`` milliseconds of thinking before each move, 0 by default), with a fresh server:

1. ``CONNECTIONS - 2*TABLES`` idle connections say ``hello`` and stay in the lobby, each sending
   ``list-tables`` every 10 s (first one at a random moment of the first 10 s); every connection
   answers the server's pings;
2. two connections per table create a 2-player Le Quinze table (``games`` 1,000,000, so that
   games follow each other) and sit down; each plays a random legal action (the generator's own
   seeded :class:`~quinze_protocol.rng.Rng`) when asked, after the think time;
3. after a warm-up, for ``duration`` seconds: actions accepted per second, the round trip of each
   action (sending it → its ``accepted`` arriving, in ms: p50, p90, p99, max), the server's CPU
   time per accepted action (µs; and the kernel's part of it, the system time: sockets, epoll)
   and share of one core, the generator's own share of one core,
   the longest collector pause in the server (``gc.callbacks``), and the tracked objects;
4. memory (the server's resident set): per idle connection (growth when the idle connections
   arrived / their number), per table (growth when the tables started, playing, minus two
   connections' worth / tables), and after every table closed (players ``leave``, then
   disconnect): what was returned of the tables' growth (and the longest collector pause while
   they closed: the server's full collection once the last one closed); then a second wave of as many tables
   plays for the warm-up time: what it adds tells how much of the memory kept was reused;
5. what one full collection costs at that size (forced after the window, not counted in it);
6. then, with ``reference`` (the default), the same size against the bare reference server
   (:mod:`quinze_cli.bench.load_reference`: no game, no lobby) answering each action with the
   number and sizes of frames the real server sent per action in step 3 (``wire``): its actions
   per second, round trip and CPU per action (``reference``), what this machine gives any
   Python server under that load; the goals compare our growth with the reference's;
7. for comparison, before the server starts: the game work alone over as many live games, one
   action of each in turn (:mod:`quinze_cli.bench.load_engine`), µs of CPU per action: its growth
   with the number of tables is the part of the server's growth that the game states alone show.

The machine is often shared: absolute figures are noisy, the goals are ratios within one run
(the load average is reported). Figures are measured, never asserted. ``server_tree`` runs the
server of another checkout (for before/after comparisons in the same conditions).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from pathlib import Path
from typing import Any

from quinze_cli.bench.load_client import (
    DEFAULT_SIZES,
    QUICK_SIZES,
    SETUP_TIMEOUT,
    Run,
    ServerProcess,
    Size,
    close_all,
    close_tables,
    connect,
    parse_sizes,
    pct,
    pinning,
    raise_fd_limit,
    seat,
    unpin,
)
from quinze_cli.bench.load_engine import round_robin

__all__ = ["DEFAULT_SIZES", "QUICK_SIZES", "Size", "parse_sizes", "run_load_bench", "load_figures", "table_rows", "goal_rows"]

ENGINE_ACTIONS_PER_S = 2_000
"""Actions of the game work alone (:mod:`load_engine`) per second of the measured window."""

async def _seated(server: ServerProcess, run: Run, prefix: str, tables: int) -> list[Any]:
    """``2 * tables`` players named ``PREFIX0``, ``PREFIX1``..., connected and seated in pairs
    at ``tables`` new tables (each step within ``SETUP_TIMEOUT`` seconds)."""
    players = await asyncio.wait_for(connect(server, run, [f"{prefix}{i}" for i in range(2 * tables)]), SETUP_TIMEOUT)
    await asyncio.wait_for(asyncio.gather(*(seat(players[2 * i], players[2 * i + 1]) for i in range(tables))), SETUP_TIMEOUT)
    return players


async def _after_close(server: ServerProcess, playing: dict[str, Any], wait: float = 10.0) -> dict[str, Any]:
    """The server's ``stats`` once it gave memory back after the tables closed (its trim count
    grew), or after ``wait`` seconds (a tree that does not count its trims: at once). On a loaded
    machine the server may take longer than the second ``close_tables`` waits to see every player
    go and run its release; read before that, the memory kept was the memory while playing.
    The longest collector pause is the longest over every ``stats`` read meanwhile."""
    closed = await server.ask("stats")
    longest = closed["gc"]["max_pause_ms"]
    deadline = time.monotonic() + wait
    while closed.get("trims") is not None and closed["trims"] <= playing["trims"] and time.monotonic() < deadline:
        await asyncio.sleep(0.25)
        closed = await server.ask("stats")
        longest = max(longest, closed["gc"]["max_pause_ms"])
    closed["gc"]["max_pause_ms"] = longest
    return closed


async def _window(server: ServerProcess, run: Run, duration: float) -> tuple[dict[str, Any], dict[str, Any], float, float]:
    """The measured window of ``duration`` seconds: the server's stats at its start and end,
    the seconds it lasted, and the generator's CPU seconds in it."""
    start = await server.ask("stats")
    run.measuring = True
    t0, c0 = time.perf_counter(), time.process_time()
    await asyncio.sleep(duration)
    run.measuring = False
    elapsed, client_cpu = time.perf_counter() - t0, time.process_time() - c0
    end = await server.ask("stats")
    return start, end, elapsed, client_cpu


def _kernel_us(start: dict[str, Any], end: dict[str, Any], cpu_s: float, actions: int) -> float | None:
    """The kernel's part of a server's CPU per action, in µs: ``cpu_s`` (the exact CPU seconds,
    ``time.process_time``) split in the proportion of the system and user seconds of
    ``os.times()``, which count in clock ticks (10 ms): taken alone, over a short window, the
    system seconds can exceed the exact whole. None without actions or without those fields."""
    if not actions or "sys_s" not in end or "user_s" not in end:
        return None
    sys_s = end["sys_s"] - start["sys_s"]
    ticks = sys_s + end["user_s"] - start["user_s"]
    return round(cpu_s * sys_s / ticks / actions * 1e6, 1) if ticks > 0 else 0.0


async def _one_reference(size: Size, duration: float, warmup: float, tree: Path, profile: dict[str, float], seed: int,
                         cpu: int | None) -> dict[str, Any]:
    """The same load against the bare reference server (:mod:`load_reference`) answering with
    the sizes of ``profile`` (what the real server sent per action at this size): its actions per
    second, round trip, CPU per action (and the kernel's part) and share of a core."""
    run = Run(size, seed)
    async with ServerProcess(tree, False, reference=profile, cpu=cpu) as server:
        idle = await asyncio.wait_for(connect(server, run, [f"idle{i}" for i in range(size.idle)]), SETUP_TIMEOUT)
        for c in idle:
            c.start_listing(run.rng.below(10_000) / 1000.0)
        await asyncio.sleep(0.5)
        players = await _seated(server, run, "p", size.tables)
        await asyncio.sleep(warmup)
        start, end, elapsed, client_cpu = await _window(server, run, duration)
        run.stopping = True
        await close_all(players + idle)
    cpu_s, n = end["cpu_s"] - start["cpu_s"], run.actions
    return {
        "actions_per_s": round(n / elapsed, 1),
        "rtt_ms": {"p50": round(pct(run.rtts, 0.5) * 1e3, 2), "p99": round(pct(run.rtts, 0.99) * 1e3, 2)},
        "server_cpu_us_per_action": round(cpu_s / n * 1e6, 1) if n else None,
        "server_sys_us_per_action": _kernel_us(start, end, cpu_s, n),
        "server_cpu_share": round(cpu_s / elapsed, 2),
        "generator_cpu_share": round(client_cpu / elapsed, 2),
        "wire": run.profile(),
        "errors": run.error_count,
        "first_errors": run.errors,
    }


async def _one_size(size: Size, duration: float, warmup: float, tree: Path, stock_gc: bool, seed: int,
                    pin_cpu: int | None = None, reference: bool = True) -> dict[str, Any]:
    run = Run(size, seed)
    # The game work alone over as many live games, before the server starts (nothing else runs).
    engine = None if size.think_ms else round_robin(size.tables, max(2 * size.tables, int(ENGINE_ACTIONS_PER_S * duration)), seed=seed)
    async with ServerProcess(tree, stock_gc, cpu=pin_cpu) as server:
        base = await server.ask("stats")
        idle = await asyncio.wait_for(connect(server, run, [f"idle{i}" for i in range(size.idle)]), SETUP_TIMEOUT)
        for c in idle:
            c.start_listing(run.rng.below(10_000) / 1000.0)
        await asyncio.sleep(0.5)
        lobby = await server.ask("stats")
        arenas = os.environ.get("QUINZE_BENCH_ARENAS")  # diagnosis: pymalloc's summary, in the lobby, playing, after close
        in_lobby = await server.ask("arenas") if arenas else None
        pinned = os.environ.get("QUINZE_BENCH_PINNING")  # diagnosis: what keeps pools in use after the close
        if pinned:
            await server.ask("pools-mark")
        traced = os.environ.get("QUINZE_BENCH_TRACEMALLOC")  # diagnosis: what outlives the tables (load_survivors)
        if traced:
            await server.ask("trace-start")
        players = await _seated(server, run, "p", size.tables)
        await asyncio.sleep(warmup)
        window = os.environ.get("QUINZE_BENCH_PROFILE_WINDOW")  # diagnosis (load_server's docstring)
        if window:
            await server.ask("profile-start")
        spy = os.environ.get("QUINZE_BENCH_SPY")  # diagnosis: py-spy samples the server in the window
        if spy and server.proc is not None:
            await asyncio.create_subprocess_exec("py-spy", "record", "-p", str(server.proc.pid), "-d", str(int(duration)),
                                                 "-r", "250", "--nonblocking", "--format", "raw", "-o", f"{spy}-{size.tables}.txt",
                                                 stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
        attach = os.environ.get("QUINZE_BENCH_ATTACH")  # diagnosis: a command run on the server in the window
        attached = None
        if attach and server.proc is not None:
            words = [w.format(pid=server.proc.pid, tables=size.tables, seconds=int(duration)) for w in attach.split()]
            attached = await asyncio.create_subprocess_exec(*words, stdout=asyncio.subprocess.DEVNULL)
        start, end, elapsed, client_cpu = await _window(server, run, duration)
        if attached is not None:  # a command still running 2 s after the window is interrupted (strace -c: its summary)
            try:
                await asyncio.wait_for(asyncio.shield(attached.wait()), 2)
            except asyncio.TimeoutError:
                attached.send_signal(signal.SIGINT)
                try:
                    await asyncio.wait_for(attached.wait(), 10)
                except asyncio.TimeoutError:
                    attached.kill()
                    await attached.wait()
        if window:
            await server.ask(f"profile-stop {window}-{size.tables}.prof")
        objects = await server.ask("objects")
        playing = await server.ask("stats")
        in_play = await server.ask("arenas") if arenas else None
        await close_tables(run, players)
        closed = await _after_close(server, playing)
        if pinned:
            with open(f"{pinned}-{size.tables}.json", "w") as f:
                json.dump(await server.ask("pools-new", 300), f, indent=1)
        if arenas and in_lobby and in_play:
            after = await server.ask("arenas")
            with open(f"{arenas}-{size.tables}.txt", "w") as f:
                for title, got in (("in the lobby", in_lobby), ("playing", in_play), ("after close", after)):
                    f.write("\n".join([title] + got["lines"] + [json.dumps(got.get("residency"))]) + "\n")
        survivors = await server.ask(f"survivors {traced}-{size.tables}.txt {size.idle}", 900) if traced else None
        # A second wave of as many tables: how much of the memory kept by the process is reused.
        again = await _seated(server, run, "q", size.tables)
        await asyncio.sleep(warmup)
        second = await server.ask("stats")
        await close_tables(run, again)
        await close_all(idle)
    wire = run.profile()
    ref = await _one_reference(size, duration, warmup, tree, wire, seed, pin_cpu) if reference and wire else None
    cpu = end["cpu_s"] - start["cpu_s"]
    per_conn = (lobby["rss_bytes"] - base["rss_bytes"]) / size.idle if size.idle else None
    grown = playing["rss_bytes"] - lobby["rss_bytes"]
    conn_share = (per_conn or 0) * 2 * size.tables
    returned = playing["rss_bytes"] - closed["rss_bytes"]
    ms = 1e3
    return {
        "tables": size.tables,
        "connections": size.connections,
        "idle": size.idle,
        "think_ms": size.think_ms,
        "seconds": round(elapsed, 2),
        "actions": run.actions,
        "actions_per_s": round(run.actions / elapsed, 1),
        "games": run.games // 2,
        "forfeits": run.forfeits,
        "rtt_ms": {"p50": round(pct(run.rtts, 0.5) * ms, 2), "p90": round(pct(run.rtts, 0.9) * ms, 2),
                   "p99": round(pct(run.rtts, 0.99) * ms, 2), "max": round(max(run.rtts, default=0.0) * ms, 2)},
        "listing_ms": {"n": len(run.listings), "p99": round(pct(run.listings, 0.99) * ms, 2)},
        "server_cpu_us_per_action": round(cpu / run.actions * 1e6, 1) if run.actions else None,
        "engine_us_per_action": engine["cpu_us_per_action"] if engine else None,
        "server_cpu_share": round(cpu / elapsed, 2),
        "server_sys_us_per_action": _kernel_us(start, end, cpu, run.actions),
        "generator_cpu_share": round(client_cpu / elapsed, 2),
        "gc": end["gc"],
        "collector": end["collector"],
        "order": end.get("order", "trio's"),
        "threshold": end["threshold"],
        "tracked_objects": objects["tracked"],
        "full_collection_ms": objects["full_ms"],
        "full_collection_cpu_ms": objects["full_cpu_ms"],
        "frozen_objects": objects.get("frozen"),  # tracked, never walked (None: a tree before the count)
        "every_collection_cpu_ms": objects.get("every_cpu_ms"),  # the frozen ones walked too (a sweep)
        "memory": {
            "rss_start_mib": round(base["rss_bytes"] / 2**20, 1),
            "idle_connection_kib": round(per_conn / 1024, 1) if per_conn is not None else None,
            "table_kib": round((grown - conn_share) / size.tables / 1024, 1),
            "rss_playing_mib": round(playing["rss_bytes"] / 2**20, 1),
            "rss_after_close_mib": round(closed["rss_bytes"] / 2**20, 1),
            "returned_mib": round(returned / 2**20, 1),
            "returned_share": round(returned / grown, 2) if grown > 0 else None,
            "second_wave_growth_mib": round((second["rss_bytes"] - closed["rss_bytes"]) / 2**20, 1),
            "reused_share": round(1 - (second["rss_bytes"] - closed["rss_bytes"]) / grown, 2) if grown > 0 else None,
            "connections_after_close": closed.get("connections"),
            "longest_pause_closing_ms": closed["gc"]["max_pause_ms"],
            "open_tables_after_close": closed.get("open_tables"),
            "trims_after_close": closed["trims"] - playing["trims"] if closed.get("trims") is not None else None,
            "pools_given_mib": {k: round((v - (playing.get("pools_bytes") or {}).get(k, 0)) / 2**20, 2)
                                for k, v in closed["pools_bytes"].items()} if closed.get("pools_bytes") else None,
        },
        **({"survivors": survivors} if survivors is not None else {}),
        "wire": wire,
        "reference": ref,
        "pings": run.pings,
        "errors": run.error_count,
        "first_errors": run.errors,
    }


def _goals(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The goals of the load bench, checked on the figures of one run (ratios to its own reference)."""
    plain = [r for r in rows if not r["think_ms"]]
    think = [r for r in rows if r["think_ms"]]
    goals: dict[str, Any] = {}
    if len(plain) >= 2:
        ref, big = min(plain, key=lambda r: r["tables"]), max(plain, key=lambda r: r["tables"])
        share = big["actions_per_s"] / ref["actions_per_s"] if ref["actions_per_s"] else 0.0
        goals["throughput_share"] = {"value": round(share, 2), "target": 0.8, "met": share >= 0.8,
                                     "of": f"{big['tables']} vs {ref['tables']} tables"}
        goals["p99_largest_ms"] = {"value": big["rtt_ms"]["p99"], "target": 100, "met": big["rtt_ms"]["p99"] <= 100,
                                   "of": f"{big['tables']} tables"}
        if ref["server_cpu_us_per_action"] and big["server_cpu_us_per_action"]:
            growth = big["server_cpu_us_per_action"] / ref["server_cpu_us_per_action"]
            of = f"{big['tables']} vs {ref['tables']} tables"
            engine = None
            if ref.get("engine_us_per_action") and big.get("engine_us_per_action"):
                engine = round(big["engine_us_per_action"] / ref["engine_us_per_action"], 2)
                of += f"; the game work alone ×{engine}"
            goals["cpu_per_action_growth"] = {"value": round(growth, 2), "target": 1.15, "met": growth <= 1.15,
                                              "of": of, "engine_growth": engine}
        rr, rb = ref.get("reference"), big.get("reference")
        if rr and rb and rr["actions_per_s"] and rr["server_cpu_us_per_action"] and rb["server_cpu_us_per_action"]:
            # The same goals for the bare reference server of the same run, and ours relative to it:
            # what the machine (kernel, loopback, caches, the generator) gives any Python server.
            ref_share = rb["actions_per_s"] / rr["actions_per_s"]
            ref_growth = rb["server_cpu_us_per_action"] / rr["server_cpu_us_per_action"]
            of = f"{big['tables']} vs {ref['tables']} tables"
            goals["reference_throughput_share"] = {"value": round(ref_share, 2), "target": 0.8, "met": ref_share >= 0.8,
                                                   "of": of + ", the bare reference server"}
            goals["reference_cpu_growth"] = {"value": round(ref_growth, 2), "target": 1.15, "met": ref_growth <= 1.15,
                                             "of": of + ", the bare reference server"}
            if "cpu_per_action_growth" in goals:
                rel = goals["cpu_per_action_growth"]["value"] / ref_growth
                goals["cpu_growth_over_reference"] = {"value": round(rel, 2), "target": 1.15, "met": rel <= 1.15,
                                                      "of": of + ", ours / the reference's"}
            rel = share / ref_share
            goals["throughput_share_over_reference"] = {"value": round(rel, 2), "target": 0.8, "met": rel >= 0.8,
                                                        "of": of + ", ours / the reference's"}
        pause = big["gc"]["max_pause_ms"]
        goals["gc_pause_largest_ms"] = {"value": pause, "target": 20, "met": pause <= 20, "of": f"{big['tables']} tables"}
        full = big["full_collection_cpu_ms"]  # the pause to expect when a full collection does come
        every = big.get("every_collection_cpu_ms")  # a sweep of the frozen objects too: rare, not the goal's
        goals["full_collection_largest_ms"] = {"value": full, "target": 20, "met": full <= 20,
                                               "of": f"{big['tables']} tables, CPU" + (f"; every object {every} ms" if every else "")}
    for r in think:
        goals["p99_thinking_ms"] = {"value": r["rtt_ms"]["p99"], "target": 50, "met": r["rtt_ms"]["p99"] <= 50,
                                    "of": f"{r['tables']} tables, think {r['think_ms']:g} ms"}
    returned = [r["memory"]["returned_share"] for r in rows if r["memory"]["returned_share"] is not None]
    if returned:
        worst = min(returned)
        goals["memory_returned_share"] = {"value": worst, "target": 0.75, "met": worst >= 0.75, "of": "worst size"}
    return goals


async def load_figures(sizes: tuple[Size, ...] = DEFAULT_SIZES, *, duration: float = 10.0, warmup: float = 2.0,
                       tree: Path | None = None, stock_gc: bool = False, seed: int = 1, reference: bool = True,
                       pin: bool = False) -> dict[str, Any]:
    """Run every size in turn (asyncio; each with a fresh server process; with ``reference``,
    then the bare reference server at the same size) and return
    ``{"sizes": [figures of each size, see the module docstring], "goals": {...},
    "loadavg": [1, 5, 15 min, at the start], "loadavg_end", "cpus", "fd_limit", "tree", "duration_s",
    "pinned": {"generator", "server"} (processors) or None}``. ``pin``: the generator and the
    servers run on two different processors (:func:`load_client.pinning`)."""
    tree = tree or Path(__file__).resolve().parents[2]
    fd_limit = raise_fd_limit(2 * max(s.connections for s in sizes) + 256)  # both ends live here and in the server
    load = list(os.getloadavg()) if hasattr(os, "getloadavg") else []
    server_cpu, before = pinning(pin)
    try:
        rows = [await _one_size(s, duration, warmup, tree, stock_gc, seed + i, server_cpu, reference) for i, s in enumerate(sizes)]
        pinned = {"generator": min(os.sched_getaffinity(0)), "server": server_cpu} if server_cpu is not None else None
    finally:
        unpin(before)
    end = list(os.getloadavg()) if hasattr(os, "getloadavg") else []
    return {"sizes": rows, "goals": _goals(rows), "loadavg": [round(x, 2) for x in load],
            "loadavg_end": [round(x, 2) for x in end], "cpus": os.cpu_count(), "pinned": pinned,
            "fd_limit": fd_limit, "tree": str(tree), "duration_s": duration, "stock_gc": stock_gc}


def run_load_bench(*, quick: bool = False, duration: float | None = None, sizes: tuple[Size, ...] | None = None,
                   tree: Path | None = None, stock_gc: bool = False, reference: bool = True, pin: bool = False) -> dict[str, Any]:
    """:func:`load_figures` in its own event loop; ``quick``: small sizes, 1 s windows."""
    sizes = sizes or (QUICK_SIZES if quick else DEFAULT_SIZES)
    duration = duration if duration is not None else (1.0 if quick else 10.0)
    warmup = 0.5 if quick else 2.0
    return asyncio.run(load_figures(sizes, duration=duration, warmup=warmup, tree=tree, stock_gc=stock_gc,
                                    reference=reference, pin=pin))


def table_rows(fig: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Header (``figure`` then one column per size) and rows (one per figure) of a rich table."""
    head = ["figure"] + [Size(r["tables"], r["connections"], r["think_ms"]).label for r in fig["sizes"]]

    def conn(m: dict[str, Any]) -> str:
        return "-" if m["idle_connection_kib"] is None else f"{m['idle_connection_kib']:g}"

    def back(m: dict[str, Any]) -> str:
        share = "" if m["returned_share"] is None else f" ({m['returned_share']:.0%})"
        return f"{m['rss_playing_mib']:g} → {m['rss_after_close_mib']:g}{share}"

    def reuse(m: dict[str, Any]) -> str:
        share = "" if m["reused_share"] is None else f" ({m['reused_share']:.0%})"
        return f"{m['second_wave_growth_mib']:g}{share}"

    def ref(key: str, fmt: str = "{}") -> Any:
        return lambda r: "-" if not r.get("reference") else fmt.format(r["reference"][key])

    figures = [
        ("actions/s", lambda r: f"{r['actions_per_s']:,.0f}"),
        ("the bare reference server: actions/s", ref("actions_per_s", "{:,.0f}")),
        ("round trip ms p50 / p90", lambda r: f"{r['rtt_ms']['p50']} / {r['rtt_ms']['p90']}"),
        ("round trip ms p99 / max", lambda r: f"{r['rtt_ms']['p99']} / {r['rtt_ms']['max']}"),
        ("server CPU per action, µs", lambda r: f"{r['server_cpu_us_per_action']}"),
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
        ("server / generator CPU (share of a core)", lambda r: f"{r['server_cpu_share']:.0%} / {r['generator_cpu_share']:.0%}"),
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
    """``(goal, value, target, met)`` rows (``met`` "yes"/"no")."""
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
            out.append((f"{label} ({g['of']})", f"{g['value']}", target.format(g["target"]), "yes" if g["met"] else "no"))
    return out
