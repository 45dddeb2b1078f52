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
6. for comparison, before the server starts: the game work alone over as many live games, one
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
import resource
import signal
import sys
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import msgpack

from quinze_cli.bench.load_engine import round_robin
from quinze_protocol.rng import Rng

__all__ = ["DEFAULT_SIZES", "QUICK_SIZES", "Size", "parse_sizes", "run_load_bench", "load_figures", "table_rows", "goal_rows"]

LISTING_EVERY = 10.0
"""Seconds between two ``list-tables`` of one idle connection."""
SETUP_TIMEOUT = 120.0
"""Seconds the set-up (or the closing) of one size may take before the run gives up."""
_HEADER = 4
ENGINE_ACTIONS_PER_S = 2_000
"""Actions of the game work alone (:mod:`load_engine`) per second of the measured window."""
_pack = msgpack.Packer(use_bin_type=True).pack


@dataclass(frozen=True)
class Size:
    """One load: ``tables`` 2-player tables, ``connections`` in all (the rest idle), ``think_ms``."""

    tables: int
    connections: int
    think_ms: float = 0.0

    @property
    def idle(self) -> int:
        return max(0, self.connections - 2 * self.tables)

    @property
    def label(self) -> str:
        think = f", think {self.think_ms:g} ms" if self.think_ms else ""
        return f"{self.tables} / {self.connections:,}{think}"


DEFAULT_SIZES = (Size(10, 20), Size(250, 1000), Size(500, 2000), Size(250, 1000, 50.0))
QUICK_SIZES = (Size(2, 6), Size(6, 20), Size(4, 12, 20.0))


def parse_sizes(text: str) -> tuple[Size, ...]:
    """``"10/20,250/1000,250/1000@50"`` → sizes. Raises ValueError naming the bad part."""
    out = []
    for part in text.split(","):
        part = part.strip()
        try:
            shape, _, think = part.partition("@")
            t, _, c = shape.partition("/")
            size = Size(int(t), int(c or 2 * int(t)), float(think or 0))
        except ValueError:
            raise ValueError(f"size {part!r}: expected TABLES/CONNECTIONS[@THINK_MS], e.g. 250/1000@50") from None
        if size.tables < 1 or size.connections < 2 * size.tables or size.think_ms < 0:
            raise ValueError(f"size {part!r}: needs at least 1 table, 2 connections per table, think >= 0")
        out.append(size)
    return tuple(out)


def _frame(msg: dict[str, Any]) -> bytes:
    body = _pack(msg)
    return len(body).to_bytes(4, "big") + body


class _Run:
    """What the clients of one size share: counters, samples, the clock of the window."""

    def __init__(self, size: Size, seed: int) -> None:
        self.size = size
        self.rng = Rng(seed)
        self.think = size.think_ms / 1000.0
        self.measuring = False
        self.stopping = False  # the tables are being closed: no more moves, late refusals expected
        self.actions = 0
        self.rtts: list[float] = []
        self.listings: list[float] = []
        self.errors: list[str] = []
        self.error_count = 0
        self.games = 0  # game-over received in the window (each game tells both players)
        self.pings = 0
        self.forfeits: dict[str, int] = {}  # game-over with a forfeit, by kind (none expected)

    def error(self, what: str) -> None:
        self.error_count += 1
        if len(self.errors) < 5:
            self.errors.append(what[:300])


