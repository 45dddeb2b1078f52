"""Framing: messages to bytes and back, with no I/O (PROTOCOL.md, "Framing" and "JSON-lines wire").

Two wires carry the same message maps:

* **msgpack frames** (TCP, ``quinze bot --wire msgpack``): a 4-byte big-endian unsigned length
  ``N`` then ``N`` bytes holding one msgpack map. :func:`encode_frame` / :class:`FrameDecoder`.
* **JSON lines** (bots, ``--wire json``): one compact JSON object per line, UTF-8, ``\\n``
  (``\\r\\n`` accepted). :func:`encode_line` / :class:`LineDecoder`.

The decoders are sans-I/O, in the manner of h11: feed them whatever bytes arrived, in any split,
then take messages until ``None`` (more bytes needed)::

    dec = FrameDecoder()
    dec.feed(chunk)
    while (msg := dec.next_message()) is not None:
        handle(msg)

Errors are :class:`~quinze_protocol.errors.ProtocolError`. A fatal one (``frame-too-large``,
``not-msgpack``) leaves the stream unusable: the decoder then refuses further input by raising
the same error again. A non-fatal one (``not-a-map``, ``bad-utf8``, ``not-json``,
``too-many-elements``, ``missing-type``, ``unknown-type``, ``bad-field``) consumed exactly the bad frame or line;
the next call goes on with the following one.
"""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import msgpack

from quinze_protocol.errors import ProtocolError
from quinze_protocol.frame_faults import bad_text_error, first_forbidden, forbidden_value, kind, leading_entries, ref_request, wire_kind
from quinze_protocol.jsontext import TOO_DEEP, JSONTooDeep, loads_json
from quinze_protocol.messages import Message, parse_message

__all__ = [
    "DEFAULT_MAX_FRAME",
    "MAX_NESTING",
    "FrameDecoder",
    "LineDecoder",
    "decode_frame",
    "encode_data",
    "encode_frame",
    "encode_line",
    "unpack_body",
    "loads_line",
]

DEFAULT_MAX_FRAME = 1_048_576
"""Largest frame body (and JSON line, terminator excluded) accepted by default, in bytes (1 MiB)."""

MAX_NESTING = 1024
"""Deepest nesting of arrays and maps a frame may hold, the message's own map counting 1 (PROTOCOL.md
"Framing"): msgpack's unpacker stops deeper frames (its stack of 1024 containers), which are then
``not-msgpack``, fatal: "values are nested too deeply". (Game data has its own, smaller bound:
:data:`quinze_protocol.fields.MAX_DEPTH`.)"""

_HEADER = struct.Struct(">I")


def encode_data(msg: Message | Mapping[str, Any]) -> dict[str, Any]:
    """The map of ``msg``: ``msg.to_data()`` for a message, a plain copy of a dict (not validated,
    so tests and relays can send any map)."""
    if isinstance(msg, Message):
        return msg.to_data()
    if isinstance(msg, Mapping):
        return dict(msg)
    raise TypeError(f"expected a Message or a map, got {type(msg).__name__}")


# --------------------------------------------------------------------------- msgpack frames


def encode_frame(msg: Message | Mapping[str, Any], *, max_frame: int = DEFAULT_MAX_FRAME) -> bytes:
    """``msg`` as one frame: 4-byte big-endian length + msgpack map (str as UTF-8 str type, bytes
    as bin type). Raises ``ProtocolError("frame-too-large")`` if the body exceeds ``max_frame``
    bytes, ``TypeError`` for data msgpack cannot encode."""
    body = msgpack.packb(encode_data(msg), use_bin_type=True)
    if len(body) > max_frame:
        raise ProtocolError("frame-too-large", f"frame of {len(body)} bytes exceeds the limit of {max_frame} bytes")
    return _HEADER.pack(len(body)) + body


class _TooMany(Exception):
    """Raised from the unpacker's hooks once a frame holds more values than allowed."""


