"""Checks shared by the games' position loaders (docs/positions.md): each reads one field of a
position and returns it, or raises :class:`~quinze_protocol.game.PositionError` with ``field``
naming it (``"hands.1[2]"``, ``"options.target"``) and a reason for people.

- :func:`need` — the key is there (``"missing"``);
- :func:`whole` / :func:`whole_at` — an int, never a bool, within ``lo .. hi``;
- :func:`entries` — a list, of ``n`` entries (one per seat) when ``n`` is given;
- :func:`card` / :func:`cards` — canonical card text (``"7H"``, ``"BJ"``), jokers refused when
  the game is played without them;
- :func:`rng_state` — the generator's state (``rng``), a whole number in ``0 .. 2**64-1``;
- :func:`check_int64` — every whole number of a position (but ``rng``) within the 64-bit signed
  range (:data:`INT64_MIN` .. :data:`INT64_MAX`): a position must fit the wire
  (``create-table.position``) and the engines' counters, so ``quinze legal`` and ``quinze match
  --positions`` refuse what a table could not be made from. Every game's loader calls it first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from quinze_protocol.cards import CardError, is_joker, parse_card
from quinze_protocol.game import PositionError
from quinze_protocol.rng import MASK64, Rng

__all__ = ["INT64_MAX", "INT64_MIN", "card", "cards", "check_int64", "entries", "need", "rng_state", "whole", "whole_at"]

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1


def need(data: Mapping[str, Any], key: str, *, where: str = "") -> Any:
    """``data[key]``; ``PositionError("missing", field=where + key)`` when absent."""
    if key not in data:
        raise PositionError("missing", field=where + key)
    return data[key]


def check_int64(data: Any, field: str = "") -> None:
    """Refuse any whole number in ``data`` (maps and lists walked; bools are not numbers) outside
    ``INT64_MIN .. INT64_MAX``, but the top-level ``rng`` (:func:`rng_state` checks its own range).
    Raises ``PositionError`` naming the field: map keys joined by ``.``, list entries ``[i]``
    (``"totals[0]"``, ``"options.target"``)."""
    if isinstance(data, Mapping):
        for key, v in data.items():
            if not (field == "" and key == "rng"):
                check_int64(v, f"{field}.{key}" if field else str(key))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            check_int64(v, f"{field}[{i}]")
    elif isinstance(data, int) and not isinstance(data, bool) and not INT64_MIN <= data <= INT64_MAX:
        raise PositionError(f"must be a 64-bit whole number ({INT64_MIN} .. {INT64_MAX}), got {data}", field=field)


def whole(v: Any, field: str, lo: int | None = None, hi: int | None = None, *, none: bool = False) -> Any:
    """``v`` as a whole number in ``lo .. hi`` (either bound optional); None passes when ``none``.
    Raises ``PositionError`` naming ``field`` (not an int, a bool, below ``lo``, above ``hi``)."""
    if v is None and none:
        return None
    if not isinstance(v, int) or isinstance(v, bool):
        raise PositionError(f"expects a whole number, got {v!r}", field=field)
    if lo is not None and v < lo:
        raise PositionError(f"must be at least {lo}, got {v}", field=field)
    if hi is not None and v > hi:
        raise PositionError(f"must be at most {hi}, got {v}", field=field)
    return v


def whole_at(data: Mapping[str, Any], key: str, lo: int | None = None, hi: int | None = None, *, where: str = "") -> int:
    """:func:`whole` of ``data[key]`` (:func:`need` first); the field is ``where + key``."""
    return whole(need(data, key, where=where), where + key, lo, hi)


def rng_state(data: Mapping[str, Any]) -> Rng:
    """The generator of a position, from its state ``data["rng"]`` (a whole number in
    ``0 .. 2**64-1``, :attr:`quinze_protocol.rng.Rng.state`); raises ``PositionError`` on ``rng``."""
    return Rng.from_state(whole_at(data, "rng", 0, MASK64))


def entries(v: Any, field: str, n: int | None = None) -> list[Any]:
    """``v`` as a list, of exactly ``n`` entries (one per seat) when ``n`` is given."""
    if not isinstance(v, list):
        raise PositionError(f"expects a list, got {type(v).__name__}", field=field)
    if n is not None and len(v) != n:
        raise PositionError(f"expects {n} entries (one per seat), got {len(v)}", field=field)
    return v


def card(v: Any, field: str, *, no_jokers: str | None = None) -> int:
    """One card from its text (:func:`quinze_protocol.cards.parse_card`). ``no_jokers``: the reason
    given for a joker in a game played without them (None: jokers are cards like any other)."""
    try:
        c = parse_card(v)
    except CardError as err:
        raise PositionError(str(err), field=field) from None
    if no_jokers is not None and is_joker(c):
        raise PositionError(no_jokers, field=field)
    return c


def cards(v: Any, field: str, *, no_jokers: str | None = None) -> list[int]:
    """A list of cards (:func:`entries`, then :func:`card` for each: fields ``field[i]``)."""
    return [card(t, f"{field}[{i}]", no_jokers=no_jokers) for i, t in enumerate(entries(v, field))]
