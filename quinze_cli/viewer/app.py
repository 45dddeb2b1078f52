"""The step-through viewer's key loop: ``quinze replay LOG --game N --step`` (docs/botkit.md).

Full screen (the terminal's alternate screen), redrawn whole after each key with rich; keys are
read one at a time from the terminal in cbreak mode (``termios``), arrows and Home/End/PgUp/PgDn
as their escape sequences. rich and a plain key loop rather than Textual or prompt_toolkit: the
board is the rich renderable ``quinze play`` already draws, the viewer needs single keys and no
widgets, and this keeps the project free of a second UI framework (it runs over ssh, at 80x24,
and with ``NO_COLOR`` as rich does). No server, no Trio.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import termios
import tty
from collections.abc import Callable

from rich.console import Console

from quinze_cli.errors import EXIT_INTERRUPTED
from quinze_cli.viewer.screen import Viewer

ESCAPES = {
    "\x1b[C": "right", "\x1bOC": "right", "\x1b[D": "left", "\x1bOD": "left",
    "\x1b[A": "up", "\x1bOA": "up", "\x1b[B": "down", "\x1bOB": "down",
    "\x1b[H": "home", "\x1bOH": "home", "\x1b[1~": "home", "\x1b[F": "end", "\x1bOF": "end", "\x1b[4~": "end",
    "\x1b[5~": "pgup", "\x1b[6~": "pgdn",
}


def read_key(fd: int) -> str:
    """One key from the terminal ``fd``: a character, or a name from :data:`ESCAPES`; ``""`` at
    end of input."""
    data = os.read(fd, 1)
    if not data:
        return ""
    if data != b"\x1b":
        try:
            return data.decode()
        except UnicodeDecodeError:
            return "?"
    seq = data
    while select.select([fd], [], [], 0.05)[0]:
        seq += os.read(fd, 1)
        text = seq.decode(errors="replace")
        if text in ESCAPES:
            return ESCAPES[text]
        if len(seq) >= 6 or (len(seq) > 2 and seq[-1:].isalpha()) or seq.endswith(b"~"):
            break
    return ESCAPES.get(seq.decode(errors="replace"), "escape")


def handle(view: Viewer, key: str) -> bool:
    """Apply one key to ``view``; False to quit."""
    t = view.timeline
    view.message = ""
    if view.entry is not None:  # typing the action number after g
        if key.isdecimal():
            view.entry += key
        elif key in ("\x7f", "\b"):
            view.entry = view.entry[:-1]
        elif key in ("\r", "\n"):
            if view.entry:
                k = int(view.entry)
                if 1 <= k <= t.last + 1:
                    view.index = k - 1
                else:
                    view.message = view.cat("viewer.no-action", k=k, last=t.last, end=t.last + 1)
            view.entry = None
        elif key in ("escape", "q", "\x03"):
            view.entry = None
        return True
    moves: dict[str, Callable[[], int]] = {
        "right": lambda: min(t.last, view.index + 1), "l": lambda: min(t.last, view.index + 1),
        "n": lambda: min(t.last, view.index + 1), " ": lambda: min(t.last, view.index + 1),
        "left": lambda: max(0, view.index - 1), "h": lambda: max(0, view.index - 1), "p": lambda: max(0, view.index - 1),
        "down": lambda: t.step_turn(view.index, True), "t": lambda: t.step_turn(view.index, True),
        "up": lambda: t.step_turn(view.index, False), "T": lambda: t.step_turn(view.index, False),
        "d": lambda: t.step_round(view.index, True), "pgdn": lambda: t.step_round(view.index, True),
        "D": lambda: t.step_round(view.index, False), "pgup": lambda: t.step_round(view.index, False),
        "home": lambda: 0, "end": lambda: t.last,
    }
    players = len(t.players)
    if key in ("q", "Q", "\x03", ""):
        return False
    if key in moves:
        if key in ("d", "D", "pgup", "pgdn") and t.round_name is None:
            view.message = view.cat("viewer.no-rounds", game=t.game_id)
        view.index = moves[key]()
    elif key == "g":
        view.entry = ""
    elif key == "s":
        view.seat = 0 if view.seat is None else (view.seat + 1 if view.seat + 1 < players else None)
    elif key == "f":
        view.seat = None
    elif key.isdecimal():
        if int(key) < players:
            view.seat = int(key)
        else:
            view.message = view.cat("viewer.no-seat", key=key, top=players - 1)
    elif key not in ("\x0c",):  # Ctrl-L only redraws
        view.message = view.cat("viewer.bad-key", key=repr(key))
    return True


def run(view: Viewer, console: Console | None = None) -> int:
    """Show ``view`` full screen until ``q``; returns the exit code. Needs a terminal on stdin.
    Redrawn after each key and when the terminal is resized (``SIGWINCH``, woken through
    :func:`signal.set_wakeup_fd` while the loop waits in ``select``)."""
    console = console or Console(highlight=False)
    fd = sys.stdin.fileno()
    if not os.isatty(fd):
        console.print("error: --step needs a terminal (run it in one, not through a pipe)", style="bold red")
        return 2
    saved = termios.tcgetattr(fd)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    old_wakeup = signal.set_wakeup_fd(wake_w)
    old_winch = signal.signal(signal.SIGWINCH, lambda *_: None)  # the byte on wake_w is the news
    try:
        tty.setcbreak(fd)
        with console.screen(hide_cursor=True):
            while True:
                draw(view, console)
                if not select.select([fd, wake_r], [], [])[0].count(fd):
                    os.read(wake_r, 512)  # the terminal was resized: redraw at its new size
                    continue
                if not handle(view, read_key(fd)):
                    return 0
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        signal.signal(signal.SIGWINCH, old_winch)
        signal.set_wakeup_fd(old_wakeup)
        os.close(wake_r)
        os.close(wake_w)


def draw(view: Viewer, console: Console) -> None:
    """Draw ``view`` over the whole screen at the terminal's size now: asked of the terminal
    at each draw, as rich would otherwise keep ``COLUMNS`` / ``LINES`` from the environment
    (values of the size the terminal had when they were exported)."""
    try:
        console.size = os.get_terminal_size(console.file.fileno())
    except (AttributeError, ValueError, OSError):
        pass  # not a terminal (a test's console): its own size
    with console.capture() as shot:
        console.print(view.render(console))
    # The last line without its newline: a full screen must not scroll by one.
    console.clear(home=True)
    console.file.write(shot.get().rstrip("\n"))
    console.file.flush()
