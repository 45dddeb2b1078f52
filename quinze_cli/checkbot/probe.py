"""A bot program under check, driven directly over its stdin/stdout (no server, no relay).

:class:`Probe` writes messages in either bot wire (``json``: one JSON object per line; ``msgpack``:
the length-prefixed frames, PROTOCOL.md "Framing") and reads back what the program writes,
byte for byte, with a timeout, so that :mod:`quinze_cli.checkbot.scenarios` can tell apart an
answer that is late, one that never comes, one that sits without its line end, garbage and an
exit. The program's stderr is drained by a thread the whole time (counted, its tail kept), as
the relay does: a chatty bot is never blocked by us.

Synchronous (``select`` on pipes): a scenario runs one program at a time and needs no Trio
(scenarios run at the same time each run in a thread of their own).
"""

from __future__ import annotations

import os
import select
import signal
import struct
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from quinze_protocol.errors import ProtocolError
from quinze_protocol.framing import DEFAULT_MAX_FRAME, encode_frame, encode_line, loads_line, unpack_body
from quinze_cli.botproc import MAX_ELEMENTS, describe_exit

STDERR_TAIL = 4096
"""Bytes of the end of the program's stderr kept to quote in a failure."""

_running: set["Probe"] = set()
"""The probes started and not yet killed, of every thread (:func:`kill_all`)."""
_running_lock = threading.Lock()


