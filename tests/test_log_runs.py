"""Logs that never mix and never swallow (PROTOCOL.md "Replay log", "Game over").

- a log file whose last record was cut gets a newline before the next game, and replay/verify
  name the cut record and read every game after it (older files, where the next game was glued
  onto the cut record, are read too);
- table ids and log file names are unique across runs of a server; replay shows the run;
- games running when the server stops end with an aborted ``game-over`` to every seat and
  spectator, are logged as aborted, and verify up to the abort; with many tables the shutdown
  closes every table and says ``bye`` to every client (its time goes in the report, not here).

Real servers (on in-memory streams for the logs of played games, on loopback for the shutdowns), real files, ``quinze replay`` as a subprocess.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import trio
from netclient import NetClient
from serverkit import TOY, autoplay, memory_serving, play_pair, seated_pair

from quinze_protocol import registry as game_registry
from quinze_protocol.game import register_game
from quinze_protocol.replaylog import dumps_records, game_records, read_log
from quinze_protocol.replaysim import verify
from quinze_server.app import run_server
from quinze_server.config import ServerConfig
from toygame import FirstToThree
import forkkit

QUINZE = str(Path(sys.executable).with_name("quinze"))
RUN_TABLE = re.compile(r"([a-z2-9]{4})-t(\d+)")


def replay(*args: str) -> subprocess.CompletedProcess[str]:
    return forkkit.run([QUINZE, "replay", *args], capture_output=True, text=True, timeout=120)


# --------------------------------------------------------------------------- cut records


async def test_a_cut_log_gets_a_newline_and_the_next_game_is_kept(tmp_path: Path) -> None:
    """Game 1 is on disk, its last record is then cut (a crash, a full disk); game 2 of the same
    table goes to the same file on a line of its own; verify names the cut line and verifies
    game 2 (before: glued onto the cut record, lost, and --verify said DIVERGES)."""
    async with memory_serving(log_dir=tmp_path) as port:
        a, b, table, _ = await seated_pair(port, "quinze", options={"target": 1}, games=2, seed=5)
        await play_pair(a, b, table)
        await a.expect("game-start", table=table)  # game 1 is written before game 2 starts
        path = tmp_path / f"{table}.jsonl"
        text = path.read_text(encoding="utf-8")
        path.write_text(text[:-30], encoding="utf-8")  # cut inside game 1's result record
        cut_line = text.count("\n")
        second = await play_pair_started(a, b, table)
        await a.expect("table-closed", table=table)
    text = path.read_text(encoding="utf-8")
    assert text.splitlines()[cut_line].startswith('{"record":"header"')  # game 2 on a line of its own
    found = read_log(text)
    assert [g.header["number"] for g in found.games] == [2] and verify(found.games[0]) is None
    assert found.games[0].actions == [{"seat": a["seat"], "action": a["action"]} for a in second["actions"]]
    (cut,) = found.partial
    assert cut.cut == cut_line and cut.header["number"] == 1
    proc = replay(str(path), "--verify")
    assert proc.returncode == 1, proc.stdout + proc.stderr  # game 2 verifies, but the log is cut: never "all verified"
    assert f"line {cut_line}: not JSON" in proc.stderr and "cut short" in proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith(f"game 1: CUT SHORT at line {cut_line}") and "verify" in lines[0]
    assert lines[1].startswith("game 2: verified (commitment ok") and "incomplete" not in lines[1]
    assert lines[-1] == "1/2 verified; 1 cut short (checked up to the cut)"  # only the whole game counts


async def play_pair_started(a: NetClient, b: NetClient, table: str) -> dict[str, Any]:
    """Both play the game already started at ``table`` (a saw its game-start); a's game-over."""
    out: dict[str, Any] = {}

    async def run(key: str, c: NetClient) -> None:
        out[key] = await autoplay(c, table)

    async with trio.open_nursery() as n:
        n.start_soon(run, "a", a)
        n.start_soon(run, "b", b)
    return out["a"]


def _records(seed: int) -> list[dict[str, Any]]:
    opts = {"target": 1}
    g = game_registry.get_game("quinze").new(opts, seed)
    actions = []
    while not g.is_over:
        seat = g.to_act
        data = g.legal_data()[0]
        g.apply(data)
        actions.append({"seat": seat, "action": data})
    return game_records("quinze", opts, seed, "s4lt", ["ana", "bob"], actions, number=seed, table="k7fq-t1",
                        started=0.0, ended=1.0, run="k7fq")


