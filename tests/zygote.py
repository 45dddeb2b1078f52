"""A zygote for ``quinze`` processes in tests (the server side of ``tests/forkkit.py``).

Started by :mod:`forkkit` as ``PYTHON tests/zygote.py FD`` with the environment of the first
command it is to run (the interpreter the console script names, so ``sys.executable``, ``sys.flags``,
the locale and the standard streams' encoding are those of ``quinze``). It sets ``sys.path[0]`` to the
console script's folder, as the script has it, imports what ``quinze`` commands import (our three
packages and the third-party modules their commands load when they run, never readline nor Dask),
notes which environment variables those imports read, sends them (a JSON line ``{"read", "start"}``),
and then serves requests on the
Unix socket ``FD`` (one thread, nothing else open):

- a request: JSON ``{"argv", "env", "cwd", "umask", "sigint_ignored", "setsid", "ctty"}`` with three
  file descriptors (what becomes fds 0, 1 and 2);
- the zygote forks a middle process that forks the command and exits at once: the command, an
  orphan, is taken in by the nearest subreaper above it, the test process (forkkit sets
  ``PR_SET_CHILD_SUBREAPER`` around the request), which can then wait for it as for any child;
- the reply: JSON ``{"pid": PID}``, sent once the middle process has exited.

The command's process then does what exec and a fresh interpreter would: a new session (and the
terminal as controlling terminal) when asked, the three fds in place and every other one closed,
the working directory, umask and environment of the request (forkkit adds what Python's start
changes in it, such as ``LC_CTYPE`` coerced from ``C``: the hello line gives this start's
environment), ``sys.argv``, new ``sys.stdin``/``stdout``/``stderr``
made as CPython makes them (line-buffered on a terminal and for stderr, write-through when
unbuffered), the rich consoles that imports made made again (:data:`CONSOLES`), SIGINT as a start gives it (the KeyboardInterrupt handler, or ignored when it was
ignored in the test process), then runs the console script's ``sys.exit(main())`` and ends as the
interpreter's exit does (:func:`_run`). The zygote
exits when its socket closes (the test process ended).
"""

from __future__ import annotations

import os
import sys

START_ENV = dict(os.environ)
"""The environment as this interpreter's start left it (before any import of ours)."""


CONSOLES: list[tuple[object, tuple, dict]] = []
"""The rich consoles made by the preload's imports (such as ``quinze_cli.errors.stderr``), with
their arguments: a console reads the terminal and the environment when it is made, so each is
made again in a command's process (:func:`_become`)."""


def _preload(names: list[str]) -> list[str]:
    """Import ``names`` and every module of our three packages; returns the environment variables
    read meanwhile (sorted; not those a rich console read, see :data:`CONSOLES`), which a request
    must have as this process had them."""
    import importlib
    import pkgutil

    read: set[str] = set()
    environ_type = type(os.environ)
    getitem, iterate = environ_type.__getitem__, environ_type.__iter__

    def noted_getitem(self: object, key: str) -> str:
        read.add(key)
        return getitem(self, key)  # type: ignore[arg-type]

    def noted_iter(self: object):  # type: ignore[no-untyped-def]
        read.add("*")
        return iterate(self)  # type: ignore[arg-type]

    from rich.console import Console

    made = Console.__init__

    def noted_console(self: Console, *args: object, **kwargs: object) -> None:
        CONSOLES.append((self, args, kwargs))
        environ_type.__getitem__, environ_type.__iter__ = getitem, iterate  # type: ignore[method-assign]
        try:
            made(self, *args, **kwargs)  # type: ignore[arg-type]
        finally:
            environ_type.__getitem__, environ_type.__iter__ = noted_getitem, noted_iter  # type: ignore[method-assign]

    Console.__init__ = noted_console  # type: ignore[method-assign]
    environ_type.__getitem__ = noted_getitem  # type: ignore[method-assign]
    environ_type.__iter__ = noted_iter  # type: ignore[method-assign]
    try:
        for package in ("quinze_protocol", "quinze_server", "quinze_cli"):
            top = importlib.import_module(package)
            for info in pkgutil.walk_packages(top.__path__, package + "."):
                if ".bench." not in info.name:
                    importlib.import_module(info.name)
        for name in names:
            importlib.import_module(name)
    finally:
        environ_type.__getitem__ = getitem  # type: ignore[method-assign]
        environ_type.__iter__ = iterate  # type: ignore[method-assign]
        Console.__init__ = made  # type: ignore[method-assign]
    for unwanted in ("readline", "dask", "distributed"):
        if unwanted in sys.modules:
            raise RuntimeError(f"the preload imported {unwanted}")
    return sorted(read)


