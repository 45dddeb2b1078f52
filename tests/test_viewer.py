"""The step-through viewer ``quinze replay LOG --game N --step`` in a real terminal: tmux, 80x24,
``NO_COLOR``, keys sent as a person would type them, the screen read back with capture-pane.
A private tmux socket per test; the server is killed at the end."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from quinze_protocol.replaylog import read_log
from quinze_cli.viewer.app import handle
from quinze_cli.viewer.screen import Viewer
import forkkit

QUINZE = str(Path(sys.executable).parent / "quinze")
TMUX = shutil.which("tmux")
needs_tmux = pytest.mark.skipif(TMUX is None, reason="tmux is not installed")
WAIT = 30.0


@pytest.fixture(scope="module")
def log(tmp_path_factory) -> Path:
    where = tmp_path_factory.mktemp("viewer")
    done = forkkit.run([QUINZE, "match", "builtin:greedy", "builtin:random", "--games", "1", "--seed", "3",
                           "--log-dir", "logs"], cwd=where, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return next((where / "logs").glob("match-*.jsonl"))


class Tmux:
    """A detached tmux session (80x24 unless told) running one command, on its own socket."""

    def __init__(self, tmp: Path, command: list[str], size: tuple[int, int] = (80, 24)) -> None:
        self.socket = f"quinze-viewer-{os.getpid()}-{tmp.name}"
        env = {k: v for k, v in os.environ.items() if not k.startswith("TMUX")}
        env.update(NO_COLOR="1", TERM="xterm-256color", LANG="C.UTF-8")
        self.env = env
        self.tmux("new-session", "-d", "-x", str(size[0]), "-y", str(size[1]), "-s", "view", "env", "NO_COLOR=1", *command)

    def tmux(self, *args: str) -> str:
        return subprocess.run([TMUX, "-L", self.socket, "-f", "/dev/null", *args], capture_output=True, text=True,
                              env=self.env, timeout=20).stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "view")

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "view", *keys)

    def wait_for(self, text: str) -> str:
        end = time.monotonic() + WAIT
        while time.monotonic() < end:
            shown = self.screen()
            if text in shown:
                return shown
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared; the screen:\n{self.screen()}")

    def resize(self, width: int, height: int) -> None:
        self.tmux("resize-window", "-t", "view", "-x", str(width), "-y", str(height))

    def alive(self) -> bool:
        return "view" in self.tmux("list-sessions")

    def close(self) -> None:
        self.tmux("kill-server")


@needs_tmux
def test_the_viewer_steps_through_a_game_in_an_80x24_terminal(log: Path, tmp_path: Path) -> None:
    term = Tmux(tmp_path, [QUINZE, "replay", str(log), "--game", "1", "--step"])
    try:
        first = term.wait_for("before action 1/")
        lines = first.splitlines()
        assert len(lines) <= 24 and all(len(line) <= 80 for line in lines)
        assert "view: full view" in first and "hands:" in first  # the full view shows every hand
        assert "q quit" in first and "g N" in first  # the keys are on screen
        assert "\x1b" not in first
        term.keys("Right")
        after = term.wait_for("before action 2/")
        assert "#1 " in after  # what happened: action 1 and its events
        term.keys("Left")
        term.wait_for("before action 1/")
        term.keys("g", "1", "0", "Enter")
        tenth = term.wait_for("before action 10/")
        assert "chose #" in tenth  # the legal actions of the seat to act, its choice marked
        term.keys("0")
        seat0 = term.wait_for("view: seat 0")
        assert "Your hand" in seat0 and "hands:" not in seat0
        term.keys("s")
        term.wait_for("view: seat 1")
        term.keys("f")
        term.wait_for("view: full view")
        term.keys("d")
        term.wait_for("deal 2")
        term.keys("End")
        end = term.wait_for("end (")
        assert "game over" in end
        term.keys("q")
        deadline = time.monotonic() + WAIT
        while term.alive() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not term.alive()
    finally:
        term.close()


def test_keys_move_by_action_turn_deal_and_jump(log: Path) -> None:
    logged = read_log(log.read_text()).games[0]
    view = Viewer(logged, 1, color=False)
    t = view.timeline
    assert t.last == len(logged.actions)
    handle(view, "right")
    assert view.index == 1
    handle(view, "left")
    handle(view, "left")
    assert view.index == 0
    handle(view, "t")
    turn = view.index
    assert turn > 0 and t.frames[turn].game.to_act != t.frames[turn - 1].game.to_act
    handle(view, "d")
    assert t.frames[view.index].round == t.frames[0].round + 1 or view.index == t.last
    for key in "g42\r":
        handle(view, key)
    assert view.index == 41
    for key in "g99999\r":
        handle(view, key)
    assert view.index == 41 and "no action 99999" in view.message
    handle(view, "end")
    assert view.index == t.last
    assert handle(view, "q") is False


def test_replay_step_refuses_a_pipe(log: Path) -> None:
    done = forkkit.run([QUINZE, "replay", str(log), "--game", "1", "--step"], capture_output=True, text=True,
                          input="", timeout=60)
    assert done.returncode == 2 and "needs a terminal" in done.stdout + done.stderr


@needs_tmux
def test_the_viewer_starts_at_the_deal_asked_for(log: Path, tmp_path: Path) -> None:
    from quinze_cli.logpos import moment

    played = moment(read_log(log.read_text()).games[0], deal=2)[1]
    term = Tmux(tmp_path, [QUINZE, "replay", str(log), "--game", "1", "--step", "--deal", "2"])
    try:
        first = term.wait_for(f"before action {played + 1}/")
        assert "deal 2" in first.splitlines()[0]
        term.keys("q")
    finally:
        term.close()


@pytest.mark.parametrize(("args", "code", "says"), [
    (("--deal", "99"), 1, "game 1: --deal: the game's deals are 1.."),
    (("--coup", "1"), 1, "game 1: --coup: quinze has no coups"),
    (("--at", "99999"), 1, "game 1: --at: the game has "),
    (("--at", "3", "--deal", "2"), 2, "--step starts at one of --at K, --deal D and --coup C, not several"),
])
def test_a_start_the_game_does_not_have_is_refused_before_the_screen_opens(log: Path, args, code, says) -> None:
    done = forkkit.run([QUINZE, "replay", str(log), "--game", "1", "--step", *args], capture_output=True, text=True,
                       input="", timeout=60)
    assert done.returncode == code and says in done.stderr, done.stderr


@needs_tmux
@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_a_terminal_that_cannot_write_the_suit_symbols_gets_cards_in_letters(log: Path, tmp_path: Path,
                                                                             encoding: str) -> None:
    """A colour terminal whose encoding lacks ♠♥♦♣ (an ASCII or latin-1 terminal) is drawn with
    the plain letters (7H), as with NO_COLOR: the symbols came out as '?', every suit alike."""
    term = Tmux(tmp_path, ["env", "-u", "NO_COLOR", f"PYTHONIOENCODING={encoding}", "TERM=xterm-256color",
                           QUINZE, "replay", str(log), "--game", "1", "--step", "--at", "10"])
    try:
        shown = term.wait_for("before action 10/")
        hands = shown[shown.index("hands:"):shown.index("what happened")]
        assert "?" not in hands and any(f"{r}{s}" in hands for r in "A23456789JQK" for s in "SHDC"), hands
        term.keys("q")
    finally:
        term.close()


@pytest.mark.parametrize(("encoding", "symbols"), [("utf-8", True), ("ascii", False), ("latin-1", False),
                                                   ("cp1252", False)])
def test_cards_get_symbols_only_where_the_terminal_can_write_them(encoding: str, symbols: bool) -> None:
    import io

    from rich.console import Console

    from quinze_cli.stdio import colour_wanted

    stream = io.TextIOWrapper(io.BytesIO(), encoding=encoding)
    console = Console(file=stream, force_terminal=True, color_system="standard")
    assert colour_wanted(console) is symbols
