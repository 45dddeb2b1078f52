"""The server process of the load bench (:mod:`quinze_cli.bench.load`), with a control channel.

Run as ``python -c "import runpy,sys; runpy.run_path(sys.argv[1], run_name='__main__')" THIS_FILE
[--stock-gc]`` with the working directory (and ``PYTHONPATH``) at the tree whose server is
measured (a source checkout, or the folder of installed packages: :func:`tree_layout`), so that
another checkout's server (the one before a change) can be measured by the same generator in the
same conditions. It therefore imports only the tree's server and protocol
packages (:func:`_server_package`), trio and the standard library, never ``quinze_cli``.

It serves a real :func:`quinze_server.app.run_server` on a free loopback port (no replay logs, the default
heartbeat of 10 s), prints the port on one line of stdout, then answers one JSON line per command
line read on stdin:

- ``stats``: ``{"cpu_s", "user_s", "sys_s", "rss_bytes", "gc": {"max_pause_ms", "max_pause_gen", "pauses",
  "total_ms", "max_pause_cpu_ms", "by_gen": {"0": {"n", "max_ms", "total_ms"}, ...}}, "threshold",
  "frozen",
  "collector", "order", "trims"}``; CPU is the process's user + system time in seconds, ``rss_bytes`` the resident
  set now (``/proc/self/statm``, else the peak from ``getrusage``); ``user_s`` and ``sys_s`` split
  the CPU time between the interpreter and the kernel (the sockets, epoll); the collector figures count
  the pauses since the previous ``stats`` (each collection is timed by a ``gc.callbacks`` hook, in
  wall-clock time, what clients wait, and in the thread's CPU time, ``max_pause_cpu_ms``, what the
  collector itself costs when the machine is shared); ``trims``: how many times the server gave
  memory back to the system so far (``quinze_server.collector.Reclaimer``; None for a tree without);
  ``connections``, ``open_tables``: what the server holds now (None if the tree does not tell);
  ``pools_bytes``: ``{"released", "detached"}``, the bytes of CPython's free pools the server gave
  back so far (``quinze_server.pools``; None for a tree without).
- ``objects``: ``{"tracked": n, "frozen": n, "full_ms", "full_cpu_ms", "every_cpu_ms"}``: the objects
  the cyclic collector tracks now (those its collections walk; ``frozen``: those it tracks and
  never walks, :func:`gc.freeze`), the time (wall, CPU) of one full collection run then (a forced
  ``gc.collect()``, not counted in the pauses of the next ``stats``), and the CPU time of one
  collection of every object, the frozen ones too (``quinze_server.collector.sweep``).
- ``cycles-start``, then ``cycles``: ``{"objects": n, "types": {name: count}}``, the objects the
  collector found unreachable between the two (kept by ``gc.DEBUG_SAVEALL`` to be counted; the
  frozen objects swept at the end): the cyclic garbage the server made meanwhile, what freezing
  survivors could keep until a sweep (tests/test_server_cycles.py).
- ``arenas``: ``{"lines", "residency"}``, the summary lines of ``sys._debugmallocstats()`` (CPython's
  arenas, pools and blocks) and where the resident set is (the arenas' resident pages, in pools used
  and free, and glibc's heap: :func:`load_survivors.residency`), for diagnosis
  (``QUINZE_BENCH_ARENAS=PREFIX`` in the generator's environment writes them, in the lobby, playing
  and after the tables closed, to ``PREFIX-TABLES.txt``).
- ``pools-mark``, then ``pools-new``: which objects keep in use the pools of CPython's arenas
  that were not in use at the mark, by type (:func:`load_survivors.pinning`; no tracing, so the
  server runs at its speed); ``QUINZE_BENCH_PINNING=PREFIX`` in the generator's environment marks
  in the lobby and writes the report after the close to ``PREFIX-TABLES.json``.
- ``types``: the 25 most numerous types among them (``{name: count}``), for diagnosis.
- ``profile-start`` / ``profile-stop FILE`` (diagnosis, ``{}``): profile the server with cProfile
  between the two, timed by the thread's CPU time (a wall clock would count the moments the
  shared machine runs something else), the statistics written to ``FILE``.
- ``quit``: exit at once.

The collector is tuned as ``quinze serve`` tunes it (:func:`quinze_server.collector.tune`, when the
measured tree has it), unless ``--stock-gc``: ``collector`` says which (``"tuned"`` or ``"stock"``).
Ready tasks run in the order they became ready, as ``quinze serve`` has them
(:func:`quinze_server.scheduling.first_come_first_served`, when the measured tree has it), unless
``QUINZE_BENCH_TRIO_ORDER=random`` is in the environment: ``order`` says which (``"first come"``,
``"trio's"``).
For experiments, ``QUINZE_BENCH_GC_THRESHOLDS=A,B,C`` in the environment tunes with those thresholds,
``QUINZE_BENCH_CLOSED_KEPT=N`` serves with ``closed_tables_kept`` N,
and ``QUINZE_BENCH_PROFILE=FILE`` profiles the server's whole life (cProfile statistics written to
FILE on ``quit``); ``QUINZE_BENCH_PROFILE_WINDOW=PREFIX`` in the generator's environment uses the
profiling commands above instead, for the measured window of each size only (``PREFIX-TABLES.prof``).
``QUINZE_BENCH_TRACEMALLOC=PREFIX`` (in the generator's environment) adds ``trace-start`` (tracemalloc
from then on, sent once the idle connections are in the lobby) and ``survivors FILE IDLE`` (once the server holds IDLE connections, after the
tables closed: the live blocks allocated since, grouped by traceback, with the arenas each group
keeps, written to ``PREFIX-TABLES.txt``; :mod:`quinze_cli.bench.load_survivors`).
"""

