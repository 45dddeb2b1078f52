"""``quinze rules [GAME]``: the rules as this project plays them, in plain words."""

from __future__ import annotations

from importlib import resources
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.markdown import Markdown

from quinze_protocol.game import GameError, game_ids, get_game
from quinze_cli.gameside import game_id_help
from quinze_cli.errors import fail_game_error


def register(app: typer.Typer) -> None:
    @app.command("rules")
    def rules(
        game: Annotated[Optional[str], typer.Argument(help=game_id_help())] = None,
    ) -> None:
        """Print the rules of GAME as played here (all games when omitted)."""
        ids = game_ids()
        if game is not None:
            try:
                get_game(game)
            except GameError as err:
                fail_game_error(err)
            ids = [game]
        console = Console()
        for gid in ids:
            text = resources.files("quinze_cli").joinpath("rules", f"{gid}.md").read_text(encoding="utf-8")
            console.print(Markdown(text))
