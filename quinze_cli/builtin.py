"""Built-in bots (``builtin:NAME``) behind the same interface as a bot program
(:class:`quinze_cli.botproc.BotProcess`), so the relay treats both alike.

The bot lives in process: on ``game-start`` it makes a blank game of that id and options only to
read action data (``Game.parse_action``; the bot never sees the game object, quinze_cli/rules/, "What each
player sees"); on each ``action-request`` it reads the legal entries, asks
``Bot.choose(view, legal)`` and answers ``{"type": "action", "table", "request", "action"}``; each
``event`` is passed to ``Bot.observe`` (the search bot keeps what its seat learnt).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

import trio

from quinze_protocol.game import Bot, Game, GameError, get_bot, get_game
from quinze_cli.botproc import BotExited

__all__ = ["BUILTIN_PREFIX", "BuiltinBot", "builtin_name", "builtin_problem"]

BUILTIN_PREFIX = "builtin:"


def builtin_name(spec: str) -> str | None:
    """``NAME`` for a built-in bot spec ``"builtin:NAME"``, None for anything else (a command line)."""
    return spec[len(BUILTIN_PREFIX):] if spec.startswith(BUILTIN_PREFIX) else None


def builtin_problem(game: str, name: str) -> str | None:
    """Why ``name`` is no built-in bot of ``game`` (the reason of
    :func:`quinze_protocol.game.get_bot`'s error: naming the known ones, or what is wrong with a
    budget such as ``mcts@0``), or None when it is one. Raises
    :class:`~quinze_protocol.game.GameError` ``unknown-game`` for an unknown ``game``."""
    get_game(game)  # an unknown game is the caller's error, not the bot's
    try:
        get_bot(game, name, 0)
    except GameError as err:
        return err.reason
    return None


class BuiltinBot:
    """A built-in bot ``name`` (``random``, ``greedy``, or any of ``quinze_protocol.game.bot_names(game)``),
    seeded with ``seed`` (the bot is made anew at each game, seeded from ``seed``, its seat and
    its first view: see :meth:`game_seed`, so a game is reproducible whatever came before).

    Same methods as :class:`~quinze_cli.botproc.BotProcess`: ``start``, ``send``, ``receive``,
    ``stop``; errors are reported as :class:`~quinze_cli.botproc.BotExited` (a bug in a built-in
    bot is a crash like any other).
    """

    def __init__(self, name: str, *, seed: int = 0) -> None:
        self.bot_name = name
        self.name = f"{BUILTIN_PREFIX}{name}"
        self.seed = seed
        self.wire = "builtin"
        self.stderr_path = None
        self._send, self._recv = trio.open_memory_channel[dict[str, Any]](16)
        self._bot: Bot | None = None
        self._parser: type[Game] | None = None
        self._game_id = ""
        self._seat: int | None = None
        self._events: list[dict[str, Any]] = []  # events before the bot exists (it is made at the first request)
        self._running = False
        self._error: BotExited | None = None

    @property
    def pid(self) -> None:
        return None

    @property
    def running(self) -> bool:
        return self._running

    @property
    def returncode(self) -> int | None:
        return None if self._running else 0

    async def start(self, nursery: trio.Nursery) -> None:
        self._running = True

    async def stop(self, **_: Any) -> int:
        self._running = False
        return 0

    def kill_now(self) -> None:
        self._running = False

    def stderr_tail(self, limit: int = 200) -> str:
        return ""

    async def send(self, msg: Mapping[str, Any]) -> None:
        """Take one message; an ``action-request`` makes an answer ready for :meth:`receive`."""
        kind = msg.get("type")
        try:
            if kind == "game-start":
                self._parser = get_game(msg["game"])  # parse_action is a class method: no game needed
                self._game_id = msg["game"]
                self._seat = msg.get("seat")
                self._bot = None
                self._events = []
            elif kind == "event":
                event = msg.get("event")
                if isinstance(event, Mapping):
                    if self._bot is None:
                        self._events.append(dict(event))
                    else:
                        self._bot.observe(event)
            elif kind == "action-request":
                if self._parser is None:
                    raise BotExited("an action-request before game-start")
                if self._bot is None:
                    self._bot = get_bot(self._game_id, self.bot_name, self.game_seed(msg["view"]))
                    for event in self._events:
                        self._bot.observe(event)
                    self._events = []
                legal = [self._parser.parse_action(entry) for entry in msg["legal"]]
                view = msg["view"] if self._bot.needs_view else {}
                if getattr(self._bot, "searches", False):
                    # a search takes long: in a worker thread, so that this process's event loop
                    # (the relay, an embedded server, other tables) keeps running meanwhile
                    choice = await trio.to_thread.run_sync(self._bot.choose, view, legal)
                else:
                    choice = self._bot.choose(view, legal)
                answer = {"type": "action", "table": msg.get("table"), "request": msg["request"], "action": choice.to_data()}
                self._send.send_nowait(answer)
        except GameError as err:
            self._fail(f"built-in bot {self.bot_name!r} failed: {err}")
        except (KeyError, TypeError, ValueError) as err:
            self._fail(f"built-in bot {self.bot_name!r} failed: {err.__class__.__name__}: {err}")

    async def send_many(self, msgs: list[dict[str, Any]]) -> None:
        """:meth:`send` each of ``msgs`` in order."""
        for msg in msgs:
            await self.send(msg)

    def game_seed(self, view: Mapping[str, Any]) -> int:
        """The bot's seed for one game: 64 bits of a SHA-256 of its own ``seed``, its seat and
        its first view of the game. The same deal gives the same choices (a match replayed with
        the same seed is the same match) and two deals give independent ones."""
        text = f"{self.seed}:{self._seat}:{json.dumps(view, sort_keys=True, separators=(',', ':'))}"
        return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")

    def _fail(self, reason: str) -> None:
        self._error = BotExited(reason, None)
        self._running = False
        self._send.close()

    async def receive(self) -> dict[str, Any]:
        try:
            return await self._recv.receive()
        except trio.EndOfChannel:
            raise self._error or BotExited("stopped") from None
