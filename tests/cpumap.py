"""A CPU map of the suite: what each test costs in CPU, not in wall time (a pytest plugin).

Set ``QUINZE_CPU_MAP`` to a file name and run the suite as usual; each process running tests
(each xdist worker, or the one process) appends one CSV row per test to ``<name>.<worker>``::

    QUINZE_CPU_MAP=/tmp/cpu.csv python -m pytest -q -p no:cacheprovider
    python tests/cpumap.py /tmp/cpu.csv     # the sums by file and the top tests
    python tests/cpumap.py --tail /tmp/cpu.csv 15   # what runs in the last 15 s, per worker

A row: node id, wall seconds, the worker's own CPU seconds (``time.process_time``, every thread
of it), its children's CPU seconds (``RUSAGE_CHILDREN``: the processes it started and waited for
during the test, with whatever those waited for in turn), how many processes the test started
itself by kind (``quinze`` commands, Python bots, play hosts, Dask processes, builds, other, the others
named in the last column),
how many pty sessions, how many hypothesis examples ran (calls of the inner test), and when the
test began (seconds since the epoch: :func:`tail` lists the tests still running at the end). Setup
and teardown are counted with the test, so a fixture shared by a module falls on the test that
made it or closed it.

Nothing here asserts anything; it only measures (tests/conftest.py registers it when the
variable is set).
"""

from __future__ import annotations

import collections
import csv
import os
import resource
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

KINDS = ("quinze", "bot", "host", "dask", "build", "other", "pty")
"""The columns counting processes started directly by the test (pty: pexpect sessions)."""

_counts: collections.Counter[str] = collections.Counter()
_others: collections.Counter[str] = collections.Counter()


def _argv(args: Any) -> list[str]:
    if isinstance(args, (str, bytes)):
        return shlex.split(os.fsdecode(args))
    return [os.fsdecode(a) for a in args]


def kind(args: Any) -> str:
    """The kind of process ``args`` (a Popen argument list or a shell string) starts."""
    argv = _argv(args)
    if not argv:
        return "other"
    names = [Path(a).name for a in argv[:3]]
    joined = " ".join(argv[:4])
    if names[0] == "quinze" or "quinze_cli" in joined:
        return "quinze"
    if names[0] == "dask" or "distributed" in joined:
        return "dask"
    if names[0] in ("cargo", "rustc", "cc", "gcc", "clang", "make"):
        return "build"
    if "play_host.py" in joined:
        return "host"
    if "/bots/" in joined or "bot" in joined.lower():
        return "bot"
    return "other"


def _count(args: Any) -> None:
    try:
        k = kind(args)
        name = " ".join(Path(a).name for a in _argv(args)[:2])[:40]
    except Exception:  # a measure must never fail a test
        k, name = "other", "?"
    _counts[k] += 1
    if k == "other":
        _others[name] += 1


def note(args: Any, pty: bool = False) -> None:
    """Count a process started without :class:`subprocess.Popen` or ``PtyProcess.spawn`` (the
    pty sessions that tests/forkkit.py forks from a zygote)."""
    if pty:
        _counts["pty"] += 1
    _count(args)


def _patch() -> None:
    original = subprocess.Popen.__init__

    def init(self: subprocess.Popen[Any], args: Any, *a: Any, **kw: Any) -> None:
        _count(args)
        original(self, args, *a, **kw)

    subprocess.Popen.__init__ = init  # type: ignore[method-assign]
    try:
        import ptyprocess
    except ImportError:
        return
    spawn = ptyprocess.PtyProcess.spawn.__func__

    def pty_spawn(cls: Any, argv: Any, *a: Any, **kw: Any) -> Any:
        _counts["pty"] += 1
        _count(argv)
        return spawn(cls, argv, *a, **kw)

    ptyprocess.PtyProcess.spawn = classmethod(pty_spawn)


def _children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


class CpuMap:
    def __init__(self, path: str, worker: str) -> None:
        self.file = open(f"{path}.{worker}", "a", newline="", encoding="utf-8")
        self.out = csv.writer(self.file)
        _patch()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Any:
        _counts.clear()
        _others.clear()
        examples = [0]
        handle = getattr(getattr(item, "obj", None), "hypothesis", None)
        if handle is not None:
            inner = handle.inner_test

            def counted(*a: Any, **kw: Any) -> Any:
                examples[0] += 1
                return inner(*a, **kw)

            handle.inner_test = counted
        began = time.time()
        wall, own, children = time.perf_counter(), time.process_time(), _children()
        yield
        row = [item.nodeid, time.perf_counter() - wall, time.process_time() - own, _children() - children]
        self.out.writerow([row[0], *(f"{x:.3f}" for x in row[1:]), *(_counts[k] for k in KINDS), examples[0],
                           "; ".join(f"{n} {name}" for name, n in _others.most_common()), f"{began:.3f}"])
        self.file.flush()
        if handle is not None:
            handle.inner_test = inner