def kill_all() -> None:
    """SIGKILL the process group of every probe running, in any thread (each is reaped by its
    own :meth:`Probe.kill`): their reads see the end of output, their scenarios stop."""
    with _running_lock:
        probes = list(_running)
    for probe in probes:
        try:
            os.killpg(probe.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


@dataclass
class Output:
    """One thing read from the program.

    ``kind``: ``"message"`` (``data`` is the map), ``"garbage"`` (``reason`` says why: not JSON,
    not a map, no type, too long, bad frame), ``"timeout"`` (nothing complete within the time;
    ``partial`` bytes of an unfinished line or frame were seen), ``"exited"`` (stdout closed;
    ``returncode`` if the process ended). ``at``: seconds since the write of the last message,
    ``raw``: the line or frame as read (cut to 200 bytes). ``other_wire``: garbage that looks like
    the other wire (JSON text where frames were expected, a frame where lines were)."""

    kind: str
    data: dict[str, Any] | None = None
    reason: str = ""
    at: float = 0.0
    partial: int = 0
    returncode: int | None = None
    raw: bytes = b""
    other_wire: bool = False


def ended(returncode: int | None) -> str:
    """How the program's output ended, for a reason: ``describe_exit`` of its exit status
    (``"exited with code 3"``), or, when stdout ended and the process still runs (an ``"exited"``
    :class:`Output` without ``returncode``), that it closed its standard output."""
    if returncode is None:
        return "closed its standard output (it is still running)"
    return describe_exit(returncode)


def _a_frame(line: bytes) -> bool:
    """Whether ``line`` (up to a newline byte) starts like a msgpack frame: a 4-byte length, then
    a map's first byte (fixmap, map16, map32)."""
    return len(line) > 4 and line[0] == 0 and (0x80 <= line[4] <= 0x8F or line[4] in (0xDE, 0xDF))


HOST_ONLY = ("PYTHONUNBUFFERED",)
"""Variables of this environment that check-bot does not pass on to the program: set here (this
sandbox sets ``PYTHONUNBUFFERED=1``), it made a Python bot's stdout unbuffered, so the ``flush``
check passed for a bot that never flushes, and that bot then waits forever under any host that
does not set it (``quinze match`` passes the environment on as it is: docs/botkit.md)."""


def program_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment check-bot starts the program with: ``environ`` (default this process's)
    without :data:`HOST_ONLY`, so that the program's output is buffered as a host that sets
    nothing leaves it (a Python program's stdout to a pipe: block-buffered)."""
    env = dict(os.environ if environ is None else environ)
    for name in HOST_ONLY:
        env.pop(name, None)
    return env


class Probe:
    """The program ``argv`` started in its own process group, stdin/stdout piped, stderr drained."""

    def __init__(self, argv: Sequence[str], *, wire: str = "json", cwd: str | None = None,
                 env: Mapping[str, str] | None = None) -> None:
        self.argv = list(argv)
        self.wire = wire
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     cwd=cwd, env=dict(env) if env is not None else None, start_new_session=True)
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr
        self._in = self.proc.stdin.fileno()
        self._out = self.proc.stdout.fileno()
        os.set_blocking(self._in, False)
        os.set_blocking(self._out, False)
        self._buf = bytearray()
        self._skipping = False
        self._eof = False
        self.sent_at = time.monotonic()
        self.stderr_bytes = 0
        self._tail = bytearray()
        self._drain = threading.Thread(target=self._drain_stderr, daemon=True)
        self._drain.start()
        with _running_lock:
            _running.add(self)

    # ------------------------------------------------------------------ stderr

    def _drain_stderr(self) -> None:
        fd = self.proc.stderr.fileno()  # type: ignore[union-attr]  # opened with stderr=PIPE
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.stderr_bytes += len(chunk)
            self._tail += chunk
            del self._tail[:-STDERR_TAIL]

    def stderr_tail(self, limit: int = 160) -> str:
        """The last non-blank line of the program's stderr (at most ``limit`` characters). Once the
        program has exited, its last words are waited for: the draining thread reads on to the end
        of the pipe (at most 2 s, should a child of the program still hold it open)."""
        if self.proc.poll() is not None and self._drain.is_alive():
            self._drain.join(2.0)
        lines = [ln for ln in bytes(self._tail).decode("utf-8", "replace").splitlines() if ln.strip()]
        last = lines[-1].strip() if lines else ""
        return last if len(last) <= limit else "..." + last[-limit:]

    # ------------------------------------------------------------------ writing

    def send(self, *msgs: Mapping[str, Any], timeout: float = 5.0) -> bool:
        """Write ``msgs`` (one write); False if the program does not take them within ``timeout``
        seconds (it stopped reading) or has closed its stdin. The answer clock starts here."""
        data = b"".join(encode_line(m) if self.wire == "json" else encode_frame(m) for m in msgs)
        end = time.monotonic() + timeout
        view = memoryview(data)
        while view:
            left = end - time.monotonic()
            if left <= 0:
                return False
            try:
                _, ready, _ = select.select([], [self._in], [], left)
                if ready:
                    view = view[os.write(self._in, view):]
            except (BrokenPipeError, OSError):
                return False
        self.sent_at = time.monotonic()
        return True

    def close_stdin(self) -> None:
        """End the program's input (it should now exit)."""
        try:
            self.proc.stdin.close()  # type: ignore[union-attr]  # opened with stdin=PIPE
        except OSError:
            pass

    # ------------------------------------------------------------------ reading

    def read(self, timeout: float) -> Output:
        """The next complete line (or frame) the program writes, waiting at most ``timeout``
        seconds; blank lines are skipped. Never raises."""
        end = time.monotonic() + timeout
        while True:
            got = self._parse()
            if got is not None:
                got.at = time.monotonic() - self.sent_at
                return got
            if self._eof:
                rc = self.wait(1.0)
                return Output("exited", returncode=rc, partial=len(self._buf), at=time.monotonic() - self.sent_at)
            left = end - time.monotonic()
            if left <= 0:
                return Output("timeout", partial=len(self._buf), at=time.monotonic() - self.sent_at,
                              other_wire=self.wire == "json" and _a_frame(bytes(self._buf)))
            if select.select([self._out], [], [], left)[0]:
                try:
                    chunk = os.read(self._out, 65536)
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""
                if chunk:
                    self._buf += chunk
                else:
                    self._eof = True

    def _parse(self) -> Output | None:
        return self._parse_line() if self.wire == "json" else self._parse_frame()

    def _parse_line(self) -> Output | None:
        while True:
            nl = self._buf.find(b"\n")
            if self._skipping:
                if nl < 0:
                    self._buf.clear()
                    return None
                del self._buf[: nl + 1]
                self._skipping = False
                continue
            if nl < 0:
                if len(self._buf) > DEFAULT_MAX_FRAME + 1:
                    self._skipping = True
                    self._buf.clear()
                    return Output("garbage", reason=f"a line longer than the limit of {DEFAULT_MAX_FRAME} bytes [frame-too-large]")
                if self._eof and self._buf:  # a last line without its line end
                    line, self._buf = bytes(self._buf), bytearray()
                    out = self._decode(line)
                    out.reason = (out.reason + "; " if out.reason else "") + "no line end"
                    return out
                return None
            line = bytes(self._buf[:nl])
            del self._buf[: nl + 1]
            if not line.strip():
                continue
            if len(line.rstrip(b"\r")) > DEFAULT_MAX_FRAME:
                return Output("garbage", reason=f"a line longer than the limit of {DEFAULT_MAX_FRAME} bytes [frame-too-large]")
            return self._decode(line)

    def _decode(self, line: bytes) -> Output:
        try:
            data = loads_line(line, max_elements=MAX_ELEMENTS)  # as the relay reads it: the same verdicts and words
        except ProtocolError as err:
            if _a_frame(line):
                return Output("garbage", reason=f"a msgpack frame where a JSON line was expected ({err.reason} "
                                                f"[{err.code}])", raw=line[:200], other_wire=True)
            return Output("garbage", reason=f"{err.reason} [{err.code}]", raw=line[:200])
        if data is None:
            return Output("garbage", reason="a blank line", raw=line[:200])
        return self._message(data, line)

    def _parse_frame(self) -> Output | None:
        if len(self._buf) < 4:
            return None
        (n,) = struct.unpack(">I", self._buf[:4])
        if n > DEFAULT_MAX_FRAME:
            json_text = bytes(self._buf[:1]) in (b"{", b"[")
            raw = bytes(self._buf[:200]).split(b"\n", 1)[0]
            self._buf.clear()
            self._eof = self._eof  # the stream cannot be resynchronised
            if json_text:
                return Output("garbage", reason="JSON text where a msgpack frame was expected", raw=raw,
                              other_wire=True)
            return Output("garbage", reason=f"a frame of {n} bytes, over the limit of {DEFAULT_MAX_FRAME} [frame-too-large]")
        if len(self._buf) < 4 + n:
            return None
        body = bytes(self._buf[4: 4 + n])
        del self._buf[: 4 + n]
        try:
            data = unpack_body(body, max_elements=MAX_ELEMENTS)
        except ProtocolError as err:
            return Output("garbage", reason=f"{err.reason} [{err.code}]", raw=body[:200])
        return self._message(data, body)

    @staticmethod
    def _message(data: dict[str, Any], raw: bytes) -> Output:
        if not isinstance(data.get("type"), str):
            return Output("garbage", reason='a map without a text "type"', raw=raw[:200])
        return Output("message", data=data, raw=raw[:200])

    # ------------------------------------------------------------------ ending

    def wait(self, timeout: float) -> int | None:
        """The exit status once the process ends within ``timeout`` seconds, else None."""
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> int | None:
        """End the program and whatever it started (its process group): SIGKILL, then reap."""
        with _running_lock:  # before the reaping: kill_all never signals a pid reused since
            _running.discard(self)
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        else:
            try:  # leftovers of the group
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        rc = self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()  # type: ignore[union-attr]  # opened with stdin and stdout=PIPE
            except OSError:
                pass
        self._drain.join(1.0)
        try:
            self.proc.stderr.close()  # type: ignore[union-attr]  # opened with stderr=PIPE
        except OSError:
            pass
        return rc

    def __enter__(self) -> "Probe":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.kill()
