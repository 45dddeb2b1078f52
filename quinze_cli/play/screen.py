"""Drawing the table screen of ``quinze play`` (game-agnostic frame around the game's board).

Layout, top to bottom, sized for an 80x24 terminal: a header (game, table, game number, who we
are), the clock of each player (:func:`clock_line`; none at a table without a clock), the game's board (:meth:`GameUI.board`), the last events in words, whose turn it is with the
seconds left, and when it is our turn the legal actions numbered (at most :data:`MAX_SHOWN`; ``list``
shows them all). The recent events take all the height the rest leaves (:func:`recent_rows`;
our own last action stays among them; a long line wraps to the width, never cut), and the end of
a deal or coup is shown under them (:class:`ShownSummary`). Text the player asked for (``help``)
can take the place of the recent events (``aside``) so that the board stays in view.
"""

from __future__ import annotations

import textwrap
import time
from dataclasses import dataclass

from rich.console import Console, Group, RenderableType
from rich.rule import Rule
from rich.text import Text

from quinze_protocol.game import ABORTED
from quinze_cli.i18n import Catalogue
from quinze_cli.play.registry import GameUI, TableState

__all__ = ["MAX_SHOWN", "ShownSummary", "clock_line", "clock_time", "draw", "fits", "legal_lines", "recent_lines",
           "recent_rows", "seconds_left", "wrap_line"]

MAX_SHOWN = 8
"""Legal actions listed on the screen; more are listed by the ``list`` command."""

LOG_SHOWN = 5
"""Recent events shown under the board when the output is not a terminal (a terminal shows as many
as its height leaves room for)."""


@dataclass
class ShownSummary:
    """The end of a deal or coup on screen: its ``lines``, until ``until`` (``time.monotonic()``)
    or, when None, until the player presses Enter (then a line says so)."""

    lines: list[str]
    until: float | None


def seconds_left(state: TableState, now: float | None = None) -> int | None:
    """Whole seconds until the pending request's deadline (>= 0), None without a request."""
    if state.deadline_at is None:
        return None
    now = time.monotonic() if now is None else now
    return max(0, int(state.deadline_at - now + 0.999))


def clock_time(seconds: float) -> str:
    """``4:05`` from a minute up, ``42 s`` below (whole seconds, rounded up)."""
    whole = max(0, int(seconds + 0.999))
    return f"{whole // 60}:{whole % 60:02d}" if whole >= 60 else f"{whole} s"


def clock_line(state: TableState, cat: Catalogue, now: float | None = None) -> Text | None:
    """Every player's time left (the seat to act marked ``▶``, counting down since the clock state
    arrived), e.g. ``Time bank (+5 s a move): Ana ▶ 4:12 · greedy-1 4:55``; None at a table without
    a clock or before any clock state."""
    clock = state.clock
    if not clock or clock.get("kind") not in ("bank", "move"):
        return None
    now = time.monotonic() if now is None else now
    if clock["kind"] == "bank":
        head = cat("clock.bank", increment=f"{clock.get('increment', 0):g}")
    else:
        head = cat("clock.move", seconds=f"{clock.get('move', 0):g}")
    line = Text(head, style="dim")
    parts = []
    for seat, left in enumerate(clock.get("left", [])):
        running = seat == state.clock_seat and state.result is None
        if left is None and not running:
            continue
        if left is None:
            continue
        if running and state.clock_at is not None:
            left = max(0.0, left - (now - state.clock_at))
        key = "clock.running" if running else "clock.seat"
        parts.append((cat(key, name=state.name(seat), time=clock_time(left)), "bold" if running else ""))
    if not parts:
        return None
    for i, (text, style) in enumerate(parts):
        line.append(" · " if i else " ", style="dim")
        line.append(text, style=style)
    return line