def register(config: pytest.Config) -> None:
    """Register the map when ``QUINZE_CPU_MAP`` is set (in the process that runs tests)."""
    path = os.environ.get("QUINZE_CPU_MAP")
    if not path:
        return
    worker = getattr(config, "workerinput", {}).get("workerid", "main")
    if worker == "main" and getattr(config.option, "numprocesses", None):
        return  # the xdist controller runs no test
    config.pluginmanager.register(CpuMap(path, worker), "quinze-cpumap")


def summary(path: str, top: int = 30) -> str:
    """The sums by file, by kind, and the ``top`` tests by total CPU, from the rows under ``path``."""
    rows = []
    for part in sorted(Path(path).parent.glob(Path(path).name + ".*")):
        with open(part, encoding="utf-8") as f:
            for r in csv.reader(f):
                rows.append((r[0], *map(float, r[1:4]), *map(int, r[4:4 + len(KINDS) + 1])))
    lines = [f"{len(rows)} tests; wall sum {sum(r[1] for r in rows):.1f} s; worker CPU {sum(r[2] for r in rows):.1f} s;"
             f" children CPU {sum(r[3] for r in rows):.1f} s"]
    header = f"{'cpu':>7} {'own':>6} {'child':>6} {'wall':>6} " + " ".join(f"{k:>6}" for k in (*KINDS, "hyp"))
    by_file: dict[str, list[float]] = {}
    for r in rows:
        acc = by_file.setdefault(r[0].split("::")[0], [0.0] * (3 + len(KINDS) + 1 + 1))
        acc[0] += r[2] + r[3]
        acc[1] += r[2]
        acc[2] += r[3]
        acc[3] += r[1]
        for i, v in enumerate(r[4:]):
            acc[4 + i] += v

    def line(name: str, v: list[float]) -> str:
        return f"{v[0]:7.2f} {v[1]:6.2f} {v[2]:6.2f} {v[3]:6.2f} " + " ".join(f"{int(x):6d}" for x in v[4:]) + f"  {name}"

    lines += ["", f"by file, top {top}:", header]
    lines += [line(k, v) for k, v in sorted(by_file.items(), key=lambda kv: -kv[1][0])[:top]]
    lines += ["", f"by test, top {top}:", header]
    tests = sorted(rows, key=lambda r: -(r[2] + r[3]))[:top]
    lines += [line(r[0], [r[2] + r[3], r[2], r[3], r[1], *r[4:]]) for r in tests]
    totals = [sum(r[4 + i] for r in rows) for i in range(len(KINDS) + 1)]
    lines += ["", "processes started directly: " + ", ".join(f"{k} {n}" for k, n in zip((*KINDS, "hypothesis examples"), totals))]
    return "\n".join(lines)


def tail(path: str, seconds: float = 15.0) -> str:
    """The tests still running in the last ``seconds`` of the run recorded under ``path``, by worker."""
    rows = []
    for part in sorted(Path(path).parent.glob(Path(path).name + ".*")):
        with open(part, encoding="utf-8") as f:
            rows += [(part.suffix[1:], r[0], float(r[-1]), float(r[1])) for r in csv.reader(f)]
    start = min(r[2] for r in rows)
    end = max(r[2] + r[3] for r in rows)
    lines = [f"run: {end - start:.1f} s from the first test's start to the last test's end"]
    for worker in sorted({r[0] for r in rows}):
        mine = [r for r in rows if r[0] == worker]
        lines.append(f"{worker}: {len(mine)} tests, ends at {max(r[2] + r[3] for r in mine) - start:.1f} s")
        for _, node, began, wall in sorted(mine, key=lambda r: r[2]):
            if began + wall > end - seconds:
                lines.append(f"    {began - start:6.1f} +{wall:5.1f} s  {node}")
    return "\n".join(lines)


if __name__ == "__main__":
    if sys.argv[1] == "--tail":
        print(tail(sys.argv[2], float(sys.argv[3]) if len(sys.argv) > 3 else 15.0))
    else:
        print(summary(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 30))
