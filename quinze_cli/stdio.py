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
- **Any other error writing stdout** (a full disk, ``quinze rules > /dev/full``; an I/O error):
  one line on stderr, ``quinze: cannot write the output: No space left on device`` (the error's
  own text), and exit :data:`EXIT_OUTPUT_FAILED` (1), where the default was a traceback. stdout's
  file is watched (:class:`_WatchedFile`) so that only its own write errors are taken so: a log
  or journal file that cannot be written keeps its own error. A results file (``--json FILE``
  of match and tournament) is written before the tables, so neither error loses it.
- **A terminal that hung up** without a SIGHUP reaching the command (``cmd &`` then ``exit``:
  bash sends none to a background job; ``disown``): every write to it fails with ``EIO``. Such
  a write to stdout or stderr (:func:`terminal_gone`, :class:`_LostTerminalFile`) points the
  stream at ``/dev/null`` and counts as done: the command carries on, its output goes nowhere,
  its files and exit status are what they would have been (``quinze serve`` still stops with 0).
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
import errno
import io
import os
import re
import select
import stat
import sys
import unicodedata
from collections.abc import Iterator
from typing import Any, TextIO

__all__ = ["EXIT_BROKEN_PIPE", "EXIT_OUTPUT_FAILED", "PLAIN_ERRORS", "colour_wanted", "drop_lost_streams", "fit_dumb_terminal", "guarded", "line_console", "log_handler", "no_color", "plain_text", "prepare_streams",
           "stdout_closed"]

EXIT_BROKEN_PIPE = 141
"""Exit status of a command whose standard output was closed by its reader (128 + SIGPIPE, what
the shell reports for a program that SIGPIPE ended); :mod:`quinze_cli.errors` lists it with the
others. Here because ``quinze --version`` uses it without importing Typer or rich."""

EXIT_OUTPUT_FAILED = 1
"""Exit status of a command whose standard output could not be written for another reason than a
closed reader (``ENOSPC``, ``EIO``...): 1, as for any failed command (``cat`` and ``grep`` give 1
or 2 there too); :mod:`quinze_cli.errors` lists it with the others."""

PLAIN_ERRORS = "quinze-plain"
"""The codec error handler of streams that are not UTF-8 (:func:`plain_text`)."""


_SPELLED = {"œ": "oe", "Œ": "OE", "æ": "ae", "Æ": "AE", "ß": "ss", "«": '"', "»": '"', "“": '"', "”": '"',
            "‘": "'", "’": "'", "–": "-", "—": "-", "·": ".", "±": "+/-", "×": "x", "−": "-", "→": "->",
            "←": "<-", "⇄": "<->", "↑": "^", "↓": "v", "≤": "<=", "≥": ">=", "▶": ">"}
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
    """Whether ``console`` (a rich ``Console``) should get cards in symbols and colours of our own
    (``7♥`` in red): a terminal that has colours, whose encoding can write the suit symbols, and
    :func:`no_color` false. Otherwise cards are plain letters (``7H``): on an ASCII or latin-1
    terminal the symbols would come out as ``?`` (:func:`plain_text`), one suit like another."""
    if not (console.is_terminal and console.color_system is not None and not no_color()):
        return False
    from quinze_cli.play.cards_ui import SYMBOLS

    try:
        SYMBOLS.encode(getattr(console, "encoding", None) or "utf-8")
    except (UnicodeError, LookupError):
        return False
    return True


def line_console(stderr: bool = False) -> Any:
    """A rich ``Console`` for a command's lines of text and tables (``stderr``: on stderr, else
    stdout). On a terminal, rich's own: a long line wraps at the terminal's width. In a file or a
    pipe (where rich would cut every line at 80 columns, or at ``COLUMNS``, and pad it with
    spaces, so that ``grep`` on a saved log found half a line: a tournament's ``game 3: BOT (seat
    1) forfeits: ...``, a server's row without its address): a line is never wrapped, a table
    (``rich.table.Table``) is drawn as wide as its widest cells need, whatever ``COLUMNS`` says,
    and no line ends in spaces (:class:`_LineEnds`). Other renderables (a ``Rule``) are 80 columns
    wide there. The one way commands that write lines get their consoles."""
    from rich.console import Console

    console = Console(stderr=stderr, highlight=False)
    if console.is_terminal:
        return console
    return _wide_tables_console()(file=_LineEnds(stderr), width=80, highlight=False, soft_wrap=True)


def _wide_tables_console() -> Any:
    """The class of :func:`line_console`'s consoles off a terminal: rich's ``Console`` whose
    ``print`` gives each ``Table`` among its objects the width its widest cells need."""
    from rich.console import Console
    from rich.measure import Measurement
    from rich.table import Table

    class WideTablesConsole(Console):
        def print(self, *objects: Any, **kwargs: Any) -> None:
            tables = [o for o in objects if isinstance(o, Table)]
            if not tables:
                return super().print(*objects, **kwargs)
            natural = max(Measurement.get(self, self.options.update_width(1_000_000), t).maximum for t in tables)
            width = self.width
            self.width = max(width, natural)
            try:
                return super().print(*objects, **kwargs)
            finally:
                self.width = width

    return WideTablesConsole


