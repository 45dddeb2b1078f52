"""The server under load (``quinze bench --only load``): many tables and connections at once.

One generator process (asyncio protocols, real TCP on 127.0.0.1) drives a real server running in a
process of its own (:mod:`quinze_cli.bench.load_server`), a fresh one for each size
``TABLES/CONNECTIONS`` (``@THINK`` milliseconds of thinking before each move, 0 by default):

1. ``CONNECTIONS - 2*TABLES`` idle connections say ``hello`` and stay in the lobby, each sending
   ``list-tables`` every 10 s (first one at a random moment of the first 10 s); every connection
   answers the server's pings;
2. two connections per table create a 2-player Le Quinze table (``games`` 1,000,000, so that
   games follow each other) and sit down; each plays a random legal action (the generator's own
   seeded :class:`~quinze_protocol.rng.Rng`) when asked, after the think time;
3. every size's server is set up so, side by side, and all play for the warm-up; then the
   sizes' measured windows are taken **in turns**: ``rounds`` rounds, in each of which every size
   in turn (the order reversed every other round) is resumed, plays ``rewarm`` seconds untimed,
   then is measured for ``duration / rounds`` seconds (a *chunk*), then paused (its players hold
   their answers and its idle connections their listings, :meth:`load_client.Run.pause`: its
   server goes quiet but for its heartbeat). So every size is measured over the same minutes,
   and a drift of the machine (10-30% here, 15% in five minutes) falls on all of them alike. Per
   chunk: actions accepted per second, the server's CPU time per accepted action (µs; and the
   kernel's part of it, the system time: sockets, epoll) and share of one core, the generator's
   share of one core and CPU per action, the chunk's p50 and p99 of the round trip. A size's
   figures are the median chunk's (``spread``: the lowest and highest; ``chunks``: each chunk's),
   the round trip of each action (sending it → its ``accepted`` arriving, in ms: p50, p90, p99,
   max) over all its chunks, the longest collector pause in the server (``gc.callbacks``) in
   its chunks, and the tracked objects after them; the goals' ratios pair the chunks of one
   round (:mod:`quinze_cli.bench.load_report`);
4. memory (the server's resident set): per idle connection (growth when the idle connections
   arrived / their number), per table (growth when the tables started, playing, minus two
   connections' worth / tables), and after every table closed (players ``leave``, then
   disconnect): what was returned of the tables' growth (and the longest collector pause while
   they closed: the server's full collection once the last one closed); then a second wave of as many tables
   plays for the warm-up time: what it adds tells how much of the memory kept was reused (both
   shares only where the tables grew the process by 4 MiB or more: :func:`load_report.memory_shares`);
5. what one full collection costs at that size (forced after the chunks, not counted in them);
6. then, with ``reference`` (the default), the same sizes against the bare reference server
   (:mod:`quinze_cli.bench.load_reference`: no game, no lobby), set up side by side and measured
   in turns the same way, each answering each action with the number and sizes of frames the
   real server sent per action at that size in step 3 (``wire``): its actions per second, round
   trip and CPU per action (``reference``), what this machine gives any Python server under
   that load; the goals compare our growth with the reference's;
7. for comparison, before any server starts: the game work alone over as many live games, one
   action of each in turn (:mod:`quinze_cli.bench.load_engine`), µs of CPU per action, every
   size's games played chunk by chunk in turns after an untimed chunk each
   (:func:`load_engine.interleaved`): its growth with the number of tables is the part of the
   server's growth that the game states alone show.

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
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median
from typing import Any

from quinze_cli.bench.load_client import (
    DEFAULT_SIZES,
    QUICK_SIZES,
    SETUP_TIMEOUT,
    Client,
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
from quinze_cli.bench.load_engine import interleaved
from quinze_cli.bench.load_report import goal_rows, goals, memory_shares, table_rows

__all__ = ["DEFAULT_SIZES", "QUICK_SIZES", "Size", "parse_sizes", "run_load_bench", "load_figures", "table_rows", "goal_rows"]

ENGINE_ACTIONS_PER_S = 2_000
"""Actions of the game work alone (:mod:`load_engine`) per second of the measured window."""
ENGINE_CHUNK = 2_000
ENGINE_CHUNKS = 4
"""The game work alone is timed in chunks of ``ENGINE_CHUNK`` actions, fewer if the size would
get fewer than ``ENGINE_CHUNKS`` of them (a chunk is whole rounds of its tables)."""
ROUNDS = 4
"""Rounds of chunks of a full run (:func:`load_figures`): each size's window is cut in as many."""
REWARM = 0.5
"""Seconds a size plays, untimed, after being resumed and before its chunk (the other sizes'
last answers are served meanwhile; at 500 tables, about six actions of each table)."""


