"""Bench figures of the bot chain and of ``quinze match`` (wired into ``quinze bench``).

- :func:`chain_overhead`: the time per decision of the whole subprocess-bot chain (server ->
  TCP -> relay -> pipe -> bot program -> pipe -> relay -> TCP -> server, engine included), over
  games between two ``examples/bots/random_bot.py`` programs on an in-process server, divided
  by the time of the bare transport: one TCP echo round trip plus one pipe echo round trip of a
  message of the same size (an average ``action-request``). Target: ratio <= 2.
- :func:`match_throughput`: games per second of a match between ``examples/bots/random_bot.py``
  and ``examples/bots/greedy_bot.py`` at concurrency 2 (embedded server, log written).

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

from protocol.framing import encode_frame
from protocol.messages import GameOver, TableCreated
from quinze_cli.botproc import BotProcess
from quinze_cli.client import connect
from quinze_cli.matchrun import MatchConfig, MatchRunner, parse_bot_spec, validate_options
from quinze_cli.relay import SeatRelay

__all__ = ["CHAIN_TARGET_RATIO", "chain_overhead", "match_throughput", "run_match_bench"]

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "bots"
CHAIN_TARGET_RATIO = 2.0

_ECHO = "import sys\nfor line in sys.stdin.buffer:\n    sys.stdout.buffer.write(line)\n    sys.stdout.buffer.flush()\n"


class _Sizes:
    """Counts the bytes of action-requests seen by a relay (to size the echo messages)."""

    def __init__(self) -> None:
        self.total = 0
        self.count = 0


async def _chain(games: int, seed: int) -> dict[str, Any]:
    from server.app import run_server
    from server.config import ServerConfig

    bot_path = EXAMPLES / "random_bot.py"
    sizes = _Sizes()
    decisions = 0
    elapsed = 0.0
    async with trio.open_nursery() as nursery:
        port = await nursery.start(run_server, ServerConfig(host="127.0.0.1", port=0, log_dir=None))
        ctl = await connect("127.0.0.1", port, "bench", "player")
        bots = [BotProcess([sys.executable, str(bot_path)], name=f"random{i}") for i in range(2)]
        relays = []
        for i, bot in enumerate(bots):
            await bot.start(nursery)
            relays.append(SeatRelay(await connect("127.0.0.1", port, f"bench{i}", "bot"), bot))
        original = relays[0].bot.send

        async def counting_send(msg: dict[str, Any]) -> None:
            if msg.get("type") == "action-request":
                sizes.total += len(json.dumps(msg, separators=(",", ":")))
                sizes.count += 1
            await original(msg)

        relays[0].bot.send = counting_send  # type: ignore[method-assign]
        try:
            for g in range(games):
                await ctl.send({"type": "create-table", "game": "quinze", "options": {"players": 2},
                                "seed": seed + g, "games": 1, "move_time": 30.0})
                while not isinstance(created := await ctl.receive(), TableCreated):
                    pass
                table = created.table.table
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
    size = sizes.total // max(1, sizes.count)
    return {"games": games, "decisions": decisions, "seconds": elapsed, "request_bytes": size}


async def _tcp_echo(size: int, rounds: int) -> float:
    """Median seconds per round trip of one ``size``-byte frame over loopback TCP (trio both ends)."""

    async def echo(stream: trio.SocketStream) -> None:
        try:
            while data := await stream.receive_some(65536):
                await stream.send_all(data)
        except trio.BrokenResourceError:
            pass

    frame = encode_frame({"type": "event", "table": "t1", "event": {"kind": "x", "pad": "x" * max(0, size - 40)}})
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(functools.partial(trio.serve_tcp, echo, 0, host="127.0.0.1"))
        port = listeners[0].socket.getsockname()[1]
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        times = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            await stream.send_all(frame)
            got = 0
            while got < len(frame):
                got += len(await stream.receive_some(65536))
            times.append(time.perf_counter() - t0)
        seconds = statistics.median(times)
        await stream.aclose()
        nursery.cancel_scope.cancel()
    return seconds


async def _pipe_echo(size: int, rounds: int) -> float:
    """Median seconds per round trip of one ``size``-byte JSON line through a Python echo subprocess."""
    line = (json.dumps({"type": "action-request", "pad": "x" * max(0, size - 40)}) + "\n").encode()
    proc = await trio.lowlevel.open_process([sys.executable, "-c", _ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert proc.stdin is not None and proc.stdout is not None
        times = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            await proc.stdin.send_all(line)
            got = 0
            while got < len(line):
                got += len(await proc.stdout.receive_some(65536))
            times.append(time.perf_counter() - t0)
        return statistics.median(times)
    finally:
        await proc.stdin.aclose()  # type: ignore[union-attr]
        with trio.move_on_after(2):
            await proc.wait()
        if proc.poll() is None:
            proc.kill()


async def _probe(rounds: int, seed: int) -> dict[str, Any]:
    """Latency of one move through the chain alone: a minimal peer on loopback plays the server's
    part (welcome, joined, game-start, then ``rounds`` real action-requests of a Le Quinze game,
    each answered before the next) to a real Connection + SeatRelay + random_bot.py program.
    Returns the median seconds per round trip and the request's size in bytes."""
    from protocol.framing import FrameDecoder
    from protocol.game import get_game
    from protocol.messages import GameStart, Joined, Welcome, commitment

    game = get_game("quinze").new({"players": 2}, seed)
    seat = game.to_act
    request = {"type": "action-request", "table": "t1", "seat": seat, "view": game.view(seat),
               "legal": game.legal_data(), "deadline": 30.0}
    frames = [encode_frame({**request, "request": i}) for i in range(rounds)]
    timing: dict[str, float] = {}

    async def peer(stream: trio.SocketStream) -> None:
        dec = FrameDecoder()

        async def next_map() -> dict[str, Any]:
            while (data := dec.next_data()) is None:
                dec.feed(await stream.receive_some(65536))
            return data

        await next_map()  # hello
        await stream.send_all(encode_frame(Welcome(version=1, server="probe", heartbeat=60.0)))
        await next_map()  # join
        await stream.send_all(encode_frame(Joined(table="t1", seat=seat, token="x" * 16)))
        await stream.send_all(encode_frame(GameStart(table="t1", game="quinze", number=1, players=("a", "b"),
                                                     options=game.options, commitment=commitment(1, "s"), seat=seat)))
        times = []
        for i in range(rounds):
            t0 = time.perf_counter()
            await stream.send_all(frames[i])
            while (await next_map()).get("type") != "action":
                pass
            times.append(time.perf_counter() - t0)
        timing["seconds"] = statistics.median(times)
        await stream.aclose()

    bot = BotProcess([sys.executable, str(EXAMPLES / "random_bot.py")], name="probe")
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(functools.partial(trio.serve_tcp, peer, 0, host="127.0.0.1"))
        port = listeners[0].socket.getsockname()[1]
        await bot.start(nursery)
        relay = SeatRelay(await connect("127.0.0.1", port, "probe", "bot"), bot)
        await relay.join("t1", seat)
        try:
            await relay.play("t1", seat, games=1)
        except Exception:  # noqa: BLE001 - the peer hangs up after the last round: expected
            pass
        await bot.stop(grace=0.5, term_wait=0.5)
        nursery.cancel_scope.cancel()
    return {"seconds": timing["seconds"], "request_bytes": len(frames[0])}



