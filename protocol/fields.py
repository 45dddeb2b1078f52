"""Field checks shared by the messages (PROTOCOL.md, "Conventions").

Each check is a function ``check(value, path) -> value`` returning the value normalised (tuples
for lists, floats for times, copies of game data) or raising :class:`~quinze_protocol.errors.ProtocolError`
``bad-field`` with ``field=path`` (a dotted path such as ``"hello.name"``) and ``ref`` the
message type. :class:`Value` is the base of the message and record dataclasses: it runs the
checks of its ``_checks`` table when built.
"""

from __future__ import annotations

import dataclasses
import math
import re
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from quinze_protocol.errors import ProtocolError

__all__ = [
    "CODE", "FORFEIT_KINDS", "FORFEIT_LEAVE", "FORFEIT_TIMEOUT", "GAME_ID", "HELLO_NAME", "INT_MAX", "INT_MIN", "MAX_DEPTH", "MAX_MOVE_TIME", "NAME", "NONCE",
    "REASON", "RELAY_FORFEIT_KINDS", "REQUEST", "REQUEST_MAX", "ROLES", "SALT", "SEAT", "SEAT_MAX", "SEED", "TABLE_ID", "TABLE_STATES", "TOKEN",
    "Check", "Record", "Value", "bad", "blank_problem", "bool_field", "check_data", "hex64_field", "int_field", "list_field",
    "map_field", "move_time_field", "name_problem", "nullable", "plain_text_problem", "record_field", "seconds_field", "str_field", "to_plain",
    "type_name", "typed_map_field",
]

INT_MIN = -(2**63)
INT_MAX = 2**64 - 1
MAX_DEPTH = 32
"""Deepest nesting accepted in game data (maps and lists, :func:`check_data`): a value at most this
many levels below its field (``create-table.options.x`` is level 1, ``options.x[0]`` level 2);
deeper is ``bad-field`` "nested deeper than 32 levels" (PROTOCOL.md "Framing", "Nesting")."""

ROLES = ("player", "bot", "spectator")
TABLE_STATES = ("waiting", "playing", "closed")
FORFEIT_TIMEOUT = "timeout"
"""Forfeit kind: the seat's clock ran out (given by the server, and by a relay whose bot was late)."""
FORFEIT_LEAVE = "leave"
"""Forfeit kind: the seat left the table during a game (``leave``; given by the server)."""
RELAY_FORFEIT_KINDS = (FORFEIT_TIMEOUT, "crash", "garbage", "illegal")
"""The kinds a bot relay gives in a ``forfeit`` message's ``reason`` (a client may give any short code)."""
FORFEIT_KINDS = (*RELAY_FORFEIT_KINDS, FORFEIT_LEAVE)
"""Every forfeit kind our server and relays produce, as ``game-over.forfeit.kind`` (PROTOCOL.md "Flow" 5)."""

_HEX64 = re.compile(r"[0-9a-f]{64}")

# --------------------------------------------------------------------------- checks


def bad(path: str, reason: str) -> ProtocolError:
    return ProtocolError("bad-field", reason, path, ref=path.split(".", 1)[0].split("[", 1)[0])


def type_name(value: Any) -> str:
    if value is None:
        return "nil"
    return {bool: "bool", int: "int", float: "float", str: "text", dict: "map", list: "list", tuple: "list", bytes: "binary"}.get(
        type(value), type(value).__name__
    )


Check = Callable[[Any, str], Any]


def int_field(lo: int | None = None, hi: int | None = None) -> Check:
    lo_ = INT_MIN if lo is None else lo
    hi_ = INT_MAX if hi is None else hi

    def check(v: Any, path: str) -> int:
        if not isinstance(v, int) or isinstance(v, bool):
            raise bad(path, f"must be an integer, got {type_name(v)}")
        if v < lo_:
            raise bad(path, f"must be at least {lo_}, got {v}")
        if v > hi_:
            raise bad(path, f"must be at most {hi_}, got {v}")
        return int(v)

    return check


def seconds_field(lo: float | None = None) -> Check:
    def check(v: Any, path: str) -> float:
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            raise bad(path, f"must be a number of seconds, got {type_name(v)}")
        f = float(v)
        if not math.isfinite(f):
            raise bad(path, "must be a finite number")
        if lo is not None and f < lo:
            raise bad(path, f"must be at least {lo}, got {f}")
        return f

    return check


MAX_MOVE_TIME = 86400.0
"""Longest ``move_time`` accepted, in seconds (a day)."""


def move_time_field(v: Any, path: str) -> float:
    f = seconds_field(0.0)(v, path)
    if not 0.0 < f <= MAX_MOVE_TIME:
        raise bad(path, f"must be more than 0 and at most {MAX_MOVE_TIME:g} seconds, got {f:g}")
    return f


def bool_field(v: Any, path: str) -> bool:
    if not isinstance(v, bool):
        raise bad(path, f"must be true or false, got {type_name(v)}")
    return v


