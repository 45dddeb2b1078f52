"""Served-game figures (issue 16): what 2-player Le Quinze costs the server per action, in
instructions (valgrind's callgrind; wall time is meaningless on a shared machine), and a
fingerprint of everything the games show, to check that a change of speed changed nothing else.

Figures are printed, never asserted (not a test module: pytest does not collect it).

    .venv/bin/python tests/served_figures.py fingerprint [--plain]
    .venv/bin/python tests/served_figures.py parts [--plain]
    .venv/bin/python tests/served_figures.py server [--tree DIR] [--windows 3] [--window 1500]

``fingerprint``: SHA-256, per set of options, over seeded random games (300 of 2 players, 30 of 3
with ``quick_place``, 20 of 5, 10 of 8 with ``quick_place``): at every decision the encoded view of
the seat to act (and every fifth decision the public one and the next seat's), each listed action's
encoded entry, every event's encoding for the public and for each seat, then the result and the
last position. Encoded as the server encodes them: the game's own encodings (``Game.packed_view``,
``packed_entry``, ``packed_event``), or with ``--plain`` msgpack of ``view()``, ``to_data()`` and
``for_seat()``; both must print the same digests, and the same as before a change.

``parts``: the game work on the server's path, per action, under ``callgrind`` (this script runs
itself under valgrind), over 10 live games played one action each in turn
(:mod:`quinze_cli.bench.load_engine`'s round robin, seed 1): the legal list and its kept entries
(``quinze_server.wire.entries``), the encoded view of the seat to act, ``apply`` of a random listed
action (unchecked: Le Quinze lists only legal actions), the encoded events (both forms of a private
one, as the server sends them). 2,000 actions are played uncounted, then 3,000 in which one part
only runs inside ``sys.call_tracing`` (``--toggle-collect=_PyEval_CallTracing``); ``whole``: the
loop of all of them, (6,000 actions - 2,000) / 4,000. ``--plain``: the view and events encoded by
msgpack from ``view()`` and ``for_seat()``, and each new legal entry from ``to_data()``, then
decoded to check it (the server's path before the twelfth round, on the same engine).

``server``: the real server (the load bench's ``load_server.py``, of ``--tree``: a checkout, by
default this one) under ``valgrind --tool=callgrind`` with the pacing of a quiet machine (the
reactor's slice, round and writes 1 s, the heartbeat and the young collections' period 3,600 s: under
valgrind every action would otherwise be a round of trio's scheduler), driven by the load bench's
generator (``quinze_cli.bench.load_client``: 50 tables, 100 players answering with random listed
actions, no idle connections) for 40 actions per table, then ``--windows`` windows of about
``--window`` actions, every player holding its answer at both ends of each (``Run.pause``:
``callgrind_control --zero`` at the start, ``--dump`` at the end). Prints each window's
instructions per action (the server's whole process: the game, the server's Python, msgpack, the
kernel calls' user side).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import hashlib
import importlib
import json
import os
import re
import runpy
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = [({"players": 2}, 300), ({"players": 3, "quick_place": True}, 30), ({"players": 5}, 20),
           ({"players": 8, "quick_place": True}, 10)]
PARTS = ("whole2000", "whole6000", "legal", "view", "apply", "events", "empty")


def fingerprint(plain: bool) -> dict[str, str]:
    from quinze_protocol.game import get_game
    from quinze_protocol.rng import Rng
    from quinze_server.wire import pack, pack_data

    cls = get_game("quinze")

    def view(g: Any, seat: int | None) -> bytes:
        return pack_data(g.view(seat)) if plain else g.packed_view(seat)

    def entry(a: Any) -> bytes:
        return pack(a.to_data()) if plain else cls.packed_entry(a)

    def event(e: Any, seat: int | None) -> bytes:
        return (None if plain else cls.packed_event(e, seat)) or pack_data(e.for_seat(seat))

    out = {}
    for opts, n in CONFIGS:
        h = hashlib.sha256()
        for i in range(n):
            g = cls.new(opts, 5000 + i)
            rng = Rng(77 + i)
            seats = range(g.n)
            events = g.opening_events
            k = 0
            while True:
                for e in events:
                    h.update(event(e, None))
                    for s in seats:
                        h.update(event(e, s))
                if g.is_over:
                    break
                seat = g.to_act
                legal = g.legal_actions()
                h.update(view(g, seat))
                if k % 5 == 0:
                    h.update(view(g, None))
                    h.update(view(g, (seat + 1) % g.n))
                for a in legal:
                    h.update(entry(a))
                a = legal[rng.below(len(legal))]
                events = g.apply(cls.parse_action(a.to_data()) if k % 3 == 0 else a)
                k += 1
            h.update(pack(g.result().to_data()))
            h.update(pack(g.to_position()))
        out[json.dumps(opts)] = h.hexdigest()
    return out


def _part(part: str, plain: bool) -> None:
    """One run of ``parts`` (inside valgrind): ``part`` counted."""
    from quinze_cli.bench.load_engine import RoundRobin, _new
    from quinze_server.wire import entries, pack_data

    if plain:  # the server's path before the game's own encodings: to_data() encoded, then checked
        from quinze_protocol.game import Game, get_game

        get_game("quinze").packed_entry = Game.packed_entry
    rr = RoundRobin(10, 1)
    games, rng, seed = rr.games, rr.rng, rr.seed
    ct = sys.call_tracing

    def legal(game: Any) -> list[Any]:
        listed = game.legal_actions()
        entries(type(game), listed)
        return listed

    def view(game: Any, seat: int) -> bytes:
        return pack_data(game.view(seat)) if plain else game.packed_view(seat)

    def apply(game: Any, action: Any) -> list[Any]:
        return game.apply(action, checked=False)

    def events(game: Any, evs: list[Any], seat: int) -> None:
        pk = (lambda e, s: None) if plain else game.packed_event
        for ev in evs:
            if not ev.private:
                pk(ev, None) or pack_data({"kind": ev.kind, **ev.public})
            else:
                pk(ev, None) or pack_data(ev.for_seat(None))
                pk(ev, seat) or pack_data(ev.for_seat(seat))

    def noop() -> None:
        pass

    def play(total: int, counted: str | None) -> None:
        done = 0
        while done < total:
            for i in range(10):
                game = games[i]
                if game.is_over:
                    rr.made += 1
                    games[i] = game = _new(seed * 100_003 + rr.made)
                seat = game.to_act
                listed = ct(legal, (game,)) if counted == "legal" else legal(game)
                ct(view, (game, seat)) if counted == "view" else view(game, seat)
                action = listed[rng.below(len(listed))]
                evs = ct(apply, (game, action)) if counted == "apply" else apply(game, action)
                ct(events, (game, evs, seat)) if counted == "events" else events(game, evs, seat)
                if counted == "empty":
                    ct(noop, ())
                done += 1

    if part.startswith("whole"):
        ct(play, (int(part[5:]), None))
        return
    play(2000, None)
    play(3000, part)


def parts(plain: bool) -> dict[str, int]:
    got = {}
    with tempfile.TemporaryDirectory() as tmp:
        for part in PARTS:
            out = subprocess.run(
                ["valgrind", "--tool=callgrind", "--toggle-collect=_PyEval_CallTracing", f"--callgrind-out-file={tmp}/cg.out",
                 sys.executable, __file__, "_part", part] + (["--plain"] if plain else []),
                capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"}, check=True)
            m = re.search(r"Collected : (\d+)", out.stderr)
            assert m, out.stderr[-2000:]
            got[part] = int(m.group(1))
    per = {p: got[p] // 3000 for p in PARTS if not p.startswith("whole")}
    per["whole"] = (got["whole6000"] - got["whole2000"]) // 4000
    return per


def _paced_server(script: str, argv: list[str]) -> None:
    """The load bench's server (``script``) with the pacing of a quiet machine (see above)."""
    ns = runpy.run_path(script, run_name="load_server_paced")
    g = ns["main"].__globals__
    pkg = g["_server_package"]()
    g["_server_package"] = lambda: pkg
    reactor = importlib.import_module(pkg + ".reactor")
    reactor.SLICE = reactor.ROUND = 1.0
    reactor.Reactor.__init__.__defaults__ = (1.0,)
    if "flush" in (reactor.Reactor.__init__.__kwdefaults__ or {}):  # the replies written at each round's end
        reactor.Reactor.__init__.__kwdefaults__["flush"] = 1.0
    importlib.import_module(pkg + ".connection").SLICE = 1.0
    collector = importlib.import_module(pkg + ".collector")
    if hasattr(collector, "young_collections"):
        collector.young_collections.__defaults__ = (3600.0,)
    config = importlib.import_module(pkg + ".config")
    config.ServerConfig = functools.partial(config.ServerConfig, heartbeat=3600.0)
    g["main"](argv)


