"""``quinze replay`` of a game started from a position (``quinze match --positions``): no deal
event tells its cards, so the replay opens with the position's state (quinze_cli/narrate
``start_lines``): where it stands, who acts, the hands (or classique's hidden cards) the viewer may
see, and what lies face up. Real logs from ``quinze match`` (the executable, built-in bots); the
replays run in this process (tests/clikit.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from clikit import quinze

import forkkit
from quinze_cli.narrate import Names, start_lines

QUINZE = str(Path(sys.executable).parent / "quinze")
EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "positions"
POSITIONS = {"quinze": "quinze-table.json", "quatorze": "quatorze-draw.json", "quinze-classique": "classique-raise.json"}


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, dict]]:
    """Per game: a log of games started from its example position, and that position."""
    out = {}
    for game_id, name in POSITIONS.items():
        where = tmp_path_factory.mktemp(game_id)
        position = json.loads((EXAMPLES / name).read_text())
        (where / "start.jsonl").write_text(json.dumps(position) + "\n")
        done = forkkit.run([QUINZE, "match", "builtin:random", "builtin:random", "--game", game_id, "--games", "2",
                            "--seed", "4", "--positions", "start.jsonl", "--log-dir", "logs"],
                           cwd=where, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        out[game_id] = (next((where / "logs").glob("match-*.jsonl")), position)
    return out


def _start_block(text: str) -> list[str]:
    """The lines from 'Started from a position' (or its French) to the first action."""
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if "Started from a position" in line or "commencée d'une position" in line)
    block = []
    for line in lines[first:]:
        if line.startswith("#"):
            break
        block.append(line.strip())
    return block


def _players(log: Path) -> list[str]:
    return json.loads(log.read_text().splitlines()[0])["players"]


@pytest.mark.parametrize("game_id", list(POSITIONS))
def test_the_whole_table_sees_every_hand_of_the_starting_position(logs: dict[str, tuple[Path, dict]], game_id: str,
                                                                  tmp_path: Path) -> None:
    log, position = logs[game_id]
    done = quinze("replay", str(log), "--game", "1", "--lang", "en", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    block = _start_block(done.stdout)
    players = _players(log)
    assert block[0].endswith(f"{players[position['to_act']]} to act."), block
    if game_id == "quinze-classique":
        assert [line for line in block if line.startswith("hidden card of")] == [
            f"hidden card of {players[s]}: {card}" for s, card in enumerate(position["hidden"])], block
        assert f"talon {len(position['talon'])}" in block[0] and f"pot {position['pot']}" in block[0]
    else:
        assert [line for line in block if line.startswith("hand of")] == [
            f"hand of {players[s]}: {' '.join(hand)}" for s, hand in enumerate(position["hands"])], block
        assert f"stock {len(position['stock'])}" in block[0]
    if game_id == "quatorze":
        assert f"laid by {players[0]}: " + " | ".join(" ".join(c) for c in position["packets"][0]) in block
    if game_id == "quinze":
        assert f"deal {position['deal']}" in block[0] and "table: " + " ".join(position["table"]) in block


@pytest.mark.parametrize("game_id", list(POSITIONS))
def test_one_seat_sees_only_its_own_hand_of_the_starting_position(logs: dict[str, tuple[Path, dict]], game_id: str,
                                                                  tmp_path: Path) -> None:
    """--seat 1: its own hand (or hidden card) only; the other seat's is never printed, neither
    its line nor its cards."""
    log, position = logs[game_id]
    done = quinze("replay", str(log), "--game", "1", "--seat", "1", "--lang", "en", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    block = _start_block(done.stdout)
    players = _players(log)
    private = [set(p) if isinstance(p, list) else {p} for p in position["hidden" if game_id == "quinze-classique" else "hands"]]
    mine = [line for line in block if line.startswith(("hand of", "hidden card of"))]
    assert len(mine) == 1 and mine[0].split(": ")[0].endswith(f"{players[1]} (you)"), block
    assert set(mine[0].split(": ")[1].split()) == private[1]
    public = {c for line in block if line.startswith(("table:", "laid by", "face up")) for c in line.split(": ")[1].split()}
    words = " ".join(block).split()
    assert not [card for card in private[0] - private[1] - public if card in words], block

def test_the_starting_position_is_told_in_french(logs: dict[str, tuple[Path, dict]], tmp_path: Path) -> None:
    log, position = logs["quinze"]
    done = quinze("replay", str(log), "--game", "1", "--lang", "fr", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    block = _start_block(done.stdout)
    assert block[0].startswith(f"Partie commencée d'une position (donne {position['deal']}, talon {len(position['stock'])})")
    assert sum(line.startswith("main de ") for line in block) == 2, block


@pytest.mark.parametrize("position", [None, "quinze", [], {}, {"hands": "AS", "hidden": [3], "table": {"x": 1}, "to_act": "?"},
                                      {"hands": [None, ["AS"]], "packets": [[1, 2]], "stock": 5}])
def test_a_position_of_another_shape_is_told_as_far_as_it_goes(position: object) -> None:
    """Never an exception: what has another shape is left out (a damaged or future log)."""
    lines = start_lines(position, Names(["ana", "bob"]), None)
    if not isinstance(position, dict):
        assert lines == []
    else:
        assert lines and lines[0].startswith("Started from a position")
