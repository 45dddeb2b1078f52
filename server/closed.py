"""The closed tables still listed (``list-tables {closed: true}``, PROTOCOL.md), kept as bytes.

A closed table has nothing left to do but be listed and answer the messages still sent to it
with an error. The lobby keeps the last ``closed_tables_kept`` of them here, as one ``bytes``
object holding, for each, its creation number, its id and its encoded TableInfo, and lets the
:class:`~quinze_server.table.Table` itself go: none of its objects (seats, clock, wire, names,
ids, timers) outlives its closing. Those objects were made while tables played, among every
other table's, and each one still alive kept a whole arena of CPython's allocator from going
back to the system once the tables closed. One bytes object of at least :data:`FLOOR` bytes is
given by the C allocator instead (``malloc``, which ``malloc_trim`` returns), whatever the
number kept (docs/server-rounds-early.md, "Memory returned").

The answers of a closed table (:class:`ClosedTable`, made for each message that names one and
dropped after it) are those a closed :class:`~quinze_server.table.Table` gave.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from quinze_server.connection import ClientConnection

__all__ = ["FLOOR", "ClosedTable", "ClosedTables"]

FLOOR = 512
"""The least size of the kept bytes (zeros after the records): CPython's small-object allocator
takes requests of up to 512 bytes, larger ones go to the C allocator."""

_HEAD = struct.Struct(">I")  # the records' length (the rest is padding)
_RECORD = struct.Struct(">IHI")  # creation number, length of the id, length of the TableInfo


class ClosedTables:
    """The last ``kept`` closed tables, oldest first: :meth:`add`, :meth:`get`, iteration gives
    ``(creation number, id, encoded TableInfo)``."""

    def __init__(self, kept: int) -> None:
        self.kept = kept
        self._blob = self._pack(b"")
        self._count = 0

    @staticmethod
    def _pack(records: bytes) -> bytes:
        blob = _HEAD.pack(len(records)) + records
        return blob + bytes(FLOOR - len(blob)) if len(blob) < FLOOR else blob

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[tuple[int, str, bytes]]:
        blob = self._blob
        end = _HEAD.size + _HEAD.unpack_from(blob)[0]
        pos = _HEAD.size
        while pos < end:
            seq, n, m = _RECORD.unpack_from(blob, pos)
            pos += _RECORD.size
            table_id = blob[pos : pos + n].decode()
            yield seq, table_id, blob[pos + n : pos + n + m]
            pos += n + m

    def add(self, seq: int, table_id: str, info: bytes) -> None:
        """Keep one more closed table (the oldest beyond ``kept`` are forgotten)."""
        if self.kept <= 0:
            return
        records = [(s, t, b) for s, t, b in self] + [(seq, table_id, info)]
        records = records[-self.kept :]
        self._count = len(records)
        self._blob = self._pack(b"".join(_RECORD.pack(s, len(t.encode()), len(b)) + t.encode() + b for s, t, b in records))

    def get(self, table_id: str) -> tuple[int, bytes] | None:
        """``(creation number, encoded TableInfo)`` of the kept closed table ``table_id``, or None."""
        for seq, found, info in self:
            if found == table_id:
                return seq, info
        return None

    def __contains__(self, table_id: object) -> bool:
        return isinstance(table_id, str) and self.get(table_id) is not None


class ClosedTable:
    """What a message naming a kept closed table meets: the errors a closed
    :class:`~quinze_server.table.Table` answers (PROTOCOL.md "Errors"), for ``join``,
    ``spectate``, ``leave``, ``action`` and ``forfeit``."""

    __slots__ = ("id",)

    state = "closed"

    def __init__(self, table_id: str) -> None:
        self.id = table_id

    def handle_join(self, conn: ClientConnection, seat: int | None, token: str | None) -> None:
        conn.error("game-not-running", f"table {self.id} is closed", "join")

    def handle_spectate(self, conn: ClientConnection) -> None:
        conn.error("game-not-running", f"table {self.id} is closed", "spectate")

    def handle_leave(self, conn: ClientConnection) -> None:
        conn.error("not-seated", f"you neither hold a seat at nor watch {self.id}", "leave")

    def handle_action(self, conn: ClientConnection, request: int, data: object, number: int | None = None) -> None:
        conn.error("not-seated", f"table {self.id} is closed: its games are over and it has no seats any more", "action")

    def handle_forfeit(self, conn: ClientConnection, kind: str, number: int | None = None) -> None:
        conn.error("not-seated", f"you hold no seat at {self.id}", "forfeit")
