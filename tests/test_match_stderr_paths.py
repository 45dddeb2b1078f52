"""``quinze match`` prints the path of each bot stderr file it keeps (docs/match.md: a file the bot
wrote nothing to is removed, else its path is printed), however the bot ends: a crash, a clean
match, with one or both bots writing; a bot that writes nothing leaves no file and no line. Real
subprocess bots (tests/bots), real files; the command runs in this process (tests/clikit.py)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from clikit import quinze

BOTS = Path(__file__).resolve().parent / "bots"
PY = sys.executable
CRASH = f"{PY} {BOTS / 'exit_midgame.py'} 1"  # writes one stderr line, then exits 1
FLOOD = f"{PY} {BOTS / 'flood_stderr.py'} 0.01"  # writes to stderr, plays correctly
QUIET = f"{PY} {BOTS / 'crlf.py'}"  # plays correctly, writes nothing to stderr


def printed_stderr_paths(tmp_path: Path, *bots: str) -> tuple[list[Path], list[Path]]:
    """The ``bot stderr:`` paths printed by a two-game match between ``bots`` in ``tmp_path``, and
    the stderr files left on disk. Games of one deal (``target=1``): what a bot writes and when it
    ends are the subject, not the game, and the flooding bot still fills its file to the cap
    (1.1 MB either way) for half the CPU."""
    done = quinze("match", *bots, "--games", "2", "--log-dir", "logs", "--option", "target=1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    printed = [Path(p) for p in re.findall(r"^bot stderr: (.+)$", done.stdout + done.stderr, re.M)]
    kept = sorted(p.relative_to(tmp_path) for p in (tmp_path / "logs").glob("match-*-stderr/*"))
    return printed, kept


@pytest.mark.parametrize(("bots", "writers"), [
    ((CRASH, "builtin:random"), ["exit_midgame"]),
    (("builtin:random", FLOOD), ["flood_stderr"]),
    ((FLOOD, CRASH), ["exit_midgame", "flood_stderr"]),
], ids=["crash", "clean", "both"])
def test_each_kept_stderr_file_is_printed(tmp_path: Path, bots: tuple[str, str], writers: list[str]) -> None:
    printed, kept = printed_stderr_paths(tmp_path, *bots)
    assert [p.name.split("-slot")[0] for p in kept] == writers
    assert sorted(printed) == kept  # every kept file printed, as a path that opens from where match ran
    assert all((tmp_path / p).stat().st_size > 0 for p in printed)


def test_a_bot_that_writes_nothing_leaves_no_file_and_no_line(tmp_path: Path) -> None:
    printed, kept = printed_stderr_paths(tmp_path, QUIET, "builtin:random")
    assert printed == [] and kept == []
    assert list((tmp_path / "logs").glob("match-*-stderr")) == []
