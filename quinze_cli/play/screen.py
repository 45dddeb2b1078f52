"""Drawing the table screen of ``quinze play`` (game-agnostic frame around the game's board).

Layout, top to bottom, sized for an 80x24 terminal: a header (game, table, game number, who we
are), the clock of each player (:func:`clock_line`; none at a table without a clock), the game's board (:meth:`GameUI.board`), the last events in words, whose turn it is with the
seconds left, and when it is our turn the legal actions numbered (at most :data:`MAX_SHOWN`; ``list``
shows them all). The recent events take all the height the rest leaves (:func:`recent_lines`;
our own last action stays among them), and the end of a deal or coup is shown under them
(:class:`ShownSummary`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from rich.console import Console, Group
from rich.rule import Rule
from rich.text import Text

from quinze_cli.play.i18n import Catalogue
from quinze_cli.play.registry import GameUI, TableState

__all__ = ["MAX_SHOWN", "ShownSummary", "clock_line", "clock_time", "draw", "legal_lines", "recent_lines", "seconds_left"]

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


def recent_lines(state: TableState, n: int) -> list[tuple[str, bool]]:
    """The last ``n`` lines of the log as ``(text, pinned)``; when our own last action is older
    than those, it replaces the oldest of them (``pinned`` True): a round of bot turns never
    pushes it off the screen."""
    shown = [(line, False) for line in list(state.log)[-n:]] if n > 0 else []
    mine = state.mine
    if mine is not None and n > 1 and mine[0] < state.logged - len(shown) and mine[0] >= state.logged - len(state.log):
        shown = [(mine[1], True)] + shown[1:]
    return shown


def draw(console: Console, ui: GameUI, state: TableState, cat: Catalogue, *, clear: bool,
         summary: ShownSummary | None = None) -> None:
    """Draw the whole table screen on ``console`` (clearing it first when ``clear``); with a
    ``summary``, the end of the deal or coup under the recent events."""
    if clear:
        console.clear()
    who = (
        cat("screen.you", name=state.name(state.seat), seat=state.seat)
        if state.seat is not None
        else cat("screen.spectator")
    )
    title = cat(f"game.title.{state.game}") if cat.has(f"game.title.{state.game}") else state.game
    header = Text.assemble(
        (title, "bold"), " — ", cat("screen.table", table=state.table, number=state.number), " — ", who
    )
    board = ui.board(state)
    clock = clock_line(state, cat)
    if clock is not None:
        board = Group(clock, board)
    log_n, legal_n = LOG_SHOWN, MAX_SHOWN
    sum_lines = [] if summary is None else list(summary.lines)
    sum_block = len(sum_lines) + (1 if sum_lines else 0)
    if console.is_terminal:
        # fit the terminal: the board, 2 rules, the turn line and the prompt are always there;
        # the recent events take every line left (not a fixed few)
        used = 1 + len(console.render_lines(board, console.options, pad=False)) + 4
        room = max(0, console.height - used - sum_block)  # for the recent events and the legal actions
        n = len(state.legal) if state.legal and state.seat is not None else 0
        legal_n = n if n <= min(MAX_SHOWN, room - 2) else max(3, min(MAX_SHOWN, room - 3))
        block = legal_n + (1 if n > legal_n else 0)
        log_n = max(2, room - block)
    parts: list = [header, board]
    recent = recent_lines(state, log_n)
    if recent:
        parts.append(Rule(cat("screen.recent"), style="dim", align="left"))
        parts.extend(Text("  " + line, no_wrap=True, overflow="ellipsis", style="bold" if pinned else "")
                     for line, pinned in recent)
    if sum_lines:
        parts.append(Rule(cat("screen.summary"), style="bold", align="left"))
        parts.extend(Text("  " + line, style="bold") for line in sum_lines)
    parts.append(Rule(style="dim"))
    left = seconds_left(state)
    if state.result is not None:
        parts.append(Text(cat("screen.game-over"), style="bold"))
    elif state.legal and state.seat is not None:
        turn = cat("screen.your-turn", seconds=left) if left is not None else cat("screen.your-turn-free")
        parts.append(Text(turn, style="bold green"))
        parts.extend(legal_lines(ui, state, legal_n))
    elif state.to_act is not None:
        parts.append(Text(cat("screen.waiting-for", name=state.name(state.to_act))))
    console.print(Group(*parts))
