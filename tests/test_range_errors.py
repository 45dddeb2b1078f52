"""Range errors name the option that is out of range: a huge --games alone is a --games error,
not a --seed one; a --move-time beyond the protocol's limit (86400 s, PROTOCOL.md "Clocks") is a
usage error before any server or bot starts, in every command that takes it; a damaged record is
said damaged on stdout, as on stderr."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from clikit import quinze as run_quinze

HUGE = "99999999999999999999999"
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "positions" / "quinze-match.jsonl"


def quinze(*args: str) -> subprocess.CompletedProcess[str]:
    return run_quinze(*args)


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


MOVE_TIME_COMMANDS = [
    ["play", "--local", "--name", "x"],
    ["match", "builtin:random", "builtin:random"],
    ["tournament", "builtin:random", "builtin:greedy"],
]


@pytest.mark.parametrize("value", ["1e23", "86400.5", "0", "-1", "nan", "inf"])
@pytest.mark.parametrize("command", MOVE_TIME_COMMANDS, ids=lambda c: c[0])
def test_a_move_time_out_of_range_is_a_usage_error_before_anything_starts(command: list[str], value: str,
                                                                           tmp_path: Path) -> None:
    p = run_quinze(*command, "--move-time", value, cwd=tmp_path)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "--move-time must be positive, finite seconds, at most 86400, got" in p.stderr
    assert "Traceback" not in p.stderr and "Starting" not in p.stdout
    assert not (tmp_path / "logs").exists()  # nothing was played or logged


@pytest.mark.parametrize("value", ["1e23", "86400.5"])
def test_a_server_default_move_time_beyond_the_protocol_limit_is_refused(value: str, tmp_path: Path) -> None:
    p = run_quinze("serve", "--no-announce", "--port", "0", "--move-time", value, cwd=tmp_path)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "move_time must be at most 86400 seconds" in p.stderr and "listening" not in p.stdout
