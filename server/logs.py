"""Replay logs written by the server (PROTOCOL.md "Replay log").

When the server has a log directory, each finished game (ended normally or by a forfeit) is
appended to ``<log_dir>/<table>.jsonl`` as JSON Lines: a ``header`` record, then the ``event``
(full information, private parts included) and ``action`` records in the order they happened,
then a ``result`` record. A game's records are written together, then flushed and
``os.fsync``-ed, in a worker thread so the table's clients are not held up.
"""

from __future__ import annotations

import json
import logging
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio

from protocol import __version__
from protocol.game import Event, Result

if TYPE_CHECKING:
    from server.table import Table

log = logging.getLogger("quinze.server")

LOG_FORMAT = 1
SOFTWARE = f"quinze {__version__}"


def utc_now() -> str:
    """Now as ISO-8601 UTC, e.g. ``2026-11-29T17:02:03.123456+00:00``."""
    return datetime.now(timezone.utc).isoformat()


def dumps_records(records: list[dict[str, Any]]) -> str:
    """Records as JSON Lines (compact, UTF-8 text, one ``\\n`` after each)."""
    return "".join(json.dumps(r, separators=(",", ":"), ensure_ascii=False) + "\n" for r in records)


def append_fsync(path: Path, text: str) -> None:
    """Append ``text`` to ``path`` (created with its directory), flush and fsync. Raises OSError."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())


class GameLog:
    """The records of one game being played at ``table``, gathered as it goes."""

    def __init__(self, table: Table, commitment: str) -> None:
        self.table_id = table.id
        self.records: list[dict[str, Any]] = [
            {
                "record": "header",
                "format": LOG_FORMAT,
                "game": table.game_cls.id,
                "number": table.number,
                "table": table.id,
                "options": dict(table.options),
                "seed": table.seed,
                "salt": table.salt,
                "commitment": commitment,
                "players": list(table.players),
                "software": SOFTWARE,
                "started": utc_now(),
            }
        ]

    def event(self, ev: Event) -> None:
        self.records.append({"record": "event", "event": ev.full()})

    def action(self, seat: int, data: dict[str, Any]) -> None:
        self.records.append({"record": "action", "seat": seat, "action": data})

    async def finish(self, log_dir: Path | None, result: Result, forfeit: dict[str, Any] | None) -> None:
        """Add the ``result`` record and append the game to ``<log_dir>/<table>.jsonl`` (fsynced).
        A failure to write is logged, never raised: the games go on."""
        self.records.append({"record": "result", "result": result.to_data(), "forfeit": forfeit, "ended": utc_now()})
        if log_dir is None:
            return
        text = dumps_records(self.records)
        path = Path(log_dir) / f"{self.table_id}.jsonl"
        try:
            await trio.to_thread.run_sync(append_fsync, path, text)
        except OSError as e:
            log.error("cannot write the log %s: %s", path, e)
