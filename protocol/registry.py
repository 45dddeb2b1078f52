"""The registry of games and built-in bots: what ``@register_game``, ``@register_bot`` and
``register_budgeted_bot`` record, and the look-ups by id and name (docs/games.md, "The files a
fourth game touches"). :mod:`quinze_protocol.game` names every function here too, where game
modules and callers import them from."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from quinze_protocol.game_errors import GameError, UnknownGame

if TYPE_CHECKING:
    from quinze_protocol.game import Bot, Game

__all__ = ["bot_names", "game_ids", "get_bot", "get_game", "is_bot_name", "register_bot", "register_budgeted_bot",
           "register_game"]

_GAMES: dict[str, type[Game]] = {}
_BOTS: dict[str, dict[str, Callable[[int], Bot]]] = {}


def register_game(cls: type[Game]) -> type[Game]:
    """Class decorator: make ``cls`` findable by ``cls.id``."""
    _GAMES[cls.id] = cls
    return cls


_BUDGETED: dict[str, dict[str, Callable[[str, int], Bot]]] = {}


def register_bot(game_id: str, name: str) -> Callable[[Callable[[int], Bot]], Callable[[int], Bot]]:
    """Decorator: register a bot factory ``factory(seed) -> Bot`` as ``name`` for ``game_id``."""

    def deco(factory: Callable[[int], Bot]) -> Callable[[int], Bot]:
        _BOTS.setdefault(game_id, {})[name] = factory
        return factory

    return deco


def register_budgeted_bot(game_id: str, name: str, factory: Callable[[str, int], Bot]) -> None:
    """Register ``name@ARG`` for ``game_id``: ``factory(arg, seed) -> Bot``, where ``arg`` is the
    text after ``@`` (e.g. ``mcts@400``, ``mcts@0.1s``); the factory raises GameError for a bad one."""
    _BUDGETED.setdefault(game_id, {})[name] = factory


_LOADED = False
"""True once :mod:`quinze_protocol.games` is imported (an import statement run again still costs
about 4,000 instructions: ``get_bot`` asks at every game of a self-play run)."""


def _load() -> None:
    global _LOADED
    if not _LOADED:
        import quinze_protocol.games  # noqa: F401  (registers the games and their bots)

        _LOADED = True


def get_game(game_id: str) -> type[Game]:
    """The game class registered as ``game_id``. Raises :class:`UnknownGame`."""
    _load()
    try:
        return _GAMES[game_id]
    except KeyError:
        raise UnknownGame(f"no game {game_id!r} (known: {', '.join(sorted(_GAMES))})", field="game") from None


def game_ids() -> list[str]:
    """Ids of every registered game, sorted."""
    _load()
    return sorted(_GAMES)


def get_bot(game_id: str, name: str, seed: int = 0) -> Bot:
    """A new built-in bot ``name`` for ``game_id``, seeded. Raises :class:`UnknownGame`
    (code ``unknown-bot`` when the game exists but not the bot)."""
    get_game(game_id)
    base, at, arg = name.partition("@")
    if at and base in _BUDGETED.get(game_id, {}):
        return _BUDGETED[game_id][base](arg, seed)
    try:
        factory = _BOTS[game_id][name]
    except KeyError:
        known = ", ".join(bot_names(game_id))
        raise UnknownGame(f"no built-in bot {name!r} for {game_id} (known: {known})", code="unknown-bot", field="bot") from None
    return factory(seed)


def bot_names(game_id: str) -> list[str]:
    """Names of the built-in bots for ``game_id`` (budgeted ones as ``NAME@N``)."""
    get_game(game_id)
    return sorted(_BOTS.get(game_id, {})) + sorted(f"{b}@N" for b in _BUDGETED.get(game_id, {}))


def is_bot_name(game_id: str, name: str) -> bool:
    """True when :func:`get_bot` makes a bot of ``name`` for ``game_id`` (a registered name, or
    ``NAME@ARG`` of a budgeted one with a readable ``ARG``)."""
    try:
        get_bot(game_id, name, 0)
    except GameError:
        return False
    return True