def server(tree: Path, windows: int, window: int) -> list[tuple[int, int]]:
    from quinze_cli.bench import load_client as lc

    tables = 50
    tmp = tempfile.mkdtemp()

    class Paced(lc.ServerProcess):
        async def __aenter__(self) -> "Paced":
            script = str(Path(lc.__file__).with_name("load_server.py"))
            args = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/cg.%p", sys.executable, __file__,
                    "_paced", script]
            env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}
            self.proc = await asyncio.create_subprocess_exec(*args, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                                                             stderr=asyncio.subprocess.DEVNULL, cwd=str(tree), env=env)
            assert self.proc.stdout is not None
            self.port = int(await asyncio.wait_for(self.proc.stdout.readline(), 600))
            return self

    async def quiet(run: Any) -> None:
        run.pause()
        while len(run.held) < tables:
            await asyncio.sleep(0.2)
        await asyncio.sleep(0.5)

    async def main() -> list[tuple[int, int]]:
        lc.raise_fd_limit(1000)
        run = lc.Run(lc.Size(tables, 2 * tables), seed=8)
        run.measuring = True
        counts = []
        async with Paced(tree, False) as srv:
            assert srv.proc is not None
            pid = str(srv.proc.pid)
            players = await lc.connect(srv, run, [f"p{i}" for i in range(2 * tables)])
            await asyncio.gather(*(lc.seat(players[2 * i], players[2 * i + 1]) for i in range(tables)))
            while run.actions < 40 * tables:
                await asyncio.sleep(0.2)
            for w in range(windows):
                await quiet(run)
                subprocess.run(["callgrind_control", "--zero", pid], capture_output=True, check=True)
                start = run.actions
                run.resume()
                while run.actions < start + window:
                    await asyncio.sleep(0.1)
                await quiet(run)
                subprocess.run(["callgrind_control", "--dump", pid], capture_output=True, check=True)
                dump = Path(f"{tmp}/cg.{pid}.{w + 1}").read_text()
                m = re.search(r"^summary: (\d+)", dump, re.M)
                assert m
                counts.append((int(m.group(1)), run.actions - start))
                run.resume()
            assert run.error_count == 0, run.errors
            await quiet(run)
        return counts

    return asyncio.run(main())


if __name__ == "__main__":
    if sys.argv[1] == "_part":
        _part(sys.argv[2], "--plain" in sys.argv)
        sys.exit()
    if sys.argv[1] == "_paced":
        _paced_server(sys.argv[2], sys.argv[3:])
        sys.exit()
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["fingerprint", "parts", "server"])
    ap.add_argument("--plain", action="store_true")
    ap.add_argument("--tree", type=Path, default=ROOT)
    ap.add_argument("--windows", type=int, default=3)
    ap.add_argument("--window", type=int, default=1500)
    a = ap.parse_args()
    if a.what == "fingerprint":
        for k, v in fingerprint(a.plain).items():
            print(k, v)
    elif a.what == "parts":
        for k, v in parts(a.plain).items():
            print(f"{k:8} {v:>9,}")
    else:
        rows = server(a.tree.resolve(), a.windows, a.window)
        for instr, actions in rows:
            print(f"{instr:>13,} instructions / {actions:,} actions = {instr // actions:,} per action")
        print(f"mean {sum(i for i, _ in rows) // sum(n for _, n in rows):,} per action")
