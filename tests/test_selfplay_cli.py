"""``quinze selfplay`` in a real pseudo-terminal (pexpect): a progress bar while it plays, and
Ctrl-C prints the summary of the finished games with a note, exit 130."""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path

import forkkit
import pexpect

QUINZE = str(Path(sys.executable).with_name("quinze"))


def test_progress_bar_then_ctrl_c_summarises_the_finished_games() -> None:
    child = pexpect.spawn(QUINZE, ["selfplay", "--games", "1000000"], encoding="utf-8", timeout=60,
                          dimensions=(40, 160), env={"TERM": "xterm", "COLUMNS": "160", "PATH": "/usr/bin:/bin"})
    try:
        child.expect(r"quinze self-play.*?([1-9]\d*)/1000000")  # the progress bar counts finished games
        child.kill(signal.SIGINT)
        child.expect(r"quinze: (\d+) games, seeds 0\.\.")
        assert int(child.match.group(1)) >= 1
        child.expect(r"interrupted \(Ctrl-C\): the summary covers the (\d+) finished game\(s\) of 1000000")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 130


def test_no_progress_bar_off_a_terminal() -> None:
    run = forkkit.run([QUINZE, "selfplay", "--games", "3", "--json"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stderr == ""
    summary = json.loads(run.stdout)
    assert summary["games"] == summary["games_requested"] == 3 and summary["interrupted"] is False
