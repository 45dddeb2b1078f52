"""Real ``quinze`` processes without an interpreter's start each: forked from a zygote.

Each process starting the suite's ``quinze`` commands pays Python's start and the imports of the
command (trio, typer, rich, our packages: 0.1-0.3 s of CPU) every time; :mod:`tests/zygote.py`
pays them once. :class:`Popen`, :func:`run` and :class:`spawn` are :class:`subprocess.Popen`,
:func:`subprocess.run` and :class:`pexpect.spawn`, and for a ``quinze`` command (``args[0]`` is
:data:`QUINZE`) the process is a fork of a zygote made into that command as exec would make it
(see zygote.py: its own pid and session, the pty as controlling terminal, the pipes or the
terminal on fds 0-2 and nothing else open, the environment, working directory and umask asked,
SIGINT as a start gives it, fresh standard streams, Python's own exit). The zygote hands it to
this process, which is made a child subreaper (Linux ``PR_SET_CHILD_SUBREAPER``) around the
request: the command is then a child of the test process, so ``wait``, ``poll``, exit codes,
``kill``, the CPU counted in ``RUSAGE_CHILDREN`` are as for an exec'd child.

A zygote serves the environments that give the same interpreter start: the same ``PYTHON*``,
``LC_ALL``, ``LC_CTYPE`` and ``LANG``, and the same value of every variable its preload read (it
reports them); another environment gets another zygote (at most :data:`MAX_ZYGOTES` per process).
Everything else starts the real executable, as before: another program, ``shell=True``, a
``preexec_fn``, ``pass_fds``, a user or group change, no Linux, or ``QUINZE_TEST_EXEC=1`` in the
environment (the whole suite on the executable). What stays different from the executable: the
process's command line in ``/proc`` (the zygote's), a traceback's first lines (zygote.py's), the
modules already imported (``tests/test_cli_imports.py`` checks a start's imports on the
executable), and the hash seed (shared by a zygote's children). ``tests/test_forkkit.py`` checks
that both give the same output, exit code and behaviour for a sample of commands.
"""

from __future__ import annotations

import atexit
import ctypes
import errno
import fcntl
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import termios
import threading
from pathlib import Path
from typing import Any

import pexpect
import ptyprocess

ROOT = Path(__file__).resolve().parent.parent
QUINZE = str(Path(sys.executable).with_name("quinze"))
ZYGOTE = str(Path(__file__).with_name("zygote.py"))
MAX_ZYGOTES = 4
"""Zygotes kept per process (one per distinct interpreter start asked for)."""
PRELOAD = ("trio", "typer.main", "rich.console", "rich.markdown", "rich.progress", "rich.table", "rich.live",
           "msgpack", "zeroconf", "ifaddr", "shellingham", "pygments", "sortedcontainers")
"""Third-party modules the commands import when they run (besides our three packages, all imported)."""
START_VARIABLES = ("LC_ALL", "LC_CTYPE", "LANG")
"""Variables (with every ``PYTHON*``) that shape an interpreter's start."""
PR_SET_CHILD_SUBREAPER = 36

_lock = threading.Lock()
_zygotes: list[_Zygote] = []
_owner = os.getpid()
forked = 0
"""How many commands this process forked from zygotes (tests/test_forkkit.py checks it)."""


def _prctl_subreaper(on: bool) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")


def _interpreter() -> str:
    """The interpreter the console script names on its ``#!`` line."""
    with open(QUINZE, "rb") as script:
        first = script.readline().decode().strip()
    return first[2:].split()[0] if first.startswith("#!") else sys.executable


def _start_keys(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k.startswith("PYTHON") or k in START_VARIABLES}


