"""Games that start from a position: ``create-table.position`` through the real server (in-memory streams), the commitment that
covers it, the replay log that holds it, and ``--positions`` of ``quinze match`` and
``quinze tournament`` (real processes, real files)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import trio
from netclient import NetClient
from serverkit import memory_serving, seated_pair

from quinze_protocol.game import get_game
from quinze_protocol.messages import commitment
from quinze_protocol.replaylog import game_records, read_log, start_game
from quinze_protocol.replaysim import verify
import forkkit

PY = sys.executable
QUINZE = str(Path(PY).parent / "quinze")


def position(seed: int, **options) -> dict:
    return get_game("quinze").new({"players": 2, "target": 30, **options}, seed).to_position()


def quinze(*args, cwd, timeout=120):
    return forkkit.run([QUINZE, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)


async def test_a_table_created_from_a_position_plays_it_and_commits_to_it() -> None:
    pos = position(3)
    async with memory_serving() as port:
        a, b, table, _ = await seated_pair(port, game="quinze", seed=77, position=pos)
        starts: dict[int, dict] = {}
        overs: list[dict] = []

        async def seat(client: NetClient, n: int) -> None:
            while True:
                msg = await client.recv(10.0)
                if msg.get("table") != table:
                    continue
                if msg["type"] == "game-start":
                    starts[n] = msg
                elif msg["type"] == "action-request":
                    await client.send({"type": "action", "table": table, "request": msg["request"],
                                       "action": msg["legal"][0]})
                elif msg["type"] == "game-over":
                    overs.append(msg)
                    return

        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(seat, a, 0)
                nursery.start_soon(seat, b, 1)
        over = overs[0]
        assert over["seed"] == 77 and starts[0]["options"] == get_game("quinze").from_position(pos).options
        assert starts[0]["commitment"] == commitment(77, over["salt"], pos) != commitment(77, over["salt"])
        # The game is the position's, the rest drawn from the seed: the engine replays it.
        game = start_game("quinze", starts[0]["options"], 77, pos)
        assert game.hands == get_game("quinze").from_position(pos).hands
        records = game_records("quinze", starts[0]["options"], 77, over["salt"], ["ana", "bob"], over["actions"],
                               started=0, ended=0, result=over["result"], position=pos)
        logged = read_log([json.dumps(r) for r in records]).games[0]
        assert logged.header["position"] == pos and verify(logged) is None
        other = json.loads(json.dumps(records))
        other[0]["position"] = position(4)
        assert verify(read_log([json.dumps(r) for r in other]).games[0]).what == "commitment"

        c = await NetClient.connect(port, "cy")
        await c.send({"type": "create-table", "game": "quinze", "position": {**pos, "hands": [["ZZ"], ["2S"]]}})
        err = await c.recv()
        assert err["code"] == "bad-option" and err["reason"].startswith("create-table.position.hands")
        await c.send({"type": "create-table", "game": "quinze", "options": {"players": 3}, "position": pos})
        err = await c.recv()
        assert err["code"] == "bad-option" and "not the position's options" in err["reason"]
        for x in (a, b, c):
            await x.aclose()


def test_match_and_tournament_play_each_position_once_per_rotation(tmp_path):
    (tmp_path / "pos.jsonl").write_text("# two openings\n" + "\n".join(json.dumps(position(s)) for s in (1, 2)) + "\n")
    done = quinze("match", "builtin:greedy", "builtin:random", "--positions", "pos.jsonl", "--seed", "5",
                  "--json", "m.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "m.json").read_text())
    assert data["played"] == 4 and data["duplicate"] and data["elo"]["units"] == 2
    games = read_log((tmp_path / data["log"]).read_text()).games
    assert [g.header["position"] == position(1 + i // 2) for i, g in enumerate(games)] == [True] * 4
    assert [tuple(g.header["players"]) for g in games] == [("greedy", "random"), ("random", "greedy")] * 2
    assert all(verify(g) is None for g in games)

    done = quinze("tournament", "builtin:greedy", "builtin:random", "name=r5 cmd=builtin:random seed=5",
                  "--positions", "pos.jsonl", "--rounds", "2", "--json", "t.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    t = json.loads((tmp_path / "t.json").read_text())
    assert t["games"] == 12 and t["positions"]
    games = read_log((tmp_path / t["log"]).read_text()).games
    assert {json.dumps(g.header["position"], sort_keys=True) for g in games} == \
        {json.dumps(position(s), sort_keys=True) for s in (1, 2)}

    (tmp_path / "bad.jsonl").write_text(json.dumps(position(1)) + "\n{not json\n")
    bad = quinze("match", "builtin:greedy", "builtin:random", "--positions", "bad.jsonl", cwd=tmp_path)
    assert bad.returncode == 1 and "bad.jsonl line 2: not JSON" in bad.stderr
    assert "JSON Lines" not in bad.stderr  # the file as a whole is not JSON either: no hint

    # One position spread over several lines, as examples/positions/*.json: valid JSON, not one per line.
    (tmp_path / "spread.json").write_text(json.dumps(position(1), indent=2) + "\n")
    spread = quinze("match", "builtin:greedy", "builtin:random", "--positions", "spread.json", cwd=tmp_path)
    assert spread.returncode == 1 and "spread.json line 1: not JSON" in spread.stderr
    assert "this file must hold one position per line (JSON Lines)" in spread.stderr


def test_a_position_number_beyond_64_bits_is_refused_by_legal_and_before_any_game(tmp_path):
    pos = position(1)
    pos["totals"][0] = 10**30  # a JSON integer the wire cannot carry
    (tmp_path / "big.jsonl").write_text(json.dumps(position(2)) + "\n" + json.dumps(pos) + "\n")
    (tmp_path / "big.json").write_text(json.dumps(pos))
    legal = quinze("legal", "big.json", cwd=tmp_path)
    assert legal.returncode != 0 and "totals[0]: must be a 64-bit whole number" in legal.stderr
    bad = quinze("match", "builtin:greedy", "builtin:random", "--positions", "big.jsonl", "--log-dir", "logs",
                 cwd=tmp_path)
    assert bad.returncode == 1 and "big.jsonl line 2: totals[0]: must be a 64-bit whole number" in bad.stderr
    assert "stopped after" not in bad.stderr and not (tmp_path / "logs").exists()
