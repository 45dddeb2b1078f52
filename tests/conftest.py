"""Fixtures shared by the ``quinze play`` tests (constants in ``playkit.py``):

- ``env``: an environment for the client — no colour, its own seat-token cache under the test's
  tmp dir, an 80x24 UTF-8 terminal, English unless a test says otherwise;
- ``host``: starts ``tests/play_host.py`` (a real server on loopback with built-in bots, as
  ``--local`` uses) and returns ``start(seed, opponents, *options) -> (port, table)``.

Also: the whole suite (``python -m pytest``, no paths given) runs on pytest-xdist workers, two
per core (four on the 2-core CI machine), when pytest-xdist is installed and no ``-n`` was given
(``-n 0``: one process), with a queue scheduler (:func:`pytest_xdist_make_scheduler`): each worker is handed one test at a time from
one queue, as it frees up (it keeps two or three queued), and the known-long tests
(:data:`LONG_FIRST`) are at the head of the queue, so that none of them starts last and makes the
tail of the run alone. The tests of a module with a module-scoped fixture (a Dask cluster, logs
made by a match, compiled bots) form one unit, run by one worker, so the fixture is made once.
(``worksteal``, before, split the suite into four contiguous quarters: a quarter with the long
tests at its end kept one worker busy past the others.) Two per core
because most of the suite's time is spent waiting, not computing: on bots that answer late or
never (check-bot), on deadlines, on subprocesses and servers starting; with one worker per core
the cores sat idle about half of the run. Three per core was tried once the in-process commands
(tests/clikit.py) brought the CPU near 195 s: six workers ended the same tree in 128-131 s where
four took 182-237 s, back to back under the suite lock (load average 7-10 from other work), but
in the next runs at load 8-10 timing tests failed (check-bot's needs_hello.py judged as passing
the handshake, a French clock test's first prompt not drawn within a 2 s move, a pty match not
ending within 60 s), so two per core stays. Named test files run in one process (workers cost
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
import functools
import os
import subprocess
import sys

import cpumap
import pytest
from playkit import ROOT, TIMEOUT


WORKERS = 2 * max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
"""pytest-xdist workers used by default: two per core this process may run on (see the module docstring)."""

COMPILED = ("protocol", "server", "quinze_cli", "tests")
"""The folders compiled once at the start of a run (see the module docstring)."""

sys.dont_write_bytecode = False  # this process's own imports from here on (test modules included) are cached


def pytest_configure(config: pytest.Config) -> None:
    """Compile :data:`COMPILED` once, in the main process (the xdist workers start after it); the
    CPU map of ``tests/cpumap.py`` when ``QUINZE_CPU_MAP`` is set."""
    cpumap.register(config)
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
        if config.option.dist == "no":  # one queue, a test at a time to whichever worker is free
            config.option.dist = "loadscope"  # with the scopes of OneQueue below
            config.stash[ONE_QUEUE] = True


ONE_QUEUE = pytest.StashKey[bool]()
"""Set when this file chose the scheduler (a ``--dist`` given by hand is left as it is)."""


def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """The whole suite's scheduler: :class:`OneQueue` (see the module docstring)."""
    if not config.stash.get(ONE_QUEUE, False):
        return None
    from xdist.scheduler import LoadScopeScheduling

    class OneQueue(LoadScopeScheduling):
        """xdist's ``loadscope`` scheduler (a worker with two tests or fewer queued is handed the
        next unit of the one queue; units with more tests first, then in collection order) whose
        unit is one test, or a whole module when that module has a module-scoped fixture.
        (xdist's own ``loadgroup`` marks do not take with pytest 9, which ignores the node id
        they rewrite.)"""

        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return path if module_scoped(path) else nodeid

    return OneQueue(config, log)


@functools.cache
def module_scoped(path: str) -> bool:
    """Whether the test module ``path`` (relative to the root) declares a module-scoped fixture."""
    try:
        return 'scope="module"' in (ROOT / path).read_text(encoding="utf-8")
    except OSError:
        return False


LONG_FIRST = (
    "test_load_bench.py::test_a_tiny_load_run_plays_and_reports",
    "test_checkbot.py::test_each_misbehaving_bot_fails_the_check_about_its_fault[slow.py]",
    "test_mcts_clock.py::test_time_budgeted_mcts",
    "test_checkbot.py::test_each_misbehaving_bot_fails_the_check_about_its_fault[never_flush.py]",
    "test_readme_lines.py::",
    "test_checkbot.py::test_each_misbehaving_bot_fails_the_check_about_its_fault[no_newline.py]",
    "test_mcts_clock.py::",
    "test_lan.py::",
    "test_cli_engine.py::test_bench_anchor",
    "test_checkbot.py::test_each_misbehaving_bot_fails_the_check_about_its_fault[unflushed.py]",
    "test_cli_engine.py::test_bench_",
    "test_play_clock_pty.py::test_a_time_bank_is_shown_for_everyone_and_warns_before_it_runs_out",
    "test_checkbot.py::test_each_misbehaving_bot_fails_the_check_about_its_fault[wrong_request.py]",
    "test_lan_play_fr.py::",
    "test_match_resume.py::",
    "test_lan_play.py::",
    "test_checkbot.py::",
    "test_cli_help_pty.py::",
    "test_play_clock_pty.py::",
    "test_play_events_pty.py::",
    "test_play_moves_pty.py::",
    "test_play.py::",
)
"""Tests that take seconds, longest first (by node id prefix under ``tests/``, from
``--durations``): the whole suite starts them first (see the module docstring). Those that
mostly wait (check-bot's silent bots, LAN look-ups, time banks) alternate with those that
compute (benches, searches, the README's matches), so that the two cores stay busy while the
waiting ones sit. A test missing here only risks starting late; keep the list short.
(The modules made one unit, such as test_cluster.py, are handed out before any of these.)"""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Known-long tests first (:data:`LONG_FIRST`), the others in their order."""

    def rank(item: pytest.Item) -> int:
        nodeid = item.nodeid.removeprefix("tests/")
        return next((i for i, prefix in enumerate(LONG_FIRST) if nodeid.startswith(prefix)), len(LONG_FIRST))

    items.sort(key=rank)


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
