"""A real server on loopback with built-in bots seated, for the ``quinze play`` tests.

Run as a program: ``python tests/play_host.py GAME SEED OPPONENTS [K=V ...]`` prints
``READY <port> <table>`` once the table exists (seat 0 free, bots in seats 1..) and serves until
killed. Uses the same :func:`quinze_cli.play.local.start_local` as ``quinze play --local``.
"""

from __future__ import annotations

import sys

import trio

from quinze_cli.play.local import start_local


async def main(argv: list[str]) -> None:
    game, seed, opponents = argv[0], int(argv[1]), argv[2].split(",")
    options = dict(a.split("=", 1) for a in argv[3:])
    from quinze_protocol.game import get_game

    raw = dict(options, players=str(1 + len(opponents)))
    opts = get_game(game).validate_options(raw)
    async with trio.open_nursery() as nursery:
        port, table = await start_local(nursery, game=game, options=opts, opponents=opponents, seed=seed)
        print(f"READY {port} {table}", flush=True)
        await trio.sleep_forever()


if __name__ == "__main__":
    try:
        trio.run(main, sys.argv[1:])
    except KeyboardInterrupt:
        pass