class _Zygote:
    """One zygote process and its socket (see zygote.py)."""

    def __init__(self, env: dict[str, str]) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.proc = subprocess.Popen(
            [_interpreter(), ZYGOTE, str(theirs.fileno()), ",".join(PRELOAD), str(Path(QUINZE).parent)],
            env=env, pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, cwd=ROOT)
        theirs.close()
        self.sock = ours
        hello = json.loads(ours.recv(1 << 20) or b"null")
        if hello is None:
            raise RuntimeError(f"the zygote did not start (exit {self.proc.wait()})")
        self.env = env
        self.read: list[str] = hello["read"]
        start: dict[str, str] = hello["start"]
        # what Python's start changed in its environment (LC_CTYPE coerced from C...): done for each command
        self.changed = {k: start.get(k) for k in set(_start_keys(env)) | set(_start_keys(start))
                        if start.get(k) != env.get(k)}

    def serves(self, env: dict[str, str]) -> bool:
        if "*" in self.read:
            return env == self.env
        return _start_keys(env) == _start_keys(self.env) and all(env.get(k) == self.env.get(k) for k in self.read)

    def launch(self, argv: list[str], env: dict[str, str], cwd: str, fds: list[int], *, setsid: bool, ctty: bool,
               umask: int) -> int:
        """Fork the command ``argv``; returns its pid (a child of this process)."""
        env = dict(env)
        for k, v in self.changed.items():
            if v is None:
                env.pop(k, None)
            else:
                env[k] = v
        request = {"argv": argv, "env": env, "cwd": cwd, "umask": umask, "setsid": setsid, "ctty": ctty,
                   "sigint_ignored": signal.getsignal(signal.SIGINT) == signal.SIG_IGN}
        with _lock:
            _prctl_subreaper(True)
            try:
                socket.send_fds(self.sock, [json.dumps(request).encode()], fds)
                reply = self.sock.recv(1 << 16)
            finally:
                _prctl_subreaper(False)
        if not reply:
            raise RuntimeError(f"the zygote ended (exit {self.proc.wait()})")
        global forked
        forked += 1
        return int(json.loads(reply)["pid"])

    def close(self) -> None:
        self.sock.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@atexit.register
def _close_all() -> None:
    """End the zygotes with this process (and wait for them: their CPU is counted with ours)."""
    if os.getpid() == _owner:
        for z in _zygotes:
            z.close()
    _zygotes.clear()


def usable() -> bool:
    """Whether commands may be forked here (Linux, and ``QUINZE_TEST_EXEC`` not set to 1)."""
    return sys.platform == "linux" and os.environ.get("QUINZE_TEST_EXEC") != "1"


def _zygote_for(env: dict[str, str] | None) -> _Zygote | None:
    global _owner
    if not usable():
        return None
    env = dict(os.environ if env is None else env)
    if env.get("QUINZE_TEST_EXEC") == "1":
        return None
    with _lock:
        if _owner != os.getpid():  # a fork of a test process: the zygotes are not its children
            _zygotes.clear()
            _owner = os.getpid()
        for z in _zygotes:
            if z.serves(env) and z.proc.poll() is None:
                return z
        if len(_zygotes) >= MAX_ZYGOTES:
            return None
        z = _Zygote(env)
        _zygotes.append(z)
        return z


def _is_quinze(args: Any) -> bool:
    return not isinstance(args, (str, bytes)) and len(args) > 0 and os.fsdecode(args[0]) in (QUINZE, "quinze")


def _cwd(cwd: Any) -> str:
    where = os.getcwd() if cwd is None else os.fspath(cwd)
    if not os.path.isdir(where):  # what exec's chdir would have raised
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), where)
    return where


def _umask(umask: int) -> int:
    if umask >= 0:
        return umask
    with _lock:
        here = os.umask(0o22)
        os.umask(here)
    return here


def _note(args: Any, pty: bool) -> None:
    cpumap = sys.modules.get("cpumap")
    if cpumap is not None and getattr(cpumap, "note", None):
        cpumap.note(args, pty=pty)


