"""``quinze serve`` as a real subprocess: it prints where it listens, serves a game, stops
cleanly on SIGINT (bye to clients, logs on disk, exit 0), and reports a port in use."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import trio
from netclient import NetClient
from serverkit import play_pair, seated_pair
import forkkit

QUINZE = str(Path(sys.executable).with_name("quinze"))


async def _read_until(stream: trio.abc.ReceiveStream, pattern: str, timeout: float = 10.0) -> re.Match[str]:
    buf = b""
    with trio.fail_after(timeout):
        while not (m := re.search(pattern, buf.decode("utf-8", "replace"))):
            chunk = await stream.receive_some(4096)
            assert chunk, f"the server ended before printing {pattern!r}: {buf!r}"
            buf += chunk
    return m


async def test_serve_plays_and_stops_cleanly_on_sigint(tmp_path: Path) -> None:
    proc = await trio.lowlevel.open_process(
        [QUINZE, "serve", "--port", "0", "--log-dir", str(tmp_path), "--move-time", "30"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert proc.stdout is not None and proc.stderr is not None
        port = int((await _read_until(proc.stdout, r"listening on 127\.0\.0\.1:(\d+)")).group(1))
        a, b, table, _ = await seated_pair(port, "quinze", options={"target": 1})
        over, _ = await play_pair(a, b, table)
        assert over["forfeit"] is None
        await a.expect("table-closed")
        await a.aclose()
        await b.aclose()
        watcher = await NetClient.connect(port, "late")
        proc.send_signal(signal.SIGINT)
        rest = await watcher.until_closed(timeout=10)
        assert rest[-1] == {"type": "bye", "reason": "shutdown"}
        await watcher.aclose()
        with trio.fail_after(10):
            code = await proc.wait()
        err = (await proc.stderr.receive_some(1 << 20)).decode()
        assert code == 0 and "Traceback" not in err
        assert (tmp_path / f"{table}.jsonl").read_text(encoding="utf-8").count('"record":"header"') == 1
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


def test_port_in_use_is_a_one_line_error() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        run = forkkit.run([QUINZE, "serve", "--port", str(port)], capture_output=True, text=True, timeout=30)
    assert run.returncode == 1
    assert run.stderr.startswith("error: ") and str(port) in run.stderr and "Traceback" not in run.stderr


def test_bad_move_time_is_a_usage_error() -> None:
    run = forkkit.run([QUINZE, "serve", "--port", "0", "--move-time", "0"], capture_output=True, text=True, timeout=30)
    assert run.returncode == 2 and "--move-time must be positive" in run.stderr  # the flag typed, not the field


async def test_logs_go_to_logs_by_default_and_the_place_is_printed(tmp_path: Path) -> None:
    proc = await trio.lowlevel.open_process([QUINZE, "serve", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    try:
        assert proc.stdout is not None
        m = await _read_until(proc.stdout, r"listening on 127\.0\.0\.1:(\d+).*\nreplay logs in (.+)\n")
        port, where = int(m.group(1)), m.group(2)
        assert Path(where.split("/<table>")[0]) == (tmp_path / "logs").resolve()
        a, b, table, _ = await seated_pair(port, "quinze", options={"target": 1})
        await play_pair(a, b, table)
        await a.expect("table-closed")
        await a.aclose()
        await b.aclose()
        proc.send_signal(signal.SIGINT)
        with trio.fail_after(30):
            assert await proc.wait() == 0
        assert (tmp_path / "logs" / f"{table}.jsonl").read_text(encoding="utf-8").count('"record":"header"') == 1
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def test_no_log_records_nothing_and_says_so(tmp_path: Path) -> None:
    proc = await trio.lowlevel.open_process([QUINZE, "serve", "--port", "0", "--no-log"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    try:
        assert proc.stdout is not None
        await _read_until(proc.stdout, r"no replay logs \(--no-log\)")
        proc.send_signal(signal.SIGINT)
        with trio.fail_after(30):
            assert await proc.wait() == 0
        assert not (tmp_path / "logs").exists()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