def legal_lines(ui: GameUI, state: TableState, limit: int | None = MAX_SHOWN) -> list[Text]:
    """The legal actions numbered from 1 (``limit`` of them; None for all)."""
    out = []
    shown = state.legal if limit is None else state.legal[:limit]
    for i, action in enumerate(shown, 1):
        line = Text(f"{i:>3}) ")
        line.append_text(ui.action_text(state, action))
        out.append(line)
    if limit is not None and len(state.legal) > limit:
        out.append(Text("     " + ui.cat("screen.more", n=len(state.legal) - limit), style="dim"))
    return out


def wrap_line(line: str, width: int, indent: int = 2) -> list[str]:
    """``line`` wrapped between words to ``width`` columns: the first row indented by ``indent``
    spaces more than the line's own, the next ones by two more (a word longer than a row is cut, nothing is dropped)."""
    lead = indent + len(line) - len(line.lstrip(" "))
    rows = textwrap.wrap(line.strip(), width=max(12, width), initial_indent=" " * lead,
                         subsequent_indent=" " * (lead + 2), break_on_hyphens=False)
    return rows or [" " * lead]


def recent_rows(state: TableState, rows: int, width: int, max_lines: int | None = None) -> list[tuple[list[str], bool]]:
    """The newest lines of the log that fit in ``rows`` terminal rows once wrapped to ``width``
    (:func:`wrap_line`), oldest first, as ``(rows of the line, pinned)``; at most ``max_lines``
    lines when given. When our own last action is older than those, it takes the place of the
    oldest (``pinned`` True): a round of bot turns never pushes it off the screen."""
    log = list(state.log)
    if rows <= 0 or not log or max_lines == 0:
        return []
    first = state.logged - len(log)  # the number of the oldest line kept
    mine = state.mine
    mine_rows = wrap_line(mine[1], width) if mine is not None and mine[0] >= first else None
    picked: list[tuple[list[str], bool]] = []
    used, oldest = 0, state.logged
    for i in range(len(log) - 1, -1, -1):
        wrapped = wrap_line(log[i], width)
        if used + len(wrapped) > rows or (max_lines is not None and len(picked) >= max_lines):
            break
        picked.append((wrapped, False))
        used += len(wrapped)
        oldest = first + i
    picked.reverse()
    if mine_rows is not None and mine is not None and picked and mine[0] < oldest and len(mine_rows) < rows:
        while picked and (used + len(mine_rows) > rows or (max_lines is not None and len(picked) >= max_lines)):
            used -= len(picked.pop(0)[0])
        picked.insert(0, (mine_rows, True))
    return picked


def recent_lines(state: TableState, n: int) -> list[tuple[str, bool]]:
    """The last ``n`` lines of the log as ``(text, pinned)``, our own last action kept as in
    :func:`recent_rows` (lines not wrapped)."""
    return [(" ".join(r.strip() for r in rows), pinned) for rows, pinned in recent_rows(state, 10**6, 10**6, n)]


def fits(console: Console, ui: GameUI, state: TableState, cat: Catalogue, aside: list[str]) -> bool:
    """True when :func:`draw` with ``aside`` leaves the board, the turn and at least three legal
    actions in view on ``console`` (always True when it is not a terminal)."""
    if not console.is_terminal:
        return True
    return _room(console, ui, state, cat) - 1 - _aside_rows(aside, console.width) >= min(3, _n_legal(state)) + 1


def _aside_rows(aside: list[str], width: int) -> int:
    return sum(len(wrap_line(line, width - 1, 0)) for line in aside)


def _n_legal(state: TableState) -> int:
    return len(state.legal) if state.legal and state.seat is not None else 0


def _top(ui: GameUI, state: TableState, cat: Catalogue) -> tuple[Text, RenderableType]:
    who = (
        cat("screen.you", name=state.name(state.seat), seat=state.seat)
        if state.seat is not None
        else cat("screen.spectator")
    )
    title = cat(f"game.title.{state.game}") if cat.has(f"game.title.{state.game}") else state.game
    header = Text.assemble(
        (title, "bold"), " — ", cat("screen.table", table=state.table, number=state.number), " — ", who
    )
    board: RenderableType = ui.board(state)
    clock = clock_line(state, cat)
    if clock is not None:
        board = Group(clock, board)
    return header, board


