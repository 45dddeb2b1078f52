"""Starting a bot program so that it dies with us (:func:`open_child`), used by
:class:`quinze_cli.botproc.BotProcess`.

On Linux the program gets a parent-death signal (``prctl(PR_SET_PDEATHSIG, SIGKILL)`` in the
child between fork and exec): if ``quinze`` itself is killed (``kill -9``, the OOM killer) the
kernel kills the bot too, even one that never reads its stdin, instead of leaving it running
with parent 1. That signal is tied to the *thread* that forked, not the process, and
``trio.lowlevel.open_process`` forks in a worker thread that trio ends after 10 idle seconds
(which would kill healthy bots); so the fork happens here, in the trio thread, which lives as
long as the program. The pipes become trio streams (:class:`trio.lowlevel.FdStream`) and the end
of the process is awaited on a pidfd (Linux 5.3+), else by polling every 20 ms.

Elsewhere (macOS, BSD) no parent-death signal exists: the process is started the same way
without it.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import trio

__all__ = ["Child", "PDEATHSIG_SUPPORTED", "open_child"]

_PR_SET_PDEATHSIG = 1


def _load_prctl() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _load_prctl()
PDEATHSIG_SUPPORTED = _PRCTL is not None
"""True where bot programs are started with a parent-death signal (Linux)."""


def _die_with_parent(parent: int) -> None:
    """In the child, before exec: SIGKILL when the forking thread ends; if the parent is already
    gone (it died between fork and here), end now."""
    _PRCTL(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)


class Child:
    """A started program: ``pid``, ``stdin`` (send stream), ``stdout`` and ``stderr`` (receive
    streams), :meth:`poll`, ``returncode`` and ``await`` :meth:`wait`, as :class:`trio.Process`."""

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        self._popen = popen
        self.pid = popen.pid
        self.stdin = trio.lowlevel.FdStream(_take(popen, "stdin"))
        self.stdout = trio.lowlevel.FdStream(_take(popen, "stdout"))
        self.stderr = trio.lowlevel.FdStream(_take(popen, "stderr"))
        self._pidfd: int | None = None
        self._watching = False
        if hasattr(os, "pidfd_open"):
            try:
                self._pidfd = os.pidfd_open(popen.pid)
            except OSError:
                self._pidfd = None

    @property
    def returncode(self) -> int | None:
        """The exit status once known (negative: killed by that signal)."""
        return self._popen.returncode

    def poll(self) -> int | None:
        """The exit status if the process has ended (reaped here), else None."""
        rc = self._popen.poll()
        if rc is not None:
            self._close_pidfd()
        return rc

    async def wait(self) -> int:
        """Wait for the process to end; its exit status."""
        while self.poll() is None:
            if self._pidfd is not None and not self._watching:
                # One task waits on the pidfd (trio allows one waiter per fd); others poll.
                self._watching = True
                try:
                    await trio.lowlevel.wait_readable(self._pidfd)
                except trio.ClosedResourceError:
                    pass  # another task saw the end first (poll) and closed the pidfd: poll again
                finally:
                    self._watching = False
            else:
                await trio.sleep(0.02)
        return self._popen.returncode

    def _close_pidfd(self) -> None:
        if self._pidfd is not None:
            fd, self._pidfd = self._pidfd, None
            try:
                trio.lowlevel.notify_closing(fd)
            except RuntimeError:  # outside trio
                pass
            os.close(fd)


def _take(popen: subprocess.Popen[bytes], name: str) -> int:
    """A duplicate of the pipe's descriptor for trio, the Popen file closed."""
    f = getattr(popen, name)
    fd = os.dup(f.fileno())
    f.close()
    return fd


async def open_child(command: Sequence[str], *, cwd: Any = None, env: Mapping[str, str] | None = None) -> Child:
    """Start ``command`` with piped stdin/stdout/stderr in its own session (process group), with
    a parent-death SIGKILL on Linux (see the module docstring). Raises ``OSError`` (not found,
    not executable)."""
    parent = os.getpid()
    popen = subprocess.Popen(
        list(command),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        cwd=cwd,
        env=dict(env) if env is not None else None,
        preexec_fn=(lambda: _die_with_parent(parent)) if PDEATHSIG_SUPPORTED else None,
    )
    await trio.lowlevel.checkpoint()
    return Child(popen)
