"""Flood figures (issue: bounded lobby, bounded decoding): a real ``quinze serve`` on loopback,
two seats playing Le Quinze at one table, and the round trip of their moves (``action`` to the
next ``action-request``, median and 90th percentile, ms) while idle, while another client floods
the server with ``create-table`` messages, and while one floods it with 1 MiB frames of a million
tiny values. Figures are printed, never asserted (not a test module: pytest does not collect it).

    .venv/bin/python tests/flood_figures.py [--moves 400] [--code DIR]

``--code DIR`` runs the server from another checkout (``PYTHONPATH=DIR``), e.g. the code before
the change, for a comparison in the same run. The flooding clients are processes of their own
(this file with ``--flood table|decode PORT``), so the measuring client shares no process with them.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import socket
import statistics
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import msgpack

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def frame(msg: object) -> bytes:
    body = msg if isinstance(msg, bytes) else msgpack.packb(msg)
    return struct.pack(">I", len(body)) + body


def flood(kind: str, port: int) -> None:
    """Flood the server at ``port`` until SIGTERM (then print what was sent on stderr); the
    answers are read and thrown away; a dropped connection is opened again."""
    if kind == "table":
        burst = frame({"type": "create-table", "game": "quinze", "options": {"players": 2}, "games": 1}) * 200
        per = 200
    else:
        body = msgpack.packb({"type": "ping", "nonce": 1, "x": [[]] * 1_048_500})  # a million values
        assert len(body) <= 1_048_576
        burst = frame(body)
        per = 1
    sent = [0, 0]  # frames, connections

    def report(*_: object) -> None:
        print(f"  ({kind} flooder: {sent[0]} frames sent over {sent[1]} connections)", file=sys.stderr, flush=True)
        os._exit(0)

    signal.signal(signal.SIGTERM, report)
    print(f"  ({kind} flooder: flooding)", file=sys.stderr, flush=True)
    while True:
        try:
            sock = socket.create_connection(("127.0.0.1", port))
        except OSError:
            time.sleep(0.01)
            continue
        sent[1] += 1
        sock.sendall(frame({"type": "hello", "version": 1, "name": f"flood-{kind}", "role": "player"}))

        def drain(sock: socket.socket = sock) -> None:
            try:
                while sock.recv(1 << 20):
                    pass
            except OSError:
                pass

        threading.Thread(target=drain, daemon=True).start()
        try:
            while True:
                sock.sendall(burst)
                sent[0] += per
        except OSError:
            sock.close()


class Seat:
    def __init__(self, port: int, name: str) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        self.send({"type": "hello", "version": 1, "name": name, "role": "player"})
        assert self.recv()["type"] == "welcome"

    def send(self, msg: dict) -> None:
        self.sock.sendall(frame(msg))

    def recv(self) -> dict:
        while True:
            if len(self.buf) >= 4:
                n = struct.unpack(">I", self.buf[:4])[0]
                if len(self.buf) >= 4 + n:
                    body, self.buf = self.buf[4 : 4 + n], self.buf[4 + n :]
                    msg = msgpack.unpackb(body, raw=False)
                    if msg.get("type") == "ping":
                        self.send({"type": "pong", "nonce": msg["nonce"]})
                        continue
                    return msg
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise EOFError("server closed")
            self.buf += chunk


def round_trips(port: int, moves: int) -> list[float]:
    """Two seats play Le Quinze (``target`` 1, many games); the seconds from each ``action`` to
    the next ``action-request``."""
    a, b = Seat(port, "ana"), Seat(port, "bob")
    a.send({"type": "create-table", "game": "quinze", "options": {"players": 2, "target": 1}, "games": 1_000_000, "seed": 1})
    while (m := a.recv())["type"] != "table-created":
        pass
    table = m["table"]["table"]
    for s in (a, b):
        s.send({"type": "join", "table": table})
    seats = {}
    times: list[float] = []
    sent_at = None
    # one reader per seat would need threads; the seat to act is the only one whose answer we wait for
    import selectors

    sel = selectors.DefaultSelector()
    for s in (a, b):
        s.sock.setblocking(True)
        sel.register(s.sock, selectors.EVENT_READ, s)
    while len(times) < moves:
        for key, _ in sel.select(timeout=30):
            s: Seat = key.data
            chunk = s.sock.recv(1 << 16)
            if not chunk:
                raise EOFError("server closed")
            s.buf += chunk
            while len(s.buf) >= 4 and len(s.buf) >= 4 + struct.unpack(">I", s.buf[:4])[0]:
                n = struct.unpack(">I", s.buf[:4])[0]
                body, s.buf = s.buf[4 : 4 + n], s.buf[4 + n :]
                msg = msgpack.unpackb(body, raw=False)
                t = msg.get("type")
                if t == "ping":
                    s.send({"type": "pong", "nonce": msg["nonce"]})
                elif t == "joined":
                    seats[msg["seat"]] = s
                elif t == "action-request":
                    if sent_at is not None:
                        times.append(time.perf_counter() - sent_at)
                    sent_at = time.perf_counter()
                    s.send({"type": "action", "table": table, "request": msg["request"], "action": msg["legal"][0]})
                elif t == "game-start" and sent_at is not None:
                    sent_at = None  # a new game: its first request is not a round trip
    for s in (a, b):
        s.sock.close()
    return times


def start_server(code: Path | None) -> tuple[subprocess.Popen, int]:
    env = dict(os.environ)
    if code is not None:
        env["PYTHONPATH"] = str(code)
    proc = subprocess.Popen([sys.executable, "-c", "from quinze_cli.app import main; main()", "serve", "--port", "0", "--no-log"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=str(code or ROOT))
    assert proc.stdout is not None
    for line in proc.stdout:
        m = re.search(rb"127\.0\.0\.1:(\d+)", line)
        if m:
            return proc, int(m.group(1))
    raise RuntimeError("the server did not start")


def figures(times: list[float]) -> str:
    ms = sorted(t * 1000 for t in times)
    return f"median {statistics.median(ms):.2f} ms, p90 {ms[int(len(ms) * 0.9)]:.2f} ms ({len(ms)} moves)"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--moves", type=int, default=400)
    ap.add_argument("--code", type=Path, default=None)
    ap.add_argument("--flood", nargs=2, metavar=("KIND", "PORT"))
    args = ap.parse_args()
    if args.flood:
        flood(args.flood[0], int(args.flood[1]))
        return
    proc, port = start_server(args.code)
    try:
        print(f"server from {args.code or ROOT} on port {port}")
        for kind in ("table", "decode"):
            idle: list[float] = []
            under: list[float] = []
            try:
                for _ in range(3):  # alternate, so that both phases meet the same load on the machine
                    idle += round_trips(port, args.moves // 3)
                    flooder = subprocess.Popen([sys.executable, __file__, "--flood", kind, str(port)])
                    try:
                        time.sleep(1.0)  # the flood is on
                        under += round_trips(port, args.moves // 3)
                    finally:
                        flooder.terminate()
                        flooder.wait()
                    time.sleep(1.5)  # what the flooder left in the socket buffers is read
                print(f"{kind} flood: idle {figures(idle)}")
                print(f"{kind} flood: flooded {figures(under)}; median x{statistics.median(under) / statistics.median(idle):.2f} of idle")
            except Exception as e:  # noqa: BLE001 - the figure is what failed: say so
                print(f"{kind} flood: the measuring seats failed: {type(e).__name__}: {e}")
        print("server still running:", proc.poll() is None)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


if __name__ == "__main__":
    main()