def _room(console: Console, ui: GameUI, state: TableState, cat: Catalogue) -> int:
    """Rows left under the header and the board for the panels and the legal actions (the two
    rules, the turn line and the prompt counted)."""
    _, board = _top(ui, state, cat)
    used = 1 + len(console.render_lines(board, console.options, pad=False)) + 4
    return max(0, console.height - used)


def draw(console: Console, ui: GameUI, state: TableState, cat: Catalogue, *, clear: bool,
         summary: ShownSummary | None = None, aside: list[str] | None = None, aside_title: str = "",
         recent_shown: bool = True) -> None:
    """Draw the whole table screen on ``console`` (clearing it first when ``clear``); with a
    ``summary``, the end of the deal or coup under the recent events (the turn line then says
    nothing: the Enter prompt or the next deal follows); with ``aside`` (lines titled
    ``aside_title``, e.g. the help), those lines in the place of the recent events;
    ``recent_shown`` False: no recent events at all (the screen drawn under text just printed,
    which then stays in view above it as far as the height allows)."""
    if clear:
        console.clear()
    header, board = _top(ui, state, cat)
    width = console.width - 1
    log_rows, legal_n = 10**6, MAX_SHOWN
    log_max: int | None = LOG_SHOWN
    sum_lines = [] if summary is None else list(summary.lines)
    sum_rows = [wrap_line(line, width) for line in sum_lines]
    sum_block = sum(len(r) for r in sum_rows) + (1 if sum_lines else 0)
    aside_block = (1 + _aside_rows(aside, console.width)) if aside else 0
    if console.is_terminal:
        # fit the terminal: the board, 2 rules, the turn line and the prompt are always there;
        # the recent events take every row left (not a fixed few), their lines wrapped
        room = max(0, _room(console, ui, state, cat) - sum_block - aside_block)
        n = _n_legal(state)
        legal_n = n if n <= min(MAX_SHOWN, room - 2) else max(3, min(MAX_SHOWN, room - 3))
        block = legal_n + (1 if n > legal_n else 0)
        log_rows, log_max = max(0 if aside else 2, room - block), None
    parts: list = [header, board]
    recent = [] if not recent_shown or (aside and console.is_terminal and log_rows < 1) else \
        recent_rows(state, log_rows, width, log_max)
    if recent:
        parts.append(Rule(cat("screen.recent"), style="dim", align="left"))
        for rows, pinned in recent:
            parts.extend(Text(row, style="bold" if pinned else "") for row in rows)
    if aside:
        parts.append(Rule(aside_title, style="bold", align="left"))
        parts.extend(Text(row) for line in aside for row in wrap_line(line, width, 0))
    if sum_lines:
        parts.append(Rule(cat("screen.summary"), style="bold", align="left"))
        parts.extend(Text(row, style="bold") for rows in sum_rows for row in rows)
    parts.append(Rule(style="dim"))
    left = seconds_left(state)
    if state.result is not None:
        aborted = state.result.get("reason") == ABORTED
        parts.append(Text(cat("screen.game-aborted" if aborted else "screen.game-over"), style="bold"))
    elif state.legal and state.seat is not None:
        turn = cat("screen.your-turn", seconds=left) if left is not None else cat("screen.your-turn-free")
        parts.append(Text(turn, style="bold green"))
        parts.extend(legal_lines(ui, state, legal_n))
    elif (summary is None or summary.until is not None) and state.to_act is not None and state.to_act != state.seat:
        parts.append(Text(cat("screen.waiting-for", name=state.name(state.to_act))))
    console.print(Group(*parts))
