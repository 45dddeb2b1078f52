"""Server settings (PROTOCOL.md "Framing" and "Flow").

Every duration is in seconds (float). ``port=0`` asks the system for a free port (tests);
:func:`quinze_server.app.run_server` reports the real one through ``task_status.started(port)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from quinze_protocol.fields import MAX_MOVE_TIME
from quinze_protocol.framing import DEFAULT_MAX_FRAME

DEFAULT_PORT = 15015
"""The port ``quinze serve`` listens on unless told otherwise."""

DEFAULT_HOST = "127.0.0.1"
"""Loopback only by default, for safety; ``--host 0.0.0.0`` serves the local network."""

MAX_ELEMENTS = 4096
"""Values one client frame may hold (arrays, maps, elements, entries): no client message needs
more than a few dozen, and reading 4096 costs well under a millisecond (PROTOCOL.md "Framing")."""

TABLE_IDLE = 600.0
"""Default seconds a table waiting for players stays open with nobody taking a seat
(``ServerConfig.table_idle``): ten minutes, long enough to tell a friend which table to join."""

THINKING_LONG = 30.0
"""Default seconds a seat may decide before the others get ``notice{kind: "thinking"}``
(``ServerConfig.thinking_long``)."""


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """How one server runs.

    - ``host``, ``port``: where to listen (``port=0``: any free port).
    - ``log_dir``: where finished games are appended as ``<table>.jsonl`` replay logs; None = no logs.
    - ``move_time``: default seconds per decision when a table does not choose (PROTOCOL.md: 60).
    - ``heartbeat``: seconds between server pings; a client that sends nothing (no pong, no message)
      for 3 heartbeats is dropped then (PROTOCOL.md "Flow" 7; :class:`quinze_server.clock.Heartbeats`).
    - ``max_frame``: largest frame body in bytes.
    - ``send_queue``: frames waiting for one client before it counts as not reading and is dropped.
    - ``send_timeout``: seconds one frame may take to send before the client is dropped.
    - ``shutdown_grace``: seconds given to clients to receive ``bye`` when the server stops.
    - ``shutdown_log_time``: seconds (from the start of the shutdown) the logs of the games it
      aborted may take to be written; a log not begun by then is not written (and named).
    - ``closed_tables_kept``: closed tables still listed by ``list-tables {closed: true}``
      (oldest forgotten first).
    - ``max_elements``: values one client frame may hold (``too-many-elements`` beyond).
    - ``max_tables``: tables open at once (waiting or playing) on this server;
      ``max_tables_per_connection``: open tables one connection created; more is
      ``too-many-tables``.
    - ``table_idle``: seconds a table waiting for players stays open while nobody takes a seat
      (counted from its creation or the last seat taken); then it closes
      (``table-closed`` to whoever watches or sits there). Default :data:`TABLE_IDLE` (600).
    - ``page_size``: tables in one ``tables`` answer unless ``list-tables.limit`` says otherwise
      (and never more than fit in a frame).
    - ``cpu_share``, ``cpu_burst``: the server time one connection's messages may use, the
      moves it plays aside: on average ``cpu_share`` of the time (0.1: a tenth), at most
      ``cpu_burst`` seconds at once; a connection over its share is read again only once back
      within it (its messages wait, nothing is lost), so one flooding client cannot slow the
      other tables down.
    - ``thinking_long``: seconds a seat may decide before the others get ``notice{kind:
      "thinking"}`` (once per decision; PROTOCOL.md "Notices"), default
      :data:`THINKING_LONG` (30).
    - ``builtin_bots``: every bot that connects is a built-in one run by us (``quinze play
      --local``), so bots may sit at tables without a clock.
    """

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    log_dir: Path | None = None
    move_time: float = 60.0
    heartbeat: float = 10.0
    max_frame: int = DEFAULT_MAX_FRAME
    send_queue: int = 256
    send_timeout: float = 10.0
    shutdown_grace: float = 2.0
    shutdown_log_time: float = 60.0
    closed_tables_kept: int = 100
    max_elements: int = MAX_ELEMENTS
    max_tables: int = 1000
    max_tables_per_connection: int = 20
    page_size: int = 100
    cpu_share: float = 0.1
    cpu_burst: float = 0.05
    builtin_bots: bool = False
    thinking_long: float = THINKING_LONG
    table_idle: float = TABLE_IDLE

    def __post_init__(self) -> None:
        for name in ("move_time", "heartbeat", "send_timeout", "thinking_long", "table_idle"):
            if not 0 < getattr(self, name) < math.inf:
                raise ValueError(f"{name} must be positive, finite seconds, got {getattr(self, name)!r}")
        if self.move_time > MAX_MOVE_TIME:  # a table's clock may not be longer (PROTOCOL.md "Clocks")
            raise ValueError(f"move_time must be at most {MAX_MOVE_TIME:g} seconds, got {self.move_time!r}")
        if not 0 <= self.port <= 65535:
            raise ValueError(f"port must be 0..65535, got {self.port}")
        if self.send_queue < 1:
            raise ValueError(f"send_queue must be at least 1, got {self.send_queue}")
        if self.max_frame < 64:
            raise ValueError(f"max_frame must be at least 64 bytes, got {self.max_frame}")
        for name in ("max_elements", "max_tables", "max_tables_per_connection", "page_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if not 0 < self.cpu_share <= 1 or not self.cpu_burst > 0:
            raise ValueError(f"cpu_share must be in (0, 1] and cpu_burst positive, got {self.cpu_share}, {self.cpu_burst}")
