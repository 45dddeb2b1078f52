"""What ``--resume`` says of a journal it cannot use (quinze_cli.journal.read_journal), for a match
(``--resume LOG``) and a tournament (``--resume DIR``): each problem named with the file, nothing
played and nothing changed; a header cut mid-write is an empty journal, any other first line is
not a journal at all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clikit import quinze

from quinze_cli.journal import JOURNAL, JournalError, read_journal

HEADER = json.dumps({"journal": JOURNAL, "kind": "tournament", "settings": {}})

CASES = [
    # (journal bytes, the words of the error)
    (b"\x80\x81garbage\xff", "line 1 is not a journal header"),
    (b"garbage", "line 1 is not a journal header"),
    (b"garbage\n", "line 1 is not a journal header"),
    (b"\x00\x00\x00\x00\n", "line 1 is not a journal header"),
    (b"", "empty journal"),
    (HEADER[:5].encode(), "empty journal"),
    (HEADER[:20].encode(), "empty journal"),
    (HEADER[:20].encode(), "is cut short at byte 20, so its settings are lost"),  # not "stopped before it began"
    (HEADER[:-1].encode(), f"cut short at byte {len(HEADER) - 1}"),
    (b"", "the tournament stopped before it began"),
    (json.dumps({"journal": JOURNAL, "kind": "match", "settings": {}}).encode() + b"\n", "not a tournament journal"),
    (HEADER.encode() + b"\nnot json\n", "line 2 is not JSON"),
    (HEADER.encode() + b'\n{"no": "index"}\n', "line 2 is not a game entry"),
]


@pytest.mark.parametrize(("raw", "words"), CASES)
def test_read_journal_names_what_is_wrong(tmp_path: Path, raw: bytes, words: str) -> None:
    path = tmp_path / "journal.jsonl"
    path.write_bytes(raw)
    with pytest.raises(JournalError) as err:
        read_journal(path, "tournament")
    assert str(err.value).startswith(f"{path}: ") and words in str(err.value)
    assert path.read_bytes() == raw  # reading changes nothing


def test_a_header_with_a_cut_entry_after_it_is_a_journal_without_games(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    path.write_bytes(HEADER.encode() + b'\n{"index": 0, "se')
    settings, entries, good = read_journal(path, "tournament")
    assert (settings, entries, good) == ({}, [], len(HEADER) + 1)


def test_a_tournament_resumed_from_a_garbage_journal_plays_nothing(tmp_path: Path) -> None:
    (tmp_path / "journal.jsonl").write_bytes(b"\x80\x81garbage\xff")
    p = quinze("tournament", "builtin:random", "builtin:greedy", "--games-per-pairing", "2", "--resume", str(tmp_path))
    assert p.returncode == 1
    assert f"--resume {tmp_path}: {tmp_path / 'journal.jsonl'}: line 1 is not a journal header" in p.stderr
    assert sorted(x.name for x in tmp_path.iterdir()) == ["journal.jsonl"]


@pytest.mark.parametrize(("command", "hint"), [
    (["match", "builtin:random", "builtin:greedy"], "is it the log of a match, or its .journal?"),
    (["tournament", "builtin:random", "builtin:greedy"], "is it the directory of a tournament?"),
])
def test_resume_of_nothing_hints_what_the_command_takes(tmp_path: Path, command: list[str], hint: str) -> None:
    p = quinze(*command, "--resume", str(tmp_path / "nothing"))
    assert p.returncode == 1
    assert "no journal at" in p.stderr and hint in p.stderr


def test_tournament_help_says_resume_takes_a_directory() -> None:
    p = quinze("tournament", "--help", env={"COLUMNS": "200"})
    assert "--resume DIR" in p.stdout
