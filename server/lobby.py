"""The lobby: tables by id, created on request, each played by its own task (PROTOCOL.md "Flow" 1).

Table ids are ``"<run>-t1"``, ``"<run>-t2"``, ... in order of creation, ``<run>`` being the
server run id (:func:`quinze_server.logs.new_run_id`, fresh each time a server starts), so a table id
never names two tables, even across restarts, and neither does a log file name. Closed tables
stay listed (state ``"closed"``, only by ``list-tables {closed: true}``) until
``ServerConfig.closed_tables_kept`` newer ones closed. At most ``max_tables`` tables are open (waiting or playing) at once, and
``max_tables_per_connection`` of them created by one connection (``too-many-tables``). A
``tables`` answer is one page that always fits in a frame, with the ``total`` count.

Abandoned tables close, so no one connection can keep the open tables' limit filled for good
(many connections that stay can: the limits are per connection and per server, none per address)
(PROTOCOL.md "Timeouts and limits"): a waiting table with no seat held closes when the
connection that created it is gone (at once if it already is; else when its last seated
player leaves or drops before the game), and a waiting table where nobody takes a seat for
``ServerConfig.table_idle`` seconds closes (:meth:`quinze_server.table.Table.run`).

Request ids come from one counter for the whole server run, so no two requests of a server
run (whatever their table or game) share an id: an answer to a request of an earlier game can
never be taken for an answer to the running one (PROTOCOL.md "Game boundaries").
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import trio

from quinze_protocol.errors import ProtocolError
from quinze_server import wire
from quinze_protocol.game import GameError, get_game
from quinze_server.closed import ClosedTable, ClosedTables
from quinze_server.config import ServerConfig
from quinze_server.logs import new_run_id
from quinze_server.table import Table

if TYPE_CHECKING:
    from quinze_server.connection import ClientConnection

log = logging.getLogger("quinze.server")


_TABLES_HEAD = wire.map_header(4) + wire.pack("type") + wire.pack("tables") + wire.pack("tables")
"""The start of a ``tables`` frame: ``{"type": "tables", "tables": [...], "total": n, "offset": k}``."""


def _creation(table_id: str) -> int:
    """The creation number of a table id (``RUN-tN``: N)."""
    return int(table_id.rsplit("-t", 1)[1])


class Lobby:
    """Every table of one server. ``nursery`` runs the table tasks; ``ended`` (if given) is
    called each time a table closes."""

    def __init__(self, config: ServerConfig, nursery: trio.Nursery, *, ended: Callable[[], None] | None = None) -> None:
        self.config = config
        self.nursery = nursery
        self._ended = ended
        self.now: Callable[[], float] = trio.lowlevel.current_clock().current_time
        """The run's clock, read directly: what :func:`trio.current_time` returns (seconds), in
        one Python call instead of four (it asks the run for its runner, the runner its clock)."""
        self.tables: dict[str, Table] = {}
        self._closed = ClosedTables(config.closed_tables_kept)  # kept as bytes, the Table let go
        self._next = 1
        self._request = 0
        self.open_tables = 0
        """Tables waiting or playing."""
        self._created: dict[int, dict[Table, None]] = {}  # connection id -> open tables it created
        self.run = new_run_id(config.log_dir)
        """This server run's id: the prefix of its table ids, written in every log header."""
        self.stopping = False
        """Set when the server shuts down: no table starts another game (see ``quinze_server.app``)."""
        self._listing: bytes | None = None  # the tables frame, until a table changes
        self._bodies: dict[str, bytes] = {}  # each listed table's encoded TableInfo, in listing order
        self._dirty: dict[Table, None] = {}  # tables whose TableInfo changed since the last listing

    def listing_changed(self, table: Table | None = None) -> None:
        """``table`` changed what its TableInfo shows (or a table was created or forgotten)."""
        self._listing = None
        if table is not None:
            self._dirty[table] = None

    def next_request(self) -> int:
        """A request id never used before in this server run."""
        self._request += 1
        return self._request

    def encode(self, msg: dict[str, Any]) -> bytes | None:
        """``msg`` as one frame; None (and the log says why) if it cannot be encoded or is over
        ``max_frame``. The caller tells the client (:meth:`unsendable`)."""
        try:
            body = wire.pack(msg)
        except Exception as e:
            log.warning("cannot send a %s message: %s: %s", msg.get("type"), type(e).__name__, e)
            return None
        n = len(body)
        if n > self.config.max_frame:
            return wire.frame(body, self.config.max_frame, str(msg.get("type")))  # None, and logged
        return n.to_bytes(4, "big") + body

    @staticmethod
    def unsendable(conns: Any, msg: dict[str, Any]) -> None:
        """Tell each of ``conns`` that a ``msg`` meant for it could not be sent (never silently)."""
        t = msg.get("type")
        for c in list(conns):
            c.error("server-error", f"the server could not send you a {t} message (too large for a frame, or not encodable); the server log says more")

    def listing(self, *, closed: bool = False, table: str | None = None, offset: int = 0, limit: int | None = None) -> bytes | None:
        """The frame of the ``tables`` answer to ``list-tables`` (PROTOCOL.md): one page of
        TableInfo in order of creation (closed tables only with ``closed``), with ``total`` (every
        table asked for) and ``offset``, cut so that it fits in a frame. The default listing (no
        field given), the frequent one, is joined from each table's encoded TableInfo and kept
        until a table changes (only the tables that changed are encoded again)."""
        size = self.config.page_size if limit is None else limit
        if not closed and table is None and offset == 0 and limit is None:
            if self._listing is None:
                bodies = self._bodies
                for t in self._dirty:
                    if t.id in bodies:
                        bodies[t.id] = t.info_body()
                self._dirty.clear()
                listed = list(bodies)[:size]
                self._listing = self._page([bodies[tid] for tid in listed], len(bodies), 0)
            return self._listing
        if table is not None:
            found = self.tables.get(table)
            kept = self._closed.get(table) if found is None and closed else None
            chosen = [found.info_body()] if found is not None else [kept[1]] if kept is not None else []
        elif closed:  # open and closed tables, in order of creation
            every = [(_creation(t.id), t.info_body()) for t in self.tables.values()]
            every.extend((seq, info) for seq, _, info in self._closed)
            every.sort(key=lambda e: e[0])
            chosen = [info for _, info in every]
        else:
            chosen = [t.info_body() for t in self.tables.values()]
        return self._page(chosen[offset : offset + size], len(chosen), offset)

    def _page(self, bodies: list[bytes], total: int, offset: int) -> bytes | None:
        """The ``tables`` frame of these encoded TableInfo, halved until it fits in a frame."""
        tail = wire.pack("total") + wire.pack(total) + wire.pack("offset") + wire.pack(offset)
        while True:
            body = _TABLES_HEAD + wire.array_header(len(bodies)) + b"".join(bodies) + tail
            if len(body) <= self.config.max_frame or not bodies:
                break
            bodies = bodies[: len(bodies) // 2]  # too large for one frame: a shorter page (total says the rest)
        return wire.frame(body, self.config.max_frame, "tables")

    def table_for(self, conn: ClientConnection, table_id: str, ref: str) -> Table | ClosedTable:
        """The table ``table_id`` (a closed one still kept: its :class:`ClosedTable`, made for
        this message). Raises ``ProtocolError("unknown-table")``."""
        table = self.tables.get(table_id)
        if table is None:
            if table_id in self._closed:
                return ClosedTable(table_id)
            raise ProtocolError("unknown-table", f"no table {table_id!r}", f"{ref}.table", ref=ref)
        return table

    def create(
        self,
        conn: ClientConnection,
        game_id: str,
        options: Mapping[str, Any],
        *,
        seed: int | None,
        games: int,
        move_time: float,
        clock: Mapping[str, Any] | None = None,
        seat_move_times: tuple[float | None, ...] | None = None,
        position: Mapping[str, Any] | None = None,
    ) -> Table | None:
        """``create-table``: check the game and options (``unknown-game``, ``bad-option`` naming
        the option; ``seat_move_times`` one entry per seat) and the table limits
        (``too-many-tables``), start the table's task, answer ``table-created``."""
        config = self.config
        if self.open_tables >= config.max_tables:
            conn.error("too-many-tables", f"this server has {self.open_tables} open tables, its limit "
                       f"(max_tables {config.max_tables}); try again once some have closed", "create-table")
            return None
        mine = len(self._created.get(conn.id, ()))
        if mine >= config.max_tables_per_connection:
            conn.error("too-many-tables", f"this connection created {mine} tables still open, its limit "
                       f"(max_tables_per_connection {config.max_tables_per_connection})", "create-table")
            return None
        try:
            game_cls = get_game(game_id)
            if position is not None:
                try:
                    start = game_cls.from_position(position)
                except GameError as e:
                    where = f".{e.field}" if e.field else ""
                    conn.error("bad-option", f"create-table.position{where}: {e.reason}", "create-table")
                    return None
                if options and game_cls.validate_options(options) != start.options:
                    conn.error("bad-option", "create-table.options: not the position's options (give none, or the same)",
                               "create-table")
                    return None
                options = start.options
            checked = game_cls.validate_options(options)
        except GameError as e:
            code = "unknown-game" if e.code == "unknown-game" else "bad-option"
            where = f"create-table.options.{e.field}: " if code == "bad-option" and e.field else ""
            conn.error(code, f"{where}{e.reason}", "create-table")
            return None
        if seat_move_times is not None and len(seat_move_times) != checked["players"]:
            conn.error("bad-option", f"create-table.seat_move_times: {len(seat_move_times)} entries for "
                                     f"{checked['players']} seats", "create-table")
            return None
        table_id = f"{self.run}-t{self._next}"
        self._next += 1
        table = Table(self, table_id, game_cls, checked, seed=seed, games=games, move_time=move_time,
                      seat_move_times=seat_move_times, position=position, clock=clock)
        table.creator = conn.id
        self.tables[table_id] = table
        self.open_tables += 1
        self._created.setdefault(conn.id, {})[table] = None
        self._bodies[table_id] = b""
        self.listing_changed(table)
        self.nursery.start_soon(table.run, name=f"table {table_id}")
        conn.send({"type": "table-created", "table": table.info()})
        log.info("table %s created by %s: %s, %d players, %d game(s)", table_id, conn.name, game_id, checked["players"], games)
        return table

    def table_closed(self, table: Table) -> None:
        """Keep the closed table listed (as bytes, :class:`ClosedTables`: the Table itself is let
        go), forgetting the oldest closed ones beyond the limit."""
        self.open_tables -= 1
        made = self._created.get(table.creator)
        if made is not None:
            made.pop(table, None)
            if not made:
                del self._created[table.creator]
        self._closed.add(_creation(table.id), table.id, table.info_body())
        self.tables.pop(table.id, None)
        self._bodies.pop(table.id, None)
        self._dirty.pop(table, None)
        self.listing_changed()
        if self._ended is not None:
            self._ended()

    def dropped(self, conn: ClientConnection) -> None:
        """``conn`` is gone: every table it sat at or watched is told, then every table it
        created (one still waiting with no seat held closes: :meth:`Table.creator_left`)."""
        for table in list(conn.tables):
            try:
                table.dropped(conn)
            except Exception:
                log.exception("table %s: dropping %r failed", table.id, conn)
        conn.tables.clear()
        for table in list(self._created.get(conn.id, ())):
            try:
                table.creator_left()
            except Exception:
                log.exception("table %s: its creator %r leaving failed", table.id, conn)
