"""Every game a shutdown aborts is on disk, or the server says which are not (docs/server.md).

- more running games than trio's default pool of 40 worker threads, stopped with no time left
  for the ``bye`` (``shutdown_grace`` 0): every aborted game is logged and verifies (before, the
  logs waiting for one of those threads were dropped at the byes' deadline: 40 of 60 on disk);
- no time for the logs at all (``shutdown_log_time`` 0): the tables are named to ``on_stopped``;
- ``quinze serve`` whose aborted game cannot be written (its log path is a folder) exits 1
  naming the table;
- a log file is never created empty (it appears with its first game in it).

Real servers on loopback, real clients, real files; nothing asserts a duration.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import trio
from netclient import NetClient
from serverkit import seated_pair
from test_serve_shutdown import _port

from quinze_protocol.replaylog import read_log
from quinze_protocol.replaysim import verify
from quinze_server.app import run_server
from quinze_server.config import ServerConfig
from quinze_server.logs import append_fsync

QUINZE = str(Path(sys.executable).with_name("quinze"))


async def _stop_running(config: ServerConfig, tables: int) -> tuple[list[str], list[str] | None]:
    """Start ``tables`` games of two seats each (every game running), stop the server; the table
    ids and what ``on_stopped`` was given."""
    stopped: list[list[str]] = []
    ids: list[str] = []
    clients: list[NetClient] = []
    async with trio.open_nursery() as server:
        port = await server.start(lambda task_status: run_server(config, task_status=task_status,
                                                                    on_stopped=stopped.append))
        for i in range(tables):
            a, b, table, _ = await seated_pair(port, "quinze", names=(f"a{i}", f"b{i}"), seed=i)
            ids.append(table)
            clients += [a, b]
        for c in clients:
            await c.expect("game-start", timeout=60)
        server.cancel_scope.cancel()
    for c in clients:
        await c.aclose()
    return ids, stopped[0] if stopped else None


async def test_more_aborted_games_than_worker_threads_are_all_logged(tmp_path: Path) -> None:
    config = ServerConfig(host="127.0.0.1", port=0, log_dir=tmp_path, shutdown_grace=0.0, cpu_share=1.0)
    tables, unlogged = await _stop_running(config, 50)
    assert unlogged == []
    for table in tables:
        (g,) = read_log((tmp_path / f"{table}.jsonl").read_text(encoding="utf-8")).games
        assert g.aborted == "shutdown" and verify(g) is None
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"{t}.jsonl" for t in tables)


async def test_aborted_games_left_unlogged_are_named(tmp_path: Path) -> None:
    config = ServerConfig(host="127.0.0.1", port=0, log_dir=tmp_path, shutdown_grace=0.0, shutdown_log_time=0.0)
    tables, unlogged = await _stop_running(config, 3)
    assert unlogged is not None and sorted(unlogged) == sorted(tables)
    assert list(tmp_path.iterdir()) == []  # nothing begun, nothing half made


async def test_serve_exits_1_naming_a_table_whose_aborted_game_cannot_be_logged(tmp_path: Path) -> None:
    proc = await trio.lowlevel.open_process(
        [QUINZE, "serve", "--port", "0", "--no-announce", "--log-dir", str(tmp_path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        port = await _port(proc)
        a, b, table, _ = await seated_pair(port, "quinze", seed=3)
        for c in (a, b):
            await c.expect("game-start", timeout=60)
        (tmp_path / f"{table}.jsonl").mkdir()  # the log cannot be written there
        proc.send_signal(signal.SIGTERM)
        with trio.fail_after(60):
            code = await proc.wait()
        assert proc.stderr is not None
        err = (await proc.stderr.receive_some(1 << 20)).decode()
        assert code == 1, err
        assert "1 of the 1 aborted games could not be logged" in err and table in err
        assert "aborted games of 1 table(s) are not in the logs" in " ".join(err.split())
        await a.aclose()
        await b.aclose()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


def test_a_new_log_appears_with_its_first_game_and_no_part_file_is_left(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "k7fq-t1.jsonl"
    assert append_fsync(path, '{"record":"header"}\n') is False
    assert path.read_text() == '{"record":"header"}\n'
    assert append_fsync(path, '{"record":"header"}\n') is False  # appended to the existing file
    assert path.read_text().count("\n") == 2
    assert sorted(p.name for p in path.parent.iterdir()) == ["k7fq-t1.jsonl"]
