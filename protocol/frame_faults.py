"""Where a frame or line that cannot be taken is at fault, in words (PROTOCOL.md "Errors"):
the message type and the request id when they can be read (:func:`ref_request`), the first value
no message may hold (:func:`first_forbidden`: a key that is not text, binary, an extension value,
a float that is not finite) and the first text that was not UTF-8 (:func:`first_bad_text`), each
named by its dotted path (``hello.name``, ``action.action.cards[1]``). Pure functions of the
decoded data, for :mod:`quinze_protocol.framing`'s decoders; and, for a frame refused before it
could be decoded (too many values), the type and request id its map begins with, read from its
bytes (:func:`leading_entries`)."""

from __future__ import annotations

import math
import re
from typing import Any

import msgpack

from quinze_protocol.errors import ProtocolError
from quinze_protocol.fields import REQUEST_MAX

__all__ = ["ESCAPED", "bad_text_error", "first_bad_text", "first_forbidden", "forbidden_value", "kind", "leading_entries",
           "ref_request", "wire_kind"]


ESCAPED = re.compile("[\udc80-\udcff]")
"""A byte that was not UTF-8, as the ``surrogateescape`` error handler decodes it (valid UTF-8
never decodes to these lone surrogates)."""


def first_bad_text(value: Any, path: str) -> tuple[str, str, int] | None:
    """The first text in ``value`` (decoded with ``surrogateescape``) that held bytes that are
    not UTF-8, depth first in the order of the map: ``(path, "key" | "value", byte offset of the
    first bad byte in that text)``; ``path`` is the map's for a key. None if there is none."""
    stack = [(value, path)]
    while stack:
        v, p = stack.pop()
        if isinstance(v, dict):
            for k in v:
                if isinstance(k, str) and (m := ESCAPED.search(k)) is not None:
                    return p, "key", len(k[:m.start()].encode("utf-8", "surrogateescape"))
            stack.extend((item, f"{p}.{k}") for k, item in reversed(list(v.items())))
        elif isinstance(v, list):
            stack.extend((item, f"{p}[{i}]") for i, item in reversed(list(enumerate(v))))
        elif isinstance(v, str) and (m := ESCAPED.search(v)) is not None:
            return p, "value", len(v[:m.start()].encode("utf-8", "surrogateescape"))
    return None


def bad_text_error(data: Any, fallback: str) -> ProtocolError:
    """``bad-utf8`` naming where the text that is not UTF-8 is in ``data`` (decoded with
    ``surrogateescape``): the message type and the field's dotted path, ``hello.name``, as
    ``bad-field`` does (``ref``: the type when it is itself good text); ``fallback`` when it
    cannot be found."""
    ref, request = ref_request(data)
    if ref is not None and ESCAPED.search(ref):
        ref = None
    found = first_bad_text(data, ref or "message")
    if found is None:
        return ProtocolError("bad-utf8", fallback, ref=ref, request=request)
    path, what, at = found
    why = (f"a map key is text that is not valid UTF-8 (byte {at} of the key)" if what == "key"
           else f"text that is not valid UTF-8 (byte {at} of the string)")
    return ProtocolError("bad-utf8", why, path, ref=ref, request=request)


def ref_request(data: Any) -> tuple[str | None, int | None]:
    """The message type (cut to 64 characters) and the request id of a map, where readable."""
    t = data.get("type") if isinstance(data, dict) else None
    request = data.get("request") if isinstance(data, dict) else None
    request = request if type(request) is int and 0 <= request <= REQUEST_MAX else None
    return (t[:64] if isinstance(t, str) else None), request


def kind(value: Any) -> str:
    if isinstance(value, (msgpack.ExtType, msgpack.Timestamp)):
        return "an extension value"
    return {int: "an integer", float: "a float", bool: "a boolean", bytes: "binary", type(None): "nil"}.get(
        type(value), type(value).__name__
    )


def first_forbidden(value: Any, path: str) -> tuple[str, str, Any] | None:
    """The first thing in ``value`` that no message may hold (PROTOCOL.md "Conventions" and
    "Framing"), depth first in the order of the map: ``("key", path of the map, the key)`` for a
    map key that is not text, ``("value", path, the value)`` for a binary or extension value or a
    float that is not finite; None if there is none."""
    stack = [(value, path)]
    while stack:
        v, p = stack.pop()
        if isinstance(v, dict):
            for k in v:
                if not isinstance(k, str):
                    return "key", p, k
            stack.extend((item, f"{p}.{k}") for k, item in reversed(list(v.items())))
        elif isinstance(v, list):
            stack.extend((item, f"{p}[{i}]") for i, item in reversed(list(enumerate(v))))
        elif isinstance(v, (bytes, msgpack.ExtType, msgpack.Timestamp)) or (isinstance(v, float) and not math.isfinite(v)):
            return "value", p, v
    return None