class _Client(asyncio.Protocol):
    """One connection: frames in, pings answered; idle (lobby) or playing (one seat)."""

    def __init__(self, run: _Run, name: str) -> None:
        self.run = run
        self.name = name
        self.buf = bytearray()
        self.transport: asyncio.Transport | None = None
        self.waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.playing = False
        self.table = ""
        self.sent_at = 0.0
        self.listed_at = 0.0
        self.listing: asyncio.TimerHandle | None = None
        self.closed = asyncio.get_running_loop().create_future()

    # ---- wire

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # a TCP connection's transport

    def connection_lost(self, exc: Exception | None) -> None:
        if self.listing is not None:
            self.listing.cancel()
        if not self.closed.done():
            self.closed.set_result(None)
        for fut in self.waiting.values():
            if not fut.done():
                fut.set_exception(ConnectionError(f"{self.name}: connection lost"))

    def send(self, msg: dict[str, Any]) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(_frame(msg))

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()
        buf = self.buf
        buf += data
        pos, end = 0, len(buf)
        while end - pos >= _HEADER:
            n = int.from_bytes(buf[pos : pos + 4], "big")
            if end - pos - 4 < n:
                break
            body = buf[pos + 4 : pos + 4 + n]
            pos += 4 + n
            # Every server message starts with its "type" (a map whose first key is "type"):
            # events and the lobby listing are counted without being decoded.
            if body[1:6] == b"\xa4type":
                head = body[6:14]
                if head.startswith(b"\xa5event"):
                    continue
                if head.startswith(b"\xa6tables"):
                    if self.listed_at and self.run.measuring:
                        self.run.listings.append(now - self.listed_at)
                    self.listed_at = 0.0
                    continue
            try:
                self.handle(msgpack.unpackb(body, raw=False), now)
            except Exception as e:  # noqa: BLE001 - a bench client reports, never dies
                self.run.error(f"{self.name}: {type(e).__name__}: {e}")
        if pos:
            del buf[:pos]

    # ---- messages

    def handle(self, m: dict[str, Any], now: float) -> None:
        t = m.get("type")
        run = self.run
        if t == "action-request":
            legal = m["legal"]
            action = legal[run.rng.below(len(legal))]
            frame = _frame({"type": "action", "table": m["table"], "request": m["request"], "action": action})
            if run.think:
                asyncio.get_running_loop().call_later(run.think, self._act, frame)
            else:
                self._act(frame)
        elif t == "accepted":
            if run.measuring:
                run.actions += 1
                run.rtts.append(now - self.sent_at)
        elif t == "ping":
            run.pings += 1
            self.send({"type": "pong", "nonce": m["nonce"]})
        elif t == "game-over":
            if run.measuring:
                run.games += 1
            forfeit = m.get("forfeit")
            if forfeit and not run.stopping:
                kind = str(forfeit.get("kind"))
                run.forfeits[kind] = run.forfeits.get(kind, 0) + 1
        elif t in ("refused", "error") and not run.stopping:
            run.error(f"{self.name}: {t} {m.get('code')}: {m.get('reason')}")
        fut = self.waiting.pop(t, None) if t is not None else None
        if fut is not None and not fut.done():
            fut.set_result(m)

    def _act(self, frame: bytes) -> None:
        if self.transport is None or self.transport.is_closing() or self.run.stopping:
            return
        self.sent_at = time.perf_counter()
        self.transport.write(frame)

    async def request(self, msg: dict[str, Any], answer: str) -> dict[str, Any]:
        fut = asyncio.get_running_loop().create_future()
        self.waiting[answer] = fut
        self.send(msg)
        return await fut

    # ---- the lobby

    def start_listing(self, first: float) -> None:
        loop = asyncio.get_running_loop()
        self.listing = loop.call_later(first, self._list)

    def _list(self) -> None:
        self.listed_at = time.perf_counter()
        self.send({"type": "list-tables"})
        self.listing = asyncio.get_running_loop().call_later(LISTING_EVERY, self._list)


class _ServerProcess:
    """The server in its own process, and its control channel (see :mod:`load_server`)."""

    def __init__(self, tree: Path, stock_gc: bool) -> None:
        self.tree = tree
        self.stock_gc = stock_gc
        self.proc: asyncio.subprocess.Process | None = None
        self.port = 0

    async def __aenter__(self) -> "_ServerProcess":
        script = str(Path(__file__).with_name("load_server.py"))
        args = [sys.executable, "-c", "import runpy,sys; runpy.run_path(sys.argv[1], run_name='__main__')", script]
        if self.stock_gc:
            args.append("--stock-gc")
        env = {**os.environ, "PYTHONPATH": str(self.tree)}
        self.proc = await asyncio.create_subprocess_exec(
            *args, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, cwd=str(self.tree), env=env)
        assert self.proc.stdout is not None
        line = await asyncio.wait_for(self.proc.stdout.readline(), 60)
        if not line.strip():
            raise RuntimeError("the load bench's server did not start")
        self.port = int(line)
        return self

    async def ask(self, cmd: str, timeout: float = 60) -> dict[str, Any]:
        assert self.proc is not None and self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(cmd.encode() + b"\n")
        await self.proc.stdin.drain()
        return json.loads(await asyncio.wait_for(self.proc.stdout.readline(), timeout))

    async def __aexit__(self, *exc: Any) -> None:
        proc = self.proc
        if proc is None or proc.returncode is not None:
            return
        try:
            assert proc.stdin is not None
            proc.stdin.write(b"quit\n")
            await asyncio.wait_for(proc.wait(), 5)
        except (asyncio.TimeoutError, OSError, ConnectionError):
            proc.kill()
            await proc.wait()


