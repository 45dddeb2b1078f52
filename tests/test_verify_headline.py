"""``quinze replay --verify``'s closing line and its ``--json`` form count as verified only the
whole games that re-simulate: a game cut short (at any byte of a log, as a crash leaves it), left
without its result, or damaged inside is checked up to there but never counted, and the exit code
is 1 unless every game verifies. A real match log (``quinze match``), cut and damaged in many places."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clikit import quinze


@pytest.fixture(scope="module")
def match_log(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    here = tmp_path_factory.mktemp("match")
    done = quinze("match", "builtin:greedy", "builtin:random", "--games", "3", "--seed", "2", "--option",
                  "target=1", "--log-dir", ".", "--json", "res.json", cwd=here)
    assert done.returncode == 0, done.stderr
    return (here / json.loads((here / "res.json").read_text())["log"]).read_bytes()


def _parses(line: bytes) -> dict | None:
    try:
        data = json.loads(line)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _check(path: Path, games: int, whole: int) -> None:
    text = quinze("replay", str(path), "--verify")
    assert text.stdout.splitlines()[-1].startswith(f"{whole}/{games} verified"), text.stdout
    assert text.returncode == (0 if whole == games else 1), text.stdout
    data = json.loads(quinze("replay", str(path), "--verify", "--json").stdout)
    assert len(data) == games and sum(g["verified"] for g in data) == whole, data


def test_a_log_cut_at_any_place_counts_only_its_whole_games(match_log: bytes, tmp_path: Path) -> None:
    ends = [i + 1 for i, b in enumerate(match_log) if b == ord("\n")]
    offsets = sorted({*ends[1::5], *(e - 15 for e in ends[1::5]), *(e - 1 for e in ends if
                      match_log[:e].rsplit(b"\n", 2)[-2].startswith(b'{"record":"result"'))})
    path = tmp_path / "cut.jsonl"
    for size in offsets:
        cut = match_log[:size]
        lines = [_parses(line) for line in cut.split(b"\n")]
        games = sum(1 for d in lines if d and d.get("record") == "header")
        whole = sum(1 for d in lines if d and d.get("record") == "result")
        if games == 0:
            continue  # no game at all: an error of its own (tests/test_replay_cli.py)
        path.write_bytes(cut)
        _check(path, games, whole)


def test_a_damaged_record_inside_a_game_is_never_counted_as_verified(match_log: bytes, tmp_path: Path) -> None:
    lines = match_log.split(b"\n")[:-1]
    headers = [n for n, line in enumerate(lines) if line.startswith(b'{"record":"header"')]
    path = tmp_path / "damaged.jsonl"
    for start, end in zip(headers, headers[1:] + [len(lines)]):
        for inner in (start + 1, (start + end) // 2, end - 2):  # first, middle and next-to-last record
            changed = list(lines)
            changed[inner] = changed[inner][: len(changed[inner]) // 2]  # no longer JSON
            path.write_bytes(b"".join(line + b"\n" for line in changed))
            _check(path, len(headers), len(headers) - 1)
