"""``quinze replay`` on real logs: games played by the built-in bots, written with
:func:`quinze_protocol.replaylog.game_records` (PROTOCOL.md, "Replay log"), then told, verified, printed
as JSON, tampered with, cut short, or replaced by files that are no log at all."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from quinze_protocol.game import get_bot, get_game
from quinze_protocol.replaylog import dumps_records, game_records
from quinze_cli.app import app

PLAYERS = ["ana", "bob"]
SEEDS = (5, 6, 7)


def played(game_id: str, seed: int, bots: tuple[str, str], number: int = 1) -> list[dict[str, Any]]:
    """The log records of one whole game of ``game_id`` between two built-in bots."""
    cls = get_game(game_id)
    options = cls.validate_options({"players": 2})
    game = cls.new(options, seed)
    players = [get_bot(game_id, name, seed + s) for s, name in enumerate(bots)]
    actions = []
    while not game.is_over:
        seat = game.to_act
        action = players[seat].choose(game.view(seat), game.legal_actions())
        actions.append({"seat": seat, "action": action.to_data()})
        game.apply(action, checked=False)
    return game_records(game_id, options, seed, f"salt{seed}", PLAYERS, actions, number=number, table="t1",
                        started=1_700_000_000.0, ended=1_700_000_100.0)


@pytest.fixture(scope="module")
def records() -> list[list[dict[str, Any]]]:
    return [played("quinze", seed, ("greedy", "random"), n) for n, seed in enumerate(SEEDS, 1)]


@pytest.fixture
def log(tmp_path: Path, records: list[list[dict[str, Any]]]) -> Path:
    path = tmp_path / "match.jsonl"
    path.write_text("".join(dumps_records(r) for r in records), encoding="utf-8")
    return path


def run(*args: Any) -> Any:
    return CliRunner().invoke(app, ["replay", *map(str, args)])


def test_whole_table_tells_every_hand_and_the_result(log: Path, records: list[list[dict[str, Any]]]) -> None:
    result = run(log, "--game", 1)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Game 1: Le Quinze (quinze)" in out and "Game 2" not in out
    first_deal = records[0][1]["event"]
    assert first_deal["kind"] == "deal"
    for seat, name in enumerate(PLAYERS):
        assert f"hand of {name}: {' '.join(first_deal['private'][str(seat)]['hand'])}" in out
    assert re.search(r"(ana|bob) draws [0-9AJQKBR]{1,2}[SHDCJ] \(stock \d+\)", out)
    winners = records[0][-1]["result"]["winners"]
    assert f"Result: {PLAYERS[winners[0]]} wins" in out


def test_without_game_every_game_is_told(log: Path) -> None:
    result = run(log)
    assert result.exit_code == 0, result.output
    assert all(f"Game {n}: " in result.stdout for n in (1, 2, 3))


def test_a_seat_never_sees_the_other_seats_private_cards(log: Path, records: list[list[dict[str, Any]]]) -> None:
    result = run(log, "--game", 1, "--seat", 0)
    assert result.exit_code == 0, result.output
    out = result.stdout
    deal = records[0][1]["event"]
    assert f"hand of ana (you): {' '.join(deal['private']['0']['hand'])}" in out
    assert "hand of bob" not in out
    assert "bob draws a card" in out
    assert not re.search(r"bob draws [0-9AJQKBR]", out)
    assert re.search(r"You draw [0-9AJQKBR]{1,2}[SHDCJ] ", out)  # our own draw, in the second person


def test_json_seat_view_is_the_events_as_that_seat_received_them(log: Path, records: list[list[dict[str, Any]]]) -> None:
    result = run(log, "--game", 2, "--seat", 1, "--json")
    assert result.exit_code == 0, result.output
    [game] = json.loads(result.stdout)
    assert game["game"] == 2 and game["seat"] == 1 and game["complete"]
    logged = [r for r in records[1] if r["record"] in ("event", "action")]
    assert len(game["records"]) == len(logged)
    for shown, full in zip(game["records"], logged):
        if full["record"] == "action":
            assert shown == full
            continue
        ev = full["event"]
        public = {k: v for k, v in ev.items() if k != "private"}
        assert shown["event"] == {**public, **ev.get("private", {}).get("1", {})}
        assert "private" not in shown["event"]


def test_json_whole_table_keeps_the_full_records(log: Path, records: list[list[dict[str, Any]]]) -> None:
    result = run(log, "--json")
    assert result.exit_code == 0, result.output
    games = json.loads(result.stdout)
    assert [g["game"] for g in games] == [1, 2, 3]
    for game, recs in zip(games, records):
        assert game["header"] == recs[0]
        assert game["result"] == recs[-1]
        assert game["records"] == recs[1:-1]


@pytest.mark.parametrize("extra", [("--at", "5"), ("--deal", "1"), ("--coup", "1")])
def test_at_deal_or_coup_alone_name_both_step_and_position(log: Path, extra: tuple[str, ...]) -> None:
    # --step --at is valid too (docs/botkit.md): the message names both.
    result = run(log, "--game", 1, *extra)
    assert result.exit_code == 2
    assert result.stderr == "error: --at, --deal and --coup go with --position or --step\n"


def test_verify_reports_each_game_with_its_action_count(log: Path, records: list[list[dict[str, Any]]]) -> None:
    result = run(log, "--verify")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    counts = [sum(1 for r in recs if r["record"] == "action") for recs in records]
    assert lines[:-1] == [f"game {n}: verified (commitment ok, {k} actions)" for n, k in enumerate(counts, 1)]
    assert lines[-1] == f"{len(counts)}/{len(counts)} verified"


@pytest.mark.parametrize(("extra", "named"), [
    (("--seat", "1"), "--seat"),
    (("--seat", "ana"), "--seat"),
    (("--step", "--game", "1"), "--step"),
    (("--position", "--game", "1", "--at", "3"), "--position, --at"),
    (("--deal", "1"), "--deal"),
    (("--coup", "1"), "--coup"),
])
def test_verify_refuses_the_options_it_would_ignore(log: Path, extra: tuple[str, ...], named: str) -> None:
    result = run(log, "--verify", *extra)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: --verify re-simulates whole games at the whole table: it does not go with {named}\n")
    assert result.stdout == ""


def tamper(log: Path, game: int, pick: Any, change: Any) -> int:
    """Change the first record of game ``game`` (1-based) for which ``pick(record)`` holds;
    returns its line number."""
    lines = log.read_text(encoding="utf-8").splitlines(keepends=True)
    n = 0
    for i, line in enumerate(lines):
        rec = json.loads(line)
        if rec["record"] == "header":
            n += 1
        if n == game and pick(rec):
            change(rec)
            lines[i] = json.dumps(rec) + "\n"
            log.write_text("".join(lines), encoding="utf-8")
            return i + 1
    raise AssertionError("nothing to tamper with")


def test_verify_names_the_first_divergence_of_a_tampered_event(log: Path) -> None:
    def is_draw(rec: dict[str, Any]) -> bool:
        return rec["record"] == "event" and rec["event"]["kind"] == "draw" and rec["event"]["stock"] < 30

    line = tamper(log, 2, is_draw, lambda rec: rec["event"].update(stock=rec["event"]["stock"] + 1))
    result = run(log, "--verify")
    assert result.exit_code == 1
    out = result.stdout
    assert "game 1: verified" in out and "game 3: verified" in out
    assert f"game 2: DIVERGES at line {line}: event: the event differs from the re-simulation" in out
    assert "expected:" in out and "found:" in out


def test_verify_catches_a_changed_action(log: Path) -> None:
    def is_place(rec: dict[str, Any]) -> bool:
        return rec["record"] == "action" and rec["action"]["type"] == "place"

    line = tamper(log, 1, is_place, lambda rec: rec["action"].update(type="end"))
    result = run(log, "--verify", "--game", 1)
    assert result.exit_code == 1
    assert f"game 1: DIVERGES at line {line}: action: refused" in result.stdout
    assert re.search(r'expected: \{"seat":[01],"legal":\[\{"type":', result.stdout), result.stdout  # not a bare seat
    data = json.loads(run(log, "--verify", "--game", 1, "--json").stdout)[0]["divergence"]
    assert data["expected"]["legal"] and data["expected"]["seat"] == data["found"]["seat"]
    assert data["found"]["action"]["type"] == "end"


def test_verify_catches_a_seed_that_does_not_match_the_commitment(log: Path) -> None:
    line = tamper(log, 3, lambda rec: rec["record"] == "header", lambda rec: rec.update(seed=rec["seed"] + 1))
    result = run(log, "--verify", "--json")
    assert result.exit_code == 1
    reports = json.loads(result.stdout)
    assert [r["verified"] for r in reports] == [True, True, False]
    assert reports[2]["divergence"]["what"] == "commitment" and reports[2]["divergence"]["line"] == line


def test_truncated_last_record_is_a_warning_and_the_intact_games_remain(log: Path) -> None:
    text = log.read_text(encoding="utf-8")
    log.write_text(text[: len(text) - 25], encoding="utf-8")  # cut inside the last result record
    result = run(log, "--verify")
    assert result.exit_code == 1, result.output  # the intact games verify, but the log is not whole
    assert "warning:" in result.stderr and "truncated" in result.stderr
    assert "2/3 verified; 1 cut short (checked up to the cut)" in result.stdout  # the cut game is not counted
    assert "game 1: verified (commitment ok" in result.stdout
    assert "game 2: verified (commitment ok" in result.stdout
    assert "game 3: CUT SHORT at line" in result.stdout and "game 3: verified" not in result.stdout
    told = run(log)
    assert told.exit_code == 0
    assert "Game 1: " in told.stdout and "Game 2: " in told.stdout
    assert "No result: the game is incomplete" in told.stdout


def test_a_damaged_line_inside_a_game_is_damage_not_a_cut(log: Path) -> None:
    """A line that is not JSON with more of its game after it (a hand edit, a corrupted disk) is
    told apart from a crash's cut: the game says DAMAGED, the closing line counts it so, the
    records skipped after it make one warning (not one each), and the exit code is 1."""
    lines = log.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[9] = "hello world\n"  # inside game 1, many records after it
    log.write_text("".join(lines), encoding="utf-8")
    result = run(log, "--verify")
    assert result.exit_code == 1, result.output
    assert "game 1: DAMAGED at line 10" in result.stdout and "not cut by a crash" in result.stdout
    assert "game 1: verified" not in result.stdout and "cut short" not in result.stdout
    assert "game 2: verified (commitment ok" in result.stdout and "game 3: verified (commitment ok" in result.stdout
    assert "2/3 verified; 1 damaged (a record inside is not JSON; checked up to it)" in result.stdout
    assert result.stderr.count("skipped") == 1 and "more problems" not in result.stderr
    data = json.loads(run(log, "--verify", "--json").stdout)
    assert [g["damaged"] for g in data] == [10, None, None] and data[0]["cut"] == 10


def test_a_game_of_another_log_format_is_never_counted_verified(log: Path) -> None:
    """A header whose ``format`` is not the one this program reads: its records are not
    re-simulated, --verify says why and exits 1, and telling the game says it is read as
    format 1 (it was counted verified after a warning that it was skipped)."""
    line = tamper(log, 2, lambda rec: rec["record"] == "header", lambda rec: rec.update(format=2))
    result = run(log, "--verify")
    assert result.exit_code == 1, result.output
    assert f"line {line}: header format 2 is not 1" in result.stderr and "skipped" not in result.stderr
    assert "game 2: not verified: its header says log format 2" in result.stdout
    assert "game 2: verified" not in result.stdout
    assert "game 1: verified (commitment ok" in result.stdout and "game 3: verified (commitment ok" in result.stdout
    assert "2/3 verified; 1 of another log format (not re-simulated)" in result.stdout
    data = json.loads(run(log, "--verify", "--json").stdout)
    assert [g["verified"] for g in data] == [True, False, True] and data[1]["other_format"] == 2
    told = run(log, "--game", 2)
    assert told.exit_code == 0 and "log format 2" in told.stdout and "may be wrong" in told.stdout


def test_an_unknown_event_kind_is_told_plainly(log: Path) -> None:
    tamper(log, 1, lambda rec: rec["record"] == "event" and rec["event"]["kind"] == "end-turn",
           lambda rec: rec["event"].update(kind="teleport", where="moon"))
    result = run(log, "--game", 1)
    assert result.exit_code == 0, result.output
    assert re.search(r"teleport: seat (ana|bob), where moon", result.stdout)


def test_other_games_are_told_and_verified(tmp_path: Path) -> None:
    path = tmp_path / "other.jsonl"
    path.write_text(dumps_records(played("quinze-classique", 3, ("threshold", "random")))
                    + dumps_records(played("quatorze", 4, ("random", "random"), 2)), encoding="utf-8")
    told = run(path, "--seat", 1)
    assert told.exit_code == 0, told.output
    assert "Le Quinze classique" in told.stdout and "Le 14" in told.stdout
    assert "hidden card of bob (you)" in told.stdout and "hidden card of ana" not in told.stdout
    checked = run(path, "--verify")
    assert checked.exit_code == 0, checked.output
    assert checked.stdout.count("verified (commitment ok") == 2


def test_bad_selection_is_an_error(log: Path) -> None:
    for args, words in ((("--game", 4), "--game: the log holds 3 game(s)"), (("--seat", 2), "--seat: game 1 has seats 0..1")):
        result = run(log, *args)
        assert result.exit_code == 1
        assert result.stderr.startswith(f"error: {words}")


@pytest.mark.parametrize("content", [None, b"", b"\x00\x01\xff binary", b'{"a": 1}\n{"b": 2}\n', "dir"])
def test_a_file_that_is_not_a_log_is_an_error_without_traceback(tmp_path: Path, content: Any) -> None:
    path = tmp_path / "file.jsonl"
    if content == "dir":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)
    result = run(path)
    assert result.exit_code == 1
    assert result.stderr.startswith("error: ") and len(result.stderr.strip().splitlines()) == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_missing_file_from_the_real_command_line(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-c", "from quinze_cli.app import main; main()", "replay", str(tmp_path / "none.jsonl")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.startswith("error: ") and "no such file" in proc.stderr
    assert "Traceback" not in proc.stderr


HEADER_FLAWS = [
    (lambda h: h.update(game="poker"), "no game 'poker'"),  # a game this software does not have
    (lambda h: h.update(game="quatorze", rules=2), "target: unknown option for quatorze"),  # another game's options
    (lambda h: h.update(options={**h["options"], "target": "lots"}), "target"),  # an option the game refuses
    (lambda h: h.pop("seed"), "seed"),  # a missing field
    (lambda h: h.update(options=[1, 2]), "cannot start the game"),  # a field of the wrong type
]


@pytest.mark.parametrize("flaw, named", HEADER_FLAWS)
@pytest.mark.parametrize("how", [("--at", 3, "--position"), ("--deal", 1, "--position"), ("--step",)])
def test_a_header_that_cannot_start_its_game_is_an_error_for_position_and_step(
        tmp_path: Path, records: list[list[dict[str, Any]]], flaw: Any, named: str, how: tuple[Any, ...]) -> None:
    """--position and --step re-simulate the game as --verify does: a header that cannot start a
    game (unknown game, options another game's or refused, a field missing or mistyped) is one
    line naming the header and the game's own error, exit 1, no traceback."""
    game = [dict(r) for r in records[0]]
    header = dict(game[0])
    flaw(header)
    game[0] = header
    path = tmp_path / "flawed.jsonl"
    path.write_text(dumps_records(game), encoding="utf-8")
    result = run(path, "--game", 1, *how)
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    assert "header: cannot start the game" in result.stderr and named in result.stderr, result.stderr
    verified = run(path, "--verify")
    assert verified.exit_code == 1 and "header" in verified.output, verified.output


@pytest.mark.parametrize("content", [b"# Quinze\n\nA card game server.\n", bytes(range(256)) * 3, b"{\"record\": \"header\"\n"])
def test_a_file_that_is_no_replay_log_is_said_to_be_one_without_calling_it_cut_short(tmp_path: Path,
                                                                                       content: bytes) -> None:
    """A README, random bytes or a broken first record: 'not a replay log' with what line 1 is,
    not 'a record cut short, outside a game' (which says a log's game was cut)."""
    path = tmp_path / "notalog.txt"
    path.write_bytes(content)
    result = CliRunner().invoke(app, ["replay", str(path)])
    assert result.exit_code == 1
    assert "not a replay log (no game found; line 1: " in result.output and "cut short" not in result.output, result.output


def test_a_damaged_line_after_a_game_is_still_a_record_cut_short(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text(dumps_records(played("quinze", 3, ("greedy", "random"))) + "{not json\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["replay", str(path), "--verify"])
    assert "a record cut short, outside a game" in result.output, result.output
