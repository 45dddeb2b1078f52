"""Fixtures shared by the ``quinze play`` tests (constants in ``playkit.py``):

- ``env``: an environment for the client — no colour, its own seat-token cache under the test's
  tmp dir, an 80x24 UTF-8 terminal, English unless a test says otherwise;
- ``host``: starts ``tests/play_host.py`` (a real server on loopback with built-in bots, as
  ``--local`` uses) and returns ``start(seed, opponents, *options) -> (port, table)``.

Also: the whole suite (``python -m pytest``, no paths given) runs on pytest-xdist workers, two
per core (four on the 2-core CI machine), when pytest-xdist is installed and no ``-n`` was given
(``-n 0``: one process), with ``--dist worksteal``: the suite's tests last from milliseconds to
many seconds, so a worker that runs out of tests takes some queued for another. Two per core
because most of the suite's time is spent waiting, not computing: on bots that answer late or
never (check-bot), on deadlines, on subprocesses and servers starting; with one worker per core
the cores sat idle about half of the run. Named test files run in one process (workers cost
more than they save there), and so does everything without pytest-xdist.

Bytecode: the suite starts hundreds of Python processes (``quinze`` commands, bots, servers). Where
``PYTHONDONTWRITEBYTECODE`` is set (as on the CI machine) none of them may write a ``.pyc``, so each
compiled the project's modules from source again, and each xdist worker rewrote and compiled every
test file again (collection took three times as long). So the suite compiles ``protocol/``,
``server/``, ``quinze_cli/`` and ``tests/`` once at its start into the usual ``__pycache__``
folders (ignored by git; up-to-date files are skipped) and lets its own processes write theirs;
the processes it starts keep the setting and read what is there.
"""

from __future__ import annotations

import compileall
import os
import subprocess
import sys

import pytest
from playkit import ROOT, TIMEOUT


WORKERS = 2 * max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
"""pytest-xdist workers used by default: two per core this process may run on (see the module docstring)."""

COMPILED = ("protocol", "server", "quinze_cli", "tests")
"""The folders compiled once at the start of a run (see the module docstring)."""

sys.dont_write_bytecode = False  # this process's own imports from here on (test modules included) are cached


def pytest_configure(config: pytest.Config) -> None:
    """Compile :data:`COMPILED` once, in the main process (the xdist workers start after it)."""
    if not hasattr(config, "workerinput"):
        for folder in COMPILED:
            compileall.compile_dir(ROOT / folder, quiet=2, workers=1)  # quiet: a read-only tree only costs the speed


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """:data:`WORKERS` xdist workers for the whole suite unless told otherwise (``-n``); never in a worker."""
    whole_suite = getattr(config, "args_source", None) == pytest.Config.ArgsSource.TESTPATHS
    if whole_suite and getattr(config.option, "numprocesses", 0) is None and not hasattr(config, "workerinput") \
            and not config.getoption("usepdb", False):
        config.option.numprocesses = WORKERS
        if config.option.dist == "no":  # an idle worker takes tests queued for another one
            config.option.dist = "worksteal"


@pytest.fixture
def env(tmp_path):
    e = dict(os.environ)
    e.update(NO_COLOR="1", XDG_CACHE_HOME=str(tmp_path / "cache"), TERM="xterm", LANG="C.UTF-8", COLUMNS="80", LINES="24")
    e.pop("LC_ALL", None)
    e.pop("LANGUAGE", None)
    return e


@pytest.fixture
def host():
    """Start ``play_host.py``; returns ``start(seed, opponents, *options) -> (port, table)``."""
    procs = []

    def start(seed: int = 3, opponents: str = "greedy", *options: str) -> tuple[int, str]:
        proc = subprocess.Popen(
            [sys.executable, str(ROOT / "tests" / "play_host.py"), "quinze", str(seed), opponents, "target=1", *options],
            stdout=subprocess.PIPE, text=True, cwd=str(ROOT),
        )
        procs.append(proc)
        line = proc.stdout.readline()
        assert line.startswith("READY "), line
        _, port, table = line.split()
        return int(port), table

    yield start
    for p in procs:
        p.kill()
        p.wait(timeout=TIMEOUT)


# No test announces or browses on the machine's real network: multicast DNS stays on loopback
# unless a test says otherwise (tests/lankit.py does, inside network namespaces it made).
os.environ.setdefault("QUINZE_LAN_INTERFACES", "127.0.0.1")