@dataclass
class _Live:
    """One size being measured: its server, its clients, the server's stats so far, its chunks."""

    size: Size
    run: Run
    server: ServerProcess
    idle: list[Client]
    base: dict[str, Any]
    lobby: dict[str, Any]
    players: list[Client] = field(default_factory=list)
    chunks: list[dict[str, Any]] = field(default_factory=list)
    gc: dict[str, Any] = field(default_factory=dict)  # the collector's figures over the chunks
    last: dict[str, Any] = field(default_factory=dict)  # the server's stats at the end of the last chunk
    diagnosis: dict[str, Any] = field(default_factory=dict)


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


async def _open(stack: AsyncExitStack, size: Size, tree: Path, stock_gc: bool, seed: int, cpu: int | None,
                profile: dict[str, float] | None = None) -> _Live:
    """A size's server started (the bare reference answering with ``profile`` if given), its
    idle connections in the lobby and its players seated, playing (the diagnosis of the lobby
    started, for the real server)."""
    run = Run(size, seed)
    server = await stack.enter_async_context(ServerProcess(tree, stock_gc, reference=profile, cpu=cpu))
    base = await server.ask("stats")
    idle = await asyncio.wait_for(connect(server, run, [f"idle{i}" for i in range(size.idle)]), SETUP_TIMEOUT)
    for c in idle:
        c.start_listing(run.rng.below(10_000) / 1000.0)
    await asyncio.sleep(0.5)
    lobby = await server.ask("stats")
    live = _Live(size, run, server, idle, base, lobby)
    if profile is None:
        if os.environ.get("QUINZE_BENCH_ARENAS"):  # diagnosis: pymalloc's summary, in the lobby, playing, after close
            live.diagnosis["in_lobby"] = await server.ask("arenas")
        if os.environ.get("QUINZE_BENCH_PINNING"):  # diagnosis: what keeps pools in use after the close
            await server.ask("pools-mark")
        if os.environ.get("QUINZE_BENCH_TRACEMALLOC"):  # diagnosis: what outlives the tables (load_survivors)
            await server.ask("trace-start")
    live.players = await _seated(server, run, "p", size.tables)
    return live