class _Count:
    """Counts the values of a frame while msgpack builds it (its ``list_hook``/``object_hook``):
    each array or map counts one, plus one per element and two per map entry. Raises
    :class:`_TooMany` past ``limit``; msgpack then stops at once."""

    __slots__ = ("left",)

    def __init__(self, limit: int) -> None:
        self.left = limit

    def list(self, value: list[Any]) -> list[Any]:
        self.left -= 1 + len(value)
        if self.left < 0:
            raise _TooMany
        return value

    def map(self, value: dict[Any, Any]) -> dict[Any, Any]:
        self.left -= 1 + 2 * len(value)
        if self.left < 0:
            raise _TooMany
        return value


def _unpack(body: bytes, max_frame: int, max_elements: int, strict: bool, unicode_errors: str = "strict") -> Any:
    """msgpack.unpackb with the limits. A body of at most ``max_elements`` bytes cannot hold
    more values than that (each takes at least one byte): it is unpacked without counting.
    ``unicode_errors``: how str values that are not UTF-8 are decoded (``"strict"``: an error)."""
    limit = min(max_frame, max_elements)
    kw: dict[str, Any] = {}
    if len(body) > max_elements:
        count = _Count(max_elements)
        kw = {"list_hook": count.list, "object_hook": count.map}
    return msgpack.unpackb(
        body,
        raw=False,
        strict_map_key=strict,
        use_list=True,
        unicode_errors=unicode_errors,
        max_str_len=max_frame,
        max_bin_len=max_frame,
        max_array_len=limit,
        max_map_len=limit,
        max_ext_len=max_frame,
        **kw,
    )


def _key_problem(body: bytes, max_frame: int, max_elements: int) -> ProtocolError:
    """The ``not-a-map`` error for a map with a key that is not text, naming the message type,
    the map (a dotted path) and the key, in words (unpacked again, keys unchecked, to find them)."""
    try:
        data = _unpack(body, max_frame, max_elements, strict=False)
    except Exception:  # noqa: BLE001 - e.g. a list used as a key (unhashable): no details then
        return ProtocolError("not-a-map", "map keys must be text, but a key of this message is not")
    ref, request = ref_request(data)
    found = first_forbidden(data, ref or "message")
    if found is None or found[0] != "key":  # pragma: no cover - the strict unpacker found one
        return ProtocolError("not-a-map", "map keys must be text", ref=ref, request=request)
    _, path, key = found
    shown = repr(key) if len(repr(key)) <= 40 else repr(key)[:40] + "..."
    return ProtocolError("not-a-map", f"map keys must be text, this map has the key {shown} ({kind(key)})", path,
                         ref=ref, request=request)


def _bad_text_in_frame(body: bytes, max_frame: int, max_elements: int) -> ProtocolError:
    """The ``bad-utf8`` error of a frame with a str that is not UTF-8 (unpacked again with
    ``surrogateescape`` to find it): :func:`bad_text_error`."""
    fallback = "text that is not valid UTF-8 in a string"
    try:
        data = _unpack(body, max_frame, max_elements, strict=False, unicode_errors="surrogateescape")
    except _TooMany:
        return _too_many(max_elements, body)
    except Exception:  # noqa: BLE001 - another fault too (an unhashable key...): no details then
        return ProtocolError("bad-utf8", fallback)
    return bad_text_error(data, fallback)


def _bad_text_in_line(line: bytes, start: int) -> ProtocolError:
    """The ``bad-utf8`` error of a JSON line that is not UTF-8: naming the field
    (:func:`bad_text_error`) when the bad bytes are inside a string of a JSON object, else the
    line's byte ``start``."""
    fallback = f"line is not valid UTF-8 (byte {start})"
    try:
        data = loads_json(line.decode("utf-8", "surrogateescape"))
    except ValueError:
        return ProtocolError("bad-utf8", fallback)
    return bad_text_error(data, fallback) if isinstance(data, dict) else ProtocolError("bad-utf8", fallback)


_MARKS = re.compile(rb"[\xc4-\xcb\xd4-\xd8]")
"""The bytes that begin a binary value (bin 8/16/32: c4-c6), an extension value (ext 8/16/32:
c7-c9, fixext: d4-d8) or a float (float 32/64: ca, cb). Such bytes can also sit inside a string
or a number: they only say where to look (:func:`_may_be_forbidden`)."""


