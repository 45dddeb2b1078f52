"""``quinze replay LOG --game N --position`` (--at K, --deal D, --coup C; --seat S): the position
printed is accepted by ``quinze legal`` and gives the engine's legal actions at that moment.
Real logs written by ``quinze match`` (the executable); the replays and ``quinze legal`` run in
this process (tests/clikit.py: the same entry point, their output and exit codes are the subject)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from clikit import quinze as quinze_here

from quinze_protocol.game import get_game
from quinze_protocol.replaylog import read_log
from quinze_protocol.replaysim import state_at
import forkkit

QUINZE = str(Path(sys.executable).parent / "quinze")
BUILTINS = {"quinze": "builtin:greedy", "quatorze": "builtin:greedy", "quinze-classique": "builtin:threshold"}


def quinze(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    return quinze_here(*args, cwd=cwd, input=stdin)


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> dict[str, Path]:
    """One log of 2 games per game, from a real match."""
    out = {}
    for game_id, bot in BUILTINS.items():
        where = tmp_path_factory.mktemp(game_id)
        done = forkkit.run([QUINZE, "match", bot, "builtin:random", "--game", game_id, "--games", "2", "--seed", "4",
                               "--log-dir", "logs"], cwd=where, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        out[game_id] = next((where / "logs").glob("match-*.jsonl"))
    return out


def legal_lines(position: str, cwd: Path) -> list[str]:
    done = quinze("legal", "-", cwd=cwd, stdin=position)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def engine_legal(game) -> list[str]:
    return sorted(json.dumps(a, sort_keys=True, ensure_ascii=False) for a in game.legal_data())


@pytest.mark.parametrize("game_id", list(BUILTINS))
def test_position_before_action_k_is_accepted_by_quinze_legal(logs: dict[str, Path], game_id: str, tmp_path: Path) -> None:
    logged = read_log(logs[game_id].read_text()).games[0]
    for k in (1, len(logged.actions) // 2, len(logged.actions)):
        done = quinze("replay", str(logs[game_id]), "--game", "1", "--at", str(k), "--position", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert f"after {k - 1} action(s)" in done.stderr
        expected = state_at(logged.header, logged.actions, k - 1)
        assert json.loads(done.stdout) == expected.to_position()
        assert legal_lines(done.stdout, tmp_path) == engine_legal(expected)
        assert logged.actions[k - 1]["action"] in expected.legal_data() or game_id == "quinze-classique"


@pytest.mark.parametrize("game_id", list(BUILTINS))
def test_a_seats_knowledge_hides_what_it_could_not_see_and_keeps_its_legal_actions(
        logs: dict[str, Path], game_id: str, tmp_path: Path) -> None:
    logged = read_log(logs[game_id].read_text()).games[0]
    k = len(logged.actions) // 2
    full = state_at(logged.header, logged.actions, k - 1)
    to_act = full.to_act
    for seat in range(full.players):
        done = quinze("replay", str(logs[game_id]), "--game", "1", "--at", str(k), "--position", "--seat", str(seat), cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        data = json.loads(done.stdout)
        assert data["rng"] == 0 and "knowledge" in done.stderr
        game = get_game(game_id).from_position(data)  # a valid position
        assert game.view(seat) == full.view(seat)  # what the seat saw is unchanged
        lines = legal_lines(done.stdout, tmp_path)
        if seat == to_act:
            assert lines == engine_legal(full)


def test_start_of_a_deal_and_of_a_coup(logs: dict[str, Path], tmp_path: Path) -> None:
    done = quinze("replay", str(logs["quinze"]), "--game", "1", "--deal", "2", "--position", cwd=tmp_path)
    if done.returncode == 0:
        assert json.loads(done.stdout)["deal"] == 2
    else:  # a game of one deal
        assert "deals are 1..1" in done.stderr
    done = quinze("replay", str(logs["quinze"]), "--game", "1", "--deal", "1", "--position", cwd=tmp_path)
    assert done.returncode == 0 and "after 0 action(s)" in done.stderr
    done = quinze("replay", str(logs["quinze-classique"]), "--game", "1", "--coup", "2", "--position", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["coup"] == 2 and legal_lines(done.stdout, tmp_path)


@pytest.mark.parametrize(
    ("game_id", "args", "code", "message"),
    [
        ("quatorze", ["--game", "1", "--deal", "1"], 1, "quatorze has no deals"),
        ("quinze", ["--game", "1", "--at", "0"], 1, "so K must be 1.."),
        ("quinze", ["--game", "1", "--at", "99999"], 1, "so K must be 1.."),
        ("quinze", ["--at", "3"], 2, "--position needs one game: add --game N"),
        ("quinze", ["--game", "1"], 2, "exactly one of --at K, --deal D and --coup C"),
        ("quinze", ["--game", "1", "--at", "2", "--deal", "1"], 2, "exactly one of"),
    ],
)
def test_bad_moments_are_clear_errors(logs: dict[str, Path], tmp_path: Path, game_id: str, args: list[str], code: int,
                                      message: str) -> None:
    done = quinze("replay", str(logs[game_id]), *args, "--position", cwd=tmp_path)
    assert done.returncode == code and message in done.stderr, done.stderr
    assert done.stdout == ""
