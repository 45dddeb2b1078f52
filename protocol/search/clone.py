"""Cloning a game for search: the ONE place the search copies a game.

A search copies a game once per iteration, so the copy must be cheap and must share nothing
mutable with the original. When the game offers ``copy()`` (the Game interface, PROTOCOL and
issue #7), that is used; until then a structural copy: every attribute of the instance is taken
over, lists and dicts copied as deep as they nest, the generator copied by state, and immutable
values (numbers, text, tuples, frozen actions, results, events) shared.
"""

from __future__ import annotations

from typing import Any, TypeVar

from quinze_protocol.rng import Rng

__all__ = ["clone"]

G = TypeVar("G")
_ATOMS = (int, str, float, bool, type(None), tuple, frozenset)


def _deep(v: Any) -> Any:
    t = type(v)
    if t is list:
        if not v:
            return []
        first = type(v[0])
        if first is int or first is str:
            # lists of cards (or of text) are flat: one slice copies them
            return v[:] if all(type(x) is first for x in v) else [_deep(x) for x in v]
        return [_deep(x) for x in v]
    if t is dict:
        return {k: _deep(x) for k, x in v.items()}
    if t is Rng:
        return Rng.from_state(v.state)
    if t is set:
        return set(v)
    return v  # numbers, text, tuples, frozen values: shared


def clone(game: G) -> G:
    """An independent copy of ``game`` that continues identically (same generator state).

    Uses ``game.copy()`` when the class defines it; else the structural copy described in the
    module docstring. Playing on the copy never changes ``game``.
    """
    copy = getattr(type(game), "copy", None)
    if copy is not None:
        return copy(game)
    new = object.__new__(type(game))
    d = new.__dict__
    for k, v in game.__dict__.items():
        d[k] = v if type(v) in _ATOMS else _deep(v)
    return new