def test_a_game_glued_onto_a_cut_record_by_an_older_writer_is_read(tmp_path: Path) -> None:
    first, second, third = (dumps_records(_records(s)) for s in (1, 2, 3))
    cut = first[: first.rindex('{"record":"event"') + 40]  # game 1 cut inside its last event
    path = tmp_path / "old.jsonl"
    path.write_text(cut + second + third, encoding="utf-8")  # no newline after the cut: glued
    found = read_log(path.read_text(encoding="utf-8"))
    assert [g.header["seed"] for g in found.games] == [2, 3]
    assert all(verify(g) is None for g in found.games)
    (partial,) = found.partial
    glued_line = cut.count("\n") + 1
    assert partial.cut == glued_line and verify(partial) is None
    proc = replay(str(path), "--verify")
    assert proc.returncode == 1, proc.stdout + proc.stderr  # a cut log never passes as verified (issue 14)
    assert f"line {glued_line}: not JSON" in proc.stderr and "glued" in proc.stderr
    assert proc.stdout.splitlines()[-1] == "2/3 verified; 1 cut short (checked up to the cut)"


# --------------------------------------------------------------------------- runs


async def _one_game_run(log_dir: Path) -> str:
    async with memory_serving(log_dir=log_dir) as port:
        a, b, table, _ = await seated_pair(port, "quinze", options={"target": 1}, seed=7)
        await play_pair(a, b, table)
        await a.expect("table-closed", table=table)
        await a.aclose()
        await b.aclose()
    return table


async def test_two_server_runs_never_share_a_table_id_or_a_log_file(tmp_path: Path) -> None:
    first = await _one_game_run(tmp_path)
    second = await _one_game_run(tmp_path)
    m1, m2 = RUN_TABLE.fullmatch(first), RUN_TABLE.fullmatch(second)
    assert m1 and m2 and m1.group(2) == m2.group(2) == "1" and m1.group(1) != m2.group(1)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([f"{first}.jsonl", f"{second}.jsonl"])
    for table, m in ((first, m1), (second, m2)):
        found = read_log((tmp_path / f"{table}.jsonl").read_text(encoding="utf-8"))
        (g,) = found.games  # one game per file: runs never mix
        assert g.header["run"] == m.group(1) and g.header["table"] == table and g.header["number"] == 1
        told = replay(str(tmp_path / f"{table}.jsonl"))
        assert told.returncode == 0, told.stderr
        assert f"server run {m.group(1)}, table {table} game 1" in told.stdout


# --------------------------------------------------------------------------- aborted at shutdown


async def _stop_while(config: ServerConfig, body: Any) -> Any:
    """Run a server, ``await body(port, clients_nursery)`` then stop the server while the clients
    (run in ``clients_nursery``, which outlives the server) are still connected; the body's value."""
    game_registry.get_game("quinze")
    register_game(FirstToThree)
    try:
        async with trio.open_nursery() as clients:
            async with trio.open_nursery() as server:
                port = await server.start(run_server, config)
                value = await body(port, clients)
                server.cancel_scope.cancel()
        return value
    finally:
        game_registry._GAMES.pop(TOY, None)


async def test_a_running_game_is_aborted_told_and_logged_when_the_server_stops(tmp_path: Path) -> None:
    seen: dict[str, list[dict[str, Any]]] = {}

    async def body(port: int, clients: trio.Nursery) -> str:
        a, b, table, _ = await seated_pair(port, "quinze", seed=11)
        watcher = await NetClient.connect(port, "cy", "spectator")
        await watcher.request({"type": "spectate", "table": table}, "spectating")
        first = (a, b)[await _to_act(a, b, table)]
        req = first.pending
        await first.request({"type": "action", "table": table, "request": req["request"], "action": req["legal"][0]}, "accepted")
        await _to_act(a, b, table)  # the game runs: a seat is thinking

        async def until_closed(key: str, c: NetClient) -> None:
            seen[key] = await c.until_closed(10)

        for key, c in (("a", a), ("b", b), ("cy", watcher)):
            clients.start_soon(until_closed, key, c)
        await trio.sleep(0)
        return table

    table = await _stop_while(ServerConfig(host="127.0.0.1", port=0, log_dir=tmp_path), body)
    for key, msgs in seen.items():
        kinds = [m["type"] for m in msgs]
        assert "game-over" in kinds and "bye" in kinds and kinds.index("game-over") < kinds.index("bye"), (key, kinds)
        over = next(m for m in msgs if m["type"] == "game-over")
        assert over["result"]["reason"] == "aborted" and over["result"]["winners"] == [] and over["forfeit"] is None
        assert over["result"]["points"] == [0.0, 0.0] and len(over["actions"]) == 1
        assert next(m for m in msgs if m["type"] == "bye")["reason"] == "shutdown"
    found = read_log((tmp_path / f"{table}.jsonl").read_text(encoding="utf-8"))
    (g,) = found.games
    assert g.aborted == "shutdown" and len(g.actions) == 1 and verify(g) is None
    checked = replay(str(tmp_path / f"{table}.jsonl"), "--verify")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "aborted (shutdown), checked up to the abort" in checked.stdout
    assert checked.stdout.splitlines()[-1] == "1/1 verified; 1 aborted (checked up to the abort)"
    told = replay(str(tmp_path / f"{table}.jsonl"))
    assert "reason: aborted" in told.stdout and "Aborted (shutdown)" in told.stdout


