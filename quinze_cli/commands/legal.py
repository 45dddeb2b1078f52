"""``quinze legal POSITION.json``: the legal actions in a position, one JSON object per line.

The position file is a game's position data (see docs/positions.md) with a ``"game"`` field
naming the game (``quinze``, ``quatorze``, ``quinze-classique``). Generic over the game
registry. Output is sorted deterministically (by the JSON text of each action, keys sorted).
Errors (unreadable file, not JSON, unknown game, bad position): ``error: ...``, exit 1.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from protocol.game import GameError, get_game
from quinze_cli.errors import fail, fail_game_error


def load_position_file(path: Path) -> object:
    """The game object of the position in ``path`` (exits with ``error:`` on any problem)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        fail(f"cannot read {path}: {err.strerror or err}")
    except UnicodeDecodeError:
        fail(f"{path} is not UTF-8 text")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        fail(f"{path} is not JSON: {err.msg} (line {err.lineno}, column {err.colno})")
    if not isinstance(data, dict):
        fail(f"{path}: a position is a JSON object with a \"game\" field")
    game_id = data.get("game")
    if not isinstance(game_id, str):
        fail(f"{path}: game: missing (the position must say which game it is, e.g. \"game\": \"quinze\")")
    try:
        return get_game(game_id).from_position(data)
    except GameError as err:
        fail_game_error(err, str(path))


def register(app: typer.Typer) -> None:
    @app.command("legal")
    def legal(
        position: Annotated[Path, typer.Argument(help="A position file (JSON with a \"game\" field).")],
    ) -> None:
        """Print the legal actions of the seat to act in POSITION, one JSON object per line."""
        game = load_position_file(position)
        lines = sorted(json.dumps(a, sort_keys=True, ensure_ascii=False) for a in game.legal_data())  # type: ignore[attr-defined]
        for line in lines:
            typer.echo(line)
