"""``quinze play --local``: an embedded server on loopback and built-in bots in process.

The server is the real one (:func:`quinze_server.app.run_server` on ``127.0.0.1``, port 0). The bots
are real clients over loopback, exactly as in ``quinze match``: a
:class:`~quinze_cli.relay.SeatRelay` per bot seat driving a
:class:`~quinze_cli.builtin.BuiltinBot`. The person takes seat 0 through the ordinary client
path, so ``--local`` tests the same code as a game over the LAN.

Each finished game (or forfeited one) is appended by the server to the replay log
``<log_dir>/<table>.jsonl`` (``--log-dir``, ``./logs`` by default; ``--no-log`` for none), so the
commitment shown at the end (seed and salt) can be checked with ``quinze replay --verify``;
:func:`logged_games` finds the games of this run for the closing line.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import trio

from quinze_protocol.game import bot_names, get_bot, get_game
from quinze_cli.builtin import BUILTIN_PREFIX, BuiltinBot, builtin_name
from quinze_cli.client import ClientError, Connection, RequestRefused, connect
from quinze_cli.relay import SeatRelay

__all__ = ["DEFAULT_LOG_DIR", "LocalError", "default_opponents", "logged_games", "parse_opponents",
           "start_local"]

HOST = "127.0.0.1"
DEFAULT_LOG_DIR = "logs"
"""``--log-dir`` of ``quinze play --local``: ``./logs``, relative to the current directory."""


LEVELS = {"easy": "mcts-easy", "normal": "mcts", "hard": "mcts-hard"}
"""``--level`` of ``quinze play --local``: which search bot (quinze_protocol.search.bots.LEVELS gives
their iteration budgets) plays in the default opponents, and replaces ``mcts`` in ``--opponents``."""


def default_opponents(game: str, count: int | None = None, level: str = "normal") -> str:
    """The ``--opponents`` used when none are given: the search bot at ``level``
    (:data:`LEVELS`: ``builtin:mcts`` for ``normal``) and the game's best other built-in bot
    (its ``Game.hint_bot``, else its first bot that is not ``random``), e.g.
    ``"builtin:mcts,builtin:greedy"`` for ``quinze``, ``"builtin:mcts-hard,builtin:threshold"``
    for ``quinze-classique`` at ``hard``; with ``count`` (from ``--option players=N``: N - 1
    opponents) the two taken in turn, ``count`` bots in all. Raises
    :class:`quinze_protocol.game.UnknownGame` for an unknown game, KeyError for an unknown level."""
    names = bot_names(game)
    search = LEVELS[level]
    others = [n for n in names if n != "random" and not n.startswith("mcts")]
    hint = get_game(game).hint_bot
    best = hint if hint in names else others[0] if others else None
    chosen = [n for n in (search, best if best is not None else "random") if n in names]
    if count is not None:
        chosen = [chosen[i % len(chosen)] for i in range(count)]
    return ",".join(BUILTIN_PREFIX + n for n in chosen)


def apply_level(names: Sequence[str], level: str) -> list[str]:
    """``names`` with each plain ``mcts`` (no level, no budget) replaced by the search bot of
    ``level`` (:data:`LEVELS`)."""
    return [LEVELS[level] if n == "mcts" else n for n in names]


class LocalError(Exception):
    """The local game cannot be set up (bad opponent, bad option); ``str()`` says which and why."""


def parse_opponents(game: str, spec: str) -> list[str]:
    """``"builtin:greedy,builtin:random"`` (or ``"greedy,random"``) as bot names, each checked with
    :func:`quinze_protocol.game.get_bot`. Raises :class:`LocalError` naming the opponent."""
    names = []
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        name = builtin_name(part) or part
        try:
            get_bot(game, name, 0)
        except Exception as err:  # noqa: BLE001 - UnknownGame and friends, reported in one line
            raise LocalError(f"--opponents: {part!r}: {getattr(err, 'reason', err)}") from None
        names.append(name)
    if not names:
        raise LocalError("--opponents: at least one opponent is needed (e.g. builtin:greedy)")
    return names


async def _bot_seat(port: int, table: str, seat: int, name: str, seed: int) -> None:
    conn = await connect(HOST, port, f"{name}-{seat}"[:32], "bot")
    async with conn:
        relay = SeatRelay(conn, BuiltinBot(name, seed=seed + seat))
        await relay.join(table, seat)
        try:
            await relay.play(table, seat, games=None)
        except Exception:  # noqa: BLE001 - the bot seat ends with the table or the server
            return


async def _keep_creator(conn: Connection) -> None:
    """Keep the connection that created the local table open (its pings answered) while the
    server runs: a table whose creator is gone closes as soon as no seat is held (PROTOCOL.md
    "Timeouts and limits"), and the bots take their seats after it was created."""
    async with conn:
        while True:
            try:
                await conn.receive()
            except ClientError:
                return


async def start_local(
    nursery: trio.Nursery,
    *,
    game: str,
    options: Mapping[str, Any],
    opponents: Sequence[str],
    seed: int | None = None,
    games: int = 1,
    move_time: float | None = None,
    log_dir: Any = None,
    clock: Mapping[str, Any] | None = None,
) -> tuple[int, str]:
    """Start the server and the bot seats in ``nursery``; returns ``(port, table)``.
    ``log_dir`` (a path, None for no log): where the server appends the replay logs. ``clock``: the
    table's clock (PROTOCOL.md "Clocks"; None: per move, ``move_time`` or the server's 60 s). The
    embedded server runs only built-in bots, so a table without a clock is allowed.

    The table has ``1 + len(opponents)`` seats: seat 0 is left free for the person, the bots
    take seats 1.. in order. Raises :class:`LocalError` when the server refuses the table
    (unknown game, bad option: the server's reason).
    """
    from quinze_server.app import run_server
    from quinze_server.config import ServerConfig

    config = ServerConfig(host=HOST, port=0, log_dir=log_dir, builtin_bots=True)
    if move_time is not None:
        config = dataclasses.replace(config, move_time=move_time)
    port = await nursery.start(run_server, config)
    opts = dict(options)
    opts["players"] = 1 + len(opponents)
    conn = await connect(HOST, port, "local", "player")
    try:
        info = await conn.create_table(game, opts, seed=seed, games=games,
                                       clock=dict(clock) if clock is not None else None)
    except RequestRefused as err:
        await conn.aclose()
        raise LocalError(f"the local server refused the table: {err.reason} [{err.code}]") from None
    except BaseException:
        await conn.aclose()
        raise
    table = info.table
    nursery.start_soon(_keep_creator, conn)
    base = seed if seed is not None else 0
    for i, name in enumerate(opponents, 1):
        nursery.start_soon(_bot_seat, port, table, i, name, base)
    return port, table


def count_logged(path: Any) -> int:
    """How many games (complete or cut short) the replay log at ``path`` holds; 0 when missing
    or unreadable (never raises)."""
    from pathlib import Path

    from quinze_protocol.replaylog import iter_log

    try:
        with Path(path).open("rb") as source:  # a game at a time: the log of every local game so far may be long
            return sum(1 for _ in iter_log(source, []))
    except (OSError, ValueError):
        return 0


async def logged_games(path: Any, before: int, wait: float = 2.0) -> int:
    """The number of games in the log at ``path`` once it holds more than ``before`` (the count
    at start: the server appends in a worker thread, so it is polled up to ``wait`` seconds);
    ``before`` when no game of this run was logged."""
    with trio.move_on_after(wait):
        while True:
            n = count_logged(path)
            if n > before:
                return n
            await trio.sleep(0.05)
    return before
