"""Fixtures shared by the ``quinze play`` tests (constants in ``playkit.py``):

- ``env``: an environment for the client — no colour, its own seat-token cache under the test's
  tmp dir, an 80x24 UTF-8 terminal, English unless a test says otherwise;
- ``host``: starts ``tests/play_host.py`` (a real server on loopback with built-in bots, as
  ``--local`` uses) and returns ``start(seed, opponents, *options) -> (port, table)``.

Also: the whole suite (``python -m pytest``, no paths given) runs on pytest-xdist workers, two
per core (four on the 2-core CI machine), when pytest-xdist is installed and no ``-n`` was given
(``-n 0``: one process), with a queue scheduler (:func:`pytest_xdist_make_scheduler`): each
worker is handed one test at a time from one queue, as it frees up (it keeps the next one
queued), and the longest tests are at the head of the queue, so that none of them starts last
and makes the tail of the run alone: longest first by the seconds each test took in the last
whole run (:data:`DURATIONS`, in pytest's cache), or by the static :data:`LONG_FIRST` where no
run has left them yet. The tests of a module with a module-scoped fixture (a Dask cluster, logs
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
the processes it starts keep the setting and read what is there. The xdist workers are started
without it and take it back in their ``pytest_configure``, before any test (so the processes they
start keep it): the one thing they do before is loading pytest's plugins, whose modules pytest
rewrites as it does test files (for the plugin entry points of ``hypothesis`` and ``pytest-trio``,
every module of those packages, 85 of them) and caches only where bytecode may be written; with the
setting each pytest process rewrote them again, 1.3 s of CPU each (``--collect-only``: 3.8 s -> 2.5
s), five processes a run. Once written the cache is read by every later run, the setting or not.
"""

from __future__ import annotations

import compileall
import functools
import os
import signal
import subprocess
import sys
from typing import Any

import cpumap
import pytest
from playkit import ROOT, TIMEOUT


WORKERS = 2 * max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
"""pytest-xdist workers used by default: two per core this process may run on (see the module docstring)."""

COMPILED = ("protocol", "server", "quinze_cli", "tests")
"""The folders compiled once at the start of a run (see the module docstring)."""

sys.dont_write_bytecode = False  # this process's own imports from here on (test modules included) are cached

if hasattr(signal, "SIGHUP") and signal.getsignal(signal.SIGHUP) == signal.SIG_IGN:
    # A suite started under nohup (SIGHUP ignored) would hand the ignored SIGHUP down to every
    # command it starts, and the commands rightly keep running on SIGHUP then (quinze_cli/interrupt.py):
    # the tests of SIGHUP (tests/test_hangup_commands.py, tests/test_serve_hangup.py) need the
    # disposition a terminal gives. Put back for this process and its children; the nohup test
    # sets SIG_IGN in its own child.
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


NO_BYTECODE = "PYTHONDONTWRITEBYTECODE"
"""The variable the xdist workers start without and take back (see the module docstring)."""

WORKER_NO_BYTECODE = "quinze_no_bytecode"
"""The key, in each worker's ``workerinput``, of :data:`NO_BYTECODE`'s value in the main process."""

_no_bytecode: list[str] = []
""":data:`NO_BYTECODE`'s value, when the main process set it aside for its workers."""


def pytest_configure(config: pytest.Config) -> None:
    """Compile :data:`COMPILED` once, in the main process (the xdist workers start after it), and
    start the workers without :data:`NO_BYTECODE`; in a worker, set it back; the CPU map of
    ``tests/cpumap.py`` when ``QUINZE_CPU_MAP`` is set."""
    cpumap.register(config)
    if hasattr(config, "workerinput"):
        value = config.workerinput.get(WORKER_NO_BYTECODE)
        if value is not None:
            os.environ[NO_BYTECODE] = value
        return
    for folder in COMPILED:
        compileall.compile_dir(ROOT / folder, quiet=2, workers=1)  # quiet: a read-only tree only costs the speed
    if getattr(config.option, "numprocesses", None) and config.option.dist != "no" and NO_BYTECODE in os.environ:
        _no_bytecode.append(os.environ.pop(NO_BYTECODE))  # this process starts nothing but its workers


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist's hook, in the main process for each worker it starts: what to set back (above)."""
    if _no_bytecode:
        node.workerinput[WORKER_NO_BYTECODE] = _no_bytecode[0]


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """:data:`WORKERS` xdist workers for the whole suite unless told otherwise (``-n``); never in a worker."""
    whole_suite = getattr(config, "args_source", None) == pytest.Config.ArgsSource.TESTPATHS
    if whole_suite and getattr(config.option, "numprocesses", 0) is None and not hasattr(config, "workerinput") \
            and not config.getoption("usepdb", False):
        config.option.numprocesses = WORKERS
        if config.option.dist == "no":  # one queue, a test at a time to whichever worker is free
            config.option.dist = "loadscope"  # with the scopes of OneQueue below
            config.option.loadscopereorder = False  # the units in the order of pytest_collection_modifyitems
            config.stash[ONE_QUEUE] = True


ONE_QUEUE = pytest.StashKey[bool]()
"""Set when this file chose the scheduler (a ``--dist`` given by hand is left as it is)."""


