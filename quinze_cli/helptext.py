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

import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

try:  # typer >= 0.22 ships its own copy of click
    from typer._click import exceptions as click_exceptions
except ImportError:  # pragma: no cover - older typer on the real click
    from click import exceptions as click_exceptions  # type: ignore[no-redef]

__all__ = ["METAVARS", "metavar_for", "plain_coercion", "run", "tidy"]

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
    "grace": "SECONDS",
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
    none, and the plain coercion of :func:`plain_coercion`; returns ``command``."""
    if ctx is None:
        plain_coercion(command)
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


_INT = re.compile(r"-?[0-9]{1,30}")
_FLOAT = re.compile(r"-?[0-9]{1,30}(\.[0-9]{1,30})?")


class _Unsure(Exception):
    """A value :class:`_PlainCoercion` leaves to Typer's own coercion."""


class _PlainCoercion:
    """Typer 0.29 coerces every parameter value (command-line words and defaults alike) through a
    Pydantic ``TypeAdapter``, built per parameter on first use: importing Pydantic and building the
    adapters cost about 50 ms of every ``quinze`` start (a third of ``quinze legal``'s), for values
    that are plain words, whole numbers, decimals and paths. This converts those directly, to what
    Typer's adapter gives for them, and hands any other value to Typer's own coercion, built then
    (so a bad value gets Typer's own error, word for word)."""

    def __init__(self, leaf: type, parameter_info: Any, many: bool) -> None:
        self.leaf, self.info, self.many = leaf, parameter_info, many
        self.full: Any = None

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        multi = param.multiple or param.nargs == -1
        if value is None:
            return () if multi else None
        try:
            if multi and isinstance(value, str):
                raise _Unsure
            if self.many:
                return [self._one(v, param, ctx) for v in (value if isinstance(value, (list, tuple)) else [value])]
            return self._one(value, param, ctx)
        except _Unsure:
            if self.full is None:
                from typer._coercion import build_runtime_param

                self.full = build_runtime_param(param.type_descriptor)
            return self.full.coerce(value, param=param, ctx=ctx)

    def _one(self, value: Any, param: Any, ctx: Any) -> Any:
        leaf, kind = self.leaf, type(value)
        if leaf is str and kind is str:
            return value
        if leaf is bool and kind is bool:
            return value
        if leaf is int or leaf is float:
            if kind is leaf:
                number = value
            elif kind is str and (_INT if leaf is int else _FLOAT).fullmatch(value):
                number = leaf(value)
            else:
                raise _Unsure
            if (self.info.min is not None and number < self.info.min) or (self.info.max is not None and number > self.info.max):
                raise _Unsure  # Typer's own message for a value out of range
            return number
        if leaf is Path and (kind is str and value or isinstance(value, Path)):
            from typer._param_types import coerce_cli_path

            return coerce_cli_path(Path(value), self.info, path_type=Path, param=param, ctx=ctx)
        raise _Unsure


def plain_coercion(command: Any, parent: Any = None) -> None:
    """Give every parameter of ``command`` and its subcommands whose type is ``str``, ``int``,
    ``float``, ``bool``, ``Path`` or a list of one of them, with no parser, clamp or path type of
    its own, the coercion of :class:`_PlainCoercion`; the others keep Typer's. Does nothing with a
    Typer that has no such per-parameter coercion (``typer<0.29``: click's types, no Pydantic).
    The ``--help`` option, made on first use, is made here for that."""
    ctx = command.context_class(command, info_name=command.name or "quinze", parent=parent, resilient_parsing=True)
    made = command.get_help_option(ctx)
    for param in [*command.params, *([made] if made is not None else [])]:
        desc = getattr(param, "type_descriptor", None)
        if desc is None or getattr(param, "_runtime_param", False) is not None:
            continue
        info, annotation = desc.parameter_info, desc.annotation
        many = getattr(annotation, "__origin__", None) is list and len(getattr(annotation, "__args__", ())) == 1
        leaf = annotation.__args__[0] if many else annotation
        if leaf not in (str, int, float, bool, Path) or info.parser is not None or desc.file_annotation is not None \
                or info.clamp or getattr(info, "path_type", None) is not None:
            continue
        param._runtime_param = _PlainCoercion(leaf, info, many)
    for sub in getattr(command, "commands", {}).values():
        plain_coercion(sub, ctx)
