"""Reading the player's lines without blocking the connection (``quinze play``).

A background task reads standard input one line at a time in a worker thread (``input()``, which
uses GNU readline on a terminal: line editing, history, and Tab completion of the words the game
offers) and hands each line to the client's inbox; end of input is handed on as ``None``.
The terminal's settings are saved at start and restored at exit, so leaving while readline waits
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
        try:
            self._tty = os.isatty(sys.stdin.fileno())
        except (ValueError, OSError):
            self._tty = False
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
        while True:
            try:
                line = await trio.to_thread.run_sync(_read_line, abandon_on_cancel=True)
            except (EOFError, OSError, ValueError):
                line = None
            await send(("input", line))
            if line is None:
                return

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
