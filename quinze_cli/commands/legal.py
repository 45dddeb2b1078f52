"""``quinze legal POSITION.json``: the legal actions in a position, one JSON object per line.

The position file is a game's position data (see docs/positions.md) with a ``"game"`` field
naming the game (``quinze``, ``quatorze``, ``quinze-classique``); ``-`` reads it from standard
input. Generic over the game registry. Output is sorted deterministically (by the JSON text of
each action, keys sorted). Errors (unreadable file, not JSON, unknown game, bad position, a
``format`` other than the one the game writes, i.e. 1 for every game of docs/positions.md):
``error: ...``, exit 1.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from quinze_protocol.game import Game, GameError, get_game
from quinze_protocol.jsontext import json_error, loads_json
from quinze_cli.app import help_of
from quinze_cli.errors import fail, fail_game_error
from quinze_cli.options import STDIO, read_text_file

def _read(path: Path) -> tuple[str, str]:
    """The text of ``path`` (standard input for ``-``) and the name to use in errors."""
    try:
        text = read_text_file(path)
    except ValueError as err:
        fail(str(err))
    return text, "<stdin>" if str(path) == STDIO else str(path)


def load_position_file(path: Path) -> Game:
    """The game object of the position in ``path`` (``-``: standard input); exits with
    ``error:`` on any problem.

    The position's ``format`` must be the one the game writes (``to_position()["format"]``, 1
    for every game, docs/positions.md): checked here too, as not every engine checks it.
    """
    text, name = _read(path)
    try:
        data = loads_json(text)
    except ValueError as err:
        fail(f"{name} is not JSON: {json_error(err)}")
    if not isinstance(data, dict):
        fail(f"{name}: a position is a JSON object with a \"game\" field")
    game_id = data.get("game")
    if not isinstance(game_id, str):
        fail(f"{name}: game: missing (the position must say which game it is, e.g. \"game\": \"quinze\")")
    try:
        game = get_game(game_id).from_position(data)
    except GameError as err:
        fail_game_error(err, name)
    known = game.to_position().get("format")
    if "format" in data and (type(data["format"]) is not type(known) or data["format"] != known):
        fail(f"{name}: format: expects {known!r}, got {data['format']!r}")
    return game


def register(app: typer.Typer) -> None:
    @app.command("legal", help=help_of("legal"))
    def legal(
        position: Annotated[Path, typer.Argument(help="A position file (JSON with a \"game\" field); - for standard input.")],
    ) -> None:
        game = load_position_file(position)
        lines = sorted(json.dumps(a, sort_keys=True, ensure_ascii=False) for a in game.legal_data())
        for line in lines:
            typer.echo(line)