from __future__ import annotations

import functools
import gc
import importlib
import importlib.util
import inspect
import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

_start = [0.0, 0.0]
_gens: dict[int, list[float]] = {}
_max = [0.0, -1, 0.0]
_profile: Any = None
_survivors: Any = None  # quinze_cli/bench/load_survivors.py, loaded by path when QUINZE_BENCH_TRACEMALLOC is set


def _load_survivors() -> Any:
    """quinze_cli/bench/load_survivors.py, loaded by its path (this file imports no package of
    the tree it measures but its server and protocol), once."""
    spec = importlib.util.spec_from_file_location("load_survivors", Path(__file__).with_name("load_survivors.py"))
    assert spec is not None and spec.loader is not None
    module = sys.modules.setdefault("load_survivors", importlib.util.module_from_spec(spec))
    if not hasattr(module, "mallocstats"):
        spec.loader.exec_module(module)
    return module
_marked: list[set[int]] = []  # the pools in use at pools-mark (diagnosis)
_server: list[Any] = []  # the running Server, when the measured tree tells it (run_server's on_server)


def _gc_hook(phase: str, info: dict[str, Any]) -> None:
    if phase == "start":
        _start[0], _start[1] = time.perf_counter(), time.thread_time()
        return
    d = time.perf_counter() - _start[0]
    cpu = time.thread_time() - _start[1]
    g = info.get("generation", 2)
    s = _gens.setdefault(g, [0, 0.0, 0.0])
    s[0] += 1
    s[1] = max(s[1], d)
    s[2] += d
    if d > _max[0]:
        _max[0], _max[1] = d, g
    _max[2] = max(_max[2], cpu)


def _rss() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


def _stats(collector: str, order: str) -> dict[str, Any]:
    times = os.times()
    by_gen = {str(g): {"n": s[0], "max_ms": round(s[1] * 1e3, 3), "total_ms": round(s[2] * 1e3, 3)} for g, s in sorted(_gens.items())}
    out = {
        "cpu_s": time.process_time(),
        "user_s": times.user,
        "sys_s": times.system,
        "rss_bytes": _rss(),
        "gc": {
            "max_pause_ms": round(_max[0] * 1e3, 3),
            "max_pause_gen": _max[1],
            "max_pause_cpu_ms": round(_max[2] * 1e3, 3),
            "pauses": sum(s[0] for s in _gens.values()),
            "total_ms": round(sum(s[2] for s in _gens.values()) * 1e3, 3),
            "by_gen": by_gen,
        },
        "threshold": list(gc.get_threshold()),
        "frozen": gc.get_freeze_count(),
        "collector": collector,
        "order": order,
        "connections": len(getattr(_server[0], "connections", ())) if _server else None,
        "open_tables": getattr(getattr(_server[0], "lobby", None), "open_tables", None) if _server else None,
        "trims": getattr(getattr(_server[0], "reclaimer", None), "trims", None) if _server else None,
        "released": getattr(getattr(_server[0], "reclaimer", None), "released", None) if _server else None,
        "pools_bytes": _pools_bytes(),
    }
    _gens.clear()
    _max[0], _max[1], _max[2] = 0.0, -1, 0.0
    return out


def _pools_bytes() -> dict[str, int] | None:
    """What the measured tree's ``pools`` gave back of CPython's free pools so far, in bytes:
    ``{"released": pages of pools kept, "detached": whole pools taken out of their arenas}``
    (None for a tree without; ``detached`` 0 for a tree before it)."""
    pools = next((sys.modules[n] for n in ("quinze_server.pools", "server.pools") if n in sys.modules), None)
    if pools is None or not hasattr(pools, "released_bytes"):
        return None
    return {"released": pools.released_bytes(), "detached": pools.detached_bytes() if hasattr(pools, "detached_bytes") else 0}


