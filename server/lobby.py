"""The lobby: tables by id, created on request, each played by its own task (PROTOCOL.md "Flow" 1).

Table ids are ``"<run>-t1"``, ``"<run>-t2"``, ... in order of creation, ``<run>`` being the
server run id (:func:`server.logs.new_run_id`, fresh each time a server starts), so a table id
never names two tables, even across restarts, and neither does a log file name. Closed tables
stay listed (state ``"closed"``) until ``ServerConfig.closed_tables_kept`` newer ones closed.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import trio

from protocol.errors import ProtocolError
from server import wire
from protocol.game import GameError, get_game
from server.config import ServerConfig
from server.logs import new_run_id
from server.table import Table

if TYPE_CHECKING:
    from server.connection import Connection

log = logging.getLogger("quinze.server")


_TABLES_HEAD = wire.map_header(2) + wire.pack("type") + wire.pack("tables") + wire.pack("tables")


class Lobby:
    """Every table of one server. ``nursery`` runs the table tasks."""

    def __init__(self, config: ServerConfig, nursery: trio.Nursery) -> None:
        self.config = config
        self.nursery = nursery
        self.tables: dict[str, Table] = {}
        self._closed: deque[str] = deque()
        self._next = 1
        self.run = new_run_id(config.log_dir)
        """This server run's id: the prefix of its table ids, written in every log header."""
        self.stopping = False
        """Set when the server shuts down: no table starts another game (see ``server.app``)."""
        self._listing: bytes | None = None  # the tables frame, until a table changes
        self._bodies: dict[str, bytes] = {}  # each listed table's encoded TableInfo, in listing order
        self._dirty: dict[Table, None] = {}  # tables whose TableInfo changed since the last listing

    def listing_changed(self, table: Table | None = None) -> None:
        """``table`` changed what its TableInfo shows (or a table was created or forgotten)."""
        self._listing = None
        if table is not None:
            self._dirty[table] = None

    def encode(self, msg: dict[str, Any]) -> bytes | None:
        """``msg`` as one frame; None (and logged) if it cannot be encoded or is over ``max_frame``."""
        try:
            body = wire.pack(msg)
        except Exception:
            log.exception("cannot encode a %s message", msg.get("type"))
            return None
        return wire.frame(body, self.config.max_frame, str(msg.get("type")))

    def infos(self) -> list[dict[str, Any]]:
        """TableInfo of every listed table, in order of creation."""
        return [t.info() for t in self.tables.values()]

    def tables_frame(self) -> bytes | None:
        """The frame of ``{"type": "tables", "tables": infos()}``, joined from each table's encoded
        TableInfo and kept until a table changes (lobby listings are frequent, changes rarer)."""
        if self._listing is None:
            bodies = self._bodies
            for t in self._dirty:  # only the tables that changed are encoded again
                if t.id in bodies:
                    bodies[t.id] = t.info_body()
            self._dirty.clear()
            body = _TABLES_HEAD + wire.array_header(len(bodies)) + b"".join(bodies.values())
            self._listing = wire.frame(body, self.config.max_frame, "tables")
        return self._listing

    def table_for(self, conn: Connection, table_id: str, ref: str) -> Table:
        """The table ``table_id``. Raises ``ProtocolError("unknown-table")``."""
        table = self.tables.get(table_id)
        if table is None:
            raise ProtocolError("unknown-table", f"no table {table_id!r}", f"{ref}.table", ref=ref)
        return table

    def create(
        self,
        conn: Connection,
        game_id: str,
        options: Mapping[str, Any],
        *,
        seed: int | None,
        games: int,
        move_time: float,
        seat_move_times: tuple[float | None, ...] | None = None,
        position: Mapping[str, Any] | None = None,
    ) -> Table | None:
        """``create-table``: check the game and options (``unknown-game``, ``bad-option`` naming
        the option; ``seat_move_times`` one entry per seat), start the table's task, answer
        ``table-created``."""
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
            game_cls.new(checked, 0)  # options the game refuses only together fail here, not at the table
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
                      seat_move_times=seat_move_times, position=position)
        self.tables[table_id] = table
        self._bodies[table_id] = b""
        self.listing_changed(table)
        self.nursery.start_soon(table.run, name=f"table {table_id}")
        conn.send({"type": "table-created", "table": table.info()})
        log.info("table %s created by %s: %s, %d players, %d game(s)", table_id, conn.name, game_id, checked["players"], games)
        return table

    def table_closed(self, table: Table) -> None:
        """Keep the closed table listed, forgetting the oldest closed ones beyond the limit."""
        self._closed.append(table.id)
        while len(self._closed) > self.config.closed_tables_kept:
            gone = self._closed.popleft()
            forgotten = self.tables.pop(gone, None)
            self._bodies.pop(gone, None)
            self._dirty.pop(forgotten, None)  # type: ignore[arg-type]
        self.listing_changed(table)

    def dropped(self, conn: Connection) -> None:
        """``conn`` is gone: every table it sat at or watched is told."""
        for table in list(conn.tables):
            try:
                table.dropped(conn)
            except Exception:
                log.exception("table %s: dropping %r failed", table.id, conn)
        conn.tables.clear()
