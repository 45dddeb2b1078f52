"""The standard streams of every command, set up once by the console script's entry point
(:func:`quinze_cli.app.main`, through :func:`guarded`): a command prints, this module decides
what happens when stdout cannot take it.

- **A closed pipe** (``quinze replay LOG | head -1``): the command stops quietly and exits with
  :data:`EXIT_BROKEN_PIPE` (141, 128 + SIGPIPE): what ``cat``, ``grep`` or
  ``yes`` give there (the shell's ``$PIPESTATUS``, ``set -o pipefail``), not 0, which would say the
  whole output was read, nor 1, which says the input was bad. No traceback and no ``Exception
  ignored`` line: stdout is pointed at ``/dev/null`` so that nothing more is flushed to the pipe
  (the way the Python documentation's note on SIGPIPE advises). Python ignores SIGPIPE and a
  write then raises ``BrokenPipeError``; Typer turned that into exit 1, rich too
  (``Console.on_broken_pipe``), and ``print`` at exit into an ``Exception ignored`` message: all
  three come here. SIGPIPE stays ignored: a server or a relay writing to a peer that went away
  must get the error, not die.
- **Colour** (:func:`colour_wanted`): on a terminal with colours, unless ``NO_COLOR`` is set and
  not empty (https://no-color.org). ``NO_COLOR`` removes colour only: bold, dim and italic stay,
  as rich does for every command's output (its ``Console`` reads ``NO_COLOR`` the same way) and as
  the standard asks (it is about colour, not other styles); the commands that draw cards in colour
  (``play``, ``replay --step``) and Typer's one coloured line ask here.
- **A stream that cannot encode the text** (``PYTHONIOENCODING=ascii``, a latin-1 terminal):
  French rules, accented names, card suits and box drawing are written with
  :data:`PLAIN_ERRORS`, which writes an accented letter as its base letter (``é`` as ``e``) and
  anything else the encoding lacks as ``?``, where the default was a ``UnicodeEncodeError``
  traceback. UTF-8 streams are left as they are.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import select
import sys
import unicodedata
from collections.abc import Iterator
from typing import Any, TextIO

__all__ = ["EXIT_BROKEN_PIPE", "PLAIN_ERRORS", "colour_wanted", "guarded", "no_color", "plain_text", "prepare_streams",
           "stdout_closed"]

EXIT_BROKEN_PIPE = 141
"""Exit status of a command whose standard output was closed by its reader (128 + SIGPIPE, what
the shell reports for a program that SIGPIPE ended); :mod:`quinze_cli.errors` lists it with the
others. Here because ``quinze --version`` uses it without importing Typer or rich."""

PLAIN_ERRORS = "quinze-plain"
"""The codec error handler of streams that are not UTF-8 (:func:`plain_text`)."""


_SPELLED = {"œ": "oe", "Œ": "OE", "æ": "ae", "Æ": "AE", "ß": "ss", "«": '"', "»": '"', "“": '"', "”": '"',
            "‘": "'", "’": "'", "–": "-", "—": "-", "·": "."}
"""Characters with no decomposition, and the ASCII that stands for them."""


def plain_text(err: UnicodeError) -> tuple[str, int]:
    """Codec error handler: the characters ``err`` could not encode, each as its letters without
    accents when the encoding has them (``"é"`` gives ``"e"``, ``"œ"`` ``"oe"``), else ``"?"``."""
    if not isinstance(err, UnicodeEncodeError):
        raise err
    out = []
    for ch in err.object[err.start:err.end]:
        base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
        base = _SPELLED.get(ch, base)
        try:
            base.encode(err.encoding)
        except (UnicodeError, LookupError):
            base = ""
        out.append(base or "?")
    return "".join(out), err.end


codecs.register_error(PLAIN_ERRORS, plain_text)


def prepare_streams(streams: tuple[Any, ...] | None = None, rich: bool = True) -> None:
    """Give each text stream (default stdout and stderr) that is not UTF-8 the
    :data:`PLAIN_ERRORS` handler; with ``rich``, make rich let a broken pipe through to
    :func:`guarded` (imports rich)."""
    for stream in streams if streams is not None else (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None) or "utf-8"
        try:
            utf = codecs.lookup(encoding).name.startswith("utf")
        except LookupError:
            utf = False
        if not utf and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors=PLAIN_ERRORS)
    if not rich:
        return
    from rich.console import Console

    Console.on_broken_pipe = _raise_broken_pipe  # type: ignore[method-assign]


def _raise_broken_pipe(self: Any) -> None:
    """rich's hook, called where it caught ``BrokenPipeError`` writing: raise it again (rich's
    own exits 1, and would do so for every console, stdout's or not)."""
    raise  # noqa: PLE0704 - re-raises the BrokenPipeError rich is handling