def forbidden_value(data: dict[str, Any]) -> ProtocolError | None:
    """``bad-field`` for the first binary, extension or non-finite value in a message's map
    (naming its dotted path, e.g. ``ping.x``), or None if it holds none."""
    ref, request = ref_request(data)
    found = first_forbidden(data, ref or "message")
    if found is None:
        return None
    _, path, v = found
    if isinstance(v, float):
        why = f"must be a finite number, got {v!r} (NaN and infinities are not allowed in a message)"
    elif isinstance(v, bytes):
        why = "binary values are not allowed in a message (text is the msgpack str type)"
    else:
        code = -1 if isinstance(v, msgpack.Timestamp) else v.code
        why = f"extension values are not allowed in a message (this one is msgpack ext type {code})"
    return ProtocolError("bad-field", why, path, ref=ref, request=request)


def wire_kind(value: Any) -> str:
    return {list: "array", str: "str", int: "int", float: "float", bool: "bool", bytes: "bin", type(None): "nil"}.get(
        type(value), type(value).__name__
    )


_LEADING = 16
"""At most this many entries of a refused frame's map are looked at for its type and request id
(a client message has fewer fields)."""

_FIXED_SIZES = {0xC0: 1, 0xC2: 1, 0xC3: 1, 0xCA: 5, 0xCB: 9, 0xCC: 2, 0xCD: 3, 0xCE: 5, 0xCF: 9, 0xD0: 2, 0xD1: 3,
                0xD2: 5, 0xD3: 9}
"""The msgpack values of a fixed size beside the fixints, by their first byte: nil, false, true,
float 32/64, uint 8..64, int 8..64 (the size includes that byte)."""

_STR_LENGTHS = {0xD9: 1, 0xDA: 2, 0xDB: 4}
"""str 8/16/32: the bytes of the length after the first byte."""


def _scalar(body: bytes, i: int) -> tuple[int, int, bool] | None:
    """The msgpack value at ``body[i]`` when it is a number, nil, a boolean or text: ``(where its
    content starts, where it ends, whether it is text)``; None for any other value (an array, a
    map, binary, an extension) or past the end. Nothing is decoded."""
    if i >= len(body):
        return None
    b = body[i]
    if b < 0x80 or b >= 0xE0:  # positive and negative fixint
        return i, i + 1, False
    if 0xA0 <= b < 0xC0:  # fixstr
        return i + 1, i + 1 + (b & 0x1F), True
    if b in _FIXED_SIZES:
        return i, i + _FIXED_SIZES[b], False
    size = _STR_LENGTHS.get(b)
    if size is None:
        return None
    start = i + 1 + size
    return start, start + int.from_bytes(body[i + 1:start], "big"), True


def leading_entries(body: bytes) -> dict[str, Any]:
    """The ``type`` and ``request`` of a frame refused for holding too many values, from the
    entries its map begins with, without reading those values: the entries up to the map's first
    key that is not text or value that is not a number, nil, a boolean or text (an array, a map),
    at most :data:`_LEADING`. Only those two values are decoded (a ``type`` that is not UTF-8 ends
    the look, unread). Empty when the body is no map."""
    found: dict[str, Any] = {}
    if not body:
        return found
    b = body[0]
    if 0x80 <= b < 0x90:  # fixmap
        n, i = b & 0x0F, 1
    elif b in (0xDE, 0xDF):  # map 16/32
        i = 3 if b == 0xDE else 5
        n = int.from_bytes(body[1:i], "big")
    else:
        return found
    for _ in range(min(n, _LEADING)):
        key = _scalar(body, i)
        if key is None or not key[2]:
            break
        value = _scalar(body, key[1])
        if value is None or value[1] > len(body):
            break
        name = body[key[0]:key[1]] if key[1] - key[0] in (4, 7) else b""
        if name in (b"type", b"request"):
            try:
                found[name.decode()] = msgpack.unpackb(body[key[1]:value[1]], raw=False)
            except ValueError:  # text that is not UTF-8 (UnicodeDecodeError)
                break
        i = value[1]
    return found
