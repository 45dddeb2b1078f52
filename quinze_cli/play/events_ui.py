"""Events in words for ``quinze play``, told by the narration modules of ``quinze replay``.

The wording of Le 14 and Le Quinze classique lives once, in :mod:`quinze_cli.narrate.quatorze`
and :mod:`quinze_cli.narrate.classique` (English). A seat receives an event as
:meth:`protocol.game.Event.for_seat` gives it: the public fields merged with its own private
fields; :func:`tell` splits the private fields back out (the keys named per kind) so the
narrators see ``(public, {seat: private}, who)`` exactly as for a logged event.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import Any

from quinze_cli.narrate import GAME_MODULES, generic
from quinze_cli.play.registry import TableState

__all__ = ["tell"]


def tell(game_id: str, state: TableState, event: Mapping[str, Any], private_keys: Mapping[str, Sequence[str]],
         you: str, kind: str | None = None) -> list[str]:
    """The event as the seat (or spectator) of ``state`` received it, in words.

    ``private_keys``: event kind -> the fields that are the seat's private part; ``you`` marks our
    own seat's name (``"(you)"``); ``kind`` overrides the event's kind. Never raises: data a
    narrator cannot read is told plainly (:func:`quinze_cli.narrate.generic`).
    """
    kind = kind or str(event.get("kind", "?"))
    keys = set(private_keys.get(kind, ()))
    public = {k: v for k, v in event.items() if k != "kind" and k not in keys}
    if kind == "substitute" and event.get("kind") not in (None, "substitute"):
        public["kind"] = event["kind"]
    mine = {k: v for k, v in event.items() if k in keys}
    private: dict[int, dict[str, Any]] = {state.seat: mine} if mine and state.seat is not None else {}

    def who(seat: Any) -> str:
        name = state.name(seat) if isinstance(seat, int) else f"#{seat}"
        return f"{name} {you}" if seat == state.seat and state.seat is not None else name

    name = GAME_MODULES.get(game_id)
    fn = importlib.import_module(f"quinze_cli.narrate.{name}").NARRATORS.get(kind) if name else None
    if fn is not None:
        try:
            return list(fn(public, private, who))
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            pass
    return generic(kind, public, private, who)
