"""Bench figures of the bot chain and of ``quinze match`` (wired into ``quinze bench``).

- :func:`chain_overhead`: the time of one move through the subprocess-bot chain (server ->
  TCP -> client -> relay -> pipe -> ``examples/bots/random_bot.py`` -> pipe -> relay -> TCP ->
  server) divided by the time of the bare transport (one TCP echo plus one pipe echo round trip
  of the same request); target: ratio <= 2. Also the floor (the thinnest trio relay) and the
  time per decision of whole games on the real server.
- :func:`match_throughput`: games per second of a match between ``examples/bots/random_bot.py``
  and ``examples/bots/greedy_bot.py`` at concurrency 2 (embedded server, log written).
- ``tournament``: the scheduling and statistics cost of ``quinze tournament`` per game as a share
  of a built-in game (:mod:`quinze_cli.bench.tournament`; target <= 1%).

Every figure is measured on this machine, in seconds or per second, and never asserted.
Both functions are synchronous (each runs its own ``trio.run``).
"""

from __future__ import annotations

import functools
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trio

from quinze_protocol.framing import FrameDecoder, encode_frame
from quinze_protocol.messages import GameOver, GameStart, Joined, Welcome, commitment
from quinze_cli.botproc import BotProcess
from quinze_cli.client import connect
from quinze_cli.matchrun import MatchConfig, MatchRunner, parse_bot_spec, validate_options
from quinze_cli.relay import SeatRelay

__all__ = ["CHAIN_TARGET_RATIO", "chain_overhead", "match_throughput", "run_match_bench"]

EXAMPLES = Path(__file__).resolve().with_name("bots")
"""The example bots ``random_bot.py`` and ``greedy_bot.py``, shipped in the package (links to
``examples/bots/`` in the source tree) so an installed ``quinze bench`` finds them."""
CHAIN_TARGET_RATIO = 2.0

_ECHO = "import sys\nfor line in sys.stdin.buffer:\n    sys.stdout.buffer.write(line)\n    sys.stdout.buffer.flush()\n"


async def _games(games: int, seed: int) -> dict[str, Any]:
    """Whole games between two random_bot.py programs on the real in-process server: the
    seconds spent and the number of decisions."""
    from quinze_server.app import run_server
    from quinze_server.config import ServerConfig

    decisions = 0
    elapsed = 0.0
    async with trio.open_nursery() as nursery:
        port = await nursery.start(run_server, ServerConfig(host="127.0.0.1", port=0, log_dir=None))
        ctl = await connect("127.0.0.1", port, "bench", "player")
        bots = [BotProcess([sys.executable, str(EXAMPLES / "random_bot.py")], name=f"random{i}") for i in range(2)]
        relays = []
        try:
            for i, bot in enumerate(bots):
                await bot.start(nursery)
                relays.append(SeatRelay(await connect("127.0.0.1", port, f"bench{i}", "bot"), bot))
            for g in range(games):
                table = (await ctl.create_table("quinze", {"players": 2}, seed=seed + g, games=1, move_time=30.0)).table
                results: list[Any] = [None, None]

                async def seat(i: int) -> None:
                    await relays[i].join(table, i)
                    results[i] = (await relays[i].play(table, i))[0]

                t0 = time.perf_counter()
                async with trio.open_nursery() as inner:
                    for i in range(2):
                        inner.start_soon(seat, i)
                elapsed += time.perf_counter() - t0
                over: GameOver = results[0].game_over
                decisions += len(over.actions)
        finally:
            for bot in bots:
                await bot.stop(grace=0.5, term_wait=0.5)
            for relay in relays:
                await relay.conn.aclose()
            await ctl.aclose()
            nursery.cancel_scope.cancel()
    return {"games": games, "decisions": decisions, "seconds": elapsed}


