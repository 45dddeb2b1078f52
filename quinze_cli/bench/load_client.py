"""The load bench's generator side (:mod:`quinze_cli.bench.load`): the sizes, the clients
(asyncio protocols speaking the wire by hand), the server process and its control channel.

Shared by the runs against the real server and against the bare reference server
(:mod:`quinze_cli.bench.load_reference`), so that both are driven by the same clients.
"""

from __future__ import annotations

import asyncio
import compileall
import json
import os
import resource
import struct
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
        self.paused = False  # the players hold their answers, the lobby its listings (pause, resume)
        self.held: list[tuple[Client, bytes]] = []
        self.listers: list[Client] = []  # the connections listing the tables (Client.start_listing)

    def pause(self) -> None:
        """From now on the players hold their answers (each sends it at :meth:`resume`) and the
        idle connections their listings (each keeping the time left to its next one): the
        server goes quiet but for its heartbeat, which every connection still answers. With
        the players' clocks at 60 s a decision, a pause must stay well under that."""
        self.paused = True
        now = asyncio.get_running_loop().time()
        for c in self.listers:
            if c.listing is not None:
                c.listing_left = max(0.0, c.listing.when() - now)
                c.listing.cancel()
                c.listing = None

    def resume(self) -> None:
        """The held answers are sent (each timed from now) and the listings go on where they were."""
        self.paused = False
        held, self.held = self.held, []
        for c, frame in held:
            c._act(frame)
        loop = asyncio.get_running_loop()
        for c in self.listers:
            if c.listing is None and not c.closed.done():
                c.listing = loop.call_later(c.listing_left, c._list)

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


class Client(asyncio.BufferedProtocol):
    """One connection: frames in, pings answered; idle (lobby) or playing (one seat).

    Lean by design (the generator shares the machine with the server it measures): the bytes are
    read into one receive buffer shared by every connection (:data:`_RECEIVE`; a frame cut by
    the read is kept by its connection until the rest comes), each frame is told by the bytes of
    its ``type`` (every server message is a map whose first key is ``type``) and only what the
    generator needs is decoded: events, listings and ``accepted`` not at all; of an
    ``action-request``, the ``table``, ``request`` and the chosen ``legal`` entry are taken as
    they are encoded (:func:`answer`), the rest skipped; the other messages (the set-up's, pings,
    game boundaries) are decoded whole and handled by :meth:`handle`. A map whose first key is
    not ``type`` is decoded whole too. The clock is read once per read, where the bytes arrive."""

    def __init__(self, run: Run, name: str) -> None:
        self.run = run
        self.name = name
        self.rest = b""  # the start of a frame the last read cut
        self.into: bytearray = _RECEIVE  # the buffer of the read under way, and where its bytes start
        self.at = 0
        self.transport: asyncio.Transport | None = None
        self.waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.playing = False
        self.table = ""
        self.sent_at = 0.0
        self.listed_at = 0.0
        self.listing: asyncio.TimerHandle | None = None
        self.listing_left = 0.0  # seconds to the next listing, while the run is paused
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

    def get_buffer(self, sizehint: int) -> memoryview:
        rest = self.rest
        if not rest:
            self.into, self.at = _RECEIVE, 0
            return _RECEIVE_VIEW
        n = len(rest)
        # A cut frame's start goes first; one longer than half the shared buffer gets one of its own.
        into = _RECEIVE if n <= _RECEIVE_SIZE // 2 else bytearray(n + _RECEIVE_SIZE)
        into[:n] = rest
        self.into, self.at, self.rest = into, n, b""
        return memoryview(into)[n:]

    def buffer_updated(self, nbytes: int) -> None:
        now = time.perf_counter()
        buf, run = self.into, self.run
        end = self.at + nbytes
        pos = 0
        measuring = run.measuring
        while end - pos >= 4:
            start = pos + 4
            stop = start + _LENGTH(buf, pos)[0]
            if stop > end:
                break
            pos = stop
            if buf.startswith(b"\xa4type", start + 1):
                t = start + 6  # the type's value
                if buf.startswith(b"\xa5event", t):
                    if measuring and self.playing:
                        w = run.wire["other"]
                        w[0] += 1
                        w[1] += stop - start + 4
                    continue
                if buf.startswith(b"\xa8accepted", t):
                    if measuring and self.playing:
                        run.actions += 1
                        run.rtts.append(now - self.sent_at)
                        w = run.wire["accepted"]
                        w[0] += 1
                        w[1] += stop - start + 4
                    continue
                if buf.startswith(b"\xaeaction-request", t):
                    try:
                        frame, legal = answer(buf, start, stop, run.rng)
                    except Exception as e:  # noqa: BLE001 - a bench client reports, never dies
                        _reset_unpacker()
                        run.error(f"{self.name}: action-request: {type(e).__name__}: {e}")
                        continue
                    if measuring and self.playing:
                        _count_request(run.wire, stop - start + 4, len(frame), legal)
                    if run.think:
                        asyncio.get_running_loop().call_later(run.think, self._act, frame)
                    else:
                        self._act(frame)
                    continue
                if buf.startswith(b"\xa6tables", t):
                    if measuring:
                        w = run.wire["listing"]
                        w[0] += 1
                        w[1] += stop - start + 4
                        if self.listed_at:
                            run.listings.append(now - self.listed_at)
                    self.listed_at = 0.0
                    continue
                if measuring and self.playing and not buf.startswith(b"\xa4ping", t):
                    w = run.wire["other"]  # the game's boundaries (game-start, game-over), notices
                    w[0] += 1
                    w[1] += stop - start + 4
            try:
                self.handle(msgpack.unpackb(buf[start:stop], raw=False), now)
            except Exception as e:  # noqa: BLE001 - a bench client reports, never dies
                run.error(f"{self.name}: {type(e).__name__}: {e}")
        if pos < end:
            self.rest = bytes(buf[pos:end])

    # ---- messages

    def handle(self, m: dict[str, Any], now: float) -> None:
        """A message decoded whole (see the class's docstring): the set-up's answers (to the
        :meth:`request` waiting for them), pings, game boundaries, refusals; and any message
        whose map does not start with its ``type``."""
        t = m.get("type")
        run = self.run
        if t == "action-request":  # (a map not led by its type: the lean path did not read it)
            legal = m["legal"]
            action = legal[run.rng.below(len(legal))]
            frame = frame_of({"type": "action", "table": m["table"], "request": m["request"], "action": action})
            if run.measuring and self.playing:
                _count_request(run.wire, len(frame_of(m)), len(frame), len(legal))
            if run.think:
                asyncio.get_running_loop().call_later(run.think, self._act, frame)
            else:
                self._act(frame)
        elif t == "accepted":
            if run.measuring and self.playing:
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
        """Send ``frame`` (this seat's action) now, its clock started; held while the run is
        paused (:meth:`Run.pause`), sent by :meth:`Run.resume`."""
        run = self.run
        if self.transport is None or self.transport.is_closing() or run.stopping:
            return
        if run.paused:
            run.held.append((self, frame))
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
        self.run.listers.append(self)

    def _list(self) -> None:
        self.listed_at = time.perf_counter()
        self.send({"type": "list-tables"})
        self.listing = asyncio.get_running_loop().call_later(LISTING_EVERY, self._list)