def no_color() -> bool:
    """Whether ``NO_COLOR`` asks for no colour: set and not empty (no-color.org; rich reads it so)."""
    return bool(os.environ.get("NO_COLOR"))


def colour_wanted(console: Any) -> bool:
    """Whether ``console`` (a rich ``Console``) should get colours of our own (suit symbols in
    red...): a terminal that has colours, and :func:`no_color` false."""
    return bool(console.is_terminal and console.color_system is not None and not no_color())


def stdout_closed(stream: TextIO | None = None) -> bool:
    """Whether nothing reads the standard output any more: a pipe or socket whose reading end is
    closed (``poll`` says POLLERR or POLLHUP). A file, a terminal or a stream without a file
    descriptor (a test's capture) is never closed."""
    stream = stream if stream is not None else sys.__stdout__
    try:
        fd = stream.fileno() if stream is not None else -1
    except (OSError, ValueError, AttributeError):
        return False
    if fd < 0:
        return False
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    try:
        return any(ev & (select.POLLERR | select.POLLHUP) for _, ev in poller.poll(0))
    except OSError:
        return False


def _broken_pipe(err: BaseException) -> bool:
    """Whether ``err`` is a broken pipe (alone, or every error of an exception group, as trio
    raises them)."""
    if isinstance(err, BrokenPipeError):
        return True
    if isinstance(err, BaseExceptionGroup):
        return all(_broken_pipe(e) for e in err.exceptions)
    return False


def _quiet_exit() -> None:
    """Point stdout at /dev/null (what is still buffered goes nowhere, no second error at exit)
    and exit with :data:`EXIT_BROKEN_PIPE`."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.__stdout__.fileno() if sys.__stdout__ is not None else 1)
        os.close(devnull)
    sys.exit(EXIT_BROKEN_PIPE)


@contextlib.contextmanager
def guarded(rich: bool = True) -> Iterator[None]:
    """Run a command's body with its streams prepared (:func:`prepare_streams`; ``rich``: the
    body uses rich): a write to a closed stdout (``BrokenPipeError``, or the exit status Typer
    made of it) ends it quietly with :data:`EXIT_BROKEN_PIPE`; stdout is flushed before the
    command's own exit status is kept, so that a pipe closed early is caught here rather than at
    interpreter exit. A broken pipe that is not stdout's (a bot's, a peer's) is not touched."""
    prepare_streams(rich=rich)
    try:
        yield
    except SystemExit as stop:
        if stop.code not in (None, 0) and _typer_caught_a_broken_pipe() and stdout_closed():
            _quiet_exit()
        _flush_or_quit()
        raise
    except BaseException as err:
        if _broken_pipe(err) and stdout_closed():
            _quiet_exit()
        raise
    _flush_or_quit()


def _typer_caught_a_broken_pipe() -> bool:
    """Typer (click) answers an ``EPIPE`` error out of a command by wrapping ``sys.stdout`` in
    its ``PacifyFlushWrapper`` and exiting 1: that wrapper says it happened."""
    return type(sys.stdout).__name__ == "PacifyFlushWrapper"


def _flush_or_quit() -> None:
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _quiet_exit()
    except (OSError, ValueError):
        pass
