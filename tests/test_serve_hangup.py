"""``quinze serve`` whose terminal is closed (SIGHUP) stops as on SIGTERM: the table starts no
more games, both players get ``bye`` ``"shutdown"``, the finished games are on disk, the exit
status is 0. The default action of SIGHUP killed it on the spot (exit 129, nothing said).

Real processes and TCP: ``quinze serve`` in a pseudo-terminal whose master side the test closes
(the kernel hangs the terminal up: SIGHUP, and every later write to it fails with ``EIO``), or
with pipes and ``kill -HUP`` (once, or twice as a closing terminal gives it: the shell passes its
own on, the kernel signals the foreground group); under ``nohup`` (SIGHUP ignored at start) the
server plays on. Two clients play a 500-game table as fast as they can. Nothing asserts a
duration."""

from __future__ import annotations

import os
import re
import signal
import subprocess
from pathlib import Path
from typing import Any

import forkkit
import pytest
import trio
from netclient import NetClient
from serverkit import seated_pair
from test_serve_shutdown import QUINZE, _play_on, _port


async def _playing(port: int) -> tuple[NetClient, NetClient, str, dict[str, Any], trio.Event]:
    a, b, table, _ = await seated_pair(port, "quinze", options={"target": 1}, games=500)
    return a, b, table, {"overs": 0, "bye": None, "started_after_bye": 0}, trio.Event()


def _logged(tmp_path: Path, table: str) -> int:
    return (tmp_path / f"{table}.jsonl").read_text(encoding="utf-8").count('"record":"header"')


async def _wait_exit(pid: int, timeout: float = 60) -> int:
    with trio.fail_after(timeout):
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return os.waitstatus_to_exitcode(status)
            await trio.sleep(0.05)


async def test_closing_the_terminal_stops_the_server_as_sigterm_does(tmp_path: Path) -> None:
    child = forkkit.spawn(QUINZE, ["serve", "--port", "0", "--no-announce", "--log-dir", str(tmp_path), "--move-time", "30"],
                          encoding="utf-8", timeout=60, dimensions=(24, 200))
    try:
        await trio.to_thread.run_sync(child.expect, r"listening on (?:\x1b\[[0-9;]*m)*127\.0\.0\.1:(\d+)")
        port = int(child.match.group(1))
        a, b, table, seen, overs = await _playing(port)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_play_on, a, table, seen, overs)
            nursery.start_soon(_play_on, b, table, dict(seen), trio.Event())
            with trio.fail_after(60):
                await overs.wait()
            os.close(child.child_fd)  # the terminal window closes: the kernel hangs the pty up
            code = await _wait_exit(child.pid)
        assert code == 0
        assert seen["bye"] == "shutdown" and seen["started_after_bye"] == 0
        assert 4 <= _logged(tmp_path, table) < 500  # the finished games are on disk, the table stopped early
        await a.aclose()
        await b.aclose()
    finally:
        if child.pid and _alive(child.pid):
            os.kill(child.pid, signal.SIGKILL)
            os.waitpid(child.pid, 0)


def _alive(pid: int) -> bool:
    try:
        return os.waitpid(pid, os.WNOHANG) == (0, 0)
    except ChildProcessError:
        return False


@pytest.mark.parametrize("hups", [1, 2], ids=["one", "two"])
async def test_sighup_stops_the_server_cleanly_and_a_second_one_changes_nothing(tmp_path: Path, hups: int) -> None:
    proc = await trio.lowlevel.open_process(
        [QUINZE, "serve", "--port", "0", "--no-announce", "--log-dir", str(tmp_path), "--move-time", "30"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        port = await _port(proc)
        a, b, table, seen, overs = await _playing(port)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_play_on, a, table, seen, overs)
            nursery.start_soon(_play_on, b, table, dict(seen), trio.Event())
            with trio.fail_after(60):
                await overs.wait()
            for _ in range(hups):
                proc.send_signal(signal.SIGHUP)
            with trio.fail_after(60):
                code = await proc.wait()
        assert proc.stderr is not None and proc.stdout is not None
        err = (await proc.stderr.receive_some(1 << 20)).decode()
        out = (await proc.stdout.receive_some(1 << 20)).decode()
        assert code == 0, (code, out, err)
        assert "Traceback" not in err
        assert "hung up: stopping: telling clients bye" in out and "server stopped" in out
        assert "stopped at once" not in out
        assert seen["bye"] == "shutdown" and seen["started_after_bye"] == 0
        assert 4 <= _logged(tmp_path, table) < 500
        await a.aclose()
        await b.aclose()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def test_under_nohup_sighup_leaves_the_server_serving(tmp_path: Path) -> None:
    proc = await trio.lowlevel.open_process(
        [QUINZE, "serve", "--port", "0", "--no-announce", "--log-dir", str(tmp_path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))  # what nohup does before exec
    try:
        port = await _port(proc)
        proc.send_signal(signal.SIGHUP)
        a, b, table, seen, overs = await _playing(port)  # still serving after the hangup
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_play_on, a, table, seen, overs)
            nursery.start_soon(_play_on, b, table, dict(seen), trio.Event())
            with trio.fail_after(60):
                await overs.wait()
            proc.send_signal(signal.SIGTERM)
            with trio.fail_after(60):
                code = await proc.wait()
        assert proc.stdout is not None
        out = (await proc.stdout.receive_some(1 << 20)).decode()
        assert code == 0 and re.search(r"^stopping: telling clients bye", out, re.M), out
        assert seen["bye"] == "shutdown"
        await a.aclose()
        await b.aclose()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
