"""``quinze serve`` stopping in the middle of a long table, as a real subprocess.

Two clients play a 500-game table of Le Quinze as fast as they can (after another client sent
malformed frames); then SIGINT, SIGTERM, or two SIGINTs back to back. The server must stop the
table, send ``bye`` ``"shutdown"``, leave the finished games on disk and exit (0, or 130 when a
second signal cuts the shutdown short), never go on playing. Timeouts are generous and nothing
asserts a duration.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import trio
from netclient import NetClient
from serverkit import seated_pair

QUINZE = str(Path(sys.executable).with_name("quinze"))


async def _port(proc: trio.Process) -> int:
    import re

    assert proc.stdout is not None
    buf = b""
    with trio.fail_after(30):
        while not (m := re.search(rb"listening on 127\.0\.0\.1:(\d+)", buf)):
            chunk = await proc.stdout.receive_some(4096)
            assert chunk, f"the server ended early: {buf!r}"
            buf += chunk
    return int(m.group(1))


async def _play_on(client: NetClient, table: str, seen: dict[str, Any], overs: trio.Event) -> None:
    """Answer every request with the first legal action until the server says bye or closes."""
    while True:
        try:
            msg = await client.recv(60)
        except (EOFError, trio.BrokenResourceError, trio.ClosedResourceError):
            return
        if msg["type"] == "action-request":
            try:
                await client.send({"type": "action", "table": table, "request": msg["request"], "action": msg["legal"][0]})
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                return
        elif msg["type"] == "game-over":
            seen["overs"] += 1
            if seen["overs"] >= 4:
                overs.set()
        elif msg["type"] == "game-start" and seen["bye"]:
            seen["started_after_bye"] += 1
        elif msg["type"] == "bye":
            seen["bye"] = msg["reason"]


@pytest.mark.parametrize("signals", [[signal.SIGINT], [signal.SIGTERM], [signal.SIGINT, signal.SIGINT]], ids=["sigint", "sigterm", "double-sigint"])
async def test_signal_during_a_long_table_stops_the_server(tmp_path: Path, signals: list[int]) -> None:
    proc = await trio.lowlevel.open_process(
        [QUINZE, "serve", "--port", "0", "--log-dir", str(tmp_path), "--move-time", "30"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        port = await _port(proc)
        bad = await NetClient.connect(port, None)
        await bad.send_raw(b"\x00\x00\x00\x03\xc1\xc1\xc1")  # not msgpack: error, bye, closed
        await bad.until_closed(timeout=30)
        await bad.aclose()
        a, b, table, _ = await seated_pair(port, "quinze", options={"target": 1}, games=500)
        seen = {"overs": 0, "bye": None, "started_after_bye": 0}
        overs = trio.Event()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_play_on, a, table, seen, overs)
            nursery.start_soon(_play_on, b, table, dict(seen), trio.Event())
            with trio.fail_after(60):
                await overs.wait()
            for sig in signals:
                proc.send_signal(sig)
            with trio.fail_after(60):
                code = await proc.wait()
        assert proc.stderr is not None and proc.stdout is not None
        err = (await proc.stderr.receive_some(1 << 20)).decode()
        out = (await proc.stdout.receive_some(1 << 20)).decode()
        assert "Traceback" not in err
        assert code == 0 if len(signals) == 1 else code in (0, 130), (code, out, err)
        if len(signals) == 1:
            assert seen["bye"] == "shutdown" and seen["started_after_bye"] == 0
            assert "server stopped" in out
        logged = (tmp_path / f"{table}.jsonl").read_text(encoding="utf-8").count('"record":"header"')
        assert 4 <= logged < 500  # the finished games are on disk, the table stopped early
        assert all(p.stat().st_size > 0 for p in tmp_path.iterdir())  # no log file left empty
        await a.aclose()
        await b.aclose()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def test_a_second_signal_waits_for_the_logs_being_written_and_no_longer() -> None:
    """quinze serve's second Ctrl-C ends the process once no replay log is being written (a game
    whose game-over was sent is on disk), or after LOGS_AT_ONCE seconds at most."""
    from quinze_cli.commands.serve import _logs_written
    from quinze_server.logs import writers

    limiter = writers()
    token = object()
    await limiter.acquire_on_behalf_of(token)  # a log being written
    done = trio.Event()

    async def second_signal() -> None:
        await _logs_written(30)
        done.set()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(second_signal)
        await trio.sleep(0.05)
        assert not done.is_set()  # waits while the write is on
        limiter.release_on_behalf_of(token)
        with trio.fail_after(5):
            await done.wait()
    await limiter.acquire_on_behalf_of(token)
    with trio.fail_after(5):
        await _logs_written(0.05)  # a write that never ends: waited for 0.05 s only
    limiter.release_on_behalf_of(token)
