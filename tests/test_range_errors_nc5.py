"""Range errors name the option that is out of range (newcomer 5): a huge --games alone is a
--games error, not a --seed one; a damaged record is said damaged on stdout, as on stderr."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HUGE = "99999999999999999999999"
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "positions" / "quinze-match.jsonl"


def quinze(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(Path(sys.executable).with_name("quinze")), *args], capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("args", [
    ["selfplay", "--games", HUGE],
    ["selfplay", "--games", str(2**63 + 1)],
    ["match", "builtin:random", "builtin:random", "--games", HUGE],
    ["match", "builtin:random", "builtin:random", "--games", str(2**63 + 1)],
])
def test_a_huge_games_count_alone_is_a_games_error(args: list[str]) -> None:
    p = quinze(*args)
    assert p.returncode == 2, p.stderr
    assert "--games must be at most 2**63" in p.stderr
    assert "--seed" not in p.stderr
    assert "Traceback" not in p.stderr


def test_a_damaged_record_is_said_damaged_on_stdout(tmp_path: Path) -> None:
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[19] = "garbage{{{\n"
    log = tmp_path / "damaged.jsonl"
    log.write_text("".join(lines), encoding="utf-8")
    p = quinze("replay", str(log), "--game", "1")
    assert "damaged record at line 20" in p.stdout
    assert "cut short" not in p.stdout
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:19]) + lines[19][:5], encoding="utf-8")
    p = quinze("replay", str(cut), "--game", "1")
    assert "cut short at line 20" in p.stdout
    assert "damaged" not in p.stdout
