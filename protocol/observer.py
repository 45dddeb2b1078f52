"""Client-side game tracking: the public picture of a game, kept from the events a spectator sees.

A client (``quinze play``, the step-through viewer, a bot) receives events, not games. Each game's
:class:`Observer` (``Game.observer``, a class attribute of the game) applies those events to a
*picture*: a dict with the keys and values of the game's spectator view (``Game.view(None)``), so
that after the events of every action the picture equals that view (tests/test_observer.py checks
it with hypothesis on random games of every game). Renderers draw from the picture; none of them
needs the engine's internals.

- ``Observer(options)``: the picture before any event (``options`` as the game was made with,
  ``players`` included); then :meth:`Observer.apply` each event, opening events first.
- Events may be given as a spectator receives them (``Event.for_seat(None)``) or as a seat does
  (with its private fields): private fields are never read, so the picture stays public.
- :meth:`Observer.sync` replaces the picture by a view (a seat's view loses its own private keys):
  a client that joins mid-game, or gets a view with each action-request, starts again from it.
- :attr:`Observer.unknown`: the keys of the view that public events alone do not always settle
  (Le Quinze's ``phase`` after a draw: whether the drawer can make fifteen is the drawer's
  knowledge). Until a view settles them they are None in the picture; every other key is exact.
- Lenient: an event the picture cannot take (a client that joined mid-game, events of a newer
  game version) leaves what it cannot apply as it was; the next view corrects it. Never raises
  for event data.

Pure: no I/O; the same events give the same picture.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, ClassVar

__all__ = ["Observer"]


class Observer:
    """The public picture of one game (see the module docstring). Subclasses set ``game`` and
    write one ``on_<kind>`` method per event kind (``-`` read as ``_``: ``on_deal_end``)."""

    game: ClassVar[str] = ""
    """The game id, the picture's ``"game"``."""
    unknown: ClassVar[tuple[str, ...]] = ()
    """Keys of the spectator view that public events do not always settle (None until a view does)."""
    own_keys: ClassVar[tuple[str, ...]] = ("hand",)
    """Keys of a seat's view that are that seat's alone (dropped by :meth:`sync`)."""

    def __init__(self, options: Mapping[str, Any]) -> None:
        self.options = dict(options)
        self.players = int(self.options.get("players") or 0)
        self.picture: dict[str, Any] = {**self.blank(), "result": None}

    def blank(self) -> dict[str, Any]:
        """The picture before the opening events, every key of the spectator view but ``result``."""
        return {}

    def common(self) -> dict[str, Any]:
        """``{"game", "seat": None, "options"}``, the keys the views of this project's games share."""
        return {"game": self.game, "seat": None, "options": dict(self.options)}

    @classmethod
    def from_view(cls, view: Mapping[str, Any]) -> "Observer":
        """An observer started from ``view`` (a spectator's or a seat's; its ``options``)."""
        obs = cls(view.get("options") or {})
        obs.sync(view)
        return obs

    def public_part(self, view: Mapping[str, Any]) -> dict[str, Any]:
        """``view`` without what only its seat sees (:attr:`own_keys`), as a spectator would get it."""
        return {k: copy.deepcopy(v) for k, v in view.items() if k not in self.own_keys}

    def sync(self, view: Mapping[str, Any]) -> None:
        """Replace the picture by the public part of ``view``."""
        self.picture = self.public_part(view)
        if "seat" in self.picture:
            self.picture["seat"] = None
        if isinstance(view.get("options"), Mapping):
            self.options = dict(view["options"])
            self.players = int(self.options.get("players") or self.players)

    def apply(self, event: Mapping[str, Any]) -> None:
        """One event (``{"kind", ...}``) applied to the picture; unknown kinds change nothing."""
        handler = getattr(self, "on_" + str(event.get("kind", "")).replace("-", "_"), None)
        if handler is None:
            return
        saved = copy.deepcopy(self.__dict__)
        try:
            handler(event)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            self.__dict__.update(saved)  # data the picture cannot take: left as it was, the next view corrects it

    def on_game_end(self, e: Mapping[str, Any]) -> None:
        """The final event of every game: ``{"result", ...}`` (``Game.result``)."""
        p = self.picture
        p["result"] = copy.deepcopy(e["result"])
        if "to_act" in p:
            p["to_act"] = None
        if "phase" in p:
            p["phase"] = "over"