_MARK_TABLE = bytes(1 if _MARKS.match(bytes((b,))) else 0 for b in range(256))
"""A byte table: 1 for the bytes of :data:`_MARKS`, 0 for the others (``1 in body.translate(_MARK_TABLE)``:
a table lookup per byte and a ``memchr``, cheaper than the regular expression's character class)."""


def _may_be_forbidden(body: bytes) -> bool:
    """False when ``body`` certainly holds no binary or extension value and no float that is NaN
    or infinite: one scan in C for the frames of every message (a client's frames seldom hold
    a float; :data:`_MARK_TABLE`), then a look at the two bytes after each float mark
    (a NaN or an infinity has every exponent bit set). True means "maybe": :func:`first_forbidden` decides."""
    if 1 not in body.translate(_MARK_TABLE):  # no mark at all: the usual frame
        return False
    search = _MARKS.search
    m = search(body)
    while m is not None:
        i = m.start()
        mark = body[i]
        if mark not in (0xCA, 0xCB):
            return True
        exponent_end = 0x80 if mark == 0xCA else 0xF0  # the exponent's bits in its second byte
        if i + 2 < len(body) and body[i + 1] & 0x7F == 0x7F and body[i + 2] & exponent_end == exponent_end:
            return True
        m = search(body, i + 1)
    return False


def _not_msgpack(e: Exception, body: bytes) -> ProtocolError:
    """``not-msgpack`` saying in words what is wrong with the body (not the library's text)."""
    if not body:
        return ProtocolError("not-msgpack", "the frame is empty (its length prefix is 0): a frame holds one msgpack map")
    if isinstance(e, msgpack.ExtraData):
        why = "bytes are left after the first value"
    elif isinstance(e, msgpack.StackError):
        why = "values are nested too deeply"
    elif isinstance(e, msgpack.FormatError):
        why = "it holds a byte that starts no msgpack value"
    elif "timestamp" in str(e):
        why = "it holds a malformed extension value (msgpack ext type -1, a timestamp)"
    elif "incomplete" in str(e) or isinstance(e, msgpack.OutOfData):
        why = "the value ends before the frame does (cut short)"
    else:
        why = f"it cannot be read ({type(e).__name__})"
    return ProtocolError("not-msgpack", f"the frame body is not one msgpack value: {why}")


def unpack_body(body: bytes, *, max_frame: int = DEFAULT_MAX_FRAME, max_elements: int | None = None) -> dict[str, Any]:
    """The map in one frame body (length prefix removed).

    Unpacks with ``raw=False``, ``strict_map_key=True`` and size limits: strings and binary up
    to ``max_frame`` bytes; at most ``max_elements`` values in the whole frame (each array and
    map counts one, plus one per array element and two per map entry; None: ``max_frame``), so
    no frame costs more to read than that many values. Raises :class:`ProtocolError`:
    ``not-msgpack`` (fatal: the body is not exactly one msgpack value), ``too-many-elements``
    (not fatal: the frame is consumed; ``ref`` and ``request`` as far as the map's first entries
    give them: :func:`leading_entries`), ``bad-utf8`` (a str that is not UTF-8), ``not-a-map``
    (a value that is not a map, or a map with non-text keys: the reason names the map and the
    key, ``ref`` the message type when it could be read).
    """
    limit = max_frame if max_elements is None else max_elements
    try:
        if len(body) <= limit:  # _unpack's call, inline: so few bytes cannot hold more values than allowed
            most = min(max_frame, limit)
            data = msgpack.unpackb(body, raw=False, strict_map_key=True, use_list=True, max_str_len=max_frame,
                                   max_bin_len=max_frame, max_array_len=most, max_map_len=most, max_ext_len=max_frame)
        else:
            data = _unpack(body, max_frame, limit, strict=True)
    except _TooMany:
        raise _too_many(limit, body) from None
    except UnicodeDecodeError:
        raise _bad_text_in_frame(body, max_frame, limit) from None
    except ValueError as e:
        text = str(e)
        if "map key" in text:
            raise _key_problem(body, max_frame, limit) from None
        if "exceeds max_array_len" in text or "exceeds max_map_len" in text:
            raise _too_many(limit, body) from None
        if "exceeds max_" in text:  # pragma: no cover - a string longer than the frame cannot be
            raise ProtocolError("not-msgpack", "the frame body is not one msgpack value: a string is longer than the frame") from None
        raise _not_msgpack(e, body) from None
    except Exception as e:  # msgpack raises various types for corrupt data
        raise _not_msgpack(e, body) from None
    if not isinstance(data, dict):
        raise ProtocolError("not-a-map", f"a message is a map, got a msgpack {wire_kind(data)}")
    if _may_be_forbidden(body) and (err := forbidden_value(data)) is not None:
        raise err
    return data