class _Peer:
    """The server's end of a measured chain: accepts one connection (``handshake`` plays the
    server's part of hello/join/game-start when set), then :meth:`ask` sends a request frame and
    times the answer (the next ``action`` map)."""

    def __init__(self, handshake: Any = None) -> None:
        self.handshake = handshake
        self.stream: trio.SocketStream | None = None
        self.decoder = FrameDecoder()
        self.ready = trio.Event()
        self.stop = trio.Event()

    async def next_map(self) -> dict[str, Any]:
        assert self.stream is not None
        while (data := self.decoder.next_data()) is None:
            self.decoder.feed(await self.stream.receive_some(65536))
        return data

    async def serve(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        if self.handshake is not None:
            await self.handshake(self)
        self.ready.set()
        await self.stop.wait()

    async def ask(self, frame: bytes) -> float:
        assert self.stream is not None
        t0 = time.perf_counter()
        await self.stream.send_all(frame)
        while (await self.next_map()).get("type") != "action":
            pass
        return time.perf_counter() - t0


async def _listen(nursery: trio.Nursery, peer: _Peer) -> int:
    listeners = await nursery.start(functools.partial(trio.serve_tcp, peer.serve, 0, host="127.0.0.1"))
    return listeners[0].socket.getsockname()[1]


async def _round_trips(rounds: int, seed: int, chunk: int) -> dict[str, Any]:
    """Median seconds of one round trip through: our chain (Connection + SeatRelay +
    random_bot.py), the thinnest trio relay to the same program, a TCP echo and a pipe echo, of
    the same real Le Quinze action-request. The four alternate in chunks of ``chunk`` rounds so
    they meet the same machine load."""
    from quinze_protocol.game import get_game

    game = get_game("quinze").new({"players": 2}, seed)
    seat = game.to_act
    assert seat is not None, "a new game has a seat to act"
    request = {"type": "action-request", "table": "t1", "seat": seat, "view": game.view(seat),
               "legal": game.legal_data(), "deadline": 30.0}
    frames = [encode_frame({**request, "request": i}) for i in range(rounds)]
    line = json.dumps(request).encode() + b"\n"
    times: dict[str, list[float]] = {"chain": [], "thin": [], "tcp": [], "pipe": []}

    async def handshake(peer: _Peer) -> None:
        assert peer.stream is not None
        await peer.next_map()  # hello
        await peer.stream.send_all(encode_frame(Welcome(version=1, server="bench", heartbeat=600.0)))
        await peer.next_map()  # join
        await peer.stream.send_all(encode_frame(Joined(table="t1", seat=seat, token="bench-token")))
        await peer.stream.send_all(encode_frame(GameStart(table="t1", game="quinze", number=1, players=("a", "b"),
                                                          options=game.options, commitment=commitment(1, "s"),
                                                          seat=seat)))

    async def echo(stream: trio.SocketStream) -> None:
        try:
            while data := await stream.receive_some(65536):
                await stream.send_all(data)
        except trio.BrokenResourceError:
            pass

    procs: list[Any] = []
    async with trio.open_nursery() as nursery:
        try:
            # Our chain.
            ours = _Peer(handshake)
            port = await _listen(nursery, ours)
            bot = BotProcess([sys.executable, str(EXAMPLES / "random_bot.py")], name="bench")
            await bot.start(nursery)
            procs.append(bot)
            relay = SeatRelay(await connect("127.0.0.1", port, "bench", "bot"), bot)
            await relay.join("t1", seat)
            nursery.start_soon(relay.play, "t1", seat)
            await ours.ready.wait()
            # The thinnest relay: frame -> JSON line -> program -> JSON line -> frame.
            thin = _Peer()
            port = await _listen(nursery, thin)
            proc = await trio.lowlevel.open_process([sys.executable, str(EXAMPLES / "random_bot.py")],
                                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            procs.append(proc)
            proc_in, proc_out = proc.stdin, proc.stdout
            assert proc_in is not None and proc_out is not None, "opened with both pipes"
            sock = await trio.open_tcp_stream("127.0.0.1", port)

            async def down() -> None:
                dec = FrameDecoder()
                while data := await sock.receive_some(65536):
                    dec.feed(data)
                    while (msg := dec.next_data()) is not None:
                        await proc_in.send_all((json.dumps(msg) + "\n").encode())

            async def up() -> None:
                buf = b""
                while data := await proc_out.receive_some(65536):
                    buf += data
                    while b"\n" in buf:
                        one, buf = buf.split(b"\n", 1)
                        await sock.send_all(encode_frame(json.loads(one)))

            nursery.start_soon(down)
            nursery.start_soon(up)
            await thin.ready.wait()
            # The bare transport: a TCP echo and a pipe echo of the same bytes.
            listeners = await nursery.start(functools.partial(trio.serve_tcp, echo, 0, host="127.0.0.1"))
            tcp = await trio.open_tcp_stream("127.0.0.1", listeners[0].socket.getsockname()[1])
            cat = await trio.lowlevel.open_process([sys.executable, "-c", _ECHO],
                                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            procs.append(cat)
            cat_in, cat_out = cat.stdin, cat.stdout
            assert cat_in is not None and cat_out is not None, "opened with both pipes"

            async def bounce(send: Any, receive: Any, data: bytes) -> float:
                t0 = time.perf_counter()
                await send(data)
                got = 0
                while got < len(data):
                    got += len(await receive(65536))
                return time.perf_counter() - t0

            for start in range(0, rounds, chunk):
                span = frames[start:start + chunk]
                times["chain"] += [await ours.ask(f) for f in span]
                times["thin"] += [await thin.ask(f) for f in span]
                times["tcp"] += [await bounce(tcp.send_all, tcp.receive_some, frames[0]) for _ in span]
                times["pipe"] += [await bounce(cat_in.send_all, cat_out.receive_some, line) for _ in span]
        finally:
            with trio.CancelScope(shield=True):
                for p in procs:
                    if isinstance(p, BotProcess):
                        await p.stop(grace=0.2, term_wait=0.5)
                    else:
                        p.kill()
                        await p.wait()
            nursery.cancel_scope.cancel()
    out: dict[str, Any] = {name: statistics.median(values) for name, values in times.items()}
    out["request_bytes"] = len(frames[0])
    return out


def chain_overhead(*, games: int = 4, rounds: int = 2000, seed: int = 1, chunk: int = 100) -> dict[str, Any]:
    """Per-move time of the subprocess-bot chain vs the bare transport, in µs (medians).

    - ``move_us``: one move through the chain alone: a minimal server peer sends a real Le Quinze
      action-request and waits for the action (TCP, client, relay, pipe, random_bot.py's JSON,
      and back), ``rounds`` times;
    - ``tcp_echo_us`` + ``pipe_echo_us``: the same bytes echoed over loopback TCP and through a
      pipe to an echo subprocess; ``ratio`` = ``move_us`` / their sum (target <= 2; ``met``
      says whether it is reached);
    - ``thin_relay_us``, ``thin_ratio``: the floor, the same round trips through the thinnest
      possible trio relay (two tasks, no checks, no state), to tell the relay's own cost from
      Python's and trio's;
    - ``game_us_per_decision``: wall time per decision of ``games`` whole games between two
      programs on the real in-process server (engine and events to both seats included).

    The four round trips alternate in chunks of ``chunk`` so they meet the same machine load.
    """
    trips = trio.run(_round_trips, rounds, seed, chunk)
    played = trio.run(_games, games, seed)
    bare = trips["tcp"] + trips["pipe"]
    return {
        "rounds": rounds,
        "request_bytes": trips["request_bytes"],
        "move_us": round(trips["chain"] * 1e6, 1),
        "tcp_echo_us": round(trips["tcp"] * 1e6, 1),
        "pipe_echo_us": round(trips["pipe"] * 1e6, 1),
        "ratio": round(trips["chain"] / bare, 2),
        "target_ratio": CHAIN_TARGET_RATIO,
        "met": round(trips["chain"] / bare, 2) <= CHAIN_TARGET_RATIO,
        "thin_relay_us": round(trips["thin"] * 1e6, 1),
        "thin_ratio": round(trips["thin"] / bare, 2),
        "games": played["games"],
        "decisions": played["decisions"],
        "game_us_per_decision": round(played["seconds"] / max(1, played["decisions"]) * 1e6, 1),
    }


def match_throughput(*, games: int = 20, concurrency: int = 2, seed: int = 1) -> dict[str, Any]:
    """Games per second of a match between the two example Python bots (embedded server,
    ``concurrency`` games at a time, log written to a temporary directory).

    Returns ``{"games", "concurrency", "seconds", "games_per_second", "decisions_per_second"}``.
    """
    specs = [parse_bot_spec(f"{sys.executable} {EXAMPLES / 'random_bot.py'}", "quinze"),
             parse_bot_spec(f"{sys.executable} {EXAMPLES / 'greedy_bot.py'}", "quinze")]
    with tempfile.TemporaryDirectory(prefix="quinze-bench-") as tmp:
        config = MatchConfig(game="quinze", bots=specs, games=games, seed=seed,
                             options=validate_options("quinze", {}, None, 2), log_dir=Path(tmp),
                             concurrency=concurrency, move_time=30.0)
        decisions = 0

        async def on_game(report: Any) -> None:
            nonlocal decisions
            decisions += len(report.game_over.actions)

        runner = MatchRunner(config, on_game=on_game)
        t0 = time.perf_counter()
        trio.run(runner.run)
        seconds = time.perf_counter() - t0
    return {
        "games": runner.stats.games,
        "concurrency": concurrency,
        "seconds": round(seconds, 3),
        "games_per_second": round(runner.stats.games / seconds, 2),
        "decisions_per_second": round(decisions / seconds, 1),
    }


def run_match_bench(*, quick: bool = False) -> dict[str, Any]:
    """Both figures: ``{"chain": chain_overhead(...), "match": match_throughput(...)}``;
    ``quick`` shrinks the budgets to a smoke run of a few seconds (100 round trips, one whole
    game for the chain, two match games, one sample game for the tournament: rough figures, as
    ``--quick`` says)."""
    from quinze_cli.bench.tournament import tournament_overhead

    return {
        "chain": chain_overhead(games=1 if quick else 6, rounds=100 if quick else 3000, chunk=50 if quick else 100),
        "match": match_throughput(games=2 if quick else 20),
        "tournament": tournament_overhead(games=200 if quick else 2000, sample_games=1 if quick else 10),
    }



def table_rows(figures: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """``(figure, value, target, met)`` rows of :func:`run_match_bench`'s result, for a rich table
    (``met``: ``"yes"``/``"no"``, empty without a target)."""
    c, m = figures["chain"], figures["match"]
    met = c.get("met", c["ratio"] <= c["target_ratio"])
    rows = [
        (f"bot chain: one move, µs (median of {c['rounds']}, {c['request_bytes']}-byte request)", f"{c['move_us']}", "", ""),
        ("bare transport: TCP echo + pipe echo, µs", f"{c['tcp_echo_us']} + {c['pipe_echo_us']}", "", ""),
        ("bot chain / bare transport", f"{c['ratio']}x", f"<= {c['target_ratio']:g}x", "yes" if met else "no"),
        ("floor: thinnest trio relay, µs (its ratio)", f"{c['thin_relay_us']} ({c['thin_ratio']}x)", "", ""),
        (f"whole games, two programs: µs per decision ({c['decisions']} decisions)", f"{c['game_us_per_decision']}", "", ""),
        (f"quinze match, 2 example Python bots, concurrency {m['concurrency']}: games/s",
         f"{m['games_per_second']} ({m['decisions_per_second']} decisions/s)", "", ""),
    ]
    t = figures.get("tournament")
    if t:
        rows += [
            (f"tournament: scheduling + stats per game, {t['bots']} bots, {t['games']} games, ms "
             f"(a built-in game: {t['game_ms']} ms)", f"{t['overhead_ms']} ({t['share']:.2%})",
             f"<= {t['target_share']:.0%}", "yes" if t["met"] else "no"),
            ("tournament: journal line per game (fsynced), ms", f"{t['journal_ms']} ({t['journal_share']:.2%})", "", ""),
        ]
    return rows


if __name__ == "__main__":  # pragma: no cover - manual run
    print(json.dumps(run_match_bench(quick="--quick" in sys.argv), indent=2))