_LINE_END_SPACES = re.compile(r"[ \t]+((?:\x1b\[[0-9;]*m)*)(?=\n)")
"""Spaces (and tabs) before a line's end, with the style codes that may follow them."""


class _LineEnds:
    """stdout or stderr (the one ``sys`` holds at each write) for :func:`line_console` off a
    terminal: every write has the spaces before each of its line ends removed (rich pads a
    table's last column and a wrapped line to the width). Text after the last line end (a
    prompt, ``Name: ``) is written as it is."""

    def __init__(self, stderr: bool) -> None:
        self._stderr = stderr

    @property
    def stream(self) -> TextIO:
        return sys.stderr if self._stderr else sys.stdout

    def write(self, text: str) -> int:
        self.stream.write(_LINE_END_SPACES.sub(r"\1", text))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        return self.stream.fileno()

    @property
    def encoding(self) -> str:
        return getattr(self.stream, "encoding", None) or "utf-8"


def log_handler(**rich: Any) -> Any:
    """The ``logging`` handler of a command's log on stderr (``quinze serve``'s, ``--debug``'s):
    on a terminal rich's ``RichHandler`` (``rich``: its options), which lays each record out in
    columns wrapped at the width; in a file or a pipe one line per record, never wrapped
    (``2026-12-04 03:20:01 INFO listening on ...``), so that ``grep`` on a saved log finds it
    whole, as :func:`line_console` does for the commands' own lines."""
    import logging

    from rich.console import Console

    console = Console(stderr=True)
    if console.is_terminal:
        from rich.logging import RichHandler

        return RichHandler(console=console, **rich)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s", "%Y-%m-%d %H:%M:%S"))
    return handler


def fit_dumb_terminal(console: Any) -> Any:
    """Give ``console`` (a rich ``Console``) the terminal's real size when ``TERM`` is ``dumb`` or
    ``unknown`` (an Emacs shell, some CI consoles): rich then takes 80 × 25 whatever the terminal
    or ``COLUMNS`` says, so text meant to wrap at word boundaries was cut by the terminal instead.
    The size is ``COLUMNS`` / ``LINES`` when set to a number, else what the terminal reports.
    Other consoles are left as they are. Returns ``console``."""
    if not console.is_dumb_terminal:
        return console
    try:
        width, height = os.get_terminal_size(console.file.fileno())
    except (AttributeError, ValueError, OSError):
        width, height = 80, 25
    columns, lines = os.environ.get("COLUMNS", ""), os.environ.get("LINES", "")
    width = int(columns) if columns.isdecimal() and int(columns) > 0 else width or 80
    height = int(lines) if lines.isdecimal() and int(lines) > 0 else height or 25
    console.size = (width, height)
    return console


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


def drop_lost_streams() -> list[int]:
    """Point stdout and stderr at ``/dev/null`` where nothing can read them any more: a terminal
    that hung up (closed, its ssh connection dropped: every write gets ``EIO``) or a pipe whose
    reader is gone (:func:`stdout_closed`). Called on SIGHUP, before a command's orderly stop
    prints its lines; a file, a live terminal or a live pipe is kept. Returns the file
    descriptors pointed at ``/dev/null``. Never raises."""
    dropped = []
    for stream in (sys.__stdout__, sys.__stderr__):
        if stream is None or not stdout_closed(stream):
            continue
        with contextlib.suppress(OSError, ValueError):
            fd = stream.fileno()
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, fd)
            os.close(devnull)
            dropped.append(fd)
    return dropped


def terminal_gone(fd: int, err: OSError) -> bool:
    """Whether ``err``, raised writing to ``fd``, says the terminal there hung up (closed, its ssh
    connection dropped, with or without a SIGHUP reaching us): ``EIO`` from a character device.
    ``EIO`` from a file is a disk's error and is not this."""
    if err.errno != errno.EIO:
        return False
    try:
        return stat.S_ISCHR(os.fstat(fd).st_mode)
    except OSError:
        return False


def _point_at_devnull(fd: int) -> None:
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)


class _LostTerminalFile(io.FileIO):
    """stderr's file descriptor (not closed with it): when its terminal hung up
    (:func:`terminal_gone`) the descriptor is pointed at ``/dev/null`` and the write counts as
    done, so that a command whose terminal went away without a SIGHUP (``cmd &`` then ``exit``,
    ``disown``) carries on: its progress and lines go nowhere, its files are written."""

    def write(self, data: Any, /) -> int:
        try:
            return super().write(data)
        except OSError as err:
            if not terminal_gone(self.fileno(), err):
                raise
            _point_at_devnull(self.fileno())
            return len(memoryview(data))


