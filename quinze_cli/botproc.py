"""A bot program run as a subprocess, spoken to over its stdin/stdout (PROTOCOL.md, "Bots").

The bot reads messages on stdin and writes its answers on stdout, in one of two wires:

- ``json`` (the default): one JSON object per line, UTF-8; ``\\r\\n`` accepted (the ``\\r`` is
  stripped); blank lines are skipped; a line that is not a JSON object with a ``"type"`` is
  reported as garbage (:class:`BotGarbage`) and reading goes on with the next line; a line
  longer than the maximum frame size (1 MiB) is garbage too: it is skipped up to its newline
  (never held in memory) and reading goes on, so the program keeps running.
- ``msgpack``: the same length-prefixed frames as TCP (:mod:`quinze_protocol.framing`); a framing
  error is fatal for that stream (garbage, and the process must be restarted).

The process runs in its own process group (``start_new_session=True``) so that Ctrl-C in our
terminal reaches only us, and :meth:`BotProcess.stop` can end the bot *and* whatever it
started. On Linux it is also killed by the kernel if we are (``kill -9``): see
:mod:`quinze_cli.childproc`. Its stderr goes to a file capped at ``stderr_cap`` bytes (1 MiB by default); past the
cap a note is written and the rest is read and thrown away, so a chatty bot never blocks.

Every message in and out is logged at debug level on the ``quinze.bot`` logger, as
``<name> << {...}`` (to the bot) and ``<name> >> {...}`` (from the bot), like python-chess.
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import trio

from quinze_protocol.errors import ProtocolError
from quinze_protocol.framing import DEFAULT_MAX_FRAME, FrameDecoder, LineDecoder, encode_frame, encode_line
from quinze_cli.childproc import Child, open_child
from quinze_cli.locks import QuickLock

__all__ = [
    "BotError",
    "BotExited",
    "BotGarbage",
    "BotProcess",
    "DEFAULT_STDERR_CAP",
    "describe_exit",
]

log = logging.getLogger("quinze.bot")

MAX_ELEMENTS = 10_000
"""Values one line or frame from a bot may hold (an action needs a few dozen): more is garbage
(``too-many-elements``), refused without being parsed (PROTOCOL.md "JSON-lines wire")."""

DEFAULT_STDERR_CAP = 1_048_576
"""Bytes of a bot's stderr kept on disk (1 MiB); the rest is dropped with a note."""

WIRES = ("json", "msgpack")


class BotError(Exception):
    """Something went wrong with a bot program. ``kind`` is the forfeit kind it leads to
    (``"crash"`` or ``"garbage"``), ``reason`` says what happened, for people."""

    kind = "crash"

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class BotExited(BotError):
    """The bot process ended (or closed its stdout/stdin): a crash. ``returncode`` is the exit
    status when known (negative: killed by that signal), else None."""

    kind = "crash"

    def __init__(self, reason: str, returncode: int | None = None) -> None:
        super().__init__(reason)
        self.returncode = returncode


class BotGarbage(BotError):
    """The bot wrote something that is not a message. ``fatal``: the stream cannot go on
    (msgpack framing errors, an over-long msgpack frame); otherwise the next line may be read
    (JSON wire: an over-long line is skipped up to its newline, not fatal)."""

    kind = "garbage"

    def __init__(self, reason: str, *, fatal: bool = False) -> None:
        super().__init__(reason)
        self.fatal = fatal


def describe_exit(returncode: int | None) -> str:
    """``"exited with code 3"``, ``"killed by signal SIGKILL"``, or ``"still running"`` (None)."""
    if returncode is None:
        return "still running"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = str(-returncode)
        return f"killed by signal {name}"
    return f"exited with code {returncode}"


def _short(data: Any, limit: int = 200) -> str:
    text = data if isinstance(data, str) else repr(data)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


