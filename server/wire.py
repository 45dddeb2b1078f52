"""The server's frequent frames, assembled from encoded parts (PROTOCOL.md "Framing").

msgpack writes a map as a header (its number of entries) followed by each key and value in
order, so a message can be put together from the encodings of its parts, and those parts can be
kept: the bytes are exactly those of ``msgpack.packb`` on a dict with the same keys in the same
order. The server uses this to

- encode each outgoing message once, whoever receives it (:class:`TableWire`: the fixed start of
  a table's ``accepted`` and ``event`` messages);
- keep a game's actions as one ``bytearray`` of encoded ``{"seat", "action"}`` maps
  (:class:`Records`) instead of a list of dicts: a bytearray holds no references, so the cyclic
  garbage collector never walks it, whatever the length of the game; ``game-over`` joins it
  into its ``actions`` array as is;
- keep each table's encoded TableInfo until the table changes (see ``quinze_server.lobby``).

Everything here runs in the server's Trio thread (one shared :class:`msgpack.Packer`).
"""

from __future__ import annotations

import logging
import struct
from collections.abc import Mapping
from typing import Any

import msgpack

from quinze_protocol import caches
from quinze_protocol.errors import ProtocolError
from quinze_protocol.framing import unpack_body

log = logging.getLogger("quinze.server")

_packer = msgpack.Packer(use_bin_type=True)
pack = _packer.pack
"""``msgpack.packb(value, use_bin_type=True)`` (the encoding of :func:`quinze_protocol.framing.encode_frame`)."""
_strict = msgpack.Packer(use_bin_type=True, strict_types=True).pack


def pack_data(value: Any) -> bytes:
    """:func:`pack` of ``value`` (a game's view, an event): the same bytes, first by a packer that
    takes only the exact types (``strict_types``: no subclass checks, a fifth less work for a
    view), which packs each of them as the other does; a value it does not take (a tuple, a
    subclass) is packed by :func:`pack`, which raises what it raises."""
    try:
        return _strict(value)
    except (TypeError, ValueError):
        return pack(value)


_SMALL = tuple(pack(n) for n in range(128))
_U8, _U16, _U32 = (struct.Struct(f">B{c}").pack for c in "BHI")
_F64 = struct.Struct(">Bd").pack


def pack_uint(n: int) -> bytes:
    """:func:`pack` of the int ``n`` (``n >= 0``, a request id, a seat) without msgpack's call:
    the same bytes (positive fixint, then uint 8, 16, 32 as small as fits; larger by :func:`pack`)."""
    if n < 128:
        return _SMALL[n] if n >= 0 else pack(n)
    if n < 0x100:
        return _U8(0xCC, n)
    if n < 0x10000:
        return _U16(0xCD, n)
    if n < 0x100000000:
        return _U32(0xCE, n)
    return pack(n)


def pack_float(x: float) -> bytes:
    """:func:`pack` of ``x`` (a float: a deadline, a time) without msgpack's call: the same bytes
    (float 64, big-endian: the packer does not use single floats); anything but a float by :func:`pack`."""
    return _F64(0xCB, x) if type(x) is float else pack(x)


_SCALES = {3: 1000.0, 4: 10000.0}


def rounded(x: float, places: int) -> float:
    """``round(x, places)``, the same float, in fewer steps for ``places`` 3 or 4 and ``0 <= x <
    1e5`` (a time, a deadline: Python's ``round`` with digits goes through a decimal string, about
    2,000 instructions). ``t = x * 10**places`` is within half a unit in its last place of the
    exact product (under 1e-7 here), so unless ``t`` is within 1e-6 of a half (then ``round``
    itself decides), the nearest integer ``n`` to the exact product is the one nearest ``t``, and
    ``n / 10**places``, one correctly rounded division of two exact numbers, is the float nearest
    the decimal ``round`` gives (tests/test_server_wire.py compares them)."""
    scale = _SCALES.get(places)
    if scale is None or type(x) is not float or not 0.0 <= x < 1e5:
        return round(x, places)
    t = x * scale
    n = int(t)
    f = t - n
    if -1e-6 < f - 0.5 < 1e-6:
        return round(x, places)
    return (n + 1 if f > 0.5 else n) / scale


_ARRAY_HEADS = tuple(bytes((0x90 | n,)) for n in range(16))


def map_header(n: int) -> bytes:
    """The header of a map of ``n`` entries."""
    return _packer.pack_map_header(n)


def array_header(n: int) -> bytes:
    """The header of an array of ``n`` items."""
    return _ARRAY_HEADS[n] if 0 <= n < 16 else _packer.pack_array_header(n)


def frame(body: bytes, max_frame: int, what: str) -> bytes | None:
    """``body`` behind its 4-byte big-endian length; None (and logged) if over ``max_frame`` bytes."""
    if len(body) > max_frame:
        log.error("cannot send a %s message: %d bytes exceed the frame limit of %d", what, len(body), max_frame)
        return None
    return len(body).to_bytes(4, "big") + body


