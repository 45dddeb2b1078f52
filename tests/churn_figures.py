"""Churn figures (issue 16): a real ``quinze serve`` on loopback, its log on a real file, one
connection that was there before (it says ``hello`` and answers pings), and bursts of N others
that connect, say ``hello``, get their ``welcome`` and then all close at once. For each burst:

- the server's CPU per close (``/proc/<pid>/stat``: user + system time of the whole process, from
  just before the closes until its last socket of the burst is closed, divided by N), and per
  connection opened and greeted;
- the wait of the connection that was there before: a ``ping`` it sends right after the closes,
  and the ``pong`` (seconds), and how many of the burst's sockets the server still had open when
  that ``pong`` came (a count: the closes it answered after, not before, the ping);
- the log lines the burst gave (``connected``, ``disconnected``, summaries).

Figures are printed, never asserted (not a test module: pytest does not collect it). Timed
figures on a shared machine are noisy: run it a few times, and read the load average it prints.

    .venv/bin/python tests/churn_figures.py [--n 1000 2000] [--runs 3] [--code DIR]

``--code DIR`` runs the server from another checkout (its ``protocol/``, ``server/`` and
``quinze_cli/``), e.g. the code before a change, for a comparison in the same conditions.
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import msgpack

ROOT = Path(__file__).resolve().parent.parent
TICK = os.sysconf("SC_CLK_TCK")

LOADER = """
import importlib.util, sys
tree = sys.argv.pop(1)
for name, folder in (("quinze_protocol", "protocol"), ("quinze_server", "server"), ("quinze_cli", "quinze_cli")):
    spec = importlib.util.spec_from_file_location(name, f"{tree}/{folder}/__init__.py",
                                                  submodule_search_locations=[f"{tree}/{folder}"])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
sys.argv[0] = "quinze"
from quinze_cli.app import main
main()
"""


def frame(msg: object) -> bytes:
    body = msgpack.packb(msg)
    return struct.pack(">I", len(body)) + body


HELLO = frame({"type": "hello", "version": 1, "name": "churn", "role": "player"})


class Watcher:
    """The connection that was there before the burst: pings and waits for the pong, answering
    the server's own pings meanwhile."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        self.sock.sendall(frame({"type": "hello", "version": 1, "name": "watcher", "role": "player"}))
        assert self.recv()["type"] == "welcome"

    def recv(self) -> dict:
        while True:
            if len(self.buf) >= 4:
                n = struct.unpack(">I", self.buf[:4])[0]
                if len(self.buf) >= 4 + n:
                    body, self.buf = self.buf[4 : 4 + n], self.buf[4 + n :]
                    msg = msgpack.unpackb(body, raw=False)
                    if msg.get("type") == "ping":
                        self.sock.sendall(frame({"type": "pong", "nonce": msg["nonce"]}))
                        continue
                    return msg
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise EOFError("the server closed the watcher")
            self.buf += chunk

    def ping(self, nonce: int) -> None:
        self.sock.sendall(frame({"type": "ping", "nonce": nonce}))
        while (msg := self.recv()).get("type") != "pong" or msg.get("nonce") != nonce:
            pass