def raise_fd_limit(needed: int) -> int:
    """Raise the soft limit of open files to at least ``needed`` (up to the hard limit); the limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    if soft != resource.RLIM_INFINITY and soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
        soft = want
    return soft


async def _connect(server: _ServerProcess, run: _Run, names: list[str]) -> list[_Client]:
    loop = asyncio.get_running_loop()
    out: list[_Client] = []
    for i in range(0, len(names), 100):  # in batches: the listen backlog stays small
        batch = names[i : i + 100]
        made = await asyncio.gather(*(loop.create_connection(partial(_Client, run, n), "127.0.0.1", server.port) for n in batch))
        clients = [c for _, c in made]
        await asyncio.gather(*(c.request({"type": "hello", "version": 1, "name": c.name, "role": "bot"}, "welcome") for c in clients))
        out.extend(clients)
    return out


async def _seat(a: _Client, b: _Client) -> None:
    created = await a.request({"type": "create-table", "game": "quinze", "options": {"players": 2}, "games": 1_000_000}, "table-created")
    table = created["table"]["table"]
    a.table = b.table = table
    a.playing = b.playing = True
    await a.request({"type": "join", "table": table, "seat": 0}, "joined")
    await b.request({"type": "join", "table": table, "seat": 1}, "joined")


async def _close_tables(run: _Run, players: list[_Client]) -> None:
    """Seat 0 of each table leaves (the game is forfeited, the table closes: seat 0 gets
    ``left``, seat 1 ``table-closed``); then every player disconnects."""
    run.stopping = True
    loop = asyncio.get_running_loop()
    waits: list[Awaitable[Any]] = []
    for a, b in zip(players[::2], players[1::2]):
        b.waiting["table-closed"] = fut = loop.create_future()
        waits.append(fut)
        waits.append(a.request({"type": "leave", "table": a.table}, "left"))
    await asyncio.wait_for(asyncio.gather(*waits, return_exceptions=True), SETUP_TIMEOUT)
    await _close_all(players)
    await asyncio.sleep(1.0)
    run.stopping = False


async def _close_all(clients: list[_Client]) -> None:
    for c in clients:
        if c.transport is not None:
            c.transport.close()
    if clients:
        await asyncio.wait([c.closed for c in clients], timeout=10)


def _pct(samples: list[float], q: float) -> float:
    if not samples:
        return 0.0
    s = sorted(samples)
    return s[min(len(s) - 1, int(q * len(s)))]


async def _one_size(size: Size, duration: float, warmup: float, tree: Path, stock_gc: bool, seed: int) -> dict[str, Any]:
    run = _Run(size, seed)
    # The game work alone over as many live games, before the server starts (nothing else runs).
    engine = None if size.think_ms else round_robin(size.tables, max(2 * size.tables, int(ENGINE_ACTIONS_PER_S * duration)), seed=seed)
    async with _ServerProcess(tree, stock_gc) as server:
        base = await server.ask("stats")
        idle = await asyncio.wait_for(_connect(server, run, [f"idle{i}" for i in range(size.idle)]), SETUP_TIMEOUT)
        for c in idle:
            c.start_listing(run.rng.below(10_000) / 1000.0)
        await asyncio.sleep(0.5)
        lobby = await server.ask("stats")
        traced = os.environ.get("QUINZE_BENCH_TRACEMALLOC")  # diagnosis: what outlives the tables (load_survivors)
        if traced:
            await server.ask("trace-start")
        players = await asyncio.wait_for(_connect(server, run, [f"p{i}" for i in range(2 * size.tables)]), SETUP_TIMEOUT)
        await asyncio.wait_for(asyncio.gather(*(_seat(players[2 * i], players[2 * i + 1]) for i in range(size.tables))), SETUP_TIMEOUT)
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
        start = await server.ask("stats")
        run.measuring = True
        t0, c0 = time.perf_counter(), time.process_time()
        await asyncio.sleep(duration)
        run.measuring = False
        elapsed, client_cpu = time.perf_counter() - t0, time.process_time() - c0
        end = await server.ask("stats")
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
        arenas = os.environ.get("QUINZE_BENCH_ARENAS")  # diagnosis: pymalloc's summary, playing and after close
        if arenas:
            playing["arenas"] = (await server.ask("arenas"))["lines"]
        await _close_tables(run, players)
        closed = await server.ask("stats")
        if arenas:
            closed["arenas"] = (await server.ask("arenas"))["lines"]
            with open(f"{arenas}-{size.tables}.txt", "w") as f:
                f.write("\n".join(["playing"] + playing["arenas"] + ["after close"] + closed["arenas"]) + "\n")
        survivors = await server.ask(f"survivors {traced}-{size.tables}.txt {size.idle}", 900) if traced else None
        # A second wave of as many tables: how much of the memory kept by the process is reused.
        again = await asyncio.wait_for(_connect(server, run, [f"q{i}" for i in range(2 * size.tables)]), SETUP_TIMEOUT)
        await asyncio.wait_for(asyncio.gather(*(_seat(again[2 * i], again[2 * i + 1]) for i in range(size.tables))), SETUP_TIMEOUT)
        await asyncio.sleep(warmup)
        second = await server.ask("stats")
        await _close_tables(run, again)
        await _close_all(idle)
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
        "rtt_ms": {"p50": round(_pct(run.rtts, 0.5) * ms, 2), "p90": round(_pct(run.rtts, 0.9) * ms, 2),
                   "p99": round(_pct(run.rtts, 0.99) * ms, 2), "max": round(max(run.rtts, default=0.0) * ms, 2)},
        "listing_ms": {"n": len(run.listings), "p99": round(_pct(run.listings, 0.99) * ms, 2)},
        "server_cpu_us_per_action": round(cpu / run.actions * 1e6, 1) if run.actions else None,
        "engine_us_per_action": engine["cpu_us_per_action"] if engine else None,
        "server_cpu_share": round(cpu / elapsed, 2),
        "server_sys_us_per_action": round((end["sys_s"] - start["sys_s"]) / run.actions * 1e6, 1) if run.actions and "sys_s" in end else None,
        "generator_cpu_share": round(client_cpu / elapsed, 2),
        "gc": end["gc"],
        "collector": end["collector"],
        "order": end.get("order", "trio's"),
        "threshold": end["threshold"],
        "tracked_objects": objects["tracked"],
        "full_collection_ms": objects["full_ms"],
        "full_collection_cpu_ms": objects["full_cpu_ms"],
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
        },
        **({"survivors": survivors} if survivors is not None else {}),
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
        pause = big["gc"]["max_pause_ms"]
        goals["gc_pause_largest_ms"] = {"value": pause, "target": 20, "met": pause <= 20, "of": f"{big['tables']} tables"}
        full = big["full_collection_cpu_ms"]  # the pause to expect when a full collection does come
        goals["full_collection_largest_ms"] = {"value": full, "target": 20, "met": full <= 20,
                                               "of": f"{big['tables']} tables, CPU"}
    for r in think:
        goals["p99_thinking_ms"] = {"value": r["rtt_ms"]["p99"], "target": 50, "met": r["rtt_ms"]["p99"] <= 50,
                                    "of": f"{r['tables']} tables, think {r['think_ms']:g} ms"}
    returned = [r["memory"]["returned_share"] for r in rows if r["memory"]["returned_share"] is not None]
    if returned:
        worst = min(returned)
        goals["memory_returned_share"] = {"value": worst, "target": 0.75, "met": worst >= 0.75, "of": "worst size"}
    return goals


async def load_figures(sizes: tuple[Size, ...] = DEFAULT_SIZES, *, duration: float = 10.0, warmup: float = 2.0,
                       tree: Path | None = None, stock_gc: bool = False, seed: int = 1) -> dict[str, Any]:
    """Run every size in turn (asyncio; each with a fresh server process) and return
    ``{"sizes": [figures of each size, see the module docstring], "goals": {...},
    "loadavg": [1, 5, 15 min], "cpus", "fd_limit", "tree", "duration_s"}``."""
    tree = tree or Path(__file__).resolve().parents[2]
    fd_limit = raise_fd_limit(2 * max(s.connections for s in sizes) + 256)  # both ends live here and in the server
    load = list(os.getloadavg()) if hasattr(os, "getloadavg") else []
    rows = [await _one_size(s, duration, warmup, tree, stock_gc, seed + i) for i, s in enumerate(sizes)]
    return {"sizes": rows, "goals": _goals(rows), "loadavg": [round(x, 2) for x in load], "cpus": os.cpu_count(),
            "fd_limit": fd_limit, "tree": str(tree), "duration_s": duration, "stock_gc": stock_gc}


def run_load_bench(*, quick: bool = False, duration: float | None = None, sizes: tuple[Size, ...] | None = None,
                   tree: Path | None = None, stock_gc: bool = False) -> dict[str, Any]:
    """:func:`load_figures` in its own event loop; ``quick``: small sizes, 1 s windows."""
    sizes = sizes or (QUICK_SIZES if quick else DEFAULT_SIZES)
    duration = duration if duration is not None else (1.0 if quick else 10.0)
    warmup = 0.5 if quick else 2.0
    return asyncio.run(load_figures(sizes, duration=duration, warmup=warmup, tree=tree, stock_gc=stock_gc))


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

    figures = [
        ("actions/s", lambda r: f"{r['actions_per_s']:,.0f}"),
        ("round trip ms p50 / p90", lambda r: f"{r['rtt_ms']['p50']} / {r['rtt_ms']['p90']}"),
        ("round trip ms p99 / max", lambda r: f"{r['rtt_ms']['p99']} / {r['rtt_ms']['max']}"),
        ("server CPU per action, µs", lambda r: f"{r['server_cpu_us_per_action']}"),
        ("of which in the kernel, µs", lambda r: f"{r.get('server_sys_us_per_action')}"),
        ("the game work alone (no server), µs per action", lambda r: f"{r.get('engine_us_per_action') or '-'}"),
        ("server / generator CPU (share of a core)", lambda r: f"{r['server_cpu_share']:.0%} / {r['generator_cpu_share']:.0%}"),
        ("longest collector pause ms wall / CPU (generation)",
         lambda r: f"{r['gc']['max_pause_ms']:.1f} / {r['gc']['max_pause_cpu_ms']:.1f} ({r['gc']['max_pause_gen']})"),
        ("collections in the window / their total ms", lambda r: f"{r['gc']['pauses']} / {r['gc']['total_ms']:.0f}"),
        ("objects tracked by the collector", lambda r: f"{r['tracked_objects']:,}"),
        ("a full collection then, ms wall / CPU", lambda r: f"{r['full_collection_ms']} / {r['full_collection_cpu_ms']}"),
        ("memory KiB per idle connection", lambda r: conn(r["memory"])),
        ("memory KiB per table", lambda r: f"{r['memory']['table_kib']:g}"),
        ("RSS MiB playing → after close (returned)", lambda r: back(r["memory"])),
        ("RSS growth MiB of a second wave of tables (reused)", lambda r: reuse(r["memory"])),
        ("lobby listing p99 ms (listings)", lambda r: f"{r['listing_ms']['p99']} ({r['listing_ms']['n']})"),
        ("errors", lambda r: f"{r['errors']}"),
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
    }
    out = []
    for key, (label, target) in names.items():
        g = fig["goals"].get(key)
        if g is not None:
            out.append((f"{label} ({g['of']})", f"{g['value']}", target.format(g["target"]), "yes" if g["met"] else "no"))
    return out
