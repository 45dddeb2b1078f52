"""Who is at one table: its seats (name, secret token, connection) and its spectators, and
sending to them (PROTOCOL.md "Flow" 1 and 6, `join`, `spectate`, `leave`, `notice`).

:class:`Seats` owns the people side of a :class:`quinze_server.table.Table`; the table owns
the games (its state, the running game, the open request) and asks :class:`Seats` to:

- take a seat (``join``): a free one, or back a held one with its token (``resumed``); the
  connection that held it before, if any, is told ``left``;
- watch (``spectate``), stop watching or give a seat up (``leave``), or lose a connection
  (``dropped``: a seat is freed before the first game, else kept for its token);
- send: one encoded frame to everyone, each event as each receiver may see it
  (``Event.for_seat``, encoded once per form), ``notice`` to the people only (seats not held by
  bots, and spectators), and ``table-closed`` when the table closes.

A refusal is sent to the asker as ``error`` with the documented code (``seat-taken``,
``bad-token``, ``table-full``, ``bad-field``, ``not-seated``) and changes nothing.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from quinze_protocol.game import Event


def _no_packed(event: Event, seat: int | None) -> None:
    return None

if TYPE_CHECKING:
    from quinze_server.connection import ClientConnection
    from quinze_server.lobby import Lobby
    from quinze_server.table import Table
    from quinze_server.wire import TableWire


class Seat:
    """One seat: ``name`` (None when free), secret ``token``, ``conn`` (None when dropped)."""

    __slots__ = ("index", "name", "token", "conn")

    def __init__(self, index: int) -> None:
        self.index = index
        self.name: str | None = None
        self.token: str | None = None
        self.conn: ClientConnection | None = None

    @property
    def held(self) -> bool:
        return self.token is not None

    def free(self) -> None:
        self.name = self.token = None
        self.conn = None


class Seats:
    """The ``count`` seats and the spectators of table ``table_id`` (``lobby``: encoding and
    the log of what could not be sent). Indexing and iterating give the :class:`Seat` objects."""

    def __init__(self, table_id: str, count: int, lobby: Lobby) -> None:
        self.table_id = table_id
        self.lobby = lobby
        self.list = [Seat(i) for i in range(count)]
        self.spectators: set[ClientConnection] = set()
        self._people: bool | None = None  # has_people, until who sits or watches changes

    def __len__(self) -> int:
        return len(self.list)

    def __iter__(self) -> Iterator[Seat]:
        return iter(self.list)

    def __getitem__(self, index: int) -> Seat:
        return self.list[index]

    def of(self, conn: ClientConnection) -> Seat | None:
        """The seat ``conn`` holds, or None."""
        for s in self.list:
            if s.conn is conn:
                return s
        return None

    @property
    def all_held(self) -> bool:
        """Every seat has a holder (connected or not)."""
        return all(s.held for s in self.list)

    @property
    def all_connected(self) -> bool:
        return all(s.conn is not None for s in self.list)

    def names(self) -> list[str]:
        """The holders' names by seat (``""`` for a free seat)."""
        return [s.name or "" for s in self.list]

    def receivers(self) -> list[ClientConnection]:
        """Every connected seat's connection, then the spectators."""
        return [s.conn for s in self.list if s.conn is not None] + list(self.spectators)

    # ------------------------------------------------------------------ sending

    def to_all_frame(self, frame: bytes) -> None:
        """One encoded message to every seat and spectator."""
        for s in self.list:
            if s.conn is not None:
                s.conn.send_frame(frame)
        for c in list(self.spectators):
            c.send_frame(frame)

    def to_all_each(self, message: Any) -> None:
        """``message(seat)`` to each connected seat, ``message(None)`` (encoded once) to the spectators."""
        for s in self.list:
            if s.conn is not None:
                s.conn.send(message(s.index))
        if self.spectators:
            public = message(None)
            frame = self.lobby.encode(public)
            if frame is None:
                self.lobby.unsendable(self.spectators, public)
                return
            for c in list(self.spectators):
                c.send_frame(frame)

    @property
    def has_people(self) -> bool:
        """True if a :meth:`notice` would reach anyone: a seat not held by a bot, or a spectator.
        Kept until who sits or watches changes (every change is made here: :meth:`_changed`);
        a connection's role is set by its ``hello``, before it can sit or watch."""
        people = self._people
        if people is None:
            people = self._people = bool(self.spectators) or any(s.conn is not None and s.conn.role != "bot" for s in self.list)
        return people

    def _changed(self) -> None:
        """Who sits or watches changed: :attr:`has_people` is worked out again when next asked."""
        self._people = None

    def notice(self, kind: str, seat: int | None, *, skip: ClientConnection | None = None, **extra: Any) -> None:
        """``notice`` (PROTOCOL.md) to the people at the table: seats not held by bots, spectators."""
        msg = {"type": "notice", "table": self.table_id, "kind": kind, "seat": seat, "clock": None, "seconds": None,
               **extra}
        targets = [s.conn for s in self.list if s.conn is not None and s.conn.role != "bot"] + list(self.spectators)
        frame = None
        for c in targets:
            if c is skip:
                continue
            if frame is None:
                frame = self.lobby.encode(msg)
                if frame is None:
                    return
            c.send_frame(frame)

    def events(self, events: list[Event], number: int, wire: TableWire,
               packed: Callable[[Event, int | None], bytes | None] | None = None) -> None:
        """Each event to each seat as it may see it (``Event.for_seat``), to spectators as public.
        Encoded once for all who see the same: the public form, and each private one, or taken
        from the game's kept encodings (``packed``: ``Game.packed_event``); each carries the
        game's ``number``. One that cannot be encoded is told to its receivers."""
        event = wire.event
        pk = packed or _no_packed
        for ev in events:
            private = ev.private
            if not private:  # the usual event: one form for all (Event.for_seat(None), inline)
                public = event(pk(ev, None) or {"kind": ev.kind, **ev.public}, number)
                if public is None:
                    self.lobby.unsendable(self.receivers(), {"type": "event"})
                    continue
                for s in self.list:
                    if s.conn is not None:
                        s.conn.send_frame(public)
                if self.spectators:
                    for c in list(self.spectators):
                        c.send_frame(public)
                continue
            public = None
            made = False
            for s in self.list:
                conn = s.conn
                if conn is None:
                    continue
                if s.index in private:
                    f = event(pk(ev, s.index) or ev.for_seat(s.index), number)
                else:
                    if not made:
                        public, made = event(pk(ev, None) or ev.for_seat(None), number), True
                    f = public
                if f is not None:
                    conn.send_frame(f)
                else:
                    self.lobby.unsendable([conn], {"type": "event"})
            if self.spectators:
                if not made:
                    public, made = event(pk(ev, None) or ev.for_seat(None), number), True
                if public is not None:
                    for c in list(self.spectators):
                        c.send_frame(public)
                else:
                    self.lobby.unsendable(self.spectators, {"type": "event"})

    # ------------------------------------------------------------------ joining and leaving

    def join(self, conn: ClientConnection, seat: int | None, token: str | None, *, open_: bool,
             table: Table) -> tuple[Seat, ClientConnection | None] | None:
        """``join`` (PROTOCOL.md "Flow" 1 and 6): with ``token``, take back the seat it holds
        (the connection there before, if another, is told ``left``); else take seat ``seat``, or
        the first free one, while the table is ``open_`` (waiting for its first game or the
        next). ``table`` is added to ``conn.tables``. Sends ``joined``; returns the seat and the
        connection that held it before (resumed seats only), or None after sending the refusal."""
        self._changed()
        tid = self.table_id
        mine = self.of(conn)
        if token is not None:
            found = None
            for s in self.list:
                if s.token is not None and secrets.compare_digest(s.token, token):
                    found = s
            if found is None or (seat is not None and found.index != seat):
                conn.error("bad-token", f"this token holds no seat at {tid}" if found is None
                           else f"this token is not for seat {seat}", "join")
                return None
            if mine is not None and mine is not found:
                conn.error("seat-taken", f"you already hold seat {mine.index} at {tid}", "join")
                return None
            old = found.conn
            if old is not None and old is not conn:
                old.tables.discard(table)
                old.send({"type": "left", "table": tid})
            self.spectators.discard(conn)
            found.conn = conn
            found.name = conn.name
            conn.tables.add(table)
            conn.send({"type": "joined", "table": tid, "seat": found.index, "token": found.token, "resumed": True})
            return found, old
        if mine is not None:
            conn.error("seat-taken", f"you already hold seat {mine.index} at {tid}", "join")
            return None
        if not open_:
            conn.error("table-full", f"table {tid} is playing; only a seat's token can take it back", "join")
            return None
        if seat is not None:
            if seat >= len(self.list):
                conn.error("bad-field", f"join.seat: table {tid} has seats 0..{len(self.list) - 1}, got {seat}", "join")
                return None
            target = self.list[seat]
            if target.held:
                conn.error("seat-taken", f"seat {seat} at {tid} is taken", "join")
                return None
        else:
            free = [s for s in self.list if not s.held]
            if not free:
                conn.error("table-full", f"every seat at {tid} is taken", "join")
                return None
            target = free[0]
        self.spectators.discard(conn)
        target.name = conn.name
        target.token = secrets.token_hex(16)
        target.conn = conn
        conn.tables.add(table)
        conn.send({"type": "joined", "table": tid, "seat": target.index, "token": target.token, "resumed": False})
        return target, None

    def watch(self, conn: ClientConnection, table: Table) -> bool:
        """``spectate``: ``conn`` watches (``spectating`` sent); False after refusing a seat holder."""
        self._changed()
        mine = self.of(conn)
        if mine is not None:
            conn.error("seat-taken", f"you hold seat {mine.index} at {self.table_id}; leave it to watch", "spectate")
            return False
        self.spectators.add(conn)
        conn.tables.add(table)
        conn.send({"type": "spectating", "table": self.table_id})
        return True

    def leave(self, conn: ClientConnection, table: Table) -> Seat | None:
        """``leave``: free the seat ``conn`` holds (returned) or stop its watching, ``left`` sent;
        ``not-seated`` when it does neither (None)."""
        self._changed()
        mine = self.of(conn)
        if mine is not None:
            mine.free()
            conn.tables.discard(table)
            conn.send({"type": "left", "table": self.table_id})
            return mine
        if conn in self.spectators:
            self.spectators.discard(conn)
            conn.tables.discard(table)
            conn.send({"type": "left", "table": self.table_id})
            return None
        conn.error("not-seated", f"you neither hold a seat at nor watch {self.table_id}", "leave")
        return None

    def dropped(self, conn: ClientConnection, *, free: bool) -> Seat | None:
        """``conn`` is gone: it stops watching; the seat it held (returned) is freed when ``free``,
        else kept, without a connection, for its token."""
        self._changed()
        self.spectators.discard(conn)
        mine = self.of(conn)
        if mine is None:
            return None
        if free:
            mine.free()
        else:
            mine.conn = None
        return mine

    def close(self, table: Table) -> None:
        """The table closes: ``table-closed`` to everyone, every seat and watcher let go."""
        self._changed()
        msg = {"type": "table-closed", "table": self.table_id}
        for s in self.list:
            if s.conn is not None:
                s.conn.send(msg)
                s.conn.tables.discard(table)
                s.conn = None
            s.token = None
        for c in list(self.spectators):
            c.send(msg)
            c.tables.discard(table)
        self.spectators.clear()
