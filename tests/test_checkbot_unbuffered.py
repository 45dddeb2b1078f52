"""check-bot's ``flush`` check is real for a Python bot whatever the environment: the program is
started without ``PYTHONUNBUFFERED`` (quinze_cli.checkbot.probe.program_env). Set in the
environment check-bot ran in (this sandbox sets it), it was passed on, the bot's stdout was
unbuffered, and examples/bots/random_bot.py with its ``sys.stdout.flush()`` removed got ``PASS
flush`` (README-only tester report, breakL 9), a bot that then waits forever under a host that does
not set it. Real processes: ``quinze check-bot`` and the bot."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from playkit import QUINZE, TIMEOUT

from quinze_cli.checkbot.probe import program_env

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "bots" / "random_bot.py"


def _check(bot: Path) -> dict:
    r = subprocess.run([QUINZE, "check-bot", "--game", "quinze", "--deadline", "0.5", "--grace", "0.5", "--json", "--",
                        sys.executable, str(bot)], capture_output=True, text=True, timeout=TIMEOUT * 4,
                       env=dict(os.environ, PYTHONUNBUFFERED="1"))
    assert r.returncode in (0, 1), r.stderr
    return {c["check"]: c for c in json.loads(r.stdout)["checks"]}


def test_the_example_bot_without_its_flush_fails_the_flush_check(tmp_path: Path) -> None:
    source = EXAMPLE.read_text(encoding="utf-8")
    assert source.count("sys.stdout.flush()\n") == 1
    bot = tmp_path / "random_bot.py"
    bot.write_text(source.replace("sys.stdout.flush()\n", "pass\n"), encoding="utf-8")
    verdict = _check(bot)["flush"]
    assert verdict["status"] == "fail", verdict
    assert "unflushed buffer" in verdict["reason"], verdict


def test_the_example_bot_as_shipped_passes_it() -> None:
    verdicts = _check(EXAMPLE)
    assert verdicts["flush"]["status"] == "pass", verdicts["flush"]


def test_program_env_drops_only_pythonunbuffered() -> None:
    env = program_env({"PYTHONUNBUFFERED": "1", "PATH": "/bin", "PYTHONPATH": "x"})
    assert env == {"PATH": "/bin", "PYTHONPATH": "x"}
