"""JSON nested far too deeply (a corrupted or hostile line of 100,000 ``[``), read from a file or
a peer, is bad JSON like any other: every reader goes through
:func:`quinze_protocol.jsontext.loads_json`, so the parser's ``RecursionError`` never reaches
the user as a traceback. Each entry point is run as the user runs it, on a real file:
``quinze legal``, ``quinze replay --verify``, ``quinze match --positions``, ``quinze match
--resume`` (its log and its journal), and the bot wire's line reader."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from clikit import quinze

from quinze_protocol.errors import ProtocolError
from quinze_protocol.framing import loads_line
from quinze_protocol.jsontext import JSONTooDeep, loads_json
from quinze_cli.play.tokens import TokenStore

EXAMPLE_LOG = Path(__file__).resolve().parent.parent / "examples" / "positions" / "quinze-match.jsonl"
DEPTH = 100_000
DEEP = "[" * DEPTH + "]" * DEPTH
"""Well-formed JSON that no recursive parser follows to its end."""


def _no_traceback(p) -> None:
    assert "Traceback" not in p.stderr and "RecursionError" not in p.stderr, p.stderr[-2000:]


def test_loads_json_says_too_deep_as_a_value_error() -> None:
    with pytest.raises(ValueError) as err:
        loads_json(DEEP)
    assert isinstance(err.value, JSONTooDeep) and str(err.value) == "nested too deeply"
    assert loads_json("[[1]]") == [[1]]


@pytest.mark.parametrize("text", [DEEP, '{"game": "quinze", "x": ' + DEEP + "}"])
def test_legal_says_a_too_deep_file_is_not_json(tmp_path: Path, text: str) -> None:
    path = tmp_path / "deep.json"
    path.write_text(text + "\n")
    p = quinze("legal", str(path))
    _no_traceback(p)
    assert (p.returncode, p.stdout) == (1, "")
    assert p.stderr.strip() == f"error: {path} is not JSON: nested too deeply"
    p = quinze("legal", "-", input=text)
    assert (p.returncode, p.stderr.strip()) == (1, "error: <stdin> is not JSON: nested too deeply")


def test_replay_verify_reads_a_too_deep_line_as_a_damaged_record(tmp_path: Path) -> None:
    lines = EXAMPLE_LOG.read_text().splitlines(keepends=True)
    log = tmp_path / "damaged.jsonl"
    log.write_text("".join(lines[:5]) + '{"record":"event","event":' + DEEP + "}\n" + "".join(lines[6:]))
    p = quinze("replay", str(log), "--verify")
    _no_traceback(p)
    assert p.returncode == 1
    assert "line 6: not JSON (nested too deeply): a record cut short; the game at line 1 is known up to line 5" in p.stderr
    assert "0/1 verified; 1 damaged" in p.stdout
    # A header holding such a value (the tester's case): the same words, the game is not counted verified.
    log.write_text("".join(lines[:2]) + '{"record":"header","x":' + DEEP + "}\n")
    p = quinze("replay", str(log), "--verify")
    _no_traceback(p)
    assert p.returncode == 1 and "line 3: not JSON (nested too deeply)" in p.stderr


def test_match_positions_names_the_line_that_is_too_deep(tmp_path: Path) -> None:
    first = (EXAMPLE_LOG.parent / "quinze-first.json").read_text().replace("\n", " ")
    positions = tmp_path / "openings.jsonl"
    positions.write_text(first + "\n" + '{"game": "quinze", "x": ' + DEEP + "}\n")
    p = quinze("match", "builtin:greedy", "builtin:random", "--positions", str(positions), "--games", "2",
               cwd=tmp_path)
    _no_traceback(p)
    assert p.returncode == 1
    assert p.stderr.strip() == f"error: --positions {positions} line 2: not JSON: nested too deeply"
    assert not (tmp_path / "logs").exists()  # refused before any game


def test_match_resume_with_a_too_deep_line_in_its_log_or_journal(tmp_path: Path) -> None:
    p = quinze("match", "builtin:greedy", "builtin:random", "--games", "2", "--seed", "3", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    (log,) = (tmp_path / "logs").glob("match-*.jsonl")
    journal = log.with_suffix(".journal")
    good_log, good_journal = tmp_path / "good.jsonl", tmp_path / "good.journal"
    shutil.copy(log, good_log)
    shutil.copy(journal, good_journal)
    deep_record = '{"record":"event","event":' + DEEP + "}\n"

    # After the last game (what a crash mid-write could leave): dropped, the match is done.
    with open(log, "a") as fh:
        fh.write(deep_record)
    p = quinze("match", "--resume", str(log), cwd=tmp_path)
    _no_traceback(p)
    assert p.returncode == 0, p.stderr
    assert log.read_bytes() == good_log.read_bytes()

    # Inside a game, more of it after: the log was changed there; named, and left as it was.
    lines = good_log.read_text().splitlines(keepends=True)
    damaged = "".join(lines[:5]) + deep_record + "".join(lines[6:])
    log.write_text(damaged)
    p = quinze("match", "--resume", str(log), cwd=tmp_path)
    _no_traceback(p)
    assert p.returncode == 1
    assert f"DAMAGED at line 6 of {log}" in p.stderr
    assert log.read_text() == damaged

    # In the journal: its line is named as any line that is not JSON.
    shutil.copy(good_log, log)
    with open(journal, "a") as fh:
        fh.write('{"index": 5, "x": ' + DEEP + "}\n")
    p = quinze("match", "--resume", str(log), cwd=tmp_path)
    _no_traceback(p)
    assert p.returncode == 1
    assert f"{journal}: line 4 is not JSON" in p.stderr


def test_a_bot_line_nested_too_deeply_is_not_json_said_so() -> None:
    # Deeper than the parser goes, but with fewer brackets than a relay's element limit counts.
    line = ('{"type": "action", "x": ' + "[" * 3000 + "]" * 3000 + "}").encode()
    with pytest.raises(ProtocolError) as err:
        loads_line(line, max_elements=10_000)
    assert err.value.code == "not-json" and err.value.reason.startswith("line is not JSON (nested too deeply): ")
    with pytest.raises(ProtocolError) as err:  # the element count refuses it first, unparsed
        loads_line(("[" * DEPTH + "]" * DEPTH).encode(), max_elements=10_000)
    assert err.value.code == "too-many-elements"


def test_a_too_deep_token_file_is_no_token(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    path.write_text('{"k": ' + DEEP + "}")
    store = TokenStore(path)
    assert store.get("k") is None
    store.put("h:1/t1/Ann", 0, "tok", "Ann")  # the damaged file is replaced by a good one
    assert store.get("h:1/t1/Ann") == {"seat": 0, "token": "tok", "name": "Ann"}
