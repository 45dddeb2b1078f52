"""Server figures for ``quinze bench``: the cost of one move through the real Trio server
compared with a bare msgpack echo over the same loopback, both timed in the same run (times in
microseconds; medians, as load on the machine makes means noisy; measured, never asserted).

The bench's clients speak through the one conversation layer, as every client does
(:class:`quinze_protocol.session.ClientSession`: the handshake, the table's questions, the
table's state, the answer quoting the open request in its game), on raw sockets: the session's
work happens outside the timed part (the answer is built and encoded before its clock starts;
a reply is timed when its bytes arrive, and the sessions take in what came only once the move's
reply is in; with the servers in other processes, the client's collector runs between the
timed chunks, not inside them), so the wall figures time the server and the loopback, not the
client.

* ``cycle_us`` — two clients play 2-player Le Quinze games (``target`` 1, so games are short and
  many deals are seen) on a real server: from sending an ``action`` to receiving the next
  ``action-request`` (server: framing, message checks, ``parse_action`` + ``apply``,
  ``accepted``, the events to both seats, the view and complete legal list of the next request).
* ``accepted_us`` — from sending the ``action`` to its ``accepted``.
* ``echo_us`` — the same client machinery against a plain msgpack echo server on loopback that
  decodes each action frame and answers with one encoded frame of a real action-request's size.
* ``ratio`` = ``cycle_us`` / ``echo_us`` (target <= 2): how many loopback echoes one move costs.
* With the servers in processes of their own (``separate``), their CPU time (user + system, read
  by each process itself on a control line) over the timed parts: ``server_cpu_us`` per action
  (everything the server did for it: the replies to both seats, the deals between games),
  ``echo_cpu_us`` per echoed frame, and ``cpu_ratio`` = the first / the second. These do not
  depend on the client at all; None in process.
"""

from __future__ import annotations

import functools
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import trio

from quinze_protocol.framing import FrameDecoder, encode_frame
from quinze_protocol.messages import Message
from quinze_protocol.session import ClientSession
from quinze_cli.bench.frames import table_rows as frame_rows
from quinze_protocol.game import get_game
from quinze_server.app import run_server
from quinze_server.config import ServerConfig

__all__ = ["SERVER_TARGET_RATIO", "run_server_bench", "server_figures", "table_rows"]

SERVER_TARGET_RATIO = 2.0
_SKIPPED = frozenset({"event", "game-start", "joined", "notice"})
"""Types no step of the bench waits for: decoded (as a client must) and taken in by the session
later, never put on the waiting channel."""


class _Client:
    """A raw client: its reader task decodes every frame into :attr:`backlog` (for its session,
    taken in by :meth:`take_in`) and puts ``(seat, map, arrival time)`` of the awaited ones on a
    shared channel."""

    def __init__(self, stream: trio.SocketStream, seat: int, out: trio.MemorySendChannel[Any]) -> None:
        self.stream = stream
        self.seat = seat
        self.out = out
        self.session = ClientSession()
        self.backlog: list[dict[str, Any]] = []

    async def reader(self) -> None:
        dec = FrameDecoder()
        backlog = self.backlog
        try:
            while data := await self.stream.receive_some(65536):
                now = time.perf_counter()
                dec.feed(data)
                while (m := dec.next_data()) is not None:
                    backlog.append(m)
                    if m.get("type") not in _SKIPPED:
                        await self.out.send((self.seat, m, now))
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass

    async def send(self, msg: Message | dict[str, Any]) -> None:
        """Send a message the session built (or records now); not timed."""
        if not isinstance(msg, Message):
            self.session.sent(msg)
        await self.stream.send_all(encode_frame(msg))

    async def take_in(self) -> None:
        """The session takes in every message received so far, in order (states, the game, the
        open request, settled questions); a ``pong`` it says to send is sent."""
        backlog, self.backlog[:] = list(self.backlog), []
        for m in backlog:
            self.session.receive_data(m)
        for reply in self.session.take_outbox():
            await self.send(reply)


async def _connect(port: int, seat: int, out: trio.MemorySendChannel[Any], nursery: trio.Nursery) -> _Client:
    c = _Client(await trio.open_tcp_stream("127.0.0.1", port), seat, out)
    nursery.start_soon(c.reader)
    return c


