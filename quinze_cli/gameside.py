"""The one plug-in point for a game's CLI side, keyed by game id.

A game lives in two halves. Its engine is in ``protocol/games/`` and describes itself on its class
(:class:`quinze_protocol.game.Game`: title, what ``Result.scores`` means and how a match aggregates
it, lower-is-better, the hint bot, the private fields of its events) and follows its own play with
an observer (:class:`quinze_protocol.observer.Observer`, the public picture a spectator can keep).
Everything ``quinze_cli`` needs beyond that is one :class:`GameSide`, registered here with
:func:`register_side`:

- ``ui``: the :class:`~quinze_cli.play.registry.GameUI` subclass of ``quinze play``: the board
  renderer (drawn from the observer's picture), the reader of typed actions, the actions in words
  and the game's help lines; the step-through viewer of ``quinze replay --step`` draws the same board;
- ``narrators`` and ``sections``: the events in words for ``quinze replay`` (event kind ->
  ``(public, private, who) -> [lines]``, see :mod:`quinze_cli.narrate`) and the kinds that open a
  new part of the game (a deal, a coup);
- ``localized``: the same narrators worded from a language catalogue, for ``quinze play`` (None:
  the English ``narrators`` serve there too);
- ``locale``: the namespace of the game's own strings in ``quinze_cli/locale/*.json``
  (``"quatorze"`` for ``quatorze.help.1`` ...);
- ``strings``: by language, strings of a game that are not in those files (a game registered from
  outside this package brings them here: ``{"en": {"toy.help.1": "..."}, "fr": {...}}``).

The match score column, the results caption and the preferred hint bot come from the game class;
the game ids in help texts from :func:`quinze_protocol.game.game_ids`. Nothing else in
``quinze_cli`` keeps a table by game id. A game registered with the engine but without a side, or
a side that lacks a piece, fails ``tests/test_gameside.py`` (which walks this registry); it is
never quietly drawn by a generic screen. Only a game this program does not know at all (a log or
a server from a newer version) gets the generic screen and plain narration.

The three games of this project are declared at the end of this module (:func:`_load`). Another
game (the toy game of the tests, a game of a plug-in) calls :func:`register_side` itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from quinze_cli.narrate import Narrator

if TYPE_CHECKING:
    from quinze_cli.i18n import Catalogue
    from quinze_cli.play.registry import GameUI

__all__ = ["GameSide", "find_side", "game_id_help", "get_side", "register_side", "side_ids", "side_strings",
           "unregister_side"]

@dataclass(frozen=True)
class GameSide:
    """Everything ``quinze_cli`` needs of one game beyond its engine (see the module docstring).

    Raises ``ValueError`` naming the piece when one is missing or of the wrong kind.
    """

    game: str
    ui: type[GameUI]
    narrators: Mapping[str, Narrator]
    sections: frozenset[str]
    locale: str
    localized: Callable[[Catalogue], Mapping[str, Narrator]] | None = field(default=None)
    strings: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        from quinze_cli.play.registry import GameUI

        if not self.game:
            raise ValueError("GameSide.game: a game id is needed")
        if not (isinstance(self.ui, type) and issubclass(self.ui, GameUI)) or self.ui is GameUI:
            raise ValueError(f"GameSide.ui of {self.game}: a subclass of GameUI is needed, got {self.ui!r}")
        if not self.narrators or not all(callable(f) for f in self.narrators.values()):
            raise ValueError(f"GameSide.narrators of {self.game}: event kind -> narrator function, none given")
        if not self.sections or not set(self.sections) <= set(self.narrators):
            raise ValueError(f"GameSide.sections of {self.game}: kinds with a narrator, got {sorted(self.sections)}")
        if not self.locale or "." in self.locale:
            raise ValueError(f"GameSide.locale of {self.game}: a namespace such as 'quinze', got {self.locale!r}")
        for lang, texts in self.strings.items():
            stray = [k for k in texts if not k.startswith(self.locale + ".") and k != f"game.title.{self.game}"]
            if stray:
                raise ValueError(f"GameSide.strings of {self.game} ({lang}): keys outside {self.locale}.*: {stray[:3]}")

    def narrators_for(self, cat: Any) -> Mapping[str, Narrator]:
        """The narrators worded from ``cat`` (``localized``), or the English ones (``cat`` None, or
        a game without localized narration)."""
        if cat is not None and self.localized is not None:
            return self.localized(cat)
        return self.narrators


_SIDES: dict[str, GameSide] = {}
_loaded = False


def register_side(side: GameSide) -> GameSide:
    """Make ``side`` the CLI side of ``side.game`` (replacing any earlier one); returns it."""
    _SIDES[side.game] = side
    return side


def unregister_side(game_id: str) -> None:
    """Forget the side of ``game_id`` (tests that register a game for their length only)."""
    _SIDES.pop(game_id, None)


def find_side(game_id: str) -> GameSide | None:
    """The side of ``game_id``, None for a game this program does not know."""
    _load()
    return _SIDES.get(game_id)


def get_side(game_id: str) -> GameSide:
    """The side of ``game_id``. Raises ``LookupError`` naming the game and the known ones."""
    side = find_side(game_id)
    if side is None:
        raise LookupError(f"no CLI side for game {game_id!r} (known: {', '.join(sorted(_SIDES))})")
    return side


def side_strings(lang: str) -> dict[str, str]:
    """The strings every registered side brings for ``lang`` (``GameSide.strings``), merged."""
    out: dict[str, str] = {}
    for side in _SIDES.values():
        out.update(side.strings.get(lang, {}))
    return out


def side_ids() -> list[str]:
    """Ids of every game with a side, sorted."""
    _load()
    return sorted(_SIDES)


def _load() -> None:
    """Register the sides of the three games of this project (once)."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    from quinze_cli.narrate import classique as narrate_classique
    from quinze_cli.narrate import quatorze as narrate_quatorze
    from quinze_cli.narrate import quinze as narrate_quinze
    from quinze_cli.play.render_classique import ClassiqueUI
    from quinze_cli.play.render_quatorze import QuatorzeUI
    from quinze_cli.play.render_quinze import QuinzeUI

    for side in (
        GameSide("quinze", QuinzeUI, narrate_quinze.NARRATORS, frozenset(narrate_quinze.SECTIONS), "quinze",
                 narrate_quinze.narrators),
        GameSide("quatorze", QuatorzeUI, narrate_quatorze.NARRATORS, frozenset(narrate_quatorze.SECTIONS), "quatorze",
                 narrate_quatorze.narrators),
        GameSide("quinze-classique", ClassiqueUI, narrate_classique.NARRATORS, frozenset(narrate_classique.SECTIONS),
                 "classique", narrate_classique.narrators),
    ):
        _SIDES.setdefault(side.game, side)


def game_id_help(default: str | None = None) -> str:
    """The help text of a ``--game`` option or argument, naming every registered game:
    ``"Game id: quatorze, quinze or quinze-classique (default quinze)."``"""
    from quinze_protocol.game import game_ids

    ids = game_ids()
    listed = ", ".join(ids[:-1]) + " or " + ids[-1] if len(ids) > 1 else "".join(ids)
    return f"Game id: {listed}" + (f" (default {default})." if default else ".")