async def _attach(live: _Live, seconds: float) -> list[Any]:
    """The diagnosis run over one chunk of the real server (load_server's docstring): cProfile,
    py-spy, an attached command; what :func:`_detach` stops."""
    server, size = live.server, live.size
    window = os.environ.get("QUINZE_BENCH_PROFILE_WINDOW")
    if window:
        await server.ask("profile-start")
    spy = os.environ.get("QUINZE_BENCH_SPY")  # diagnosis: py-spy samples the server in the window
    if spy and server.proc is not None:
        await asyncio.create_subprocess_exec("py-spy", "record", "-p", str(server.proc.pid), "-d", str(max(1, int(seconds))),
                                             "-r", "250", "--nonblocking", "--format", "raw", "-o", f"{spy}-{size.tables}.txt",
                                             stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
    attach = os.environ.get("QUINZE_BENCH_ATTACH")  # diagnosis: a command run on the server in the window
    attached = None
    if attach and server.proc is not None:
        words = [w.format(pid=server.proc.pid, tables=size.tables, seconds=max(1, int(seconds))) for w in attach.split()]
        attached = await asyncio.create_subprocess_exec(*words, stdout=asyncio.subprocess.DEVNULL)
    return [window, attached]


async def _detach(live: _Live, hooks: list[Any]) -> None:
    window, attached = hooks
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
        await live.server.ask(f"profile-stop {window}-{live.size.tables}.prof")


def _merge_gc(into: dict[str, Any], got: dict[str, Any]) -> None:
    """Add one chunk's collector figures (a ``stats`` answer's ``gc``) to ``into``: the longest
    pause (its generation, its CPU), the pauses and their total, by generation."""
    if not into:
        into.update({"max_pause_ms": 0.0, "max_pause_gen": -1, "max_pause_cpu_ms": 0.0, "pauses": 0, "total_ms": 0.0,
                     "by_gen": {}})
    if got["max_pause_ms"] > into["max_pause_ms"]:
        into["max_pause_ms"], into["max_pause_gen"] = got["max_pause_ms"], got["max_pause_gen"]
    into["max_pause_cpu_ms"] = max(into["max_pause_cpu_ms"], got["max_pause_cpu_ms"])
    into["pauses"] += got["pauses"]
    into["total_ms"] = round(into["total_ms"] + got["total_ms"], 3)
    for g, s in got.get("by_gen", {}).items():
        t = into["by_gen"].setdefault(g, {"n": 0, "max_ms": 0.0, "total_ms": 0.0})
        t["n"] += s["n"]
        t["max_ms"] = max(t["max_ms"], s["max_ms"])
        t["total_ms"] = round(t["total_ms"] + s["total_ms"], 3)


async def _chunk(live: _Live, seconds: float, rewarm: float, diagnose: bool) -> None:
    """Resume ``live``, let it play ``rewarm`` seconds, measure it for ``seconds`` (one chunk,
    appended to ``live.chunks``), pause it."""
    run, server = live.run, live.server
    run.resume()
    await asyncio.sleep(rewarm)
    hooks = await _attach(live, seconds) if diagnose else None
    actions, rtts = run.actions, len(run.rtts)
    start = await server.ask("stats")
    run.measuring = True
    t0, c0 = time.perf_counter(), time.process_time()
    await asyncio.sleep(seconds)
    run.measuring = False
    elapsed, client_cpu = time.perf_counter() - t0, time.process_time() - c0
    end = await server.ask("stats")
    run.pause()
    if hooks is not None:
        await _detach(live, hooks)
    n, cpu = run.actions - actions, end["cpu_s"] - start["cpu_s"]
    mine = run.rtts[rtts:]
    live.chunks.append({
        "seconds": round(elapsed, 3),
        "actions": n,
        "actions_per_s": round(n / elapsed, 1),
        "server_cpu_us_per_action": round(cpu / n * 1e6, 1) if n else None,
        "server_sys_us_per_action": _kernel_us(start, end, cpu, n),
        "server_cpu_share": round(cpu / elapsed, 3),
        "generator_cpu_share": round(client_cpu / elapsed, 3),
        "generator_cpu_us_per_action": round(client_cpu / n * 1e6, 1) if n else None,
        "rtt_p50_ms": round(pct(mine, 0.5) * 1e3, 2),
        "rtt_p99_ms": round(pct(mine, 0.99) * 1e3, 2),
    })
    if "gc" in end:
        _merge_gc(live.gc, end["gc"])
    live.last = end


async def _rounds(lives: list[_Live], duration: float, rounds: int, rewarm: float, diagnose: bool = False) -> None:
    """Every size of ``lives`` (all seated, playing) paused, then measured in ``rounds`` rounds of
    one chunk each (``duration / rounds`` seconds), the order reversed every other round."""
    for live in lives:
        live.run.pause()
    for r in range(rounds):
        for live in lives if r % 2 == 0 else lives[::-1]:
            await _chunk(live, duration / rounds, rewarm, diagnose and r == 0)


_MEDIANS = ("actions_per_s", "server_cpu_us_per_action", "server_sys_us_per_action", "server_cpu_share",
            "generator_cpu_share", "generator_cpu_us_per_action")


def _medians(chunks: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The median chunk's figures of :data:`_MEDIANS` and the spread (``[lowest, highest]``) of
    those and of the chunks' p99, with their count (``chunks``)."""
    mid: dict[str, Any] = {}
    spread: dict[str, Any] = {"chunks": len(chunks)}
    for key in _MEDIANS + ("rtt_p99_ms",):
        xs = [c[key] for c in chunks if c.get(key) is not None]
        if key in _MEDIANS:
            mid[key] = round(median(xs), 2 if key.endswith("share") else 1) if xs else None
        spread[key] = [min(xs), max(xs)] if xs else None
    return mid, spread


def _rtt(run: Run) -> dict[str, float]:
    ms = 1e3
    return {"p50": round(pct(run.rtts, 0.5) * ms, 2), "p90": round(pct(run.rtts, 0.9) * ms, 2),
            "p99": round(pct(run.rtts, 0.99) * ms, 2), "max": round(max(run.rtts, default=0.0) * ms, 2)}


async def _close_players(live: _Live) -> dict[str, Any]:
    """After the chunks (the size paused): the objects, the stats while playing, then the tables
    closed (the answers held by the pause are never sent)."""
    server, run = live.server, live.run
    objects = await server.ask("objects")
    playing = await server.ask("stats")
    in_play = await server.ask("arenas") if os.environ.get("QUINZE_BENCH_ARENAS") else None
    run.held.clear()
    await close_tables(run, live.players)
    return {"objects": objects, "playing": playing, "in_play": in_play}


async def _memory(live: _Live, kept: dict[str, Any], warmup: float) -> dict[str, Any]:
    """The memory figures once the tables closed: what was returned, then a second wave of as
    many tables (what it adds of memory); the idle connections closed, the server stopped."""
    server, run, size = live.server, live.run, live.size
    run.resume()  # the lobby lists again; nobody holds an answer any more
    playing = kept["playing"]
    closed = await _after_close(server, playing)
    pinned = os.environ.get("QUINZE_BENCH_PINNING")
    if pinned:
        with open(f"{pinned}-{size.tables}.json", "w") as f:
            json.dump(await server.ask("pools-new", 300), f, indent=1)
    arenas = os.environ.get("QUINZE_BENCH_ARENAS")
    if arenas and live.diagnosis.get("in_lobby") and kept["in_play"]:
        after = await server.ask("arenas")
        with open(f"{arenas}-{size.tables}.txt", "w") as f:
            for title, got in (("in the lobby", live.diagnosis["in_lobby"]), ("playing", kept["in_play"]), ("after close", after)):
                f.write("\n".join([title] + got["lines"] + [json.dumps(got.get("residency"))]) + "\n")
    traced = os.environ.get("QUINZE_BENCH_TRACEMALLOC")
    survivors = await server.ask(f"survivors {traced}-{size.tables}.txt {size.idle}", 900) if traced else None
    # A second wave of as many tables: how much of the memory kept by the process is reused.
    again = await _seated(server, run, "q", size.tables)
    await asyncio.sleep(warmup)
    second = await server.ask("stats")
    await close_tables(run, again)
    await close_all(live.idle)
    await server.__aexit__(None, None, None)
    lobby, base = live.lobby, live.base
    per_conn = (lobby["rss_bytes"] - base["rss_bytes"]) / size.idle if size.idle else None
    grown = playing["rss_bytes"] - lobby["rss_bytes"]
    conn_share = (per_conn or 0) * 2 * size.tables
    returned = playing["rss_bytes"] - closed["rss_bytes"]
    second_growth = second["rss_bytes"] - closed["rss_bytes"]
    returned_share, reused_share = memory_shares(grown, returned, second_growth)
    return {
        "rss_start_mib": round(base["rss_bytes"] / 2**20, 1),
        "idle_connection_kib": round(per_conn / 1024, 1) if per_conn is not None else None,
        "table_kib": round((grown - conn_share) / size.tables / 1024, 1),
        "rss_playing_mib": round(playing["rss_bytes"] / 2**20, 1),
        "rss_after_close_mib": round(closed["rss_bytes"] / 2**20, 1),
        "returned_mib": round(returned / 2**20, 1),
        "grown_mib": round(grown / 2**20, 1),
        "returned_share": returned_share,  # None below load_report.SHARE_MIN_GROWTH of growth
        "second_wave_growth_mib": round(second_growth / 2**20, 1),
        "reused_share": reused_share,
        "connections_after_close": closed.get("connections"),
        "longest_pause_closing_ms": closed["gc"]["max_pause_ms"],
        "open_tables_after_close": closed.get("open_tables"),
        "trims_after_close": closed["trims"] - playing["trims"] if closed.get("trims") is not None else None,
        "pools_given_mib": {k: round((v - (playing.get("pools_bytes") or {}).get(k, 0)) / 2**20, 2)
                            for k, v in closed["pools_bytes"].items()} if closed.get("pools_bytes") else None,
        **({"survivors": survivors} if survivors is not None else {}),
    }


def _row(live: _Live, engine: dict[str, Any] | None, kept: dict[str, Any], memory: dict[str, Any]) -> dict[str, Any]:
    """A size's figures (see the module docstring)."""
    size, run, end, objects = live.size, live.run, live.last, kept["objects"]
    mid, spread = _medians(live.chunks)
    spread["engine_us_per_action"] = [min(engine["chunks_us"]), max(engine["chunks_us"])] if engine else None
    survivors = memory.pop("survivors", None)
    ms = 1e3
    return {
        "tables": size.tables,
        "connections": size.connections,
        "idle": size.idle,
        "think_ms": size.think_ms,
        "seconds": round(sum(c["seconds"] for c in live.chunks), 2),
        "actions": sum(c["actions"] for c in live.chunks),
        "actions_per_s": mid["actions_per_s"],
        "games": run.games // 2,
        "forfeits": run.forfeits,
        "rtt_ms": _rtt(run),
        "listing_ms": {"n": len(run.listings), "p99": round(pct(run.listings, 0.99) * ms, 2)},
        "server_cpu_us_per_action": mid["server_cpu_us_per_action"],
        "engine_us_per_action": engine["cpu_us_per_action"] if engine else None,
        "engine_chunks_us": engine["chunks_us"] if engine else None,
        "server_cpu_share": mid["server_cpu_share"],
        "server_sys_us_per_action": mid["server_sys_us_per_action"],
        "generator_cpu_share": mid["generator_cpu_share"],
        "generator_cpu_us_per_action": mid["generator_cpu_us_per_action"],
        "spread": spread,
        "chunks": live.chunks,
        "gc": live.gc,
        "collector": end["collector"],
        "order": end.get("order", "trio's"),
        "threshold": end["threshold"],
        "tracked_objects": objects["tracked"],
        "full_collection_ms": objects["full_ms"],
        "full_collection_cpu_ms": objects["full_cpu_ms"],
        "frozen_objects": objects.get("frozen"),  # tracked, never walked (None: a tree before the count)
        "every_collection_cpu_ms": objects.get("every_cpu_ms"),  # the frozen ones walked too (a sweep)
        "memory": memory,
        **({"survivors": survivors} if survivors is not None else {}),
        "wire": run.profile(),
        "reference": None,
        "pings": run.pings,
        "errors": run.error_count,
        "first_errors": run.errors,
    }


def _reference_row(live: _Live) -> dict[str, Any]:
    """The bare reference server's figures at a size: actions per second, round trip, CPU per
    action (and the kernel's part), shares of a core, medians of its chunks with their spread."""
    mid, spread = _medians(live.chunks)
    return {**mid, "rtt_ms": {k: v for k, v in _rtt(live.run).items() if k in ("p50", "p99")},
            "spread": spread, "chunks": live.chunks, "wire": live.run.profile(),
            "errors": live.run.error_count, "first_errors": live.run.errors}


async def _real(sizes: tuple[Size, ...], duration: float, warmup: float, rounds: int, rewarm: float, tree: Path,
                stock_gc: bool, seed: int, cpu: int | None, engines: dict[int, dict[str, Any]]) -> list[dict[str, Any]]:
    """Every size against the real server: set up side by side, measured in turns, then closed
    one by one (the memory figures)."""
    async with AsyncExitStack() as stack:
        lives = [await _open(stack, s, tree, stock_gc, seed + i, cpu) for i, s in enumerate(sizes)]
        await asyncio.sleep(warmup)
        await _rounds(lives, duration, rounds, rewarm, diagnose=True)
        kept = [await _close_players(live) for live in lives]  # no player holds an answer for long
        return [_row(live, engines.get(i), k, await _memory(live, k, warmup)) for i, (live, k) in enumerate(zip(lives, kept))]


async def _references(sizes: tuple[Size, ...], profiles: list[dict[str, float] | None], duration: float, warmup: float,
                      rounds: int, rewarm: float, tree: Path, seed: int, cpu: int | None) -> list[dict[str, Any] | None]:
    """Every size (with a profile) against the bare reference server, set up side by side and
    measured in turns as the real server was."""
    chosen = [i for i, p in enumerate(profiles) if p]
    async with AsyncExitStack() as stack:
        lives = [await _open(stack, sizes[i], tree, False, seed + i, cpu, profiles[i]) for i in chosen]
        await asyncio.sleep(warmup)
        await _rounds(lives, duration, rounds, rewarm)
        for live in lives:
            live.run.stopping = True
            await close_all(live.players + live.idle)
    rows: list[dict[str, Any] | None] = [None] * len(sizes)
    for i, live in zip(chosen, lives):
        rows[i] = _reference_row(live)
    return rows


async def load_figures(sizes: tuple[Size, ...] = DEFAULT_SIZES, *, duration: float = 10.0, warmup: float = 2.0,
                       tree: Path | None = None, stock_gc: bool = False, seed: int = 1, reference: bool = True,
                       pin: bool = False, rounds: int = ROUNDS, rewarm: float = REWARM) -> dict[str, Any]:
    """Measure every size (asyncio; each with a fresh server process, all of them side by side,
    measured in ``rounds`` rounds of chunks; with ``reference``, then the bare reference servers
    the same way) and return ``{"sizes": [figures of each size, see the module docstring],
    "goals": {...} (:func:`load_report.goals`), "loadavg": [1, 5, 15 min, at the start],
    "loadavg_end", "cpus", "fd_limit", "tree", "duration_s", "rounds", "rewarm_s",
    "pinned": {"generator", "server"} (processors) or None}``. ``pin``: the generator and the
    servers run on two different processors (:func:`load_client.pinning`)."""
    tree = tree or Path(__file__).resolve().parents[2]
    rounds = max(1, rounds)
    # This process holds one end of every size's connections at once (each server the other end of its own).
    fd_limit = raise_fd_limit(2 * sum(s.connections for s in sizes) + 256)
    load = list(os.getloadavg()) if hasattr(os, "getloadavg") else []
    server_cpu, before = pinning(pin)
    try:
        # The game work alone, before any server starts (nothing else runs), every size's games in turns.
        plain = [i for i, s in enumerate(sizes) if not s.think_ms]
        each = max(2 * max((sizes[i].tables for i in plain), default=1), int(ENGINE_ACTIONS_PER_S * duration))
        alone = interleaved([sizes[i].tables for i in plain], each, chunk=max(1, min(ENGINE_CHUNK, each // ENGINE_CHUNKS)),
                            seeds=[seed + i for i in plain]) if plain else []
        engines = dict(zip(plain, alone))
        rows = await _real(sizes, duration, warmup, rounds, rewarm, tree, stock_gc, seed, server_cpu, engines)
        if reference:
            refs = await _references(sizes, [r["wire"] for r in rows], duration, warmup, rounds, rewarm, tree, seed, server_cpu)
            for r, ref in zip(rows, refs):
                r["reference"] = ref
        pinned = {"generator": min(os.sched_getaffinity(0)), "server": server_cpu} if server_cpu is not None else None
    finally:
        unpin(before)
    end = list(os.getloadavg()) if hasattr(os, "getloadavg") else []
    return {"sizes": rows, "goals": goals(rows), "loadavg": [round(x, 2) for x in load],
            "loadavg_end": [round(x, 2) for x in end], "cpus": os.cpu_count(), "pinned": pinned,
            "fd_limit": fd_limit, "tree": str(tree), "duration_s": duration, "rounds": rounds, "rewarm_s": rewarm,
            "stock_gc": stock_gc}


def run_load_bench(*, quick: bool = False, duration: float | None = None, sizes: tuple[Size, ...] | None = None,
                   tree: Path | None = None, stock_gc: bool = False, reference: bool = True, pin: bool = False,
                   rounds: int | None = None) -> dict[str, Any]:
    """:func:`load_figures` in its own event loop; ``quick``: small sizes, 1 s windows in 2 rounds
    (0.2 s of re-warm-up)."""
    sizes = sizes or (QUICK_SIZES if quick else DEFAULT_SIZES)
    duration = duration if duration is not None else (1.0 if quick else 10.0)
    warmup = 0.5 if quick else 2.0
    rounds = rounds if rounds is not None else (2 if quick else ROUNDS)
    return asyncio.run(load_figures(sizes, duration=duration, warmup=warmup, tree=tree, stock_gc=stock_gc,
                                    reference=reference, pin=pin, rounds=rounds, rewarm=0.2 if quick else REWARM))