def str_field(lo: int = 0, hi: int = 2000, *, choices: tuple[str, ...] | None = None, plain: bool = False, ascii_: bool = False) -> Check:
    def check(v: Any, path: str) -> str:
        if not isinstance(v, str):
            raise bad(path, f"must be text, got {type_name(v)}")
        if choices is not None:
            if v not in choices:
                raise bad(path, f"must be one of {', '.join(choices)}, got {v[:40]!r}")
            return v
        if not lo <= len(v) <= hi:
            raise bad(path, f"must be {lo}..{hi} characters, got {len(v)}")
        if plain and (why := plain_text_problem(v)) is not None:
            raise bad(path, why)
        if ascii_ and not v.isascii():
            raise bad(path, "must be ASCII")
        return v

    return check


_UNPLAIN = {"Cc": "a control character", "Cf": "a format character", "Cs": "a lone surrogate",
            "Zl": "a line separator", "Zp": "a paragraph separator"}
"""The Unicode categories that names, ids, codes and tokens may not hold (PROTOCOL.md
"Conventions"): characters that are not shown as themselves but move, hide or reorder the text
around them (U+202E RIGHT-TO-LEFT OVERRIDE, U+200B ZERO WIDTH SPACE, a newline)."""


def plain_text_problem(text: str) -> str | None:
    """Why ``text`` is not plain (the rule of names, table ids, codes and tokens, on the server
    and in the CLI alike): its first control, format, surrogate or line/paragraph separator
    character, named (``"must not contain U+202E (RIGHT-TO-LEFT OVERRIDE), a format character"``);
    None when it holds none. Printable text (the usual case) is told in one C call."""
    if text.isprintable():
        return None
    for i, c in enumerate(text):
        kind = _UNPLAIN.get(unicodedata.category(c))
        if kind is not None:
            name = unicodedata.name(c, "")
            shown = f"U+{ord(c):04X}" + (f" ({name})" if name else "")
            return f"must not contain {shown}, {kind} (character {i + 1})"
    return None


def nullable(inner: Check) -> Check:
    def check(v: Any, path: str) -> Any:
        return None if v is None else inner(v, path)

    return check


