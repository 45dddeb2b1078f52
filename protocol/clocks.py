"""Table clocks as data (PROTOCOL.md, "Clocks"): what a table's ``clock`` option may be, and the
clock state sent with ``action-request``, ``view`` and ``notice``.

A clock *spec* (``create-table.clock``, ``TableInfo.clock``) is one of:

- ``{"kind": "move", "move": S}``: S seconds for each decision (0 < S <= 86400); the deadline
  passing forfeits the game. The default (``create-table.move_time`` or the server's 60 s).
- ``{"kind": "bank", "base": B, "increment": I}``: each seat starts each game with a bank of B
  seconds (0 < B <= 86400); the time a decision takes is taken from the seat's bank, then I
  seconds (0 <= I <= 3600) are added (Fischer); an empty bank forfeits the game.
- ``{"kind": "none"}``: no forfeit on time. Only people and built-in bots may sit at such a
  table (a bot program could keep it waiting forever).

A clock *state* (``action-request.clock``, ``view.clock``, ``notice.clock``) is
``{"kind": K, "left": [seconds | nil per seat]}``: with ``bank`` each seat's bank (the seat to
act: what it has left now) and the ``increment``, with ``move`` the seconds of the seat to act
(nil for the others) and ``move``, with ``none`` nil for all.

:func:`parse_clock_text` reads the command-line spelling: ``none``, ``move:60`` (or ``60``),
``bank:300+5`` (or ``300+5``; ``bank:300`` has no increment).
"""

from __future__ import annotations

import math
from typing import Any

from quinze_protocol.errors import ProtocolError
from quinze_protocol.fields import MAX_MOVE_TIME, bad, type_name

__all__ = ["CLOCK_KINDS", "DEFAULT_BANK", "MAX_INCREMENT", "clock_field", "clock_state_field", "clock_text",
           "move_clock", "parse_clock_text"]

CLOCK_KINDS = ("move", "bank", "none")
MAX_INCREMENT = 3600.0
"""Largest ``bank`` increment, in seconds (an hour)."""
DEFAULT_BANK: dict[str, Any] = {"kind": "bank", "base": 300.0, "increment": 5.0}
"""The clock of a table created from ``quinze play`` on a server: 5 minutes, plus 5 s a decision."""


def move_clock(seconds: float) -> dict[str, Any]:
    """The per-move clock of ``seconds`` per decision."""
    return {"kind": "move", "move": float(seconds)}


def _seconds(v: Any, path: str, lo_open: bool, hi: float) -> float:
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        raise bad(path, f"must be a number of seconds, got {type_name(v)}")
    f = float(v)
    if not math.isfinite(f) or (f <= 0.0 if lo_open else f < 0.0) or f > hi:
        low = "more than 0" if lo_open else "at least 0"
        raise bad(path, f"must be {low} and at most {hi:g} seconds, got {v!r}")
    return f


def clock_field(v: Any, path: str) -> dict[str, Any]:
    """Check a clock spec (see the module docstring); returns it normalised (floats, no extra keys).
    Raises :class:`~quinze_protocol.errors.ProtocolError` ``bad-field`` naming the part that is wrong."""
    if not isinstance(v, dict):
        raise bad(path, f"must be a map, got {type_name(v)}")
    kind = v.get("kind")
    if kind not in CLOCK_KINDS:
        raise bad(f"{path}.kind", f"must be one of {', '.join(CLOCK_KINDS)}, got {kind!r}")
    if kind == "move":
        return {"kind": "move", "move": _seconds(v.get("move"), f"{path}.move", True, MAX_MOVE_TIME)}
    if kind == "bank":
        return {"kind": "bank", "base": _seconds(v.get("base"), f"{path}.base", True, MAX_MOVE_TIME),
                "increment": _seconds(v.get("increment", 0.0), f"{path}.increment", False, MAX_INCREMENT)}
    return {"kind": "none"}


def clock_state_field(v: Any, path: str) -> dict[str, Any]:
    """Check a clock state ``{"kind", "left": [seconds | nil]}``; returns it normalised."""
    if not isinstance(v, dict):
        raise bad(path, f"must be a map, got {type_name(v)}")
    kind = v.get("kind")
    if kind not in CLOCK_KINDS:
        raise bad(f"{path}.kind", f"must be one of {', '.join(CLOCK_KINDS)}, got {kind!r}")
    left = v.get("left", [])
    if not isinstance(left, (list, tuple)) or len(left) > 256:
        raise bad(f"{path}.left", f"must be a list of at most 256 entries, got {type_name(left)}")
    out = []
    for i, x in enumerate(left):
        out.append(None if x is None else _seconds(x, f"{path}.left[{i}]", False, 1e9))
    state: dict[str, Any] = {"kind": kind, "left": out}
    if kind == "bank" and "increment" in v:
        state["increment"] = _seconds(v["increment"], f"{path}.increment", False, MAX_INCREMENT)
    if kind == "move" and "move" in v:
        state["move"] = _seconds(v["move"], f"{path}.move", True, MAX_MOVE_TIME)
    return state


def parse_clock_text(text: str) -> dict[str, Any]:
    """``none``, ``move:60``/``60``, ``bank:300+5``/``300+5``/``bank:300`` as a clock spec.
    Raises ``ValueError`` saying what is wrong and the forms accepted."""
    raw = text.strip().lower()
    forms = "none, move:SECONDS (e.g. move:60) or bank:BASE+INCREMENT (e.g. bank:300+5)"
    if raw in ("none", "off", "no"):
        return {"kind": "none"}
    kind, _, rest = raw.partition(":")
    if not rest:
        kind, rest = ("bank" if "+" in raw else "move"), raw
    try:
        if kind == "move":
            return clock_field({"kind": "move", "move": float(rest)}, "clock")
        if kind == "bank":
            base, _, inc = rest.partition("+")
            return clock_field({"kind": "bank", "base": float(base), "increment": float(inc or 0)}, "clock")
    except ValueError:  # float() of something that is not a number
        raise ValueError(f"{text!r} is not a clock: write {forms}") from None
    except ProtocolError as err:  # a number out of range
        raise ValueError(f"clock {text!r}: {err.reason} (write {forms})") from None
    raise ValueError(f"{text!r} is not a clock: write {forms}")


def clock_text(spec: dict[str, Any] | None) -> str:
    """The spec in the command-line spelling (``bank:300+5``, ``move:60``, ``none``)."""
    if not spec:
        return "?"
    if spec.get("kind") == "move":
        return f"move:{spec.get('move', 0):g}"
    if spec.get("kind") == "bank":
        return f"bank:{spec.get('base', 0):g}+{spec.get('increment', 0):g}"
    return "none"