def _too_many(limit: int, body: bytes | None = None) -> ProtocolError:
    """``too-many-elements``; for a frame's ``body``, naming the message type (``ref`` and the
    reason, ``ping: a message holds ...``) and the request id where :func:`leading_entries`
    reads them (PROTOCOL.md "Framing": the error names the message as far as the frame was read)."""
    ref, request = ref_request(leading_entries(body)) if body is not None else (None, None)
    return ProtocolError(
        "too-many-elements",
        f"a message holds at most {limit} values (arrays, maps, their elements and entries); this one holds more",
        ref, ref=ref, request=request,
    )


def decode_frame(frame: bytes, *, max_frame: int = DEFAULT_MAX_FRAME, allowed: Iterable[str] | None = None) -> Message:
    """The one message in ``frame`` (length prefix included, nothing after it). Raises
    :class:`ProtocolError` (``not-msgpack`` if the length does not match)."""
    dec = FrameDecoder(max_frame, allowed=allowed)
    dec.feed(frame)
    msg = dec.next_message()
    if msg is None or dec.buffered:
        raise ProtocolError("not-msgpack", "the length prefix does not match the frame's size")
    return msg


class _Decoder:
    """What both wire decoders share: the buffer, the fatal error, and turning maps into messages.
    Subclasses define :meth:`next_data`."""

    def __init__(self, allowed: Iterable[str] | None) -> None:
        self.allowed = frozenset(allowed) if allowed is not None else None
        self._buf = bytearray()
        self._error: ProtocolError | None = None

    @property
    def failed(self) -> ProtocolError | None:
        """The fatal error that stopped this decoder, or None."""
        return self._error

    @property
    def buffered(self) -> int:
        """Bytes received but not yet decoded (non-zero at end of stream: a truncated frame or line)."""
        return len(self._buf)

    def _fail(self, err: ProtocolError) -> ProtocolError:
        self._error = err
        self._buf.clear()
        return err

    def next_data(self) -> dict[str, Any] | None:  # pragma: no cover - abstract
        raise NotImplementedError

    def next_message(self) -> Message | None:
        """The next message, or None if more bytes are needed. Raises :class:`ProtocolError`
        (see :meth:`next_data` and :func:`quinze_protocol.messages.parse_message`)."""
        data = self.next_data()
        return None if data is None else parse_message(data, allowed=self.allowed)

    def messages(self) -> Iterator[Message]:
        """Every complete message buffered now (stops when more bytes are needed; errors raise)."""
        while (msg := self.next_message()) is not None:
            yield msg


