"""``quinze check-bot`` prints its header at once and each check's line as soon as it is decided
(every scenario that may record it has ended), in the checklist's order, the same text in a pipe
as at the end; Ctrl-C prints the count of the checks decided and says it was interrupted (exit
130), the bot's processes stopped. The bot (tests/bots/held_after_first.py) holds the run after
its first scenario until the test lets it go: no timing is guessed."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from quinze_cli.checkbot.report import CHECKS
from clikit import alive as _alive

ROOT = Path(__file__).resolve().parent.parent
BOT = ROOT / "tests" / "bots" / "held_after_first.py"
QUINZE = [sys.executable, "-c", "import sys; from quinze_cli.app import main; sys.argv[0] = 'quinze'; sys.exit(main())"]


def _describe(pid: int) -> str:
    """A live process's state and command line, from /proc (for a failure's message)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            command = f.read().replace(bytes(1), b" ").decode(errors="replace")
        return f"{state} {command}"
    except OSError as e:
        return f"gone ({e})"


def _start(tmp_path: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen([*QUINZE, "check-bot", "--game", "quinze", "--deadline", "60", *extra, "--",
                             sys.executable, str(BOT), str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)


def test_the_first_check_is_printed_while_the_others_run(tmp_path: Path) -> None:
    proc = _start(tmp_path)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith("check-bot: ")
        first = proc.stdout.readline()
        assert first.startswith("PASS  handshake"), first
        assert proc.poll() is None  # held by the bot until the file below exists
        (tmp_path / "go").touch()
        rest = proc.stdout.read()
        assert proc.wait(300) == 0, proc.stderr.read() if proc.stderr else ""
    finally:
        proc.kill()
        proc.wait()
    lines = rest.splitlines()
    assert [ln.split()[1] for ln in lines[:-1]] == [c[0] for c in CHECKS][1:]
    assert all(ln.startswith("PASS") for ln in lines[:-1]) and lines[-1] == "12 passed, 0 failed"


def test_ctrl_c_prints_the_checks_decided_and_says_it_was_interrupted(tmp_path: Path) -> None:
    proc = _start(tmp_path)
    try:
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.readline()
        assert proc.stdout.readline().startswith("PASS  handshake")
        while len((tmp_path / "pids").read_text().split()) < 2:  # the held scenario's bot has started
            time.sleep(0.01)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 130, err
    assert out.splitlines() == ["1 passed, 0 failed, 11 not decided (interrupted)"]
    assert "interrupted after 1 of 6 scenario(s): 11 check(s) not decided" in err and "Traceback" not in err
    pids = [int(p) for p in (tmp_path / "pids").read_text().split()]
    left = [(p, _describe(p)) for p in pids if _alive(p)]
    assert not left, left  # (once in a CI run one was seen alive: which one, to find why)
