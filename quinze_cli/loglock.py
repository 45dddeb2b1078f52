"""One run per game log at a time: the lock a ``quinze match`` or ``quinze tournament`` run holds
on its log, so that a second run of the same log (two ``--resume`` of one match, a ``--resume`` of
a match still playing) is refused instead of cutting and appending to the log the first one is
writing.

The lock is an exclusive, non-blocking ``fcntl.flock`` on ``<log>.lock`` beside the log
(``match-X.jsonl.lock``, ``tournament-X/games.jsonl.lock``), which holds the holder's process id
(text, one line). It is taken before the log or its journal is read or changed and held for the
whole run; the file is removed when the run ends. The operating system releases a ``flock`` when
its process dies, so a run stopped by ``kill -9`` leaves at most an empty-of-meaning lock file,
which the next run takes over (a lock file is never trusted for being there, only for being
locked).

Taking a lock file that its holder is removing: the holder unlinks the file while still holding
it, so a run that locked the old file finds that the path no longer names it (``st_ino``) and
tries again on the new one.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import Any

__all__ = ["LogInUse", "LogLock", "hold_log", "lock_path"]


class LogInUse(Exception):
    """Another live run holds the lock of this log. ``pid``: its process id (None when its lock
    file does not say yet)."""

    def __init__(self, log: Path, pid: int | None) -> None:
        self.log, self.pid = log, pid
        who = f" (pid {pid})" if pid is not None else ""
        super().__init__(f"{log} is in use by another quinze run{who}; wait for it or stop it")


def lock_path(log: Path) -> Path:
    """``games.jsonl`` -> ``games.jsonl.lock``."""
    return log.with_name(log.name + ".lock")


class LogLock:
    """The held lock of one log. Make one with :meth:`take`; :meth:`release` (idempotent) ends it."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    @classmethod
    def take(cls, log: Path) -> "LogLock":
        """Lock ``log`` for this process, without waiting. Raises :class:`LogInUse` when another
        process holds it (nothing is written then), ``OSError`` when the lock file cannot be made
        (the log's directory missing or read-only)."""
        path = lock_path(log)
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                pid = _read_pid(fd)
                os.close(fd)
                raise LogInUse(log, pid) from None
            except BaseException:
                os.close(fd)
                raise
            try:
                same = os.stat(path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)  # its holder removed it as we locked it: lock the file the path names now
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        return cls(path, fd)

    def release(self) -> None:
        """Remove the lock file and unlock (in that order: see the module's docstring)."""
        if self._fd is None:
            return
        try:
            os.unlink(self.path)
        except OSError:
            pass
        os.close(self._fd)
        self._fd = None


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", errors="replace").strip()
    except OSError:
        return None
    return int(text) if text.isdecimal() else None


def hold_log(log: Path, where: str, ctx: Any) -> LogLock | None:
    """In a command: lock ``log`` until the command ends (released when ``ctx``, the command's
    ``typer.Context``, closes, whatever the end: done, an error, Ctrl-C). Another run holding it: ``error: WHERE: LOG is in
    use by another quinze run (pid N); wait for it or stop it`` on stderr and exit 2 (a usage
    error, like the other refusals before any game), nothing changed on disk. None when the lock
    file cannot be made (the log's directory missing or read-only: the caller's own checks of the
    log or journal say why)."""
    from quinze_cli.errors import EXIT_USAGE, fail

    try:
        lock = LogLock.take(log)
    except LogInUse as err:
        fail(f"{where}: {err}", EXIT_USAGE)
    except OSError:
        return None
    ctx.call_on_close(lock.release)
    return lock
