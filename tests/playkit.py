"""What the ``quinze play`` tests share: paths, the pexpect timeout, ANSI stripping, the
prompts they wait for, the last screen drawn, starting ``quinze play`` (or a local table) in a
terminal of a given size and leaving a game. Their fixtures ``env`` and
``host`` are in ``conftest.py``."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pexpect
import forkkit


ROOT = Path(__file__).resolve().parent.parent
QUINZE = str(Path(sys.executable).with_name("quinze"))
TIMEOUT = 60
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def plain(text: str) -> str:
    """``text`` without ANSI escapes."""
    return ANSI.sub("", text)


PROMPT = r"(Your move|Votre coup)(?: \(\d+ s\))?> "
"""The move prompt, English or French, with or without the seconds left."""
ENTER = r"(Press Enter to go on|Appuyez sur Entrée pour continuer)> "
"""The prompt of a deal's summary at a local table."""
CLOSED = r"(Table|La table) [a-z2-9]{4}-t\d+ (is closed|est fermée)"
"""The line that tells the table closed."""


def last_screen(child: pexpect.spawn) -> str:
    """The last screen drawn (after the last clear), without escapes."""
    return plain((child.before or "").rsplit("\x1b[2J", 1)[-1]).replace("\r\n", "\n")


def move_prompts(child: pexpect.spawn, limit: int) -> Iterator[None]:
    """Wait for the next prompt, at most ``limit`` times: Enter at a deal's summary, a yield at
    each move prompt (the caller answers it), the end once the table closed."""
    for _ in range(limit):
        k = child.expect([PROMPT, ENTER, CLOSED])
        if k == 2:
            return
        if k == 1:
            child.sendline("")
            continue
        yield


def spawn_local(env, game: str, *args: str, size=(24, 80), lang: str | None = None) -> pexpect.spawn:
    """``quinze play --local --no-log --name Ana --game GAME ARGS`` in a terminal of ``size``."""
    return spawn_play(env, "--local", "--no-log", "--name", "Ana", "--game", game, *args, size=size, lang=lang)


def spawn_play(env, *args: str, size=(24, 80), lang: str | None = None) -> pexpect.spawn:
    """``quinze play ARGS [--lang LANG]`` in a pseudo-terminal of ``size`` (rows, columns)."""
    env = dict(env, LINES=str(size[0]), COLUMNS=str(size[1]))
    extra = ["--lang", lang] if lang else []
    return forkkit.spawn(QUINZE, ["play", *args, *extra], env=env, encoding="utf-8", timeout=TIMEOUT, dimensions=size)


def quit_game(child: pexpect.spawn, fr: bool = False) -> None:
    """Leave the game (``quit``, confirmed) and wait for the program to end."""
    child.sendline("quitter" if fr else "quit")
    child.expect(r"\[o/N\]" if fr else r"\[y/N\]")
    child.sendline("o" if fr else "y")
    child.expect(pexpect.EOF)
    child.close()