_TYPE = pack("type")
_TABLE = pack("table")


_NUMBER = pack("number")


_SEAT_KEY = pack("seat")
_VIEW = pack("view")
_SEAT_VIEW = tuple(_SEAT_KEY + pack(seat) + _VIEW for seat in range(16))
"""The ``seat`` entry of an ``action-request`` of seats 0-15 and the key after it."""
_LEGAL = pack("legal")
_DEADLINE = pack("deadline")
_CLOCK = pack("clock")


class TableWire:
    """The encoded start of one table's ``accepted``, ``event`` and ``action-request`` messages
    (built once per table); they carry the game's ``number`` (PROTOCOL.md "Game boundaries")."""

    __slots__ = ("_accepted", "_event", "_request", "max_frame", "_number", "_tail", "_answer")

    def __init__(self, table_id: str, max_frame: int) -> None:
        t = pack(table_id)
        self._accepted = map_header(4) + _TYPE + pack("accepted") + _TABLE + t + pack("request")
        self._event = map_header(4) + _TYPE + pack("event") + _TABLE + t + pack("event")
        self._request = map_header(9) + _TYPE + pack("action-request") + _TABLE + t + pack("request")
        self._answer = map_header(4) + _TYPE + pack("action") + _TABLE + t + pack("request")
        self.max_frame = max_frame
        self._number = 0
        self._tail = _NUMBER + pack(0)  # the last entry of both, for game _number

    def _end(self, number: int) -> bytes:
        """The encoded ``"number": number`` entry (kept for the game being played)."""
        if number != self._number:
            self._number, self._tail = number, _NUMBER + pack(number)
        return self._tail

    def accepted(self, request: int, number: int) -> bytes:
        """The frame of ``{"type": "accepted", "table", "request", "number"}``."""
        body = self._accepted + pack_uint(request) + (self._tail if number == self._number else self._end(number))
        return len(body).to_bytes(4, "big") + body

    def event(self, data: Mapping[str, Any] | bytes, number: int) -> bytes | None:
        """The frame of ``{"type": "event", "table", "event": data, "number"}`` (``data``: the
        event's form, or its encoding: ``Game.packed_event``; None if over the limit or
        unencodable: the log says why)."""
        try:
            body = self._event + (data if type(data) is bytes else pack_data(data)) + (self._tail if number == self._number else self._end(number))
        except Exception:
            log.exception("cannot encode an event")
            return None
        n = len(body)
        if n > self.max_frame:
            return frame(body, self.max_frame, "event")  # None, and logged
        return n.to_bytes(4, "big") + body

    def answer_head(self, request: int) -> bytes:
        """The body of ``{"type": "action", "table", "request": request, "action": entry}`` up to
        the entry's encoding: what a client answering with a listed entry as it is sends before it."""
        return self._answer + pack_uint(request) + _ACTION

    def request(self, request: int, seat: int, view: Mapping[str, Any] | bytes, offered: list[bytes], deadline: float,
                number: int, clock: bytes) -> bytes | None:
        """The frame of ``{"type": "action-request", "table", "request", "seat", "view", "legal",
        "deadline", "number", "clock"}`` (PROTOCOL.md ``action-request``), ``view`` being the
        view or its encoding (``Game.packed_view``: :func:`pack` of it), ``legal`` the
        array of the ``offered`` entries, each already encoded (:func:`pack` of its data), and
        ``clock`` the clock state encoded (``TableClock.packed_state``). None if over the limit
        or unencodable (the log says why)."""
        try:
            head = self._request + pack_uint(request) + (_SEAT_VIEW[seat] if 0 <= seat < 16 else _SEAT_KEY + pack(seat) + _VIEW)
            body = b"".join((head, view if type(view) is bytes else pack_data(view), _LEGAL, array_header(len(offered)), *offered, _DEADLINE, pack_float(deadline),
                             self._tail if number == self._number else self._end(number), _CLOCK, clock))
        except Exception:
            log.exception("cannot encode an action-request")
            return None
        n = len(body)
        if n > self.max_frame:
            return frame(body, self.max_frame, "action-request")  # None, and logged
        return n.to_bytes(4, "big") + body


ENTRIES_KEPT = 8192
"""Encoded legal entries :func:`entries` keeps per game class before it starts afresh."""
_ENTRIES: dict[type, dict[Any, bytes]] = {}
ANSWERABLE: set[bytes] = set()
"""The entries made by :func:`entries` (the very bytes objects) that a client may send back as
they are, in an ``action`` of four keys, and be read without decoding
(``quinze_server.connection``): each decodes as a frame would (:func:`unpack_body`: a map with
text keys, no binary, extension or non-finite float) to a map whose ``type`` is text, as
``Server.handle`` asks of an ``action``. Emptied with the entries."""