def _server_package() -> str:
    """Import the measured tree's server from the working directory; its package name.

    The working directory is one of three layouts (:func:`tree_layout`):

    - a source checkout whose ``protocol/`` and ``server/`` install as ``quinze_protocol`` and
      ``quinze_server``: those folders are loaded under those names from the tree itself (an
      editable install would map the names to its own checkout);
    - the folder of an installed wheel (site-packages: the default when ``quinze`` was installed
      with ``pip install .``), holding ``quinze_protocol/`` and ``quinze_server/``: loaded from
      there, by the same path, so that it is that folder's server that is measured;
    - a checkout from before that mapping, with bare ``server`` and ``protocol`` packages, found
      through ``PYTHONPATH``.

    Raises RuntimeError (on stderr: the generator then says the server did not start) for a
    folder that holds none of them."""
    tree = Path.cwd()
    layout = tree_layout(tree)
    if layout is None:
        raise RuntimeError(f"{tree} holds neither server/__init__.py (a source checkout) nor "
                           "quinze_server/__init__.py (installed packages)")
    if layout == "bare":
        return "server"
    folders = {"source": ("protocol", "server"), "installed": ("quinze_protocol", "quinze_server")}[layout]
    for name, folder in zip(("quinze_protocol", "quinze_server"), folders):
        spec = importlib.util.spec_from_file_location(name, tree / folder / "__init__.py",
                                                      submodule_search_locations=[str(tree / folder)])
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return "quinze_server"


def tree_layout(tree: Path) -> str | None:
    """How ``tree`` holds a server: ``"installed"`` (a folder of installed packages,
    ``quinze_server/`` and ``quinze_protocol/``, as site-packages after ``pip install .``),
    ``"source"`` (a checkout: its ``server/`` installs as ``quinze_server``), ``"bare"`` (a
    checkout from before that: a bare ``server`` package), or None (no server there). Installed
    packages are looked for first: site-packages may hold another project's bare ``server``."""
    if (tree / "quinze_server" / "app.py").is_file() and (tree / "quinze_protocol" / "__init__.py").is_file():
        return "installed"
    source = tree / "server" / "__init__.py"
    if source.is_file() and (tree / "server" / "app.py").is_file():
        return "source" if "quinze_server" in source.read_text() else "bare"
    return None


