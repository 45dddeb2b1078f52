"""Two seats of one name (two ``quinze bot`` of one program): the step-through viewer names them
as the narration does (``twin#0``, ``twin#1``) everywhere on its screen, and ``--seat twin#1``
picks seat 1 for every use of ``--seat`` (the text replay, --json, --position, --step).
Real processes and TCP: ``quinze serve`` and two ``quinze bot --name twin``; the screen in tmux."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import forkkit
from test_bot_aborted_games import TIMEOUT
from test_play_aborted import _serve
from test_viewer import Tmux, needs_tmux
import subprocess

QUINZE = str(Path(sys.executable).parent / "quinze")


@pytest.fixture(scope="module")
def twins(tmp_path_factory) -> Path:
    where = tmp_path_factory.mktemp("twins")
    server, port = _serve(where)
    bots: list[subprocess.Popen] = []
    try:
        first = subprocess.Popen([QUINZE, "bot", "--server", f"127.0.0.1:{port}", "--create", "quinze", "--games", "1",
                                  "--option", "target=1", "--name", "twin", "--", "builtin:random"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        bots.append(first)
        assert first.stdout is not None
        table = first.stdout.readline().strip()
        bots.append(subprocess.Popen([QUINZE, "bot", "--server", f"127.0.0.1:{port}", "--table", table, "--name",
                                      "twin", "--", "builtin:greedy"],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        for p in bots:
            p.communicate(timeout=TIMEOUT)
            assert p.returncode == 0
    finally:
        for p in [*bots, server]:
            if p.poll() is None:
                p.kill()
                p.wait(timeout=TIMEOUT)
    log = where / "logs" / f"{table}.jsonl"
    assert json.loads(log.read_text().splitlines()[0])["players"] == ["twin", "twin"]
    return log


def _run(*args: str) -> subprocess.CompletedProcess:
    return forkkit.run([QUINZE, "replay", *map(str, args)], capture_output=True, text=True, timeout=60, input="")


@needs_tmux
def test_the_viewer_tells_the_two_seats_apart(twins: Path, tmp_path: Path) -> None:
    term = Tmux(tmp_path, [QUINZE, "replay", str(twins), "--step", "--at", "2"])
    try:
        shown = term.wait_for("before action 2/")
        board, rest = shown[:shown.index("hands:")], shown[shown.index("hands:"):]
        assert "twin#0" in board and "twin#1" in board  # the seat rows
        assert "  twin#0: " in rest and "  twin#1: " in rest  # the hands list
        assert "twin#0 to act" in rest or "twin#1 to act" in rest
        term.keys("1")
        seat1 = term.wait_for("view: seat 1 (twin#1)")
        assert "twin#1 (you)" in seat1
        for line in seat1.splitlines():
            assert "twin " not in line.replace("twin (", "twin#("), line  # no bare name left
        term.keys("End")
        assert "twin#" in term.wait_for("end (").split("next ─")[1]  # the result names seats too
        term.keys("q")
    finally:
        term.close()


@needs_tmux
def test_the_viewer_starts_in_the_seat_named_with_its_number(twins: Path, tmp_path: Path) -> None:
    term = Tmux(tmp_path, [QUINZE, "replay", str(twins), "--step", "--seat", "twin#1"])
    try:
        shown = term.wait_for("before action 1/")
        assert "view: seat 1 (twin#1)" in shown.splitlines()[0]
        term.keys("q")
    finally:
        term.close()


def test_seat_name_number_is_accepted_by_every_use_of_seat(twins: Path) -> None:
    text = _run(twins, "--seat", "twin#1")
    assert text.returncode == 0, text.stderr
    assert text.stdout == _run(twins, "--seat", "1").stdout
    as_json = _run(twins, "--json", "--seat", "twin#1")
    assert as_json.returncode == 0 and as_json.stdout == _run(twins, "--json", "--seat", "1").stdout
    pos = _run(twins, "--position", "--at", "3", "--seat", "twin#0")
    assert pos.returncode == 0 and pos.stdout == _run(twins, "--position", "--at", "3", "--seat", "0").stdout


@pytest.mark.parametrize(("seat", "says"), [
    ("twin", "--seat: 'twin' sits in several seats of game 1 (0 twin#0, 1 twin#1): give twin#0 or twin#1 (or the seat number)"),
    ("twin#2", "--seat: game 1 has no player 'twin#2' (seats: 0 twin#0, 1 twin#1): give a seat number, a name, "
               "or NAME#N for a name in several seats"),
    ("twin#", "has no player 'twin#'"),
    ("bob#1", "has no player 'bob#1'"),
])
def test_a_seat_that_names_no_seat_is_refused_naming_the_forms(twins: Path, seat: str, says: str) -> None:
    done = _run(twins, "--seat", seat)
    assert done.returncode == 1 and says in " ".join(done.stderr.split()), done.stderr
