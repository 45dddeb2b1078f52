"""tests/forkkit.py: a ``quinze`` forked from a zygote is the executable's ``quinze`` — the same
output and exit code for a sample of commands, on pipes and in a terminal of each size, with the
language, locale and colour from the environment and stdin's EOF; and the same process: a child of
the test with its own pid (and session, in a terminal), the same open files and signal
dispositions (SIGINT as a start gives it, ignored when the test ignores it), ``kill -9`` and
SIGINT ending it as they end the executable."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time

import forkkit
import pexpect
import pytest
from forkkit import QUINZE, ROOT
from playkit import TIMEOUT

POSITION = str(ROOT / "examples" / "positions" / "quinze-table.json")
LOG = str(ROOT / "examples" / "positions" / "quinze-match.jsonl")
SAMPLE = [
    ["--version"], ["--help"], ["nope"], ["rules", "quinze"], ["rules", "quatorze", "--lang", "fr"],
    ["legal", POSITION], ["replay", LOG, "--game", "1", "--at", "5", "--position"], ["replay", "/nonexistent"],
    ["match", "--games", "x", "builtin:random", "builtin:greedy"], ["rules"], ["check-bot"],
    ["match", "--help"], ["play", "--server", "127.0.0.1:1", "--name", "Ana"],
]


def launched() -> int:
    return forkkit.forked


@pytest.mark.parametrize("args", SAMPLE, ids=lambda a: " ".join(a)[:40].replace(str(ROOT), ""))
def test_a_forked_command_prints_and_exits_as_the_executable(args, tmp_path):
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    real = subprocess.run([QUINZE, *args], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=TIMEOUT)
    before = launched()
    forked = forkkit.run([QUINZE, *args], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=TIMEOUT)
    assert launched() == before + 1
    assert (forked.returncode, forked.stdout, forked.stderr) == (real.returncode, real.stdout, real.stderr)


LOCALES = [{"LANG": "fr_FR.UTF-8"}, {"LC_ALL": "fr_FR.UTF-8"}, {"LANG": "C"}, {"LANG": "C", "PYTHONIOENCODING": "utf-8"},
           {"LANGUAGE": "fr", "LANG": "fr_FR.UTF-8"}]
"""The language and locale settings each compared, forked and exec'd."""


@pytest.mark.parametrize("env", LOCALES)
@pytest.mark.parametrize("args", [["rules", "quinze"], ["replay", "/nonexistent"], ["legal", "-"]])
def test_language_locale_and_stdin_come_from_the_command_not_the_zygote(env, args):
    env = dict(os.environ, **env)
    position = open(POSITION, encoding="utf-8").read() if args == ["legal", "-"] else ""
    real = subprocess.run([QUINZE, *args], capture_output=True, input=position.encode(), env=env, timeout=TIMEOUT)
    forked = forkkit.run([QUINZE, *args], capture_output=True, input=position.encode(), env=env, timeout=TIMEOUT)
    assert (forked.returncode, forked.stdout, forked.stderr) == (real.returncode, real.stdout, real.stderr)


@pytest.mark.parametrize("env", LOCALES)
def test_an_empty_stdin_is_the_commands_not_the_zygotes(env):
    env = dict(os.environ, **env)
    empty_real = subprocess.run([QUINZE, "legal", "-"], capture_output=True, stdin=subprocess.DEVNULL, env=env)
    empty_forked = forkkit.run([QUINZE, "legal", "-"], capture_output=True, stdin=subprocess.DEVNULL, env=env)
    assert (empty_forked.returncode, empty_forked.stderr) == (empty_real.returncode, empty_real.stderr)


def in_terminal(how, args: list[str], env: dict[str, str], size: tuple[int, int]) -> tuple[str, int]:
    child = how(QUINZE, args, env=env, encoding="utf-8", timeout=TIMEOUT, dimensions=size)
    child.expect(pexpect.EOF)
    child.close()
    return child.before, child.exitstatus


@pytest.mark.parametrize("size", [(24, 80), (40, 120)])
@pytest.mark.parametrize("colour", [{"NO_COLOR": "1"}, {"TERM": "xterm-256color"}, {"FORCE_COLOR": "1", "TERM": "dumb"}])
@pytest.mark.parametrize("args", [["--help"], ["rules", "quinze"], ["replay", "/nonexistent"],
                                  ["match", "--games", "x", "builtin:random", "builtin:greedy"]])
