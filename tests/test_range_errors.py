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
    ["serve", "--no-announce", "--port", "0"],
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


@pytest.mark.parametrize(("flag", "value", "message"), [
    ("--move-time", "1e23", "--move-time must be positive, finite seconds, at most 86400, got 1e+23"),
    ("--move-time", "86400.5", "--move-time must be positive, finite seconds, at most 86400, got 86400.5"),
    ("--thinking-long", "0", "--thinking-long must be positive, finite seconds, got 0"),
    ("--thinking-long", "-2", "--thinking-long must be positive, finite seconds, got -2"),
    ("--thinking-long", "nan", "--thinking-long must be positive, finite seconds, got nan"),
    ("--max-tables", "0", "--max-tables must be at least 1, got 0"),
    ("--max-tables", "-5", "--max-tables must be at least 1, got -5"),
    ("--max-tables-per-connection", "0", "--max-tables-per-connection must be at least 1, got 0"),
])
def test_a_server_option_out_of_range_is_named_by_its_flag(flag: str, value: str, message: str,
                                                            tmp_path: Path) -> None:
    """serve's errors name the flag the user typed, not ServerConfig's field (move_time, max_tables)."""
    p = run_quinze("serve", "--no-announce", "--port", "0", "--log-dir", "logs", flag, value, cwd=tmp_path)
    usage_error(p, message)
    assert "listening" not in p.stdout and "_" not in p.stderr.split("got")[0]
    assert not (tmp_path / "logs").exists()


def usage_error(p: subprocess.CompletedProcess[str], message: str) -> None:
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert message in " ".join(p.stderr.split()), p.stderr
    assert "Traceback" not in p.stderr


MATCHES = [["match", "builtin:random", "builtin:random"], ["tournament", "builtin:random", "builtin:greedy"]]


@pytest.mark.parametrize(("option", "value", "least"), [
    ("--max-restarts", "-1", 0), ("--shard-size", "0", 1), ("--shard-size", "-1", 1), ("--concurrency", "0", 1),
])
@pytest.mark.parametrize("command", MATCHES, ids=lambda c: c[0])
def test_a_count_below_its_least_value_is_a_usage_error(command: list[str], option: str, value: str, least: int,
                                                        tmp_path: Path) -> None:
    p = run_quinze(*command, option, value, cwd=tmp_path)
    usage_error(p, f"{option} must be at least {least}, got {value}")
    assert not (tmp_path / "logs").exists()


@pytest.mark.parametrize("value", ["-1", "256", HUGE])
@pytest.mark.parametrize("command", ["play", "bot"])
def test_a_seat_the_protocol_cannot_carry_is_a_usage_error(command: str, value: str) -> None:
    args = {"play": ["play", "--table", "t1", "--name", "x", "--seat", value],
            "bot": ["bot", "--table", "t1", "--seat", value, "--", "builtin:random"]}[command]
    usage_error(run_quinze(*args), f"--seat must be in 0 .. 255 (the seat numbers of the protocol), got {value}")


def test_play_says_a_seat_goes_with_a_table() -> None:
    usage_error(run_quinze("play", "--local", "--seat", "1", "--name", "x"), "--seat is the seat wanted at --table")


SEED_TEXT = "--seed must be in 0 .. 2**63-1 (9223372036854775807), the seeds the server draws"


@pytest.mark.parametrize("value", ["-1", str(2**63), HUGE, str(2**63 - 50)])
def test_check_bot_refuses_a_seed_out_of_range_before_starting_the_bot(value: str) -> None:
    p = run_quinze("check-bot", "--seed", value, "--", "/no/such/bot")
    usage_error(p, SEED_TEXT)
    assert "not an executable" not in p.stderr and "PASS" not in p.stdout


@pytest.mark.parametrize("value", ["-1", str(2**63), HUGE])
def test_match_and_tournament_say_a_seed_out_of_range_in_the_same_words(value: str, tmp_path: Path) -> None:
    said = {p.stderr for p in (run_quinze(*command, "--seed", value, cwd=tmp_path) for command in MATCHES)}
    assert len(said) == 1
    usage_error(run_quinze(*MATCHES[1], "--seed", value, cwd=tmp_path), f"{SEED_TEXT}; got {value}")


@pytest.mark.parametrize("args", [
    ["--games-per-pairing", str(10**12)],
    ["--rounds", str(10**12)],
    ["--games-per-pairing", "100001"],
    ["builtin:mcts", "--format", "free-for-all", "--rounds", str(10**12)],
])
def test_a_tournament_longer_than_its_limit_is_refused_before_its_schedule_is_made(args: list[str], tmp_path: Path,
                                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import quinze_cli.commands.tournament as command

    def never(*_: object, **__: object) -> None:
        raise AssertionError("the schedule was being built")

    monkeypatch.setattr(command, "build_schedule", never)
    p = run_quinze(*MATCHES[1], *args, cwd=tmp_path)
    usage_error(p, "a tournament has at most 100000 (its schedule is made before the first game)")
    assert not (tmp_path / "logs").exists()


@pytest.mark.parametrize("fmt, bots, seats, per_pairing, rounds", [
    ("round-robin", 4, 2, 10, None), ("round-robin", 3, 4, 3, None), ("gauntlet", 5, 2, None, 3),
    ("free-for-all", 5, 3, None, 2), ("free-for-all", 4, 4, None, None),
])
def test_an_event_is_counted_as_its_schedule_makes_it(fmt: str, bots: int, seats: int, per_pairing: int | None,
                                                      rounds: int | None) -> None:
    from quinze_cli.schedule import build_schedule, event_size

    made = build_schedule(fmt, bots, seats=seats, seed=1, duplicate=True, per_pairing=per_pairing, rounds=rounds)
    tables, per_table = event_size(fmt, bots, seats=seats, per_pairing=per_pairing, rounds=rounds)
    assert (made.tables, made.per_table, made.games) == (tables, per_table, tables * per_table)


@pytest.mark.parametrize("value", ["1e23", "300.5", "0", "-1", "nan", "inf"])
def test_a_load_duration_out_of_range_is_a_usage_error(value: str) -> None:
    usage_error(run_quinze("bench", "--only", "load", "--load-duration", value),
                "--load-duration must be positive seconds, at most 300 (per load size), got")