def cpu(pid: int) -> float:
    """Seconds of CPU (user + system) the process used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def start_server(code: Path, log: Path, tty: bool = False) -> tuple[subprocess.Popen, int]:
    """``quinze serve`` from ``code``, its log (stderr) on the file ``log``, or with ``tty`` on a
    terminal (a pseudo-terminal copied to ``log`` by a thread), as a person running it sees it."""
    if tty:
        import pty
        import threading

        master, slave = pty.openpty()
        os.set_inheritable(slave, True)
        err = os.fdopen(slave, "wb")

        def copy() -> None:
            with open(log, "ab") as out:
                while True:
                    try:
                        chunk = os.read(master, 65536)
                    except OSError:
                        return
                    if not chunk:
                        return
                    out.write(chunk)
                    out.flush()

        threading.Thread(target=copy, daemon=True).start()
    else:
        err = open(log, "wb")  # noqa: SIM115 - the server's log, a real file (closed with the process)
    proc = subprocess.Popen([sys.executable, "-c", LOADER, str(code), "serve", "--port", "0", "--no-log", "--no-announce"],
                            stdout=subprocess.PIPE, stderr=err, cwd=tempfile.gettempdir(),
                            env={**os.environ, "COLUMNS": os.environ.get("CHURN_COLUMNS", "300")})  # one log line per record
    err.close()
    assert proc.stdout is not None
    for line in proc.stdout:
        m = re.search(rb"127\.0\.0\.1:(\d+)", line)
        if m:
            return proc, int(m.group(1))
    raise RuntimeError(f"the server did not start: {log.read_text()[-2000:]}")


def wait_fds(pid: int, want: int, limit: float = 120.0) -> None:
    end = time.monotonic() + limit
    while fds(pid) != want:
        if time.monotonic() > end:
            raise RuntimeError(f"the server holds {fds(pid)} descriptors, not {want}")
        time.sleep(0.005)


def burst(proc: subprocess.Popen, port: int, watcher: Watcher, n: int, nonce: int, log: Path) -> dict[str, float]:
    pid = proc.pid
    base = fds(pid)
    lines0 = log.read_bytes().count(b"\n")
    c0 = cpu(pid)
    socks = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(HELLO)
        socks.append(s)
    for s in socks:
        got = b""
        while b"welcome" not in got:
            chunk = s.recv(65536)
            if not chunk:
                raise EOFError("a burst connection was closed before its welcome")
            got += chunk
    c1 = cpu(pid)
    time.sleep(1.5)  # the connects' log lines (and any summary) are out
    c2 = cpu(pid)
    for s in socks:
        s.close()
    t0 = time.perf_counter()
    watcher.ping(nonce)
    waited = time.perf_counter() - t0
    pending = fds(pid) - base
    wait_fds(pid, base)
    c3 = cpu(pid)
    drained = time.perf_counter() - t0
    time.sleep(1.5)
    text = log.read_bytes().decode("utf-8", "replace").splitlines()[lines0:]
    return {
        "open_ms": (c1 - c0) / n * 1000,
        "close_ms": (c3 - c2) / n * 1000,
        "pong_s": waited,
        "pending": pending,
        "drained_s": drained,
        "connected": sum(" connected as " in t for t in text),
        "disconnected": sum(" disconnected: " in t for t in text),
        "summaries": sum(bool(re.search(r"\.\.\. and \d+ more ", t)) for t in text),
        "lines": len(text),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, nargs="+", default=[1000, 2000])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--code", type=Path, default=ROOT)
    ap.add_argument("--tty", action="store_true", help="the server's log on a terminal, not a file")
    ap.add_argument("--log", type=Path, default=None, help="keep a copy of the server's log there")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "serve.log"
        proc, port = start_server(args.code.resolve(), log, args.tty)
        try:
            watcher = Watcher(port)
            print(f"server from {args.code} on port {port}, its log on {'a terminal' if args.tty else 'a file'}; load average {os.getloadavg()[0]:.2f}")
            nonce = 1
            for _ in range(args.runs):
                for n in args.n:
                    r = burst(proc, port, watcher, n, nonce, log)
                    nonce += 1
                    print(f"N={n}: CPU per close {r['close_ms']:.3f} ms, per open+hello {r['open_ms']:.3f} ms; "
                          f"pong after the closes {r['pong_s']:.3f} s, {r['pending']:.0f} of {n} sockets still open then, "
                          f"all closed after {r['drained_s']:.2f} s; log lines: {r['connected']:.0f} connected, "
                          f"{r['disconnected']:.0f} disconnected, {r['summaries']:.0f} summaries ({r['lines']:.0f} in all); "
                          f"load {os.getloadavg()[0]:.2f}", flush=True)
            print("server still running:", proc.poll() is None)
        finally:
            if args.log is not None:
                args.log.write_bytes(log.read_bytes())
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


if __name__ == "__main__":
    main()