def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """The whole suite's scheduler: :class:`OneQueue` (see the module docstring)."""
    if not config.stash.get(ONE_QUEUE, False):
        return None
    from xdist.scheduler import LoadScopeScheduling

    class OneQueue(LoadScopeScheduling):
        """xdist's ``loadscope`` scheduler (a worker with one test or none queued is handed the
        next unit of the one queue, in collection order: :func:`pytest_collection_modifyitems`)
        whose unit is one test, or a whole module when that module has a module-scoped fixture
        (:func:`unit`).
        (xdist's own ``loadgroup`` marks do not take with pytest 9, which ignores the node id
        they rewrite.)"""

        def _split_scope(self, nodeid: str) -> str:
            return unit(nodeid)

        def _reschedule(self, node: Any) -> None:
            """xdist's, with one test queued behind the running one instead of two: a worker
            needs its next test before it runs one, and a second one queued behind it was a
            long test another worker, idle, could have started (the tail of the run)."""
            if node.shutting_down:
                return
            if not self.workqueue:
                node.shutdown()
                return
            if self._pending_of(self.assigned_work[node]) <= 1:
                self._assign_work_unit(node)

    return OneQueue(config, log)


@functools.cache
def module_scoped(path: str) -> bool:
    """Whether the test module ``path`` (relative to the root) declares a module-scoped fixture."""
    try:
        return 'scope="module"' in (ROOT / path).read_text(encoding="utf-8")
    except OSError:
        return False


LONG_FIRST = (
    "test_small_texts.py::test_ctrl_c_during_replay_verify",
    "test_plan_quatorze.py::test_every_planned_step_is_legal",
    "test_readme_lines.py::",
    "test_load_bench.py::test_a_tiny_load_run_plays_and_reports",
    "test_checkbot.py::test_each_misbehaving_bot_fails_the_check_about_its_fault[no_newline.py]",
    "test_checkbot.py::test_each_misbehaving_bot_fails_the_check_about_its_fault[wrong_request.py]",
    "test_checkbot.py::test_each_misbehaving_bot_fails_the_check_about_its_fault[slow.py]",
    "test_lan.py::",
    "test_checkbot.py::test_each_misbehaving_bot_fails_the_check_about_its_fault[never_flush.py]",
    "test_play_clock_pty.py::test_a_time_bank_is_shown_for_everyone_and_warns_before_it_runs_out",
    "test_load_bench.py::",
    "test_mcts_clock.py::",
    "test_lan_play_fr.py::",
    "test_lan_play.py::",
    "test_tournament.py::test_resume_after_kill_9",
    "test_cli_engine.py::test_bench_",
    "test_checkbot.py::",
    "test_cli_help_pty.py::",
    "test_match_resume.py::",
    "test_play_clock_pty.py::",
    "test_play_events_pty.py::",
    "test_play_moves_pty.py::",
    "test_play.py::",
)
"""Tests that take seconds, longest first (by node id prefix under ``tests/``, from the wall
times of a whole run: ``python tests/cpumap.py FILE``): the order of a run with no
:data:`DURATIONS` yet (a fresh clone, ``-p no:cacheprovider``), after the modules made one unit.
A test missing here only risks starting late; keep the list short."""

DURATIONS = "quinze/durations"
"""The key, in pytest's cache (``.pytest_cache/``), of the seconds each test took in the last
whole-suite run (setup, call and teardown): ``{node id: seconds}``. The next whole run hands the
units out longest first by it (:func:`pytest_collection_modifyitems`)."""

NEW_TEST_SECONDS = 2.0
"""What a test missing from :data:`DURATIONS` (new since the last run) is counted: a new test
starts ahead of the short ones rather than risk making the tail alone."""

_seconds: dict[str, float] = {}
"""This run's seconds per test, as the reports come in (the main process sees every worker's)."""


def unit(nodeid: str) -> str:
    """The scheduling unit of a test (:class:`OneQueue` in :func:`pytest_xdist_make_scheduler`):
    the test, or its module when the module declares a module-scoped fixture."""
    path = nodeid.split("::", 1)[0]
    return path if module_scoped(path) else nodeid


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The longest units first: by :data:`DURATIONS` when the cache holds them, else the modules
    made one unit and then :data:`LONG_FIRST`; the tests of a unit together, in their order.
    Every xdist worker sorts the same way (the cache is written only when a run ends), as xdist
    requires the same collection everywhere."""
    cache = getattr(config, "cache", None)
    durations = cache.get(DURATIONS, None) if cache is not None else None
    first: dict[str, int] = {}
    for i, item in enumerate(items):
        first.setdefault(unit(item.nodeid), i)
    if isinstance(durations, dict) and durations:
        seconds: dict[str, float] = {}
        for item in items:
            u = unit(item.nodeid)
            took = durations.get(item.nodeid)
            seconds[u] = seconds.get(u, 0.0) + (took if isinstance(took, (int, float)) else NEW_TEST_SECONDS)
        items.sort(key=lambda item: (-seconds[unit(item.nodeid)], first[unit(item.nodeid)]))
        return

    def rank(item: pytest.Item) -> int:
        if unit(item.nodeid) != item.nodeid:
            return -1
        nodeid = item.nodeid.removeprefix("tests/")
        return next((i for i, prefix in enumerate(LONG_FIRST) if nodeid.startswith(prefix)), len(LONG_FIRST))

    items.sort(key=lambda item: (rank(item), first[unit(item.nodeid)]))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Add up each test's phases into :data:`_seconds`."""
    _seconds[report.nodeid] = _seconds.get(report.nodeid, 0.0) + report.duration


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Keep this run's seconds per test in the cache (:data:`DURATIONS`) when it was the whole
    suite and it ran to its end (passed or with failures): a run of a few files, or one stopped
    early, leaves the last whole run's figures."""
    config = session.config
    cache = getattr(config, "cache", None)
    if hasattr(config, "workerinput") or cache is None or not _seconds:
        return
    if getattr(config, "args_source", None) != pytest.Config.ArgsSource.TESTPATHS or config.option.keyword \
            or config.option.markexpr or exitstatus not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        return
    cache.set(DURATIONS, {nodeid: round(s, 3) for nodeid, s in sorted(_seconds.items())})


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