class Popen(subprocess.Popen):  # type: ignore[type-arg]
    """:class:`subprocess.Popen`; a ``quinze`` command is forked from a zygote (module docstring)."""

    def _execute_child(self, args: Any, executable: Any, preexec_fn: Any, close_fds: bool, pass_fds: Any, cwd: Any,
                       env: Any, startupinfo: Any, creationflags: int, shell: bool, p2cread: int, p2cwrite: int,
                       c2pread: int, c2pwrite: int, errread: int, errwrite: int, restore_signals: bool, gid: Any,
                       gids: Any, uid: Any, umask: int, start_new_session: bool, process_group: Any) -> None:
        zygote = None
        if _is_quinze(args) and not shell and executable is None and preexec_fn is None and not pass_fds \
                and gid is None and gids is None and uid is None and process_group in (None, -1):
            zygote = _zygote_for(env)
        if zygote is None:
            return super()._execute_child(  # type: ignore[misc]
                args, executable, preexec_fn, close_fds, pass_fds, cwd, env, startupinfo, creationflags, shell,
                p2cread, p2cwrite, c2pread, c2pwrite, errread, errwrite, restore_signals, gid, gids, uid, umask,
                start_new_session, process_group)
        try:
            argv = [QUINZE, *(os.fspath(a) for a in list(args)[1:])]
            fds = [p2cread if p2cread != -1 else 0, c2pwrite if c2pwrite != -1 else 1, errwrite if errwrite != -1 else 2]
            self.pid = zygote.launch(argv, dict(os.environ if env is None else env), _cwd(cwd), fds,
                                     setsid=bool(start_new_session), ctty=False, umask=_umask(umask))
            self._child_created = True
        finally:
            self._close_pipe_fds(p2cread, p2cwrite, c2pread, c2pwrite, errread, errwrite)


def run(args: Any, *, input: Any = None, capture_output: bool = False, timeout: float | None = None,
        check: bool = False, **kwargs: Any) -> subprocess.CompletedProcess[Any]:
    """:func:`subprocess.run` with :class:`Popen` (same arguments, same result, same errors)."""
    if input is not None:
        kwargs["stdin"] = subprocess.PIPE
    if capture_output:
        kwargs["stdout"] = kwargs["stderr"] = subprocess.PIPE
    with Popen(args, **kwargs) as process:
        try:
            stdout, stderr = process.communicate(input, timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            process.kill()
            exc.stdout, exc.stderr = process.communicate()
            raise
        except BaseException:
            process.kill()
            raise
        code = process.poll()
        if check and code:
            raise subprocess.CalledProcessError(code, process.args, output=stdout, stderr=stderr)
    return subprocess.CompletedProcess(process.args, code, stdout, stderr)  # type: ignore[arg-type]


class spawn(pexpect.spawn):  # noqa: N801 - pexpect's name
    """:class:`pexpect.spawn`; a ``quinze`` command is forked from a zygote in a new pty of the
    dimensions asked, as its controlling terminal (module docstring)."""

    def _spawnpty(self, args: list[str], **kwargs: Any) -> ptyprocess.PtyProcess:
        zygote = _zygote_for(kwargs.get("env")) if _is_quinze(args) and kwargs.get("preexec_fn") is None \
            and not kwargs.get("pass_fds") else None
        if zygote is None:
            return super()._spawnpty(args, **kwargs)
        _note(args, pty=True)
        master, slave = os.openpty()
        try:
            rows, cols = kwargs.get("dimensions") or (24, 80)
            fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
            if not kwargs.get("echo", True):
                attrs = termios.tcgetattr(slave)
                attrs[3] &= ~termios.ECHO
                termios.tcsetattr(slave, termios.TCSANOW, attrs)
            argv = [QUINZE, *(os.fsdecode(a) for a in args[1:])]
            pid = zygote.launch(argv, dict(kwargs.get("env") or os.environ), _cwd(kwargs.get("cwd")), [slave] * 3,
                                setsid=True, ctty=True, umask=_umask(-1))
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)
        proc = ptyprocess.PtyProcess(pid, master)
        proc.argv = argv
        proc.env = kwargs.get("env")
        proc.launch_dir = kwargs.get("cwd")
        return proc
