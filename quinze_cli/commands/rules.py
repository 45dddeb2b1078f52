"""``quinze rules [GAME]``: the rules as this project plays them, in plain words.

The texts are ``quinze_cli/rules/<game>.md`` (English) and ``quinze_cli/rules/fr/<game>.md``
(French); the language is ``--lang`` when given, else the environment's (the first of
``LC_ALL``, ``LC_MESSAGES``, ``LANG`` that is set, ``C`` meaning English, then ``LANGUAGE``;
:func:`quinze_cli.i18n.choose_language`), as in ``quinze play``. On a terminal the Markdown is drawn by rich at the terminal's width; in a file
or a pipe it is written as Markdown source with each paragraph and list item on one line
(:func:`quinze_cli.rulestext.one_line_paragraphs`), never cut at a width, so that ``grep`` finds
a rule whole.
"""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer
from quinze_protocol.game import GameError, game_ids, get_game
from quinze_cli.app import help_of
from quinze_cli.gameside import game_id_help
from quinze_cli.errors import EXIT_USAGE, fail, fail_game_error
from quinze_cli.rulestext import one_line_paragraphs, rules_text


def register(app: typer.Typer) -> None:
    @app.command("rules", help=help_of("rules"))
    def rules(
        game: Annotated[Optional[str], typer.Argument(metavar="GAME", help=game_id_help())] = None,
        lang: Annotated[Optional[str], typer.Option("--lang", metavar="LANG", help="Language: en or fr (default: the locale's, LC_ALL, LC_MESSAGES or LANG; C: en).")] = None,
    ) -> None:
        from rich.console import Console
        from rich.markdown import Markdown  # markdown-it and pygments: only where the rules are printed

        from quinze_cli.i18n import choose_language

        try:
            language = choose_language(lang)
        except ValueError as err:
            fail(str(err), EXIT_USAGE)
        ids = game_ids()
        if game is not None:
            try:
                get_game(game)
            except GameError as err:
                fail_game_error(err)
            ids = [game]
        console = Console()
        if not console.is_terminal:  # a file or a pipe: the Markdown source, one paragraph a line
            for n, gid in enumerate(ids):
                sys.stdout.write(("\n" if n else "") + one_line_paragraphs(rules_text(gid, language)))
            return
        for gid in ids:
            console.print(Markdown(rules_text(gid, language)))