async def _next(inbox: trio.MemoryReceiveChannel[Any], *types: str) -> tuple[int, dict[str, Any], float]:
    while True:
        seat, m, t = await inbox.receive()
        if m["type"] in types:
            return seat, m, t


class _Listening:
    """A bench server listening on ``port``; :meth:`cpu` reads its process's CPU time."""

    def __init__(self, port: int, proc: trio.Process | None = None) -> None:
        self.port = port
        self._proc = proc

    async def cpu(self) -> float | None:
        """Seconds of CPU (user + system) the server's process has used so far, read by that
        process on its control line; None for a server in this process."""
        proc = self._proc
        if proc is None or proc.stdin is None or proc.stdout is None:
            return None
        await proc.stdin.send_all(b"cpu\n")
        line = b""
        with trio.fail_after(10):
            while not line.endswith(b"\n"):
                chunk = await proc.stdout.receive_some(64)
                if not chunk:
                    raise RuntimeError("the bench server ended")
                line += chunk
        return float(line)


@asynccontextmanager
async def _listening(kind: str, separate: bool, reply: dict[str, Any] | None = None) -> AsyncIterator[_Listening]:
    """A ``kind`` ("server" or "echo") listening on loopback. ``separate``: in its own Python
    process (as in real use, where clients are other programs), which answers each ``cpu`` line
    on its stdin with its CPU seconds on its stdout."""
    if separate:
        args = [sys.executable, "-m", "quinze_cli.bench.server", kind, json.dumps(reply or {})]
        proc = await trio.lowlevel.open_process(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        try:
            assert proc.stdout is not None
            line = b""
            with trio.fail_after(30):
                while not line.endswith(b"\n"):
                    chunk = await proc.stdout.receive_some(64)
                    if not chunk:
                        raise RuntimeError(f"the bench {kind} did not start")
                    line += chunk
            yield _Listening(int(line), proc)
        finally:
            proc.terminate()
            with trio.move_on_after(5):
                await proc.wait()
            if proc.returncode is None:
                proc.kill()
        return
    async with trio.open_nursery() as nursery:
        yield _Listening(await nursery.start(_serve, kind, reply or {}))
        nursery.cancel_scope.cancel()


async def _serve(kind: str, reply: dict[str, Any], *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
    if kind == "server":
        await run_server(ServerConfig(port=0, heartbeat=60.0, shutdown_grace=0.5), task_status=task_status)
        return

    async def echo(stream: trio.SocketStream) -> None:
        dec = FrameDecoder()
        try:
            while data := await stream.receive_some(65536):
                dec.feed(data)
                while (m := dec.next_data()) is not None:
                    await stream.send_all(encode_frame({**reply, "request": m.get("request", 0)}))
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass

    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    task_status.started(listeners[0].socket.getsockname()[1])
    await trio.serve_listeners(echo, listeners)


class _ServerDriver:
    """Two clients seated at a Le Quinze table (``target`` 1, games chained) of a running server;
    :meth:`moves` plays and times moves, each answering its open request with the first legal
    action, the ``action`` built by its session."""

    def __init__(self, clients: list[_Client], inbox: trio.MemoryReceiveChannel[Any]) -> None:
        self.clients = clients
        self.inbox = inbox
        self.cycles: list[float] = []
        self.accepts: list[float] = []
        self.request_sizes: list[int] = []
        self.table = ""
        self.seat = 0
        self.req: dict[str, Any] = {}
        self.actions = 0
        """Actions sent (timed or not)."""

    async def start(self, seed: int) -> None:
        for c in self.clients:
            await c.send(c.session.hello(f"bench{c.seat}", "bot"))
            await _next(self.inbox, "welcome")
            await c.take_in()
        host = self.clients[0]
        msg, ask = host.session.create_table("quinze", {"players": 2, "target": 1}, seed=seed, games=1_000_000)
        await host.send(msg)
        await _next(self.inbox, "table-created")
        await host.take_in()
        if ask.reply is None:
            raise RuntimeError(f"the server refused the table: {ask.error}")
        self.table = ask.reply.table.table  # type: ignore[attr-defined]
        for c in self.clients:
            await c.send(c.session.join(self.table, c.seat)[0])
        self.seat, self.req, _ = await _next(self.inbox, "action-request")

    async def action(self, *, sending: bool = True) -> Any:
        """The answer to the open request, built by the session of the seat to act (after both
        sessions took in what came): the message, recorded as sent (``sending``), or its map."""
        for c in self.clients:
            await c.take_in()
        session = self.clients[self.seat].session
        if sending:
            return session.answer(self.table, self.req["legal"][0])
        return session.answer_data(self.table, self.req["legal"][0])

    async def moves(self, n: int) -> None:
        for _ in range(n):
            frame = encode_frame(await self.action())
            t0 = time.perf_counter()
            await self.clients[self.seat].stream.send_all(frame)
            self.actions += 1
            while True:
                s, m, t = await _next(self.inbox, "accepted", "action-request", "game-over", "refused", "error")
                if m["type"] == "accepted":
                    self.accepts.append(t - t0)
                elif m["type"] == "action-request":
                    self.cycles.append(t - t0)
                    break
                elif m["type"] == "game-over":  # the next game starts: not a single move, not timed
                    s, m, _ = await _next(self.inbox, "action-request")
                    break
                else:
                    raise RuntimeError(f"the server refused a legal action: {m}")
            self.seat, self.req = s, m
            if len(self.request_sizes) < 200:
                self.request_sizes.append(len(encode_frame(m)))


async def _echo_rounds(client: _Client, inbox: trio.MemoryReceiveChannel[Any], action: dict[str, Any], n: int, times: list[float]) -> None:
    for i in range(n):
        frame = encode_frame({**action, "request": i})
        t0 = time.perf_counter()
        await client.stream.send_all(frame)
        _, _, t = await inbox.receive()
        times.append(t - t0)
        client.backlog.clear()  # echoes are no conversation: nothing for the session


async def _cpu_during(where: _Listening, work: Any) -> float | None:
    """CPU seconds ``where``'s process spent while ``work`` (awaited) ran; None in process."""
    before = await where.cpu()
    await work
    after = await where.cpu()
    return None if before is None or after is None else after - before


async def server_figures(rounds: int = 2000, seed: int = 1, *, separate: bool = True, chunks: int = 10) -> dict[str, Any]:
    """The figures of the module docstring for ``rounds`` moves, the server (and the echo
    server) in a process of their own unless ``separate`` is False. Server moves and echo round
    trips alternate in ``chunks`` so that both meet the same load on the machine.

    Returns ``{"rounds", "separate", "request_bytes", "action_bytes", "cycle_us", "accepted_us",
    "echo_us", "ratio", "target_ratio", "met", "server_cpu_us", "echo_cpu_us", "cpu_ratio"}``
    (``met``: ``ratio <= target_ratio``; the CPU figures None when not ``separate``).
    """
    get_game("quinze")
    echo_times: list[float] = []
    server_cpu = echo_cpu = 0.0
    actions = echoes = 0
    async with _listening("server", separate) as server, trio.open_nursery() as nursery:
        send, inbox = trio.open_memory_channel[Any](1000)
        driver = _ServerDriver([await _connect(server.port, s, send, nursery) for s in range(2)], inbox)
        await driver.start(seed)
        await driver.moves(20)  # warm up; a sample request for the echo server
        driver.cycles.clear()
        driver.accepts.clear()
        sample_request = driver.req
        sample_action = await driver.action(sending=False)
        async with _listening("echo", separate, sample_request) as echo_server:
            esend, einbox = trio.open_memory_channel[Any](1000)
            echo = await _connect(echo_server.port, 0, esend, nursery)
            per = max(1, rounds // chunks)
            collecting = separate and gc.isenabled()
            try:
                while len(driver.cycles) < rounds:
                    if collecting:
                        # The client's own garbage (its sessions' objects) is collected between
                        # chunks, never inside a timed round trip (the servers are other processes).
                        gc.collect()
                        gc.disable()
                    sent = driver.actions
                    spent = await _cpu_during(server, driver.moves(per))
                    server_cpu, actions = server_cpu + (spent or 0.0), actions + driver.actions - sent
                    spent = await _cpu_during(echo_server, _echo_rounds(echo, einbox, sample_action, per, echo_times))
                    echo_cpu, echoes = echo_cpu + (spent or 0.0), echoes + per
            finally:
                if collecting:
                    gc.enable()
            await echo.stream.aclose()
        for c in driver.clients:
            await c.stream.aclose()
        nursery.cancel_scope.cancel()
    cycle, echo_s = statistics.median(driver.cycles), statistics.median(echo_times)
    cpu: dict[str, float | None] = {"server_cpu_us": None, "echo_cpu_us": None, "cpu_ratio": None}
    if separate and echo_cpu > 0:
        cpu = {"server_cpu_us": round(server_cpu / actions * 1e6, 1), "echo_cpu_us": round(echo_cpu / echoes * 1e6, 1),
               "cpu_ratio": round(server_cpu / actions / (echo_cpu / echoes), 2)}
    return {
        "rounds": len(driver.cycles),
        "separate": separate,
        "request_bytes": int(statistics.median(driver.request_sizes)),
        "action_bytes": len(encode_frame(sample_action)),
        "cycle_us": round(cycle * 1e6, 1),
        "accepted_us": round(statistics.median(driver.accepts) * 1e6, 1),
        "echo_us": round(echo_s * 1e6, 1),
        "ratio": round(cycle / echo_s, 2),
        "target_ratio": SERVER_TARGET_RATIO,
        "met": round(cycle / echo_s, 2) <= SERVER_TARGET_RATIO,
        **cpu,
    }


def run_server_bench(*, quick: bool = False, separate: bool = True) -> dict[str, Any]:
    """:func:`server_figures` in its own Trio run (``quick``: 300 moves instead of 3000), with the
    worst client frame's read-and-refuse time (:func:`quinze_cli.bench.frames.frame_figures`)
    under ``"frames"``."""
    from quinze_cli.bench.frames import frame_figures

    figures = trio.run(functools.partial(server_figures, 300 if quick else 3000, separate=separate))
    figures["frames"] = frame_figures(quick=quick, reference=not quick)  # the reference takes seconds
    return figures


def table_rows(figures: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """``(figure, value, target, met)`` rows of :func:`server_figures`' result, for a rich table
    (``met``: ``"yes"``/``"no"``, empty without a target)."""
    f = figures
    where = "server process" if f.get("separate", True) else "in process"
    met = f.get("met", f["ratio"] <= f["target_ratio"])
    cpu = [] if f.get("cpu_ratio") is None else [
        ("server process CPU per action, µs / echo process CPU per frame, µs",
         f"{f['server_cpu_us']} / {f['echo_cpu_us']} = {f['cpu_ratio']}x", "", ""),
    ]
    return [
        (f"server ({where}): action -> next action-request, µs (median of {f['rounds']}, "
         f"{f['request_bytes']}-byte requests)", f"{f['cycle_us']}", "", ""),
        ("server: action -> accepted, µs", f"{f['accepted_us']}", "", ""),
        ("msgpack echo over loopback (action in, request-sized reply out), µs", f"{f['echo_us']}", "", ""),
        ("server / echo", f"{f['ratio']}x", f"<= {f['target_ratio']:g}x", "yes" if met else "no"),
    ] + cpu + (frame_rows(f["frames"]) if "frames" in f else [])


def _main(argv: list[str]) -> None:
    """``python -m quinze_cli.bench.server server|echo REPLY_JSON``: serve on a free loopback port,
    print the port on one line, then answer each line on stdin with this process's CPU seconds
    (user + system) on one line; run until killed or stdin ends."""
    kind, reply = argv[1], json.loads(argv[2]) if len(argv) > 2 else {}

    async def control() -> None:
        stdin = trio.lowlevel.FdStream(os.dup(sys.stdin.fileno()))
        pending = b""
        while data := await stdin.receive_some(64):
            pending += data
            while b"\n" in pending:
                _, pending = pending.split(b"\n", 1)
                print(f"{time.process_time():.6f}", flush=True)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            port = await nursery.start(_serve, kind, reply)
            print(port, flush=True)
            await control()
            nursery.cancel_scope.cancel()

    try:
        trio.run(main)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    _main(sys.argv)