async def _to_act(a: NetClient, b: NetClient, table: str) -> int:
    """0 when ``a`` receives the first action-request of the game, 1 when ``b`` does; the request
    is kept as ``pending`` on that client."""
    with trio.fail_after(10):
        while True:
            for i, c in enumerate((a, b)):
                with trio.move_on_after(0.05):
                    msg = await c.expect("action-request", table=table)
                    c.pending = msg
                    return i


async def test_a_tampered_aborted_result_diverges(tmp_path: Path) -> None:
    """An aborted game that claims a winner, or an abort after the game was over, diverges."""
    recs = _records(4)
    over = [dict(r) for r in recs]
    over[-1] = {**over[-1], "aborted": "shutdown", "result": {**over[-1]["result"]}}
    assert verify(read_log(dumps_records(over)).games[0]) is not None  # aborted after the end
    cut = recs[:-3] + [{"record": "result", "forfeit": None, "aborted": "shutdown", "ended": "x",
                        "result": {"points": [1.0, 0.0], "scores": [0.0, 0.0], "winners": [0], "reason": "aborted"}}]
    div = verify(read_log(dumps_records(cut)).games[0])
    assert div is not None and div.what in ("result", "event")


async def test_shutdown_with_many_tables_closes_every_table_and_tells_every_client(tmp_path: Path) -> None:
    """Thousands of waiting tables and a few running games: every running game is aborted and
    logged, every client gets its game-over then bye, and the server returns (the time this
    takes is measured outside the suite, with `quinze serve` and SIGINT, and never asserted)."""
    waiting, playing = 3000, 8
    seen: dict[int, list[dict[str, Any]]] = {}

    async def body(port: int, clients: trio.Nursery) -> list[str]:
        flood = await NetClient.connect(port, "flood")
        for _ in range(waiting // 100):  # in batches, reading the answers (a client that does not read is dropped)
            for _ in range(100):
                await flood.send({"type": "create-table", "game": "quinze", "options": {}, "games": 1})
            for _ in range(100):
                await flood.expect("table-created", timeout=60)
        tables = []
        pairs = []
        for i in range(playing):
            a, b, table, _ = await seated_pair(port, "quinze", names=(f"a{i}", f"b{i}"), seed=i)
            tables.append(table)
            pairs.extend([a, b])
        for c in pairs:
            await c.expect("game-start", timeout=30)

        async def until_closed(i: int, c: NetClient) -> None:
            seen[i] = await c.until_closed(30)

        for i, c in enumerate([flood, *pairs]):
            clients.start_soon(until_closed, i, c)
        await trio.sleep(0)
        return tables

    tables = await _stop_while(ServerConfig(host="127.0.0.1", port=0, log_dir=tmp_path, max_tables=10_000,
                                              max_tables_per_connection=10_000, cpu_share=1.0), body)
    assert len(seen) == 1 + 2 * playing
    for i, msgs in seen.items():
        kinds = [m["type"] for m in msgs]
        assert kinds[-1] == "bye" and msgs[-1]["reason"] == "shutdown", (i, kinds[-3:])
        if i > 0:
            assert kinds.count("game-over") == 1
            assert next(m for m in msgs if m["type"] == "game-over")["result"]["reason"] == "aborted"
    for table in tables:
        (g,) = read_log((tmp_path / f"{table}.jsonl").read_text(encoding="utf-8")).games
        assert g.aborted == "shutdown" and verify(g) is None
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"{t}.jsonl" for t in tables)