class FrameDecoder(_Decoder):
    """Sans-I/O decoder of length-prefixed msgpack frames.

    - ``max_frame`` (bytes): largest body accepted; a larger length prefix is refused as soon
      as its 4 bytes arrive, before any of the body is buffered (``frame-too-large``, fatal).
    - ``allowed``: message types accepted (e.g. ``quinze_protocol.messages.CLIENT_TYPES``); others
      raise ``unknown-type``.
    - ``max_elements``: values one frame may hold (see :func:`unpack_body`; None: as many as
      bytes); more is ``too-many-elements`` (not fatal).
    """

    def __init__(
        self, max_frame: int = DEFAULT_MAX_FRAME, *, allowed: Iterable[str] | None = None, max_elements: int | None = None
    ) -> None:
        super().__init__(allowed)
        self.max_frame = max_frame
        self.max_elements = max_elements

    def feed(self, data: bytes | bytearray) -> None:
        """Add received bytes (any split). Raises the fatal error again if one happened."""
        if self._error is not None:
            raise self._error
        self._buf += data
        # Refuse an oversized frame as soon as its prefix is known, whatever the caller does next.
        if len(self._buf) >= 4 and _HEADER.unpack_from(self._buf)[0] > self.max_frame:
            self._check_header()

    def _check_header(self) -> int:
        n = _HEADER.unpack_from(self._buf)[0]
        if n > self.max_frame:
            raise self._fail(
                ProtocolError("frame-too-large", f"frame of {n} bytes announced, the limit is {self.max_frame} bytes")
            )
        return n

    def next_data(self) -> dict[str, Any] | None:
        """The next frame's map (not checked as a message), or None if more bytes are needed.
        Raises ``frame-too-large``, ``not-msgpack`` (fatal), ``bad-utf8``, ``not-a-map``."""
        body = self.next_body()
        return None if body is None else self.decode(body)

    def next_body(self) -> bytes | None:
        """The next frame's body (length prefix removed), not decoded yet, or None if more bytes
        are needed; :meth:`decode` reads it (:meth:`next_data` is the two). Lets a reader that
        knows the bytes of the answer it waits for tell it without decoding it (the server's
        listed answers: ``quinze_server.connection``). Raises ``frame-too-large`` (fatal)."""
        if self._error is not None:
            raise self._error
        buf = self._buf
        have = len(buf)
        if have < 4:
            return None
        n = _HEADER.unpack_from(buf)[0]
        if n > self.max_frame:
            self._check_header()  # raises frame-too-large
        end = 4 + n
        if have < end:
            return None
        body = bytes(buf[4:end])
        if have == end:  # the usual read: one whole frame
            buf.clear()
        else:
            del buf[:end]
        return body

    def decode(self, body: bytes) -> dict[str, Any]:
        """The map in ``body``, a frame's body from :meth:`next_body` (:func:`unpack_body` with
        this decoder's limits). Raises ``not-msgpack`` (fatal: the decoder fails), ``bad-utf8``,
        ``not-a-map``, ``too-many-elements``."""
        try:
            return unpack_body(body, max_frame=self.max_frame, max_elements=self.max_elements)
        except ProtocolError as e:
            if e.fatal:
                self._fail(e)
            raise


# --------------------------------------------------------------------------- JSON lines