def test_in_a_terminal_the_size_and_colours_are_the_executables(env, size, colour, args):
    env = dict(env, **colour)
    env.pop("COLUMNS")
    env.pop("LINES")
    if "NO_COLOR" not in colour:
        env.pop("NO_COLOR")
    before = launched()
    assert in_terminal(forkkit.spawn, args, env, size) == in_terminal(pexpect.spawn, args, env, size)
    assert launched() == before + 1


def status(pid: int) -> dict[str, str]:
    with open(f"/proc/{pid}/status", encoding="utf-8") as f:
        return dict(line.rstrip("\n").split(":\t", 1) for line in f if ":\t" in line)


def stat(pid: int) -> list[str]:
    with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
        return f.read().rsplit(")", 1)[1].split()


GLIBC_SIGNALS = (1 << 31) | (1 << 32)
"""The bits of signals 32 and 33 in /proc/PID/status's masks (bit N-1 for signal N)."""


def settled_status(pid: int, tries: int = 200) -> dict[str, str]:
    """:func:`status`, read again while the main thread blocks (nearly) every signal: glibc's
    pthread_create blocks them all in the creating thread for the moment of the clone, and the
    server's LAN announce starts its threads just after it says it listens (seen once: SigBlk all
    ones). The mask the process keeps is the one compared; a mask that stays all-blocked is
    returned as it is, so such a process still fails the comparison."""
    s = status(pid)
    for _ in range(tries):
        if bin(int(s["SigBlk"], 16) & ~GLIBC_SIGNALS).count("1") < 50:
            break
        time.sleep(0.005)
        s = status(pid)
    return s