def _entries_kept() -> int:
    return sum(len(kept) for kept in _ENTRIES.values())


def _clear_entries() -> None:
    _ENTRIES.clear()
    ANSWERABLE.clear()


caches.register("quinze_server.wire._ENTRIES", _clear_entries, _entries_kept)


def _answerable(entry: bytes) -> bool:
    try:
        data = unpack_body(entry)
    except ProtocolError:
        return False
    return type(data.get("type")) is str


def _no_entry(action: Any) -> None:
    return None


def entries(game_cls: type, actions: list[Any]) -> list[bytes]:
    """Each of ``actions`` (legal actions of a game of ``game_cls``) as its entry in an
    ``action-request``'s ``legal`` array: :func:`pack` of its ``to_data()``, kept by action (an
    action's data is a function of its value; a game's actions are immutable and hashable) so
    that an action listed again is not converted and encoded again. At most
    :data:`ENTRIES_KEPT` per game class (then the class starts afresh); emptied with the games'
    caches once no table is open (``quinze_protocol.caches``, ``quinze_server.collector.release``).
    Each new entry that may be answered as it is goes into :data:`ANSWERABLE` (checked, unless
    the game encoded it itself: ``Game.packed_entry``, whose encodings are answerable). Unhashable
    actions are encoded each time (and are not answerable so)."""
    kept = _ENTRIES.get(game_cls)
    if kept is None:
        kept = _ENTRIES[game_cls] = {}
    encode = getattr(game_cls, "packed_entry", None) or _no_entry
    out = []
    try:
        for a in actions:
            b = kept.get(a)
            if b is None:
                own = encode(a)  # the game's encoding: answerable (Game.packed_entry)
                b = pack(a.to_data()) if own is None else own
                if len(kept) >= ENTRIES_KEPT:
                    kept.clear()
                    if len(ANSWERABLE) >= 2 * ENTRIES_KEPT:  # (those of entries let go: start afresh)
                        _clear_entries()
                        kept = _ENTRIES[game_cls] = {}
                kept[a] = b
                if own is not None or _answerable(b):
                    ANSWERABLE.add(b)
            out.append(b)
    except TypeError:  # an unhashable action (no game has one): encoded each time
        return [pack(a.to_data()) for a in actions]
    return out


_SEAT = map_header(2) + pack("seat")
_SEAT_TIMED = map_header(3) + pack("seat")
_ACTION = pack("action")
_TIME = pack("time")
_TIMED_HEADS = tuple(_SEAT_TIMED + pack(seat) + _ACTION for seat in range(16))
"""The start of a timed record of seats 0-15, up to its action's value."""


class Records:
    """The actions of one game, in order, as encoded ``{"seat": int, "action": data, "time":
    seconds}`` maps (``time``: how long the seat took; left out when not given).

    ``len(records)`` is the number of actions; :meth:`packed` the msgpack array of them all (the
    ``actions`` of ``game-over``); :meth:`data` the same decoded (for the replay log).
    """

    __slots__ = ("_buf", "_n")

    def __init__(self) -> None:
        self._buf = bytearray()
        self._n = 0

    def __len__(self) -> int:
        return self._n

    def add(self, seat: int, action: Mapping[str, Any], time: float | None = None) -> None:
        """Append one action (``action``: its data, ``Action.to_data()``; ``time``: the seconds
        the seat took). Raises TypeError for data msgpack cannot encode (nothing is appended then)."""
        self.add_packed(seat, pack(action), time)  # packed first: nothing is appended if it cannot be encoded

    def add_packed(self, seat: int, data: bytes, time: float | None = None) -> None:
        """:meth:`add` with the action's data already encoded (``data``: :func:`pack` of it)."""
        buf = self._buf
        if time is None:
            buf += _SEAT + pack(seat) + _ACTION
            buf += data
        else:
            head = _TIMED_HEADS[seat] if 0 <= seat < len(_TIMED_HEADS) else _SEAT_TIMED + pack(seat) + _ACTION
            buf += head
            buf += data
            buf += _TIME
            buf += pack_float(time)
        self._n += 1

    def packed(self) -> bytes:
        """The msgpack array of every action's map."""
        return array_header(self._n) + self._buf

    def data(self) -> list[dict[str, Any]]:
        """Every action as ``{"seat", "action", "time"}`` data, in order."""
        return msgpack.unpackb(self.packed(), raw=False)


def joined_map(head: Mapping[str, Any], key: str, packed_value: bytes) -> bytes:
    """The body of the map ``{**head, key: value}`` where ``packed_value`` is the encoded value."""
    return map_header(len(head) + 1) + pack(head)[_header_size(len(head)):] + pack(key) + packed_value


def _header_size(n: int) -> int:
    return 1 if n < 16 else 3 if n < 65536 else 5
