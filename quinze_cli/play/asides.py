"""What the player asks to read at a table of ``quinze play`` (``help``, ``rules``), the notice of
whether the clock runs meanwhile, and yes/no questions: the part of
:class:`~quinze_cli.play.table.TableLoop` that shows text beside (or above) the board and gives the
board back after it (issue 14: reading never buries the board until the next move).

The clock is not paused while reading: at a table with a clock (per move or a time bank)
reading is thinking time, as in a game over the board; the notice says so with the time left,
and ``--local`` tables have no clock at all (PROTOCOL.md "Clocks").
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING


from quinze_cli.play.screen import ShownSummary, clock_time, draw, fits, seconds_left

if TYPE_CHECKING:
    from quinze_cli.i18n import Catalogue
    from quinze_cli.play.registry import GameUI, TableState
    from quinze_cli.play.session import Session

__all__ = ["YES_WORDS", "Asides"]

YES_WORDS = {"y", "yes", "o", "oui"}


class Asides:
    """Mixed into :class:`~quinze_cli.play.table.TableLoop` (which sets the attributes below)."""

    s: Session
    cat: Catalogue
    state: TableState
    ui: GameUI | None
    sent: bool
    shown: ShownSummary | None
    redraw_at: float | None
    aside: tuple[str, list[str]] | None
    asking: bool

    def redraw(self) -> None:  # pragma: no cover - TableLoop's
        raise NotImplementedError

    def _prompt(self) -> None:  # pragma: no cover - TableLoop's
        raise NotImplementedError

    async def _rejoin(self) -> None:  # pragma: no cover - TableLoop's
        raise NotImplementedError

    def show_rules(self) -> None:
        """The rules printed, then the board again under them (:meth:`_board_again`)."""
        if self.ui is not None:
            from rich.markdown import Markdown  # markdown-it and pygments: only when the rules are asked for

            self.s.console.print(Markdown(self.ui.rules_text()))
            self._board_again([self.cat("help.rules-above"), self._clock_note()], self.cat("screen.rules"))

    def _clock_note(self) -> str:
        """Whether our clock runs while we read (it does at a table with a clock: reading is
        thinking time), with the time left."""
        st = self.state
        kind = (st.clock or {}).get("kind", "none")
        left = seconds_left(st)
        if st.seat is None or st.result is not None:
            return self.cat("help.clock-watching")
        if kind == "none" or (st.legal and left is None):
            return self.cat("help.clock-none")
        if left is None:
            return self.cat("help.clock-not-yours")
        return self.cat("help.clock-bank" if kind == "bank" else "help.clock-move", time=clock_time(left))

    def _show_help(self) -> bool:
        """The help, in the place of the recent events when it fits beside the board, else
        printed and the screen drawn again under it (:meth:`_board_again`). True: the prompt
        came with it."""
        cat = self.cat
        lines = [cat(key) for key in ("help.1", "help.2", "help.3", "help.4", "help.5")]
        lines += (self.ui.help_lines() if self.ui is not None else []) + [self._clock_note()]
        if self.ui is not None and self.state.number > 0 and fits(self.s.console, self.ui, self.state, cat, lines):
            self.aside = (cat("screen.help"), lines)
            self.redraw()
            return True
        for h in lines[:-1]:
            self._say_wrapped(h)
        self._board_again([cat("help.help-above"), lines[-1]], cat("screen.help"))
        return True

    def _board_again(self, note: list[str], title: str = "") -> None:
        """Draw the screen again under text just printed (the rules), without clearing it: the
        text stays above (the terminal's scrollback), the board and the prompt come back in view,
        with ``note`` in the place of the recent events."""
        if self.ui is None or self.state.number == 0:
            for line in note:
                self._say_wrapped(line)
            if self.state.legal and not self.sent and self.state.seat is not None:
                self._prompt()
            return
        self.redraw_at = None
        draw(self.s.console, self.ui, self.state, self.cat, clear=False, summary=self.shown,
             aside=note, aside_title=title, recent_shown=False)
        if self.state.legal and not self.sent and self.state.seat is not None:
            self._prompt()

    def _say_wrapped(self, line: str) -> None:
        """One help line wrapped between words at the terminal's width, the continuation lines
        indented under the text (never a word cut, never a line back at column 0)."""
        indent = len(line) - len(line.lstrip(" "))
        width = max(20, self.s.console.width - 1)
        text = textwrap.fill(line.strip(), width=width, initial_indent=" " * indent,
                             subsequent_indent=" " * (indent + 2), break_long_words=False, break_on_hyphens=False)
        self.s.console.print(text, markup=False, highlight=False, soft_wrap=True)

    async def _confirm_quit(self) -> bool:
        """Ask ``table.confirm-quit`` (leaving forfeits the running game): :meth:`_ask`."""
        return await self._ask(self.cat("table.confirm-quit"), rejoin_on_yes=False)

    async def _ask(self, question: str, rejoin_on_yes: bool = True) -> bool:
        """Ask ``question`` and wait for the answer: True for ``y``/``yes`` (``o``/``oui``),
        False for anything else (Enter: no). Server messages meanwhile are kept for the table
        loop; a connection restored meanwhile takes the seat back after the answer (then False:
        the question was about a request that is gone). Raises :class:`Quit` on Ctrl-C or end of
        input."""
        s = self.s
        s.prompt(question)
        self.asking = True
        try:
            line, resumed = await s.next_line()
        finally:
            self.asking = False
        answer = line.strip().lower() in YES_WORDS
        if resumed and (rejoin_on_yes or not answer):
            await self._rejoin()
            return False if rejoin_on_yes else answer
        return answer