def serving(how, **kw) -> tuple[subprocess.Popen, dict[str, object]]:
    """``quinze serve`` started by ``how``, once listening: the process and what /proc says of it."""
    proc = how([QUINZE, "serve", "--port", "0", "--no-log"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
               text=True, **kw)
    line = proc.stdout.readline()
    assert re.search(r"listening on 127\.0\.0\.1:\d+", line), line
    s = settled_status(proc.pid)
    # glibc's own signals 32 and 33 (SIGCANCEL, SIGSETXID: below SIGRTMIN, never Python's) get
    # their handler when the process's threads first need them, which depends on how far the LAN
    # announce got, as its threads do: they are left out
    seen: dict[str, object] = {key: f"{int(s[key], 16) & ~GLIBC_SIGNALS:016x}" for key in ("SigBlk", "SigIgn", "SigCgt")}
    # (its threads and sockets past 0-2 depend on how far the LAN announce got: not compared)
    seen["fds 0-2"] = sorted(int(fd) for fd in os.listdir(f"/proc/{proc.pid}/fd"))[:3] == [0, 1, 2]
    seen["zygote's socket"] = any("socket" in os.readlink(f"/proc/{proc.pid}/fd/{fd}") for fd in ("0", "1", "2"))
    seen["parent"] = int(stat(proc.pid)[1]) == os.getpid()
    seen["own group"] = int(stat(proc.pid)[2]) == proc.pid
    return proc, seen


@pytest.mark.parametrize("sigint", [signal.default_int_handler, signal.SIG_IGN])
def test_a_forked_server_is_a_child_of_the_test_with_the_executables_files_and_signals(sigint):
    was = signal.signal(signal.SIGINT, sigint)
    try:
        real, real_seen = serving(subprocess.Popen)
        before = launched()
        forked, forked_seen = serving(forkkit.Popen)
        assert launched() == before + 1
    finally:
        signal.signal(signal.SIGINT, was)
    try:
        assert forked.pid not in (os.getpid(), real.pid)
        assert forked_seen == real_seen and forked_seen["parent"] and not forked_seen["own group"]
    finally:
        for proc in (real, forked):
            proc.kill()
            assert proc.wait(timeout=TIMEOUT) == -signal.SIGKILL
            proc.stdout.close()


def reading_stdin(how) -> tuple[subprocess.Popen, dict[str, str]]:
    """``quinze legal -`` started by ``how``, once it waits on stdin (read(0, ...) in
    /proc/PID/syscall): the process and its signal masks."""
    proc = how([QUINZE, "legal", "-"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100_000):
        with open(f"/proc/{proc.pid}/syscall", encoding="ascii") as f:
            if f.read().startswith("0 0x0 "):
                break
        os.sched_yield()
    s = status(proc.pid)
    return proc, {key: s[key] for key in ("SigBlk", "SigIgn", "SigCgt")}


@pytest.mark.parametrize("sigint", [signal.default_int_handler, signal.SIG_IGN])
def test_sigint_is_caught_or_ignored_as_a_start_leaves_it(sigint):
    was = signal.signal(signal.SIGINT, sigint)
    try:
        real, real_masks = reading_stdin(subprocess.Popen)
        forked, forked_masks = reading_stdin(forkkit.Popen)
    finally:
        signal.signal(signal.SIGINT, was)
    for proc in (real, forked):
        proc.kill()
        proc.wait(timeout=TIMEOUT)
        proc.stdin.close()
    assert forked_masks == real_masks
    bit = 1 << (signal.SIGINT - 1)
    assert bool(int(forked_masks["SigIgn"], 16) & bit) == (sigint == signal.SIG_IGN)
    assert bool(int(forked_masks["SigCgt"], 16) & bit) == (sigint != signal.SIG_IGN)


def test_sigint_ends_a_forked_server_as_it_ends_the_executable():
    ends = []
    for how in (subprocess.Popen, forkkit.Popen):
        proc, _ = serving(how, start_new_session=True)
        assert int(stat(proc.pid)[3]) == proc.pid  # its own session
        os.kill(proc.pid, signal.SIGINT)
        said = proc.stdout.read()  # (whether the LAN announce was said before depends on time)
        ends.append((proc.wait(timeout=TIMEOUT), "stopping: telling clients bye" in said, said.rstrip()[-14:]))
        proc.stdout.close()
    assert ends[0] == ends[1] and ends[0][1:] == (True, "server stopped")


def test_a_forked_terminal_session_owns_its_terminal(env):
    child = forkkit.spawn(QUINZE, ["serve", "--port", "0", "--no-log"], env=env, encoding="utf-8", timeout=TIMEOUT)
    child.expect(r"\(Ctrl-C to stop\)")
    fields = stat(child.pid)
    assert int(fields[3]) == child.pid and int(fields[4]) != 0 and int(fields[5]) == child.pid  # session, tty, foreground
    assert sorted(int(fd) for fd in os.listdir(f"/proc/{child.pid}/fd"))[:3] == [0, 1, 2]
    assert os.readlink(f"/proc/{child.pid}/fd/0").startswith("/dev/pts/")
    child.sendintr()  # Ctrl-C at the terminal
    child.expect(pexpect.EOF)
    child.close()
    real = pexpect.spawn(QUINZE, ["serve", "--port", "0", "--no-log"], env=env, encoding="utf-8", timeout=TIMEOUT)
    real.expect(r"\(Ctrl-C to stop\)")
    real.sendintr()
    real.expect(pexpect.EOF)
    real.close()
    assert (child.exitstatus, child.signalstatus) == (real.exitstatus, real.signalstatus)


def test_kill_9_of_a_forked_terminal_session(env):
    child = forkkit.spawn(QUINZE, ["serve", "--port", "0", "--no-log"], env=env, encoding="utf-8", timeout=TIMEOUT)
    child.expect(r"\(Ctrl-C to stop\)")
    child.kill(signal.SIGKILL)
    child.expect(pexpect.EOF)
    child.close()
    assert child.signalstatus == signal.SIGKILL and child.exitstatus is None


def test_the_executable_is_used_where_a_fork_would_not_be_the_same(tmp_path):
    before = launched()
    done = forkkit.run([QUINZE, "--version"], capture_output=True, text=True, preexec_fn=os.getpid)
    assert done.returncode == 0 and done.stdout.startswith("quinze ")
    done = forkkit.run([QUINZE, "--version"], capture_output=True, text=True, env=dict(os.environ, QUINZE_TEST_EXEC="1"))
    assert done.returncode == 0 and done.stdout.startswith("quinze ")
    done = forkkit.run(["echo", "hello"], capture_output=True, text=True)
    assert done.stdout == "hello\n"
    assert launched() == before
    with pytest.raises(FileNotFoundError):
        forkkit.run([QUINZE, "--version"], cwd=tmp_path / "missing")
