"""``--positions FILE`` of ``quinze match`` and ``quinze tournament``: games that start from given
positions (the ``quinze legal`` format, docs/positions.md), one per line, as cutechess's
``-openings`` does for chess. Each position is played once per seat rotation (a deal group);
its generator state is replaced by the game's seed (``create-table.position``, PROTOCOL.md).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from quinze_protocol.game import GameError, get_game
from quinze_protocol.jsontext import loads_json
from quinze_protocol.messages import canonical_position
from quinze_cli.options import read_text_file

__all__ = ["load_positions", "positions_digest"]


def _one_per_line_hint(text: str) -> str:
    """``"; ..."`` saying the file must hold one position per line when ``text`` as a whole is JSON
    (a position spread over several lines, as ``examples/positions/*.json``), else ``""``."""
    try:
        loads_json(text)
    except ValueError:
        return ""
    return ("; the whole file is JSON, but this file must hold one position per line (JSON Lines): "
            "put each position on one line")


def load_positions(path: Path, game: str) -> list[dict[str, Any]]:
    """The positions of ``path``: one JSON object per line (blank lines and lines starting with
    ``#`` skipped), each loadable by ``game``. Raises ``ValueError`` naming the file, the line and
    what is wrong (unreadable, not UTF-8 text, not JSON, another game, a field the game refuses), or a
    file without any."""
    text = read_text_file(path)
    cls = get_game(game)
    out: list[dict[str, Any]] = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            data = loads_json(line)
        except ValueError as err:
            raise ValueError(f"{path} line {n}: not JSON: {err}{_one_per_line_hint(text)}") from None
        if not isinstance(data, dict):
            raise ValueError(f"{path} line {n}: a position is a JSON object")
        if data.get("game", game) != game:
            raise ValueError(f"{path} line {n}: a position of {data.get('game')!r}, not {game!r}")
        try:
            cls.from_position(data)
        except GameError as err:
            where = f"{err.field}: " if err.field else ""
            raise ValueError(f"{path} line {n}: {where}{err.reason}") from None
        out.append(data)
    if not out:
        raise ValueError(f"{path}: no position in it (one JSON object per line)")
    return out


def positions_digest(positions: list[dict[str, Any]]) -> str:
    """SHA-256 of the positions (canonical JSON, one per line): the journal's check that a resume
    plays the same ones."""
    text = "\n".join(canonical_position(p) for p in positions)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
