"""Events built fast: the engines make a few per decision, and a frozen dataclass's ``__init__``
(one ``object.__setattr__`` per field) is a large part of that cost.

:func:`event` gives the same value as ``Event(kind, public, private)``
(:class:`quinze_protocol.game.Event`), built through its slots.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from quinze_protocol.game import Event

__all__ = ["event"]

_new_event = Event.__new__
_set_kind = Event.__dict__["kind"].__set__  # the slot descriptors, which the frozen __setattr__ refuses
_set_public = Event.__dict__["public"].__set__
_set_private = Event.__dict__["private"].__set__


def event(kind: str, public: dict[str, Any], private: Mapping[int, Mapping[str, Any]] | None = None) -> Event:
    """``Event(kind, public, private or {})``, equal to it, without the dataclass's ``__init__``."""
    e = _new_event(Event)
    _set_kind(e, kind)
    _set_public(e, public)
    _set_private(e, {} if private is None else private)
    return e