class BotProcess:
    """One bot program, started with :meth:`start` and ended with :meth:`stop`.

    - ``command``: the program and its arguments (``["python3", "bot.py"]``).
    - ``wire``: ``"json"`` or ``"msgpack"`` (see the module docstring).
    - ``stderr_path``: where its stderr goes; None makes ``stderr.log`` in a fresh temporary
      directory (``quinze-bot-*``), removed by :meth:`stop` when the program wrote nothing there
      (kept, and named by :attr:`kept_stderr`, when it did: the caller points the user at it).
    - ``stderr_cap``: bytes kept from stderr.
    - ``name``: used in logs and messages.
    - ``cwd``, ``env``: passed to the process.

    :meth:`send` and :meth:`receive` raise :class:`BotExited` or :class:`BotGarbage`; they
    are safe to cancel (no byte is lost on the way in).
    """

    def __init__(
        self,
        command: Sequence[str],
        *,
        wire: str = "json",
        stderr_path: str | os.PathLike[str] | None = None,
        stderr_cap: int = DEFAULT_STDERR_CAP,
        name: str | None = None,
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        max_frame: int = DEFAULT_MAX_FRAME,
    ) -> None:
        if not command:
            raise ValueError("a bot command needs at least a program name")
        if wire not in WIRES:
            raise ValueError(f"wire must be one of {', '.join(WIRES)}, not {wire!r}")
        self.command = list(command)
        self.wire = wire
        self.name = name or Path(self.command[0]).name
        self.stderr_cap = stderr_cap
        self.stderr_path = Path(stderr_path) if stderr_path is not None else None
        self.cwd = cwd
        self.env = dict(env) if env is not None else None
        self.max_frame = max_frame
        self._temp_dir: Path | None = None
        """The temporary directory made for the stderr file (no ``stderr_path`` given), until removed."""
        self._proc: Child | None = None
        self._decoder: LineDecoder | FrameDecoder = (
            LineDecoder(max_frame, max_elements=MAX_ELEMENTS) if wire == "json"
            else FrameDecoder(max_frame, max_elements=MAX_ELEMENTS)
        )
        self._send_lock = QuickLock()
        self._stderr_done = trio.Event()
        self._stderr_scope: trio.CancelScope | None = None
        self._eof = False
        self._broken: BotError | None = None
        # JSON wire: only whole lines reach the decoder; the current line waits in _partial, an
        # over-long one is dropped up to its newline (_skipping) and reported once (_overlong).
        self._partial = bytearray()
        self._held = b""
        self._skipping = False
        self._overlong: BotGarbage | None = None

    def partial_output(self) -> str:
        """What the bot has written that is not a whole message yet, in words for its author
        (a line with no newline, a frame cut short; "" if none): said when its time runs out."""
        if isinstance(self._decoder, LineDecoder):
            n = 0 if self._skipping else len(self._partial) + len(self._held)
            if n:
                return (f"its output ends with {n} bytes of a line that has no newline yet: end every "
                        "message with a newline and flush stdout after it (the relay reads whole lines only)")
            return ""
        n = self._decoder.buffered
        if n:
            return f"its output ends with {n} bytes of an unfinished frame: flush stdout after each frame"
        return ""

    # ------------------------------------------------------------------ life cycle

    @property
    def pid(self) -> int | None:
        """The process id once started."""
        return self._proc.pid if self._proc is not None else None

    @property
    def returncode(self) -> int | None:
        """The exit status once the process has ended (negative: killed by that signal)."""
        if self._proc is None:
            return None
        return self._proc.poll()

    @property
    def running(self) -> bool:
        """True from :meth:`start` until the process has ended."""
        return self._proc is not None and self._proc.poll() is None

    async def start(self, nursery: trio.Nursery) -> None:
        """Start the program. ``nursery`` hosts the task that copies its stderr to the file.

        Raises :class:`BotExited` when the program cannot be started (not found, not executable).
        """
        if self.stderr_path is None:
            self._temp_dir = Path(tempfile.mkdtemp(prefix="quinze-bot-"))
            self.stderr_path = self._temp_dir / "stderr.log"
        self.stderr_path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._proc = await open_child(self.command, cwd=self.cwd, env=self.env)
        except OSError as err:
            self._tidy_temp()
            raise BotExited(f"cannot start {self.command[0]!r}: {err.strerror or err}") from None
        log.debug("%s started: pid %d, %s", self.name, self._proc.pid, " ".join(self.command))
        nursery.start_soon(self._copy_stderr)

    async def _copy_stderr(self) -> None:
        assert self._proc is not None and self._proc.stderr is not None and self.stderr_path is not None
        kept = 0
        noted = False
        try:
            with trio.CancelScope() as scope, open(self.stderr_path, "ab") as out:
                self._stderr_scope = scope
                while True:
                    try:
                        chunk = await self._proc.stderr.receive_some(65536)
                    except (trio.BrokenResourceError, trio.ClosedResourceError):
                        break
                    if not chunk:
                        break
                    room = self.stderr_cap - kept
                    if room > 0:
                        part = chunk[:room]
                        out.write(part)
                        kept += len(part)
                        out.flush()
                    if len(chunk) > room and not noted:
                        out.write(f"\n[quinze: stderr truncated after {self.stderr_cap} bytes]\n".encode())
                        out.flush()
                        noted = True
        finally:
            self._stderr_done.set()

    async def stop(self, *, grace: float = 1.0, term_wait: float = 1.0) -> int | None:
        """End the bot: close its stdin, wait up to ``grace`` seconds for it to leave, then
        SIGTERM its process group, wait up to ``term_wait`` seconds, then SIGKILL the group.
        Never raises; safe to call twice and under cancellation (runs shielded).
        Returns the exit status (None if it was never started)."""
        proc = self._proc
        if proc is None:
            return None
        with trio.CancelScope(shield=True):
            try:
                await proc.stdin.aclose()
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                pass
            with trio.move_on_after(grace):
                await proc.wait()
            if proc.poll() is None:
                self._signal_group(signal.SIGTERM)
                with trio.move_on_after(term_wait):
                    await proc.wait()
            if proc.poll() is None:
                self._signal_group(signal.SIGKILL)
                await proc.wait()
            # Leftover children of the bot (same group) go too.
            self._signal_group(signal.SIGKILL)
            with trio.move_on_after(0.5):
                await self._stderr_done.wait()
            if self._stderr_scope is not None:
                self._stderr_scope.cancel()
            for stream in (proc.stdout, proc.stderr):
                try:
                    await stream.aclose()
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    pass
        self._tidy_temp()
        log.debug("%s stopped: %s", self.name, describe_exit(proc.returncode))
        return proc.returncode

    @property
    def kept_stderr(self) -> Path | None:
        """The stderr file when it holds something (the program wrote to it), else None: the path
        to show the user. After :meth:`stop`, an empty temporary one is gone."""
        path = self.stderr_path
        try:
            return path if path is not None and path.stat().st_size > 0 else None
        except OSError:
            return None

    def _tidy_temp(self) -> None:
        """Remove the temporary stderr directory (made when no ``stderr_path`` was given) unless
        the program wrote to its file. Never raises."""
        if self._temp_dir is not None and self.kept_stderr is None:
            shutil.rmtree(self._temp_dir, ignore_errors=True)
            self._temp_dir = None

    def kill_now(self) -> None:
        """SIGKILL the process group at once, without waiting (for emergencies: Ctrl-C)."""
        if self._proc is not None:
            self._signal_group(signal.SIGKILL)

    def _signal_group(self, sig: int) -> None:
        assert self._proc is not None
        try:
            os.killpg(self._proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    # ------------------------------------------------------------------ messages

    async def send(self, msg: Mapping[str, Any]) -> None:
        """Write one message to the bot. Raises :class:`BotExited` if it cannot take it."""
        await self.send_many([msg])

    async def send_many(self, msgs: Sequence[Mapping[str, Any]]) -> None:
        """Write several messages to the bot in one write. Raises :class:`BotExited` if it
        cannot take them, ``ProtocolError`` (``frame-too-large``) for a message over the limit."""
        if self._proc is None:
            raise RuntimeError("start() the bot first")
        if self.wire == "json":
            data = b"".join(encode_line(m, max_line=self.max_frame) for m in msgs)
        else:
            data = b"".join(encode_frame(m, max_frame=self.max_frame) for m in msgs)
        if log.isEnabledFor(logging.DEBUG):
            for m in msgs:
                log.debug("%s << %s", self.name, _short(m, 2000))
        async with self._send_lock:
            try:
                await self._proc.stdin.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                raise await self._exited("stopped reading its input") from None

    async def receive(self) -> dict[str, Any]:
        """The next message from the bot.

        Raises :class:`BotGarbage` for output that is not a message (the next call reads on,
        unless ``fatal``), :class:`BotExited` once its stdout is closed (with its exit status
        when it ends within a second).
        """
        if self._proc is None:
            raise RuntimeError("start() the bot first")
        if self._broken is not None:
            raise self._broken
        while True:
            msg = self._next_buffered()
            if msg is not None:
                if log.isEnabledFor(logging.DEBUG):
                    log.debug("%s >> %s", self.name, _short(msg, 2000))
                return msg
            if self._overlong is not None:
                garbage, self._overlong = self._overlong, None
                raise garbage
            if self._held:
                self._feed_lines(b"")
                continue
            if self._eof:
                raise await self._exited("closed its output")
            try:
                chunk = await self._proc.stdout.receive_some(65536)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                chunk = b""
            if not chunk:
                self._eof = True
                if isinstance(self._decoder, LineDecoder):
                    if not self._skipping and self._partial:
                        self._decoder.feed(bytes(self._partial))
                    self._partial = bytearray()
                    self._decoder.feed_eof()
                continue
            try:
                if isinstance(self._decoder, LineDecoder):
                    self._feed_lines(chunk)
                else:
                    self._decoder.feed(chunk)
            except ProtocolError as err:
                raise self._garbage(err) from None

    def _feed_lines(self, chunk: bytes) -> None:
        """JSON wire: pass the whole lines of ``self._held + chunk`` to the decoder. A line longer
        than ``max_frame`` bytes (a ``\\r`` before its newline aside) is dropped up to its newline
        and becomes one non-fatal :class:`BotGarbage` (the bytes after it wait in ``_held`` until
        that garbage is raised): the stream is not lost and the program keeps running."""
        data = self._held + chunk
        self._held = b""
        pos = 0
        while pos < len(data):
            nl = data.find(b"\n", pos)
            if self._skipping:
                if nl < 0:
                    return
                pos, self._skipping = nl + 1, False
                continue
            end = nl if nl >= 0 else len(data)
            length = len(self._partial) + end - pos
            if nl >= 0 and end > pos and data[end - 1] == 13:
                length -= 1  # \r\n
            elif nl >= 0 and end == pos and self._partial.endswith(b"\r"):
                length -= 1
            if length > self.max_frame + (0 if nl >= 0 else 1):
                self._partial = bytearray()
                self._skipping = True
                self._held = data[pos:]
                self._overlong = BotGarbage(f"a line longer than the limit of {self.max_frame} bytes "
                                            "(skipped up to its end) [frame-too-large]")
                return
            if nl < 0:
                self._partial += data[pos:]
                return
            self._decoder.feed(bytes(self._partial) + data[pos:nl + 1])
            self._partial = bytearray()
            pos = nl + 1

    def _garbage(self, err: ProtocolError) -> BotGarbage:
        garbage = BotGarbage(f"{err.message_text()} [{err.code}]", fatal=err.fatal)
        if err.fatal:
            self._broken = garbage
        return garbage

    def _next_buffered(self) -> dict[str, Any] | None:
        try:
            data = self._decoder.next_data()
        except ProtocolError as err:
            raise self._garbage(err) from None
        if data is None:
            return None
        if not isinstance(data.get("type"), str):
            raise BotGarbage(f'a message without a text "type": {_short(data)}')
        return data

    async def _exited(self, what: str) -> BotExited:
        """The error for a bot that went away: ``"the program exited with code 3"``, ``"the program
        was killed by signal SIGKILL"``, or ``what`` with ``(still running)`` when it has not ended
        within 1 s; then the end of its stderr (once the copy task has drained the pipe, up to 0.5 s)."""
        assert self._proc is not None
        with trio.move_on_after(1.0):
            await self._proc.wait()
        rc = self._proc.poll()
        if rc is None:
            reason = f"{what} (still running)"
        else:
            with trio.move_on_after(0.5):  # its last words may still be in the pipe: let the copy drain it
                await self._stderr_done.wait()
            # The ending is the news ("stopped reading its input" read like a timeout).
            reason = f"the program {'was ' if rc < 0 else ''}{describe_exit(rc)}"
        tail = self.stderr_tail()
        if tail:
            reason += f"; stderr ends with: {tail}"
        return BotExited(reason, rc)

    def stderr_tail(self, limit: int = 200) -> str:
        """The last line(s) of the bot's stderr file, at most ``limit`` characters ("" if none)."""
        if self.stderr_path is None or not self.stderr_path.exists():
            return ""
        try:
            with open(self.stderr_path, "rb") as f:
                f.seek(0, os.SEEK_END)
                size = f.tell()
                f.seek(max(0, size - 4096))
                text = f.read().decode("utf-8", "replace").strip()
        except OSError:
            return ""
        if not text:
            return ""
        lines = [ln for ln in text.splitlines() if ln.strip()]
        last = lines[-1] if lines else ""
        return last if len(last) <= limit else "..." + last[-limit:]