def main(argv: list[str]) -> None:
    import trio

    package = _server_package()
    run_server = importlib.import_module(f"{package}.app").run_server
    ServerConfig = importlib.import_module(f"{package}.config").ServerConfig
    server_dir = os.path.dirname(importlib.import_module(package).__file__ or "")

    collector = "stock"
    # Only the measured tree's own tuning (an editable install could supply another tree's module).
    if "--stock-gc" not in argv and os.path.isfile(os.path.join(server_dir, "collector.py")):
        tune = importlib.import_module(f"{package}.collector").tune

        override = os.environ.get("QUINZE_BENCH_GC_THRESHOLDS")  # experiments: "A,B,C"
        if override:
            tune(tuple(int(x) for x in override.split(",")))
        else:
            tune()
        collector = "tuned"
    gc.callbacks.append(_gc_hook)
    order = "trio's"
    # The measured tree's own scheduling choice (quinze_server.scheduling), unless asked not to.
    if os.environ.get("QUINZE_BENCH_TRIO_ORDER") != "random" and os.path.isfile(os.path.join(server_dir, "scheduling.py")):
        if importlib.import_module(f"{package}.scheduling").first_come_first_served():
            order = "first come"

    async def control(nursery: trio.Nursery) -> None:
        stdin = trio.lowlevel.FdStream(os.dup(0))
        buf = b""
        window: Any = None
        while True:
            data = await stdin.receive_some(4096)
            if not data:
                nursery.cancel_scope.cancel()
                return
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                cmd = line.decode().strip()
                if cmd == "stats":
                    reply: dict[str, Any] = _stats(collector, order)
                elif cmd == "objects":
                    tracked, frozen = len(gc.get_objects()), gc.get_freeze_count()
                    t0, c0 = time.perf_counter(), time.thread_time()
                    gc.collect()  # what a full collection costs now (not counted in the pauses)
                    full, full_cpu = time.perf_counter() - t0, time.thread_time() - c0
                    # And one of every object, the frozen ones too (quinze_server.collector.sweep),
                    # frozen again after it where some were.
                    c0 = time.thread_time()
                    gc.unfreeze()
                    gc.collect()
                    if frozen:
                        gc.freeze()
                    every_cpu = time.thread_time() - c0
                    _gens.clear()
                    _max[0], _max[1], _max[2] = 0.0, -1, 0.0
                    reply = {"tracked": tracked, "frozen": frozen, "full_ms": round(full * 1e3, 2),
                             "full_cpu_ms": round(full_cpu * 1e3, 2), "every_cpu_ms": round(every_cpu * 1e3, 2)}
                elif cmd == "cycles-start":  # from now on, what the collector finds is kept, to be counted
                    gc.collect()
                    gc.garbage.clear()
                    gc.set_debug(gc.DEBUG_SAVEALL)
                    reply = {}
                elif cmd == "cycles":  # what was found since cycles-start (the frozen objects swept too)
                    import collections

                    frozen = gc.get_freeze_count()
                    gc.unfreeze()
                    gc.collect()
                    if frozen:
                        gc.freeze()
                    kinds = collections.Counter(type(o).__name__ for o in gc.garbage)
                    reply = {"objects": len(gc.garbage), "types": dict(kinds.most_common(10))}
                    gc.set_debug(0)
                    gc.garbage.clear()
                elif cmd == "trim":  # a diagnosis: what glibc gives back when asked
                    import ctypes

                    t0 = time.perf_counter()
                    ctypes.CDLL("libc.so.6").malloc_trim(0)
                    reply = {"rss_bytes": _rss(), "ms": round((time.perf_counter() - t0) * 1e3, 2)}
                elif cmd == "arenas":  # a diagnosis: CPython's small-object allocator, its summary lines
                    pools = sys.modules.get(f"{package}.pools")  # the measured tree's arena table, where it has one
                    where = list(getattr(pools, "_where", ()) or ()) or None
                    resident = _load_survivors().residency(where)  # first: the stats below read every pool's header
                    reply = {"lines": _load_survivors().mallocstats(also=("Total", "pools"), classes=True),
                             "residency": resident}
                elif cmd in ("pools-mark", "pools-new"):  # diagnosis: what keeps the pools in use since the mark
                    pools = sys.modules.get(f"{package}.pools")
                    where = list(getattr(pools, "_where", ()) or ())
                    if not where:
                        reply = {"error": "no arena table"}
                    elif cmd == "pools-mark":
                        _marked[:] = [_load_survivors().used_pools(where)]
                        reply = {"pools": len(_marked[0])}
                    else:
                        reply = _load_survivors().pinning(where, _marked[0] if _marked else set())
                elif cmd == "trace-start" and _survivors is not None:  # diagnosis: QUINZE_BENCH_TRACEMALLOC
                    _survivors.start()
                    reply = {}
                elif cmd.startswith("survivors ") and _survivors is not None:
                    _, path, left = cmd.split(" ")
                    with trio.move_on_after(60):  # traced, the server is slow: its players' ends first
                        while _server and (len(_server[0].connections) > int(left) or _server[0].lobby.open_tables):
                            await trio.sleep(0.2)
                    await trio.sleep(1.0)  # and the trim after them (quinze_server.collector.Reclaimer)
                    reply = _survivors.report(path)
                elif cmd == "types":  # a diagnosis: the most numerous tracked types
                    import collections

                    counts = collections.Counter(type(o).__name__ for o in gc.get_objects())
                    reply = dict(counts.most_common(25))
                elif cmd == "profile-start":  # a diagnosis: the window only, CPU time
                    import cProfile

                    window = cProfile.Profile(time.thread_time)
                    window.enable()
                    reply = {}
                elif cmd.startswith("profile-stop ") and window is not None:
                    window.disable()
                    window.dump_stats(cmd.split(" ", 1)[1])
                    window = None
                    reply = {}
                elif cmd == "quit":
                    if _profile is not None:
                        _profile.disable()
                        _profile.dump_stats(os.environ["QUINZE_BENCH_PROFILE"])
                    os._exit(0)
                else:
                    reply = {"error": f"unknown command {cmd!r}"}
                sys.stdout.write(json.dumps(reply) + "\n")
                sys.stdout.flush()

    async def serve() -> None:
        extra: dict[str, Any] = {}
        if os.environ.get("QUINZE_BENCH_CLOSED_KEPT"):  # experiments: closed tables kept for the listing
            extra["closed_tables_kept"] = int(os.environ["QUINZE_BENCH_CLOSED_KEPT"])
        config = ServerConfig(port=0, log_dir=None, shutdown_grace=0.2, **extra)
        serve_it = run_server
        if "on_server" in inspect.signature(run_server).parameters:  # (an older tree's server may not say)
            serve_it = functools.partial(run_server, on_server=lambda server: _server.append(server))
        async with trio.open_nursery() as nursery:
            port = await nursery.start(serve_it, config)
            print(port, flush=True)
            nursery.start_soon(control, nursery)

    global _profile, _survivors
    if os.environ.get("QUINZE_BENCH_TRACEMALLOC"):  # diagnosis: what outlives the tables (load_survivors)
        _survivors = _load_survivors()
    if os.environ.get("QUINZE_BENCH_PROFILE"):  # diagnosis: cProfile the server, stats written on quit
        import cProfile

        _profile = cProfile.Profile()
        _profile.enable()
    try:
        trio.run(serve)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main(sys.argv[1:])