class _WatchedFile(_LostTerminalFile):
    """stdout's file descriptor (not closed with it) that keeps the last ``OSError`` a write to it
    raised (:attr:`failed`), so that :func:`guarded` knows the error is stdout's (a terminal
    that hung up is no error: :class:`_LostTerminalFile`)."""

    failed: OSError | None = None

    def write(self, data: Any, /) -> int:
        try:
            return super().write(data)
        except OSError as err:
            type(self).failed = err
            raise


def _watch(name: str, kind: type[io.FileIO]) -> None:
    """Put ``sys.<name>`` (the process's own, with a file descriptor) on a ``kind`` file, keeping
    its encoding, error handler and buffering. A stream a test put there is left alone."""
    out = getattr(sys, name)
    if out is None or out is not getattr(sys, f"__{name}__") or not isinstance(out, io.TextIOWrapper):
        return
    try:
        out.flush()
        fd = out.fileno()
    except (OSError, ValueError):
        return
    setattr(sys, name, io.TextIOWrapper(io.BufferedWriter(kind(fd, "wb", closefd=False)), encoding=out.encoding,
                                        errors=out.errors, line_buffering=out.line_buffering,
                                        write_through=out.write_through))


def _watch_stdout() -> None:
    """stdout on a :class:`_WatchedFile`, stderr on a :class:`_LostTerminalFile` (:func:`_watch`)."""
    _WatchedFile.failed = None
    _watch("stdout", _WatchedFile)
    _watch("stderr", _LostTerminalFile)


def _stdout_failed(err: BaseException) -> OSError | None:
    """The error of a write to stdout that ``err`` is (alone, or every error of an exception group),
    else None."""
    failed = _WatchedFile.failed
    if failed is None:
        return None
    if isinstance(err, BaseExceptionGroup):
        return failed if all(_stdout_failed(e) is not None for e in err.exceptions) else None
    return failed if isinstance(err, OSError) else None


def _output_failed(err: OSError) -> None:
    """Say on stderr, in one line, that stdout could not be written (``err``'s text), drop what is
    still buffered for it, and exit with :data:`EXIT_OUTPUT_FAILED`."""
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(f"quinze: cannot write the output: {err.strerror or err}\n")
        sys.stderr.flush()
    _to_devnull()
    sys.exit(EXIT_OUTPUT_FAILED)


def _broken_pipe(err: BaseException) -> bool:
    """Whether ``err`` is a broken pipe (alone, or every error of an exception group, as trio
    raises them)."""
    if isinstance(err, BrokenPipeError):
        return True
    if isinstance(err, BaseExceptionGroup):
        return all(_broken_pipe(e) for e in err.exceptions)
    return False


def _to_devnull() -> None:
    """Point stdout at /dev/null: what is still buffered goes nowhere, no second error at exit."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.__stdout__.fileno() if sys.__stdout__ is not None else 1)
        os.close(devnull)


def _quiet_exit() -> None:
    """Point stdout at /dev/null and exit with :data:`EXIT_BROKEN_PIPE`."""
    _to_devnull()
    sys.exit(EXIT_BROKEN_PIPE)


@contextlib.contextmanager
def guarded(rich: bool = True) -> Iterator[None]:
    """Run a command's body with its streams prepared (:func:`prepare_streams`; ``rich``: the
    body uses rich): a write to a closed stdout (``BrokenPipeError``, or the exit status Typer
    made of it) ends it quietly with :data:`EXIT_BROKEN_PIPE`; stdout is flushed before the
    command's own exit status is kept, so that a pipe closed early is caught here rather than at
    interpreter exit. A broken pipe that is not stdout's (a bot's, a peer's) is not touched. Any
    other error writing stdout (a full disk) is one line on stderr and :data:`EXIT_OUTPUT_FAILED`;
    an ``OSError`` of another file is not touched."""
    _watch_stdout()
    _terminal_size_words()
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
        failed = _stdout_failed(err)
        if failed is not None:
            _output_failed(failed)
        raise
    _flush_or_quit()


def _terminal_size_words() -> None:
    """Drop ``COLUMNS`` or ``LINES`` from the environment when it is not a decimal number (``²``,
    ``wide``): rich reads them with ``int()`` after ``str.isdigit()``, which calls ``²`` a digit,
    and a console made then raised ``ValueError``. Without them the terminal's own size is used,
    as when they are not set."""
    for name in ("COLUMNS", "LINES"):
        value = os.environ.get(name)
        if value is not None and not value.strip().isdecimal():
            del os.environ[name]


def _typer_caught_a_broken_pipe() -> bool:
    """Typer (click) answers an ``EPIPE`` error out of a command by wrapping ``sys.stdout`` in
    its ``PacifyFlushWrapper`` and exiting 1: that wrapper says it happened."""
    return type(sys.stdout).__name__ == "PacifyFlushWrapper"


def _flush_or_quit() -> None:
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _quiet_exit()
    except OSError as err:
        if _WatchedFile.failed is not None:
            _output_failed(err)
    except ValueError:
        pass
