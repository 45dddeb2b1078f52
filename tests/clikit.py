"""``quinze`` commands run inside the test process, for tests whose subject is a command's output
and exit code rather than the process (replay printing, check-bot reports, option errors...).

:func:`quinze` calls the console script's own entry point (:func:`quinze_cli.app.main`: only the
named command's module, a usage error as one ``error:`` line and exit 2, every exit code as the
executable gives it) with ``sys.argv``, the three standard streams and the working directory
swapped for the call, and returns what :func:`subprocess.run` would (``returncode``, ``stdout``,
``stderr`` as text). Same code, same assertions, without the 0.1-0.3 s of CPU that a fresh
interpreter and its imports cost per command (tests/cpumap.py measures it). The programs such a
command starts (bots, compilers) are still real subprocesses. Tests about the process itself
(signals, a crash's exit code, the terminal, what a start imports) keep the executable.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from typer.testing import CliRunner

from quinze_cli.app import main


def quinze(*args: str, cwd: str | Path | None = None, input: str | bytes | None = None,
           env: Mapping[str, str | None] | None = None) -> subprocess.CompletedProcess[str]:
    """``quinze ARGS`` in this process: the result as ``subprocess.run([...], capture_output=True,
    text=True)`` gives it. ``input``: the text (or bytes) on stdin (none: an empty stdin); ``env``: variables
    set (``None``: unset) for the call. An exception that the executable would print as a
    traceback propagates (the test fails with it)."""
    runner = CliRunner()
    argv, here = sys.argv, os.getcwd()
    with runner.isolation(input=input, env=env) as (out, err, _):
        sys.argv = ["quinze", *args]
        code = 0
        try:
            if cwd is not None:
                os.chdir(cwd)
            main()
        except SystemExit as stop:
            if isinstance(stop.code, int) or stop.code is None:
                code = stop.code or 0
            else:  # a message: Python prints it on stderr and exits 1
                print(stop.code, file=sys.stderr)
                code = 1
        finally:
            sys.argv = argv
            os.chdir(here)
            sys.stdout.flush()
            sys.stderr.flush()
        return subprocess.CompletedProcess(["quinze", *args], code, out.getvalue().decode(), err.getvalue().decode())


def summary_of_a_run(path: Path) -> dict:
    """A match's ``--json`` summary at ``path`` without what differs between two runs of the same
    games (the log's name, the concurrency, the bots' times, the failures' table ids): two runs
    that played the same games compare equal."""
    import json

    data = json.loads(path.read_text())
    for key in ("log", "concurrency"):
        data.pop(key)
    for b in data["bots"]:
        b.pop("time")
    for f in data["failures"]:
        f.pop("table", None)
    return data


def alive(pid: int) -> bool:
    """True while the process ``pid`` exists and is not a zombie (read from /proc): a bot program
    a command started and should have stopped."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