def check_data(value: Any, path: str, depth: int = 0) -> Any:
    """``value`` checked to be JSON-compatible data (the same through msgpack and JSON): dicts
    with text keys, lists (tuples are made lists), text, 64-bit ints, finite floats, bools, nil;
    at most :data:`MAX_DEPTH` levels. Returns a copy. Raises ``bad-field`` naming the path."""
    if depth > MAX_DEPTH:
        raise bad(path, f"nested deeper than {MAX_DEPTH} levels")
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        if not INT_MIN <= value <= INT_MAX:
            raise bad(path, "integer out of the 64-bit range")
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise bad(path, "must be a finite number")
        return value
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise bad(path, f"map keys must be text, got {type_name(k)}")
            out[k] = check_data(v, f"{path}.{k}", depth + 1)
        return out
    if isinstance(value, list) or type(value) is tuple:  # not namedtuples (msgpack ExtType)
        return [check_data(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(value)]
    raise bad(path, f"must be plain data, got {type_name(value)}")


def map_field(v: Any, path: str) -> dict[str, Any]:
    if not isinstance(v, Mapping):
        raise bad(path, f"must be a map, got {type_name(v)}")
    return check_data(v, path)


def typed_map_field(key: str) -> Check:
    """A map that must hold text under ``key`` (``event.kind``, an action's ``type``)."""

    def check(v: Any, path: str) -> dict[str, Any]:
        m = map_field(v, path)
        if key not in m:
            raise bad(f"{path}.{key}", "missing")
        str_field(1, 64)(m[key], f"{path}.{key}")
        return m

    return check


def list_field(item: Check, hi: int | None = None) -> Check:
    def check(v: Any, path: str) -> tuple[Any, ...]:
        if not isinstance(v, (list, tuple)):
            raise bad(path, f"must be a list, got {type_name(v)}")
        if hi is not None and len(v) > hi:
            raise bad(path, f"must have at most {hi} items, got {len(v)}")
        return tuple(item(x, f"{path}[{i}]") for i, x in enumerate(v))

    return check


def record_field(cls: type[Record]) -> Check:
    """A nested value class (``TableInfo``, ``SeatInfo``, ``Forfeit``, ``SeatAction``)."""

    def check(v: Any, path: str) -> Any:
        if isinstance(v, cls):
            return v
        if not isinstance(v, Mapping):
            raise bad(path, f"must be a map, got {type_name(v)}")
        return cls.from_data(v, path)

    return check


SEAT_MAX = 255
"""The largest seat number a message carries (seats are 0 .. 255)."""
SEAT = int_field(0, SEAT_MAX)
TABLE_ID = str_field(1, 32, plain=True)
GAME_ID = str_field(1, 64, plain=True)
NAME = str_field(1, 32, plain=True)
REASON = str_field(0, 2000)
CODE = str_field(1, 64, plain=True)
REQUEST_MAX = INT_MAX
"""The largest request id a message may carry (``action.request``, ``error.request`` ...)."""
REQUEST = int_field(0, REQUEST_MAX)
NONCE = int_field()
SEED = int_field()
SALT = str_field(1, 128, plain=True, ascii_=True)


_FILLERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Letters and symbols drawn as blank space: the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0)
and the blank braille pattern (U+2800)."""
_MARKS = frozenset(("Mn", "Me"))
"""Combining marks: drawn only on the character before them, never on their own."""


def blank_problem(text: str) -> str | None:
    """Why ``text`` shows nothing (the rule of ``hello.name`` beyond :data:`NAME`'s, PROTOCOL.md
    ``hello``): every character is white space (``str.isspace``: U+0020, U+00A0, U+3000 ...), a
    blank filler (:data:`_FILLERS`) or a combining mark (Unicode Mn, Me); ``"must show at least
    one character, got only spaces or invisible characters: ' '"`` (the text as an ASCII
    escape). None when one character shows. Control and format characters (U+200B ZERO WIDTH
    SPACE ...) are :func:`plain_text_problem`'s, checked first; the empty text is the length's."""
    for c in text:
        if not (c.isspace() or c in _FILLERS or unicodedata.category(c) in _MARKS):
            return None
    shown = ascii(text) if len(text) <= 40 else ascii(text[:40])[:-1] + "...'"
    return f"must show at least one character, got only spaces or invisible characters: {shown}"


def _hello_name(v: Any, path: str) -> str:
    name = NAME(v, path)
    if (why := blank_problem(name)) is not None:
        raise bad(path, why)
    return name


HELLO_NAME: Check = _hello_name
"""A name given in ``hello``: :data:`NAME` (1..32 characters, plain) showing at least one
character (:func:`blank_problem`). Kept as sent (not stripped). Names the server sends
(``tables``, ``game-start``) are checked as :data:`NAME` only: they come from a ``hello``."""


def name_problem(text: str) -> str | None:
    """Why ``text`` cannot be a player's name (:data:`HELLO_NAME`: ``hello.name``, ``quinze play
    --name``), in words (``"must be 1..32 characters, got 40"``, :func:`plain_text_problem`'s,
    :func:`blank_problem`'s); None if it can."""
    try:
        HELLO_NAME(text, "name")
    except ProtocolError as err:
        return err.reason
    return None
TOKEN = str_field(1, 128, plain=True)


def hex64_field(v: Any, path: str) -> str:
    str_field(0, 64)(v, path)
    if not _HEX64.fullmatch(v):
        raise bad(path, "must be 64 lower-case hex digits (SHA-256)")
    return v


# --------------------------------------------------------------------------- base


class Value:
    """Shared machinery: ``_checks`` maps each field to its check; ``__post_init__`` runs them."""

    _checks: ClassVar[dict[str, Check]] = {}
    _label: ClassVar[str] = ""
    _omit_none: ClassVar[frozenset[str]] = frozenset()
    """Optional fields left out of ``to_data()`` while None (fields added after version 1's
    first release: a peer that does not know them sees the message it always saw)."""

    def __post_init__(self) -> None:
        for name, check in self._checks.items():
            object.__setattr__(self, name, check(getattr(self, name), f"{self._label}.{name}"))

    @classmethod
    def _kwargs(cls, data: Mapping[str, Any], label: str) -> dict[str, Any]:
        kwargs: dict[str, Any] = {}
        for f in dataclasses.fields(cls):  # type: ignore[arg-type]  # every subclass is a dataclass
            if f.name in data:
                kwargs[f.name] = cls._checks[f.name](data[f.name], f"{label}.{f.name}")
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise bad(f"{label}.{f.name}", "missing")
        return kwargs

    @classmethod
    def _build(cls, kwargs: dict[str, Any]) -> Any:
        """An instance from already checked values (defaults filled in), without re-checking."""
        obj = cls.__new__(cls)
        for f in dataclasses.fields(cls):  # type: ignore[arg-type]  # every subclass is a dataclass
            if f.name in kwargs:
                v = kwargs[f.name]
            elif f.default_factory is not dataclasses.MISSING:
                v = f.default_factory()
            else:
                v = f.default
            object.__setattr__(obj, f.name, v)
        return obj

    def to_data(self) -> dict[str, Any]:
        """The value as a plain map (lists for tuples); each kind of value says how."""
        raise NotImplementedError

    def _field_data(self) -> dict[str, Any]:
        omit = self._omit_none
        return {
            f.name: to_plain(v)
            for f in dataclasses.fields(self)  # type: ignore[arg-type]  # every subclass is a dataclass
            if (v := getattr(self, f.name)) is not None or f.name not in omit
        }


def to_plain(v: Any) -> Any:
    if isinstance(v, Value):
        return v.to_data()
    if isinstance(v, tuple):
        return [to_plain(x) for x in v]
    return v


class Record(Value):
    """A nested value (not a message): ``from_data(data, path)`` / ``to_data()``."""

    @classmethod
    def from_data(cls, data: Mapping[str, Any], path: str | None = None) -> Any:
        return cls._build(cls._kwargs(data, path or cls._label))

    def to_data(self) -> dict[str, Any]:
        return self._field_data()
