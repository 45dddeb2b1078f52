"""Where ``quinze play`` keeps its seat tokens, so a restarted client takes its seat back.

A ``joined`` message carries a secret seat token (PROTOCOL.md ``joined``); with it a new
connection takes the same seat again (``join`` with ``token``). The client writes each token to
``$XDG_CACHE_HOME/quinze/seats.json`` (default ``~/.cache/quinze/seats.json``, mode 0600), keyed
by ``HOST:PORT/TABLE/NAME`` (NAME: the player's name, asked at start or ``--name``), so two people
sharing one account on one machine never share a key, and forgets it when the table closes or the
server refuses it (``bad-token``). ``quinze play --table ID`` and the lobby look there first, but a
kept token is used only when its seat is not held by a connected client
(:func:`quinze_cli.play.table.join_table`); ``--token`` gives one explicitly.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from quinze_protocol.jsontext import loads_json

__all__ = ["TokenStore"]


def _default_path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "quinze" / "seats.json"


class TokenStore:
    """Seat tokens by ``HOST:PORT/TABLE/NAME`` in one small JSON file (``path``). Never raises on I/O:
    a token that cannot be kept only means no automatic resume."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or _default_path()

    @staticmethod
    def key(host: str, port: int, table: str, name: str) -> str:
        """``"HOST:PORT/TABLE/NAME"``: one kept seat per server, table and player name."""
        return f"{host}:{port}/{table}/{name}"

    def _load(self) -> dict[str, Any]:
        try:
            data = loads_json(self.path.read_text(encoding="utf-8"))
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    def get(self, key: str) -> dict[str, Any] | None:
        """``{"seat": int, "token": str, "name": str}`` kept for ``key``, or None."""
        entry = self._load().get(key)
        return entry if isinstance(entry, dict) and isinstance(entry.get("token"), str) else None

    def put(self, key: str, seat: int, token: str, name: str) -> None:
        """Keep the token of ``seat`` at ``key``."""
        data = self._load()
        data[key] = {"seat": seat, "token": token, "name": name}
        self._save(data)

    def forget(self, key: str) -> None:
        """Drop the token kept for ``key`` (table closed, token refused)."""
        data = self._load()
        if data.pop(key, None) is not None:
            self._save(data)

    def _save(self, data: dict[str, Any]) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(".tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh, indent=1, sort_keys=True)
            os.replace(tmp, self.path)
        except OSError:
            pass
