"""How ``quinze --help`` names values, and how usage errors are reported.

Typer 0.29 names a value by its Python type (``<int>``, ``<list[str]>``, ``<bool>`` after a
flag). :func:`tidy` gives every parameter without an explicit ``metavar`` a word a person reads
instead: ``N`` for counts and numbers, ``SECONDS`` for times, ``FILE``/``DIR`` for paths,
``KEY=VALUE`` for table options, ``HOST:PORT`` for servers, nothing after a flag; other text
values are named by the option (``--game GAME``). An explicit ``metavar=`` always wins.

:func:`run` runs the command tree so that a usage error (an unknown option, a bad number) is
reported like every other error of this program (:func:`quinze_cli.errors.fail`): one line
``error: ...`` on stderr, then where to read more, exit 2; never a box.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

try:  # typer >= 0.22 ships its own copy of click
    from typer._click import exceptions as click_exceptions
except ImportError:  # pragma: no cover - older typer on the real click
    from click import exceptions as click_exceptions  # type: ignore[no-redef]

__all__ = ["METAVARS", "metavar_for", "run", "tidy"]

METAVARS = {
    "option": "KEY=VALUE",
    "server": "HOST:PORT",
    "host": "HOST",
    "log_dir": "DIR",
    "load_tree": "DIR",
    "position": "POSITION",
    "log": "LOG",
    "bots": "BOT...",
    "bot": "BOT",
    "command": "COMMAND...",
    "opponents": "BOT,BOT...",
    "wire": "json|msgpack",
    "level": "easy|normal|hard",
    "format": "FORMAT",
    "sprt": "elo0=X,elo1=Y",
    "only": "PART",
    "load_sizes": "N,N...",
    "anchor": "BOT",
    "create": "GAME",
    "spectate": "TABLE",
    "json_file": "FILE",
}
"""Parameter name -> metavar, where the name says more than the type."""


def metavar_for(param: Any, kind: str) -> str | None:
    """The metavar of a click/typer ``param`` whose type is shown as ``kind`` (``"<int>"`` ...):
    ``""`` for a flag, None to leave the parameter as it is."""
    if getattr(param, "is_flag", False) or kind == "<bool>":
        return ""
    name = param.name or ""
    if name in METAVARS:
        return METAVARS[name]
    if "time" in name or "duration" in name or "deadline" in name:
        return "SECONDS"
    if "int" in kind:
        return "N"
    if "float" in kind:
        return "X"
    if "path" in kind:
        return "FILE"
    return name.upper().replace("_", "-") or None


def tidy(command: Any, ctx: Any = None) -> Any:
    """Set a readable metavar on every parameter of ``command`` and its subcommands that has
    none; returns ``command``."""
    if ctx is None:
        ctx = command.make_context(command.name or "quinze", [], resilient_parsing=True)
    for param in command.params:
        if getattr(param, "param_type_name", "") == "argument":
            _plain_argument(param)
        if param.metavar is not None:
            continue
        try:
            kind = param.display_type(ctx)
        except Exception:  # noqa: BLE001 - a parameter typer cannot describe: as it is
            kind = ""
        metavar = metavar_for(param, str(kind))
        if metavar is not None:
            param.metavar = metavar
    for sub in getattr(command, "commands", {}).values():
        if not sub.short_help and sub.help:
            # the whole first paragraph, wrapped, rather than cut at 45 characters
            sub.short_help = sub.help.strip().split("\n\n", 1)[0].replace("\n", " ")
        tidy(sub, ctx)
    return command


def _plain_argument(param: Any) -> None:
    """An argument is shown by its metavar alone (``BOT...``, ``[GAME]``, ``POSITION``): no type
    after it, no braces around a required one."""

    def usage() -> str:
        name = param.metavar or (param.name or "").upper()
        return name if param.required else f"[{name}]"

    param.display_type_rich = lambda ctx: None
    param._usage_display_name = usage


def run(command: Any, args: Sequence[str] | None = None, prog_name: str = "quinze") -> None:
    """Run ``command`` (a click command) and exit with its code; a usage error is one
    ``error:`` line and exit 2."""
    from quinze_cli.errors import stderr

    import typer

    try:
        rv = command.main(args=args, prog_name=prog_name, standalone_mode=False)
    except click_exceptions.NoArgsIsHelpError as err:  # bare `quinze`: the help
        print(err.format_message())
        sys.exit(err.exit_code)
    except click_exceptions.UsageError as err:
        where = err.ctx.command_path if err.ctx is not None else prog_name
        message = err.format_message().rstrip(".")
        stderr.print(f"[bold red]error:[/] {_escape(message)} (see '{where} --help')", markup=True)
        sys.exit(err.exit_code)
    except click_exceptions.ClickException as err:
        stderr.print(f"[bold red]error:[/] {_escape(err.format_message())}", markup=True)
        sys.exit(err.exit_code)
    except typer.Abort:
        stderr.print("Aborted.")
        sys.exit(1)
    sys.exit(rv if isinstance(rv, int) else 0)


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)
