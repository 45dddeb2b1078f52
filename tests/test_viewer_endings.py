"""The step-through viewer's last frame says how the game ended, as the text replay does
(docs/botkit.md, "The step-through viewer"): a game won, a game forfeited by an illegal action
(tests/bots/illegal.py in a real ``quinze match``), a game aborted by a server stopped mid-game
(a real ``quinze serve`` and two ``quinze bot``, SIGTERM while game 2 runs). It used to show the
forfeiting seat "to act" with its legal actions, and nothing of the forfeit or the abort."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import pytest

import forkkit
from test_bot_aborted_games import BOTS, PY, TIMEOUT, _bots, _wait_for
from test_play_aborted import _serve
from test_viewer import Tmux, needs_tmux

QUINZE = str(Path(sys.executable).parent / "quinze")


@pytest.fixture(scope="module")
def forfeited(tmp_path_factory) -> Path:
    where = tmp_path_factory.mktemp("forfeit")
    done = forkkit.run([QUINZE, "match", f"{PY} {BOTS / 'illegal.py'}", "builtin:random", "--games", "1",
                        "--seed", "2", "--log-dir", "logs"], cwd=where, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return next((where / "logs").glob("match-*.jsonl"))


@pytest.fixture(scope="module")
def aborted(tmp_path_factory) -> Path:
    where = tmp_path_factory.mktemp("aborted")
    server, port = _serve(where)
    first = second = None
    try:
        mark = where / "second-game"
        first, second, table = _bots(port, [PY, str(BOTS / "stall_second.py"), str(mark)], games=3)
        _wait_for(mark.exists, "game 2 never started")
        server.send_signal(signal.SIGTERM)
        for p in (first, second, server):
            p.communicate(timeout=TIMEOUT)
    finally:
        for p in (first, second, server):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait(timeout=TIMEOUT)
    return where / "logs" / f"{table}.jsonl"


def _last_screen(tmp_path: Path, log: Path, *args: str, end: str = "end (") -> str:
    term = Tmux(tmp_path, [QUINZE, "replay", str(log), "--step", *args])
    try:
        term.wait_for("action ")
        term.keys("End")
        shown = term.wait_for(end)
        term.keys("q")
        return shown
    finally:
        term.close()


def _after_next(screen: str, rule: str = "next ─") -> str:
    """The "next" part of the screen, without the keys."""
    return screen[screen.index(rule):screen.index("→/l")]


@needs_tmux
def test_the_last_frame_of_a_forfeited_game_names_the_winner_and_the_forfeit(forfeited: Path, tmp_path: Path) -> None:
    told = forkkit.run([QUINZE, "replay", str(forfeited)], capture_output=True, text=True, timeout=60).stdout
    assert "illegal forfeited (illegal)." in told  # what the text replay says
    screen = _last_screen(tmp_path, forfeited)
    shown = _after_next(screen)
    assert "the game stops here" in shown
    assert "Result: random wins (reason: forfeit)." in shown and "illegal forfeited (illegal)." in shown
    assert "to act" not in shown and "legal action" not in shown  # nobody to act, no legal actions
    assert "▶" not in screen  # the board marks nobody to act


@needs_tmux
def test_the_last_frame_of_a_forfeited_game_in_french(forfeited: Path, tmp_path: Path) -> None:
    shown = _after_next(_last_screen(tmp_path, forfeited, "--lang", "fr", end="fin ("), "ensuite ─")
    assert "la partie s'arrête ici" in shown and "Résultat : random gagne (raison : forfait)." in shown
    assert "illegal a perdu par forfait (coup illégal)." in shown  # the log's codes in French words


@needs_tmux
def test_the_last_frame_of_an_aborted_game_says_it_was_aborted(aborted: Path, tmp_path: Path) -> None:
    told = forkkit.run([QUINZE, "replay", str(aborted), "--game", "2"], capture_output=True, text=True, timeout=60).stdout
    assert "Aborted (shutdown)" in told
    shown = _after_next(_last_screen(tmp_path, aborted, "--game", "2"))
    assert "the game stops here" in shown and "Aborted (shutdown)" in shown
    assert "to act" not in shown


@needs_tmux
def test_a_game_played_to_its_end_still_says_game_over_and_its_result(aborted: Path, tmp_path: Path) -> None:
    shown = _after_next(_last_screen(tmp_path, aborted, "--game", "1"))
    assert "game over: " in shown and "Result: " in shown and "(reason: target)" in shown
