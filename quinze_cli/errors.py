"""How every command reports a user error: one line on stderr, exit 1 (bad input) or 2 (usage);
the exit status after Ctrl-C (130), after its reader closed stdout (141) and when stdout cannot be
written (a full disk: 1, with the line ``quinze: cannot write the output: ...``; :mod:`quinze_cli.stdio`)."""

from __future__ import annotations

import re
from typing import NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from quinze_protocol.game import GameError
from quinze_cli.stdio import EXIT_BROKEN_PIPE, EXIT_OUTPUT_FAILED

__all__ = ["EXIT_BROKEN_PIPE", "EXIT_INTERRUPTED", "EXIT_OUTPUT_FAILED", "EXIT_INVALID", "EXIT_USAGE", "fail", "fail_game_error", "plain_reason"]

stderr = Console(stderr=True, highlight=False, soft_wrap=True)

EXIT_INVALID = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
"""Exit status of every command stopped by Ctrl-C, SIGTERM or SIGHUP (128 + SIGINT, the shell's
convention; :mod:`quinze_cli.interrupt`)."""


def fail(message: str, code: int = EXIT_INVALID) -> NoReturn:
    """Print ``error: message`` on stderr and exit with ``code``."""
    stderr.print(f"[bold red]error:[/] {escape(message)}", markup=True)
    raise typer.Exit(code)


def fail_game_error(err: GameError, what: str = "", code: int = EXIT_INVALID) -> NoReturn:
    """Report a :class:`GameError` (field, reason and code) and exit with ``code`` (1; a command
    whose docs call a bad ``--game`` or ``--option`` a usage error gives ``EXIT_USAGE``)."""
    where = f"{what}: " if what else ""
    # "--game: game: ..." says the same twice: the option already names the field.
    field = f"{err.field}: " if err.field and err.field != what.lstrip("-") else ""
    fail(f"{where}{field}{err.reason} [{err.code}]", code)


def plain_reason(reason: str) -> str:
    """A server's error reason (PROTOCOL.md "Errors": ``"MESSAGE.FIELD: words"``) for people:
    the message type is dropped, and so is a field that only repeats what the sentence around it
    says (the table), an option is called one. ``"join.table: no table 't2'"`` gives
    ``"no table 't2'"``, ``"create-table.options.target: must be ..."`` gives ``"option target:
    must be ..."``, ``"hello.name: ..."`` gives ``"name: ..."``; other text is kept as it is."""
    m = _FIELD_PATH.match(reason)
    if m is None:
        return reason
    rest = reason[m.end():]
    parts = m.group(1).split(".")[1:]
    if not parts or parts == ["table"]:
        return rest
    if parts[0] == "options" and len(parts) > 1:
        return f"option {'.'.join(parts[1:])}: {rest}"
    return f"{'.'.join(parts)}: {rest}"


_FIELD_PATH = re.compile(r"^([a-z][a-z-]*(?:\.[A-Za-z_][\w-]*(?:\[\d+\])*)+): ")