_RECEIVE_SIZE = 256 * 1024
_RECEIVE = bytearray(_RECEIVE_SIZE)
"""The receive buffer every connection reads into (one read is handled before the next starts)."""
_RECEIVE_VIEW = memoryview(_RECEIVE)
_LENGTH = struct.Struct(">I").unpack_from
_UNPACKER = [msgpack.Unpacker(raw=False)]
"""The one streaming reader of ``action-request`` bodies (fed one whole body at a time, read to
its end; replaced after an error left it within a body)."""
_ACTION_HEAD = b"\x84\xa4type\xa6action\xa5table"
_REQUEST_KEY = b"\xa7request"
_ACTION_KEY = b"\xa6action"


def _reset_unpacker() -> None:
    _UNPACKER[0] = msgpack.Unpacker(raw=False)


def _count_request(wire: dict[str, list[int]], request: int, action: int, legal: int) -> None:
    for kind, size in (("request", request), ("action", action)):
        w = wire[kind]
        w[0] += 1
        w[1] += size
    n = wire["legal"]
    n[0] += 1
    n[1] += legal


def answer(buf: bytes | bytearray, start: int, stop: int, rng: Rng) -> tuple[bytes, int]:
    """The ``action`` frame answering the ``action-request`` whose body is ``buf[start:stop]``
    with a random entry of its ``legal`` list (``rng.below(len(legal))``), and that list's
    length. The entry, the ``table`` and the ``request`` are copied as the server encoded them:
    the frame is the one ``frame_of({"type": "action", "table", "request", "action": entry})``
    makes of the decoded request wherever the server's encoding is msgpack's own (the tests
    check it); the rest of the request (the view, the clock) is skipped, never decoded. Raises
    (msgpack's errors, KeyError) on a body that is not such a request."""
    u = _UNPACKER[0]
    base = u.tell() - start  # buf's offset of what the reader reads next
    u.feed(memoryview(buf)[start:stop])
    table = request = action = None
    n = 0
    for _ in range(u.read_map_header()):
        key = u.unpack()
        if key == "legal":
            n = u.read_array_header()
            pick = rng.below(n)
            for _ in range(pick):
                u.skip()
            at = u.tell()
            u.skip()
            action = buf[at - base : u.tell() - base]
            for _ in range(n - pick - 1):
                u.skip()
        elif key == "table":
            at = u.tell()
            u.skip()
            table = buf[at - base : u.tell() - base]
        elif key == "request":
            at = u.tell()
            u.skip()
            request = buf[at - base : u.tell() - base]
        else:
            u.skip()
    if table is None or request is None or action is None:
        raise KeyError("an action-request without its table, request or a legal action")
    body = b"".join((_ACTION_HEAD, table, _REQUEST_KEY, request, _ACTION_KEY, action))
    return len(body).to_bytes(4, "big") + body, n


_COMPILED: set[Path] = set()


def compile_tree(tree: Path) -> None:
    """Compile the server and protocol packages of ``tree`` to bytecode, once per process (quiet;
    a folder that cannot be written is left as it is, e.g. an installed package, compiled at
    install). A server started from sources without bytecode (``PYTHONDONTWRITEBYTECODE`` set, a
    fresh checkout) compiles them first, and what compiling leaves in its memory (about 1.4 MiB
    here) is in its starting resident set: two trees measured one after the other would start
    unequal, and a size's memory returned after the close would be read against a starting figure
    that includes it (docs/server-rounds.md, thirteenth round)."""
    tree = tree.resolve()
    if tree in _COMPILED:
        return
    _COMPILED.add(tree)
    for name in ("server", "protocol", "quinze_server", "quinze_protocol"):
        folder = tree / name
        if (folder / "__init__.py").is_file() and os.access(folder, os.W_OK):
            compileall.compile_dir(str(folder), quiet=2, workers=1)


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
            compile_tree(self.tree)
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