async def _thin_relay(rounds: int, seed: int) -> float:
    """The floor: the same round trips as :func:`_probe` through the thinnest trio relay (two
    tasks, no checks, no state: frame -> JSON line -> random_bot.py -> JSON line -> frame).
    Returns the median seconds per round trip."""
    from protocol.framing import FrameDecoder
    from protocol.game import get_game

    game = get_game("quinze").new({"players": 2}, seed)
    seat = game.to_act
    request = {"type": "action-request", "table": "t1", "seat": seat, "view": game.view(seat),
               "legal": game.legal_data(), "deadline": 30.0}
    frames = [encode_frame({**request, "request": i}) for i in range(rounds)]
    times: list[float] = []
    finished = trio.Event()

    async def peer(stream: trio.SocketStream) -> None:
        dec = FrameDecoder()
        for frame in frames:
            t0 = time.perf_counter()
            await stream.send_all(frame)
            while dec.next_data() is None:
                dec.feed(await stream.receive_some(65536))
            times.append(time.perf_counter() - t0)
        finished.set()

    proc = await trio.lowlevel.open_process([sys.executable, str(EXAMPLES / "random_bot.py")],
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        async with trio.open_nursery() as nursery:
            listeners = await nursery.start(functools.partial(trio.serve_tcp, peer, 0, host="127.0.0.1"))
            sock = await trio.open_tcp_stream("127.0.0.1", listeners[0].socket.getsockname()[1])

            async def down() -> None:
                dec = FrameDecoder()
                while data := await sock.receive_some(65536):
                    dec.feed(data)
                    while (msg := dec.next_data()) is not None:
                        await proc.stdin.send_all((json.dumps(msg) + "\n").encode())  # type: ignore[union-attr]

            async def up() -> None:
                buf = b""
                while data := await proc.stdout.receive_some(65536):  # type: ignore[union-attr]
                    buf += data
                    while b"\n" in buf:
                        line, buf = buf.split(b"\n", 1)
                        await sock.send_all(encode_frame(json.loads(line)))

            nursery.start_soon(down)
            nursery.start_soon(up)
            await finished.wait()
            nursery.cancel_scope.cancel()
    finally:
        proc.kill()
        await proc.wait()
    return statistics.median(times)



def chain_overhead(*, games: int = 4, rounds: int = 2000, seed: int = 1) -> dict[str, Any]:
    """Per-move time of the subprocess-bot chain vs the bare transport (see the module).

    - ``move_us``: one move through the chain alone (a minimal server peer sends a real
      action-request and waits for the action: TCP, client parsing, relay, pipe, the bot's JSON,
      back), ``rounds`` times; medians, as the machine's load makes means noisy;
    - ``tcp_echo_us`` + ``pipe_echo_us``: the same bytes echoed over loopback TCP and through a
      pipe to an echo subprocess; ``ratio`` = ``move_us`` / their sum (target <= 2);
    - ``thin_relay_us``, ``thin_ratio``: the floor, the same round trips through the thinnest
      possible trio relay (:func:`_thin_relay`), to tell the relay's own cost from Python's;
    - ``game_us_per_decision``: wall time per decision of whole games between two programs on
      the real in-process server (engine, events to both seats and logs-free play included).
    """
    probe = trio.run(_probe, rounds, seed)
    size = probe["request_bytes"]
    tcp = trio.run(_tcp_echo, size, rounds)
    pipe = trio.run(_pipe_echo, size, rounds)
    thin = trio.run(_thin_relay, rounds, seed)
    chain = trio.run(_chain, games, seed)
    return {
        "rounds": rounds,
        "request_bytes": size,
        "move_us": round(probe["seconds"] * 1e6, 1),
        "tcp_echo_us": round(tcp * 1e6, 1),
        "pipe_echo_us": round(pipe * 1e6, 1),
        "ratio": round(probe["seconds"] / (tcp + pipe), 2),
        "target_ratio": CHAIN_TARGET_RATIO,
        "thin_relay_us": round(thin * 1e6, 1),
        "thin_ratio": round(thin / (tcp + pipe), 2),
        "games": chain["games"],
        "decisions": chain["decisions"],
        "game_us_per_decision": round(chain["seconds"] / max(1, chain["decisions"]) * 1e6, 1),
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
    ``quick`` shrinks the budgets to a smoke run of a few seconds."""
    return {
        "chain": chain_overhead(games=1 if quick else 6, rounds=300 if quick else 3000),
        "match": match_throughput(games=4 if quick else 20),
    }



def table_rows(figures: dict[str, Any]) -> list[tuple[str, str, str]]:
    """``(figure, value, target)`` rows of :func:`run_match_bench`'s result, for a rich table."""
    c, m = figures["chain"], figures["match"]
    return [
        (f"bot chain: one move, µs (median of {c['rounds']}, {c['request_bytes']}-byte request)", f"{c['move_us']}", ""),
        ("bare transport: TCP echo + pipe echo, µs", f"{c['tcp_echo_us']} + {c['pipe_echo_us']}", ""),
        ("bot chain / bare transport", f"{c['ratio']}x", f"<= {c['target_ratio']:g}x"),
        ("floor: thinnest trio relay, µs (its ratio)", f"{c['thin_relay_us']} ({c['thin_ratio']}x)", ""),
        (f"whole games, two programs: µs per decision ({c['decisions']} decisions)", f"{c['game_us_per_decision']}", ""),
        (f"quinze match, 2 example Python bots, concurrency {m['concurrency']}: games/s",
         f"{m['games_per_second']} ({m['decisions_per_second']} decisions/s)", ""),
    ]


if __name__ == "__main__":  # pragma: no cover - manual run
    print(json.dumps(run_match_bench(quick="--quick" in sys.argv), indent=2))
