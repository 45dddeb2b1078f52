"""Reading the player's lines without blocking the connection (``quinze play``).

A background task reads standard input one line at a time in a worker thread and hands each line
to the client's inbox; end of input is handed on as ``None``. On a terminal the thread calls
``input()``, which uses GNU readline (line editing, history, and Tab completion of the words the
game offers). Otherwise (a pipe, a file) it reads the raw descriptor 0 with ``os.read``: a thread
still blocked there when the client exits holds no lock of ``sys.stdin``'s buffered reader, which
would make the interpreter abort at shutdown (``_enter_buffered_busy``, exit 134).
Readline echoes no newline for an empty line (its prompt is empty: ours is printed by the
console), so one is written then. The terminal's settings are saved at start and restored at exit, so leaving while readline waits
(Ctrl-C, ``quit``, the game ending) never leaves the terminal without echo.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

import trio

__all__ = ["LineReader"]


class LineReader:
    """Lines from standard input, read in a thread; Tab completes with :meth:`set_words` words."""

    def __init__(self) -> None:
        self.words: list[str] = []
        self._tty = False
        self._saved: Any = None
        self._readline = None
        self._pending = b""
        try:
            self._tty = os.isatty(sys.stdin.fileno())
        except (ValueError, OSError):
            self._tty = False
        try:
            self._line_edit = self._tty and os.isatty(sys.stdout.fileno())
        except (ValueError, OSError):
            self._line_edit = False
        if self._tty:
            try:
                import termios

                self._saved = termios.tcgetattr(sys.stdin.fileno())
            except Exception:  # noqa: BLE001 - no terminal settings to keep
                self._saved = None
            try:
                import readline

                readline.parse_and_bind("set enable-bracketed-paste off")
                readline.parse_and_bind("tab: complete")
                readline.set_completer_delims(" +,\t")
                readline.set_completer(self._complete)
                self._readline = readline
            except Exception:  # noqa: BLE001 - readline is optional
                self._readline = None

    @property
    def interactive(self) -> bool:
        """True when standard input is a terminal."""
        return self._tty

    def hung_up(self) -> bool:
        """True when standard input was a terminal and that terminal hung up (closed: a read gets
        end of input or ``EIO``, and ``poll`` says POLLHUP)."""
        if not self._tty:
            return False
        from quinze_cli.stdio import stdout_closed

        return stdout_closed(sys.__stdin__)

    def set_words(self, words: list[str]) -> None:
        """The words Tab completes from now on (commands, cards in hand, ...)."""
        self.words = sorted(set(words))

    def _complete(self, text: str, state: int) -> str | None:
        low = text.lower()
        matches = [w for w in self.words if w.lower().startswith(low)]
        return matches[state] if state < len(matches) else None

    async def run(self, send: Callable[[tuple[str, Any]], Any]) -> None:
        """Read lines until end of input, awaiting ``send(("input", line))`` for each and
        ``send(("input", None))`` at the end. Cancelling abandons the waiting thread."""
        read = _read_line if self._line_edit else self._read_fd
        while True:
            try:
                line = await trio.to_thread.run_sync(read, abandon_on_cancel=True)
            except (EOFError, OSError, ValueError):
                line = None
            if line == "" and self._line_edit:
                _end_empty_line()
            await send(("input", line))
            if line is None:
                return

    def _read_fd(self) -> str:
        """One line from descriptor 0 without Python's buffered reader (see the module docstring);
        raises ``EOFError`` at end of input (a last line without newline is returned first)."""
        while b"\n" not in self._pending:
            chunk = os.read(0, 4096)
            if not chunk:
                if self._pending:
                    line, self._pending = self._pending, b""
                    return line.decode("utf-8", "replace").rstrip("\r")
                raise EOFError
            self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        return line.decode("utf-8", "replace").rstrip("\r")

    def restore(self) -> None:
        """Put the terminal back as it was at start (echo, line mode)."""
        if self._saved is not None:
            try:
                import termios

                termios.tcsetattr(sys.stdin.fileno(), termios.TCSADRAIN, self._saved)
            except Exception:  # noqa: BLE001 - best effort at exit
                pass


def _read_line() -> str:
    return input("")


def _end_empty_line() -> None:
    """GNU readline with an empty prompt (ours is printed before, by the console) echoes no
    newline when Enter is pressed on an empty line, so the next output would follow the prompt
    on the same line (``lobby> Tables at …``): end the line here."""
    try:
        sys.stdout.write("\n")
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
