"""``--resume`` after the game log was cut anywhere (a crash, a full disk, ``head -c``), for
``quinze match`` and ``quinze tournament``: only the games the log really holds complete and
verified count as done, every other game is played again with its seed and seats, and the end is
the uninterrupted run's (results JSON, and a log that verifies N/N). Real runs, real files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from clikit import quinze
from quinze_protocol.replaylog import read_log

MATCH = ["builtin:greedy", "builtin:random", "--games", "4", "--seed", "5", "--option", "target=1"]
EVENT = ["builtin:greedy", "builtin:random", "--games-per-pairing", "4", "--seed", "3", "--option", "target=1"]


def _offsets(log: bytes) -> dict[str, int]:
    """Byte counts to cut the log at: every kind of place a cut can fall."""
    ends = [i + 1 for i, b in enumerate(log) if b == ord("\n")]
    lines = log.split(b"\n")[:-1]
    starts = [0] + ends[:-1]
    headers = [s for s, line in zip(starts, lines) if line.startswith(b'{"record":"header"')]
    results = [e for e, line in zip(ends, lines) if line.startswith(b'{"record":"result"')]
    second = headers[1]
    return {
        "empty": 0,
        "inside the first header": 40,
        "inside the second header": second + 40,
        "between two games": results[1],
        "a game cut at a line's end": ends[ends.index(results[1]) + 3],
        "a game cut mid-record": results[1] + (results[2] - results[1]) // 2,
        "in the last result record": results[-1] - 20,
        "the last newline missing": results[-1] - 1,
        "two thirds": len(log) * 2 // 3,
        "after the last game's final line": len(log),
    }


def _complete_games(cut: bytes) -> int:
    """Result records that survive whole in the cut text (counted here without the product's reader)."""
    n = 0
    for line in cut.split(b"\n"):
        try:
            n += json.loads(line).get("record") == "result"
        except ValueError:
            pass
    return n


def _verified(log: Path, games: int) -> None:
    check = quinze("replay", str(log), "--verify")
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.strip().splitlines()[-1] == f"{games}/{games} verified"
    assert len(read_log(log.read_bytes()).games) == games


def _final(path: Path, run_keys: tuple[str, ...], rows: str) -> dict:
    """The results JSON at ``path`` without what differs between two runs of the same games:
    ``run_keys`` (the log's place, the concurrency...) and each of ``rows``' ``time``."""
    data = json.loads(path.read_text())
    for key in run_keys:
        data.pop(key)
    for row in data[rows]:
        row.pop("time")
    return data


def _match_final(path: Path) -> dict:
    return _final(path, ("log", "concurrency"), "bots")


def test_match_resume_after_the_log_was_cut_anywhere_replays_every_missing_game(tmp_path):
    ref = quinze("match", *MATCH, "--log-dir", "ref", "--json", "ref.json", cwd=tmp_path)
    assert ref.returncode == 0, ref.stderr
    ref_log = tmp_path / json.loads((tmp_path / "ref.json").read_text())["log"]
    ref_journal = ref_log.with_suffix(".journal")
    reference = _match_final(tmp_path / "ref.json")
    full = ref_log.read_bytes()
    for n, (where, size) in enumerate(_offsets(full).items()):
        run = tmp_path / f"cut{n}"
        run.mkdir()
        log = run / ref_log.name
        log.write_bytes(full[:size])
        shutil.copy(ref_journal, run / ref_journal.name)
        done = _complete_games(full[:size])
        res = quinze("match", "--resume", str(log), "--json", "res.json", cwd=run)
        assert res.returncode == 0, (where, res.stderr)
        assert f"resuming: {done} done" in " ".join(res.stderr.split()), (where, res.stderr)
        assert _match_final(run / "res.json") == reference, where
        _verified(log, 4)
        assert (run / ref_journal.name).read_text().count("\n") == 1 + 4, where  # each game journaled once
        again = quinze("match", "--resume", str(log), cwd=run)  # nothing left: nothing played, nothing lost
        assert again.returncode == 0 and "resuming: 4 done" in " ".join(again.stderr.split()), (where, again.stderr)
        _verified(log, 4)


def _event_final(path: Path) -> dict:
    return _final(path, ("dir", "log"), "standings")


def test_tournament_resume_after_the_log_was_cut_anywhere_replays_every_missing_game(tmp_path):
    pytest.importorskip("openskill")
    ref = quinze("tournament", *EVENT, "--log-dir", "ref", "--json", "ref.json", cwd=tmp_path)
    assert ref.returncode == 0, ref.stderr
    ref_dir = tmp_path / json.loads((tmp_path / "ref.json").read_text())["dir"]
    reference = _event_final(tmp_path / "ref.json")
    games = reference["games"]
    full = (ref_dir / "games.jsonl").read_bytes()
    for n, (where, size) in enumerate(_offsets(full).items()):
        event = tmp_path / f"cut{n}" / ref_dir.name
        shutil.copytree(ref_dir, event)
        (event / "games.jsonl").write_bytes(full[:size])
        done = _complete_games(full[:size])
        res = quinze("tournament", "--resume", str(event), "--json", "res.json", cwd=tmp_path / f"cut{n}")
        assert res.returncode == 0, (where, res.stderr)
        assert f"{done} of {games} games done" in " ".join(res.stderr.split()), (where, res.stderr)
        assert _event_final(tmp_path / f"cut{n}" / "res.json") == reference, where
        _verified(event / "games.jsonl", games)
        assert (event / "journal.jsonl").read_text().count("\n") == 1 + games, where