def _stream(fd: int, write: bool, like: object, unbuffered: bool):  # type: ignore[no-untyped-def]
    """A standard stream on ``fd`` made as CPython's start makes it (Python/pylifecycle.c,
    ``create_stdio``), with the encoding and errors of ``like`` (the stream of the same name here)."""
    import io

    buffering = 0 if unbuffered and write else -1
    buf = io.open(fd, "wb" if write else "rb", buffering, closefd=False)
    raw = buf if buffering == 0 else buf.raw
    raw.name = ("<stdin>", "<stdout>", "<stderr>")[fd]
    tty = raw.isatty()
    text = io.TextIOWrapper(buf, encoding=like.encoding, errors=like.errors, newline="\n",  # type: ignore[attr-defined]
                            line_buffering=not unbuffered and (tty or fd == 2), write_through=unbuffered)
    text.mode = "w" if write else "r"  # type: ignore[misc]
    return text


def _become(request: dict, fds: list[int]) -> None:
    """Turn this forked process into the command of ``request`` (see the module docstring)."""
    import fcntl
    import resource
    import signal
    import termios

    if request["setsid"]:
        os.setsid()
    for target, fd in enumerate(fds):
        os.dup2(fd, target, inheritable=True)
    if request["ctty"]:
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    top = min(1 << 20, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
    os.closerange(3, top)
    os.chdir(request["cwd"])
    os.umask(request["umask"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.argv = list(request["argv"])
    unbuffered = bool(sys.__stdout__.write_through)  # type: ignore[union-attr]  # -u, PYTHONUNBUFFERED
    sys.stdin = sys.__stdin__ = _stream(0, False, sys.__stdin__, unbuffered)
    sys.stdout = sys.__stdout__ = _stream(1, True, sys.__stdout__, unbuffered)
    sys.stderr = sys.__stderr__ = _stream(2, True, sys.__stderr__, unbuffered)
    signal.signal(signal.SIGINT, signal.SIG_IGN if request["sigint_ignored"] else signal.default_int_handler)
    for console, args, kwargs in CONSOLES:
        console.__init__(*args, **kwargs)  # type: ignore[misc]


def _serve(sock_fd: int) -> tuple[dict, list[int]] | None:
    """Answer requests until the socket closes (returns ``None``, in the zygote) or until this
    process is a command's (returns its request and fds, in the command's process)."""
    import json
    import signal
    import socket

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C at the suite's terminal ends it by EOF
    sock = socket.socket(fileno=sock_fd)
    sock.sendall(json.dumps({"read": READ, "start": START_ENV}).encode() + b"\n")
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(sock, 1 << 20, 3)
        except OSError:
            return None
        if not data:
            return None
        request = json.loads(data)
        r, w = os.pipe()
        middle = os.fork()
        if middle == 0:
            os.close(r)
            command = os.fork()
            if command == 0:
                os.close(w)
                sock.detach()
                return request, fds
            os.write(w, str(command).encode())
            os._exit(0)
        os.close(w)
        pid = int(os.read(r, 64) or b"0")
        os.close(r)
        os.waitpid(middle, 0)
        for fd in fds:
            os.close(fd)
        sock.sendall(json.dumps({"pid": pid}).encode() + b"\n")


def _run() -> None:
    """Run the console script's ``sys.exit(main())`` and end as the interpreter's exit would
    (Python/pylifecycle.c, ``Py_FinalizeEx``, and ``Py_RunMain``): the exit code of ``SystemExit``
    (``None``: 0; not an int: printed on stderr, 1), a traceback and 1 for any other exception;
    then the non-daemon threads waited for, the atexit handlers, the standard streams flushed
    (120 if that fails), and an uncaught KeyboardInterrupt ends the process by SIGINT. Without
    the interpreter's teardown of every module and object, which in a fork copies the zygote's
    whole memory (most of a command's CPU)."""
    import atexit
    import signal
    import threading

    from quinze_cli.app import main

    code, interrupted = 0, False
    try:
        sys.exit(main())
    except SystemExit as stop:
        if stop.code is None:
            code = 0
        elif isinstance(stop.code, int):
            code = stop.code
        else:
            print(stop.code, file=sys.stderr)
            code = 1
    except KeyboardInterrupt:
        sys.excepthook(*sys.exc_info())  # type: ignore[arg-type]
        code, interrupted = 1, True
    except BaseException:  # noqa: BLE001 - what the interpreter does with it
        sys.excepthook(*sys.exc_info())  # type: ignore[arg-type]
        code = 1
    threading._shutdown()  # type: ignore[attr-defined]
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001
            code = 120
    if interrupted:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    os._exit(code)


if __name__ == "__main__":
    import gc

    sys.path[0] = sys.argv[3]
    READ = _preload(sys.argv[2].split(",") if sys.argv[2] else [])
    gc.freeze()  # the preloaded objects are never scanned again: a fork's collections do not copy them
    served = _serve(int(sys.argv[1]))
    if served is None:
        sys.exit(0)
    _become(served[0], served[1])
    del served
    _run()
