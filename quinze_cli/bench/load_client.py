"""The load bench's generator side (:mod:`quinze_cli.bench.load`): the sizes, the clients
(asyncio protocols speaking the wire by hand), the server process and its control channel.

Shared by the runs against the real server and against the bare reference server
(:mod:`quinze_cli.bench.load_reference`), so that both are driven by the same clients.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import sys
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import msgpack

from quinze_protocol.rng import Rng

LISTING_EVERY = 10.0
"""Seconds between two ``list-tables`` of one idle connection."""
SETUP_TIMEOUT = 120.0
"""Seconds the set-up (or the closing) of one size may take before the run gives up."""
_HEADER = 4
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


def frame_of(msg: dict[str, Any]) -> bytes:
    body = _pack(msg)
    return len(body).to_bytes(4, "big") + body


class Run:
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
        # What the server sent the players in the window, by kind: [frames, bytes] (frames with
        # their 4-byte header); "action" is what the players sent, "legal" the items offered.
        self.wire: dict[str, list[int]] = {k: [0, 0] for k in ("accepted", "request", "other", "listing", "action", "legal")}

    def profile(self) -> dict[str, float] | None:
        """What the server sent per accepted action in the window (None before any): the mean
        sizes in bytes of ``accepted``, ``action-request``, the other frames to the players
        (events, game boundaries; not pings) and the players' ``action``; the other frames per
        action; the mean number of legal actions offered; the mean listing answer. The bare
        reference server (:mod:`quinze_cli.bench.load_reference`) answers with these."""
        w = self.wire
        if not self.actions or not w["accepted"][0] or not w["request"][0] or not w["action"][0]:
            return None

        def mean(k: str) -> float:
            return w[k][1] / w[k][0] if w[k][0] else 0.0

        return {"accepted_bytes": round(mean("accepted"), 1), "request_bytes": round(mean("request"), 1),
                "other_bytes": round(mean("other"), 1), "action_bytes": round(mean("action"), 1),
                "other_frames_per_action": round(w["other"][0] / w["accepted"][0], 3),
                "legal_items": round(w["legal"][1] / w["request"][0], 2) if w["request"][0] else 1.0,
                "listing_bytes": round(mean("listing"), 1) if w["listing"][0] else 64.0}

    def error(self, what: str) -> None:
        self.error_count += 1
        if len(self.errors) < 5:
            self.errors.append(what[:300])


class Client(asyncio.Protocol):
    """One connection: frames in, pings answered; idle (lobby) or playing (one seat)."""

    def __init__(self, run: Run, name: str) -> None:
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
            self.transport.write(frame_of(msg))

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
                head = body[6:22]
                if self.run.measuring:
                    self._count(head, 4 + n)
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

    def _count(self, head: bytes | bytearray, size: int) -> None:
        """Count one frame the server sent (``head``: its body from the type's value on)."""
        if head.startswith(b"\xa6tables"):
            kind = "listing"
        elif not self.playing or head.startswith(b"\xa4ping"):
            return
        elif head.startswith(b"\xa8accepted"):
            kind = "accepted"
        elif head.startswith(b"\xaeaction-request"):
            kind = "request"
        else:
            kind = "other"
        w = self.run.wire[kind]
        w[0] += 1
        w[1] += size

    # ---- messages

    def handle(self, m: dict[str, Any], now: float) -> None:
        t = m.get("type")
        run = self.run
        if t == "action-request":
            legal = m["legal"]
            action = legal[run.rng.below(len(legal))]
            frame = frame_of({"type": "action", "table": m["table"], "request": m["request"], "action": action})
            if run.measuring:
                w, n = run.wire["action"], run.wire["legal"]
                w[0] += 1
                w[1] += len(frame)
                n[0] += 1
                n[1] += len(legal)
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


class ServerProcess:
    """The server in its own process, and its control channel (see :mod:`load_server`).

    ``reference``: instead, the bare reference server (:mod:`load_reference`) answering with those
    sizes (a :meth:`Run.profile`). ``cpu``: the processor the server is pinned to (None: not
    pinned; see :func:`pinning`)."""

    def __init__(self, tree: Path, stock_gc: bool, *, reference: dict[str, float] | None = None,
                 cpu: int | None = None) -> None:
        self.tree = tree
        self.stock_gc = stock_gc
        self.reference = reference
        self.cpu = cpu
        self.proc: asyncio.subprocess.Process | None = None
        self.port = 0

    async def __aenter__(self) -> "ServerProcess":
        if self.reference is not None:
            args = [sys.executable, str(Path(__file__).with_name("load_reference.py")), json.dumps(self.reference)]
        else:
            script = str(Path(__file__).with_name("load_server.py"))
            args = [sys.executable, "-c", "import runpy,sys; runpy.run_path(sys.argv[1], run_name='__main__')", script]
            if self.stock_gc:
                args.append("--stock-gc")
        env = {**os.environ, "PYTHONPATH": str(self.tree)}
        self.proc = await asyncio.create_subprocess_exec(
            *args, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, cwd=str(self.tree), env=env)
        if self.cpu is not None:
            os.sched_setaffinity(self.proc.pid, {self.cpu})
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


def pinning(pin: bool) -> tuple[int | None, set[int] | None]:
    """With ``pin`` (and at least two processors this process may use, on a system that has
    ``sched_setaffinity``): this process (the generator) is pinned to its first processor, and
    the server's processor (its last) is returned with the generator's affinity before, to be
    restored with :func:`unpin`; else ``(None, None)``, nothing changed."""
    if not pin or not hasattr(os, "sched_setaffinity"):
        return None, None
    mine = os.sched_getaffinity(0)
    if len(mine) < 2:
        return None, None
    os.sched_setaffinity(0, {min(mine)})
    return max(mine), mine


def unpin(before: set[int] | None) -> None:
    """Give the generator back the processors it had before :func:`pinning`."""
    if before is not None:
        os.sched_setaffinity(0, before)


def raise_fd_limit(needed: int) -> int:
    """Raise the soft limit of open files to at least ``needed`` (up to the hard limit); the limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    if soft != resource.RLIM_INFINITY and soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
        soft = want
    return soft


async def connect(server: ServerProcess, run: Run, names: list[str]) -> list[Client]:
    loop = asyncio.get_running_loop()
    out: list[Client] = []
    for i in range(0, len(names), 100):  # in batches: the listen backlog stays small
        batch = names[i : i + 100]
        made = await asyncio.gather(*(loop.create_connection(partial(Client, run, n), "127.0.0.1", server.port) for n in batch))
        clients = [c for _, c in made]
        await asyncio.gather(*(c.request({"type": "hello", "version": 1, "name": c.name, "role": "bot"}, "welcome") for c in clients))
        out.extend(clients)
    return out


async def seat(a: Client, b: Client) -> None:
    created = await a.request({"type": "create-table", "game": "quinze", "options": {"players": 2}, "games": 1_000_000}, "table-created")
    table = created["table"]["table"]
    a.table = b.table = table
    a.playing = b.playing = True
    await a.request({"type": "join", "table": table, "seat": 0}, "joined")
    await b.request({"type": "join", "table": table, "seat": 1}, "joined")


async def close_tables(run: Run, players: list[Client]) -> None:
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
    await close_all(players)
    await asyncio.sleep(1.0)
    run.stopping = False


async def close_all(clients: list[Client]) -> None:
    for c in clients:
        if c.transport is not None:
            c.transport.close()
    if clients:
        await asyncio.wait([c.closed for c in clients], timeout=10)


def pct(samples: list[float], q: float) -> float:
    if not samples:
        return 0.0
    s = sorted(samples)
    return s[min(len(s) - 1, int(q * len(s)))]