def encode_line(msg: Message | Mapping[str, Any], *, max_line: int = DEFAULT_MAX_FRAME) -> bytes:
    """``msg`` as one JSON line: compact UTF-8 JSON (no NaN/Infinity) + ``\\n``. Raises
    ``frame-too-large`` beyond ``max_line`` bytes (newline excluded), ``ValueError``/``TypeError``
    for data JSON cannot hold."""
    line = json.dumps(encode_data(msg), separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")
    if len(line) > max_line:
        raise ProtocolError("frame-too-large", f"line of {len(line)} bytes exceeds the limit of {max_line} bytes")
    return line + b"\n"


class _NonFinite(Exception):
    """A JSON line holds NaN, Infinity or -Infinity (Python's ``json.dumps`` writes them unless
    ``allow_nan=False``): not JSON (PROTOCOL.md, "JSON-lines wire")."""


def _no_constant(name: str) -> Any:
    raise _NonFinite(name)


def _non_finite(text: str) -> ProtocolError:
    """``not-json`` for a line holding NaN or an infinity, naming the first one's field (the line
    read again with them as floats to find it; not named in a line that is not JSON further on)."""
    try:
        data = loads_json(text, parse_constant=float)
    except ValueError:
        return ProtocolError("not-json", "line is not JSON: NaN/Infinity is not JSON")
    ref, _ = ref_request(data)
    found = first_forbidden(data, ref or "message")
    where = f": {found[1]} is {json.dumps(found[2])}" if found is not None and found[0] == "value" else ""
    return ProtocolError("not-json", f"line is not JSON: NaN/Infinity is not JSON{where}", ref=ref)


def loads_line(line: bytes, *, max_elements: int | None = None) -> dict[str, Any] | None:
    """The map in one line (terminator removed or not); None for a blank line. Raises
    ``bad-utf8``, ``not-json`` (not one JSON value; NaN/Infinity, which Python's ``json.dumps``
    writes unless ``allow_nan=False``, are not JSON: the reason says so and names the field), ``not-a-map``,
    ``too-many-elements`` (not fatal) when the line could hold more than ``max_elements``
    values: counted before parsing as its commas, ``[`` and ``{`` (an upper bound, commas inside
    strings included), so such a line costs no parsing at all."""
    line = line.rstrip(b"\r\n")
    if not line.strip(b" \t\r\n"):
        return None
    if max_elements is not None and len(line) > max_elements:
        if line.count(b",") + line.count(b"[") + line.count(b"{") >= max_elements:
            raise _too_many(max_elements)
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _bad_text_in_line(line, e.start) from None
    try:
        data = loads_json(text, parse_constant=_no_constant)
    except _NonFinite:
        raise _non_finite(text) from None
    except ValueError as e:
        shown = text if len(text) <= 60 else text[:60] + "..."
        what = TOO_DEEP if isinstance(e, JSONTooDeep) else type(e).__name__
        raise ProtocolError("not-json", f"line is not JSON ({what}): {shown!r}") from None
    if not isinstance(data, dict):
        raise ProtocolError("not-a-map", f"a message is a JSON object, got {type(data).__name__}")
    return data


class LineDecoder(_Decoder):
    """Sans-I/O decoder of JSON lines (the bot wire). Same interface as :class:`FrameDecoder`.

    - ``max_line`` (bytes, terminator excluded): a longer line is ``frame-too-large`` (fatal),
      raised as soon as that many bytes are buffered without a newline;
    - blank lines are skipped; ``\\r\\n`` is accepted; ``not-json``, ``bad-utf8``, ``not-a-map``
      are not fatal (the line is dropped, the next one is read);
    - :meth:`feed_eof` marks the end of the input: a last line without newline is then read;
    - ``max_elements``: see :func:`loads_line` (None: no count).
    """

    def __init__(
        self, max_line: int = DEFAULT_MAX_FRAME, *, allowed: Iterable[str] | None = None, max_elements: int | None = None
    ) -> None:
        super().__init__(allowed)
        self.max_line = max_line
        self.max_elements = max_elements
        self._scan = 0  # bytes of _buf known to hold no newline
        self._eof = False

    def feed(self, data: bytes) -> None:
        """Add received bytes (any split). Raises the fatal error again if one happened."""
        if self._error is not None:
            raise self._error
        if self._eof and data:
            raise RuntimeError("feed() after feed_eof()")
        self._buf += data

    def feed_eof(self) -> None:
        """The input has ended: what remains is the last line."""
        self._eof = True

    def _too_long(self, n: int) -> ProtocolError:
        return self._fail(ProtocolError("frame-too-large", f"line of {n}+ bytes, the limit is {self.max_line} bytes"))

    def next_data(self) -> dict[str, Any] | None:
        """The next line's map, or None if more bytes are needed (or the input is over).
        Raises ``frame-too-large`` (fatal), ``bad-utf8``, ``not-json``, ``not-a-map``."""
        if self._error is not None:
            raise self._error
        while True:
            i = self._buf.find(b"\n", self._scan)
            if i < 0:
                self._scan = len(self._buf)
                n = len(self._buf)  # a last \r may still be part of the line end
                if n > self.max_line and not (n == self.max_line + 1 and self._buf[-1] == 13):
                    raise self._too_long(n)
                if not self._eof or not self._buf:
                    return None
                i = len(self._buf)
            line = bytes(self._buf[:i])
            del self._buf[: i + 1]
            self._scan = 0
            if len(line.rstrip(b"\r")) > self.max_line:
                raise self._too_long(len(line))
            data = loads_line(line, max_elements=self.max_elements)
            if data is not None:
                return data
