"""The load bench's generator (quinze_cli.bench.load_client) reads the server's frames without
decoding what it does not need, and still answers as a client that decodes everything would:
the same action frames, byte for byte, over real sockets, however the reads cut the frames."""

from __future__ import annotations

import asyncio
import socket

import msgpack

from quinze_cli.bench.load_client import Client, Run, Size, answer, frame_of
from quinze_protocol.game import get_game
from quinze_protocol.rng import Rng

_pack = msgpack.Packer(use_bin_type=True).pack


def _requests(games: int = 3, seed: int = 11) -> list[dict]:
    """``action-request`` messages of real Le Quinze games (random play), the fields in the
    server's order, tables and request numbers of several encoded sizes."""
    out = []
    rng = Rng(seed)
    for g in range(games):
        game = get_game("quinze").new({"players": 2}, seed=seed + g)
        table = ["t1", "8vzx-t2", "a-table-name-longer-than-thirty-one-bytes"][g % 3]
        n = 0
        while not game.is_over and n < 150:
            seat, legal = game.to_act, game.legal_data()
            out.append({"type": "action-request", "table": table, "request": [7, 1190, 70_000, 2**33][n % 4],
                        "seat": seat, "view": game.view(seat), "legal": legal, "deadline": 60.0, "number": 1,
                        "clock": {"kind": "move", "left": [60.0, None], "move": 60.0}})
            game.apply(type(game).parse_action(legal[rng.below(len(legal))]))
            n += 1
    return out


def _decoded_answer(m: dict, rng: Rng) -> bytes:
    """What a client decoding the whole request answers (the generator before it went lean)."""
    legal = m["legal"]
    return frame_of({"type": "action", "table": m["table"], "request": m["request"], "action": legal[rng.below(len(legal))]})


def test_the_answer_is_the_frame_a_decoding_client_sends() -> None:
    requests = _requests()
    assert len(requests) > 100
    mine, theirs = Rng(5), Rng(5)
    for m in requests:
        body = _pack(m)
        padded = b"xx" + body + b"yy"  # read in place, at an offset of a larger buffer
        frame, legal = answer(bytearray(padded), 2, 2 + len(body), mine)
        assert frame == _decoded_answer(m, theirs)
        assert legal == len(m["legal"])
        # The fields in another order (another server's encoder): the same answer.
        other = {"type": m["type"], "legal": m["legal"], "view": m["view"], "request": m["request"], "table": m["table"]}
        a, b = Rng(9), Rng(9)
        assert answer(_pack(other), 0, len(_pack(other)), a)[0] == _decoded_answer(m, b)


def test_frames_cut_anywhere_are_read_whole_over_a_real_socket() -> None:
    requests = _requests(games=1)[:40]
    big = {"type": "event", "table": "t1", "event": {"kind": "place", "pad": "x" * 200_000}, "number": 1}
    stream = []
    for i, m in enumerate(requests):
        stream += [{"type": "event", "table": m["table"], "event": {"kind": "place", "seat": 0}, "number": 1},
                   {"type": "accepted", "table": m["table"], "request": i, "number": 1}, m]
        if i % 10 == 3:
            stream += [{"type": "ping", "nonce": i}, big]
    wire = b"".join(frame_of(m) for m in stream)

    async def main() -> tuple[Run, bytes]:
        run = Run(Size(1, 2), seed=3)
        run.measuring = True
        ours, theirs = socket.socketpair()
        theirs.setblocking(False)
        loop = asyncio.get_running_loop()
        _, client = await loop.create_connection(lambda: Client(run, "p0"), sock=ours)
        client.playing = True
        got = bytearray()
        pos, step = 0, 0
        sizes = (1, 3, 7, 700, 5, 65_536, 2)
        while pos < len(wire):  # pieces of many sizes, each given time to be read on its own
            n = sizes[step % len(sizes)]
            await loop.sock_sendall(theirs, wire[pos : pos + n])
            pos, step = pos + n, step + 1
            await asyncio.sleep(0)
            while True:
                try:
                    got += theirs.recv(65_536)
                except BlockingIOError:
                    break
        for _ in range(100):
            await asyncio.sleep(0.01)
            try:
                got += theirs.recv(65_536)
            except BlockingIOError:
                pass
        client.transport.close()
        theirs.close()
        return run, bytes(got)

    run, got = asyncio.run(main())
    rng = Rng(3)  # the run's own generator: its draws are the answers' picks
    expected = bytearray()
    for m in stream:
        if m["type"] == "action-request":
            expected += _decoded_answer(m, rng)
        elif m["type"] == "ping":
            expected += frame_of({"type": "pong", "nonce": m["nonce"]})
    assert got == bytes(expected)
    assert run.error_count == 0, run.errors
    assert run.actions == len(requests) and run.pings == 4
    assert run.wire["request"][0] == len(requests) and run.wire["other"][0] == len(requests) + 4
    assert run.wire["other"][1] == sum(len(frame_of(m)) for m in stream if m["type"] == "event")
