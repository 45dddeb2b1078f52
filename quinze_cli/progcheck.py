"""The up-front check of a program the CLI is about to start (a bot, a reference engine).

One place for it: ``quinze match``, ``quinze tournament``, ``quinze bot`` and ``quinze bench
--anchor`` call :func:`program_problem` before anything is played, so that a program that cannot
start is a usage error naming what is wrong, instead of a game forfeited, a traceback or a table
left waiting. It looks at the files only (it never runs the program).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

__all__ = ["SCRIPT_SUFFIXES", "program_problem"]

SCRIPT_SUFFIXES = (".py", ".js", ".rb", ".sh", ".pl")
"""Arguments of a command taken as the script it runs (checked to exist before a match)."""


def _path_problem(name: str) -> str:
    """Why the path ``name`` (with a ``/``) cannot be run: missing, a folder, not executable."""
    path = Path(name)
    if not path.exists():
        why = f"no such file, relative to {Path.cwd()}"
    elif path.is_dir():
        why = "it is a folder"
    else:
        why = f"the file is not executable: chmod +x {name}, or put its interpreter first"
    return f"{name!r} is not an executable program ({why})"


def _interpreter_problem(program: str) -> str | None:
    """Why the ``#!`` line of the file ``program`` names an interpreter that cannot run, or None
    (no ``#!`` line, an unreadable file, or an interpreter that is there)."""
    try:
        with open(program, "rb") as f:
            head = f.read(256)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].split()
    if not words:
        return f"{program!r} cannot start: its #! line names no interpreter"
    interp = os.fsdecode(words[0])
    if not os.path.isabs(interp):
        return None  # the kernel takes it relative to the working folder: left to the start itself
    if not os.path.exists(interp):
        return f"{program!r} cannot start: the interpreter on its #! line, {interp!r}, does not exist"
    if os.path.isdir(interp) or not os.access(interp, os.X_OK):
        return f"{program!r} cannot start: the interpreter on its #! line, {interp!r}, is not an executable program"
    return None


def program_problem(argv: tuple[str, ...] | list[str]) -> str | None:
    """Why the command ``argv`` cannot start, or None (also for an empty ``argv``, a built-in).

    Problems found: a program not on ``PATH``; a path that does not exist, is a folder or is not
    executable; a script whose ``#!`` interpreter is missing or not executable; an argument that
    looks like the script it runs (ends in one of :data:`SCRIPT_SUFFIXES`) and is not a file,
    relative to the current folder. The answer is a sentence naming the program or file."""
    if not argv:
        return None
    program = shutil.which(argv[0])
    if program is None:
        if os.sep in argv[0] or (os.altsep and os.altsep in argv[0]):
            return _path_problem(argv[0])
        return f"{argv[0]!r} is not an executable program (not found on PATH)"
    problem = _interpreter_problem(program)
    if problem is not None:
        return problem
    for arg in argv[1:]:
        if not arg.startswith("-") and arg.endswith(SCRIPT_SUFFIXES) and not Path(arg).is_file():
            where = "it is a folder" if Path(arg).is_dir() else f"relative to {Path.cwd()}"
            return f"no file {arg!r} ({where})"
    return None
