"""Events built fast: the engines make a few per decision.

:func:`event` gives the same value as ``Event(kind, public, private)``
(:class:`quinze_protocol.game.Event`, a named tuple), built by ``tuple.__new__`` without the
named tuple's Python-level ``__new__``. Engines may also build ``_tnew(Event, (kind, public,
private))`` themselves in their hottest paths (the same value).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from quinze_protocol.game import Event

__all__ = ["event"]

_tnew = tuple.__new__
_EMPTY: Mapping[int, Mapping[str, Any]] = Event._field_defaults["private"]


def event(kind: str, public: dict[str, Any], private: Mapping[int, Mapping[str, Any]] | None = None) -> Event:
    """``Event(kind, public, private)``, equal to it (without ``private``: the shared empty default)."""
    return _tnew(Event, (kind, public, _EMPTY if private is None else private))
