"""The step-through viewer fits the terminal it runs in, whatever its size and the game's seats
(docs/botkit.md, "The step-through viewer"): a real ``quinze replay --step`` in tmux, the screen
read back with capture-pane, and resized under it (SIGWINCH)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from rich.console import Console

from quinze_protocol.replaylog import read_log
from quinze_cli.viewer.screen import MIN_SIZE, Viewer
import forkkit
from test_viewer import Tmux, needs_tmux

QUINZE = str(Path(sys.executable).parent / "quinze")


def _match(where: Path, *args: str, bots: tuple[str, str] = ("builtin:greedy", "builtin:random")) -> Path:
    done = forkkit.run([QUINZE, "match", *bots, "--games", "1", "--seed", "5",
                        "--log-dir", "logs", *args], cwd=where, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return next((where / "logs").glob("match-*.jsonl"))


@pytest.fixture(scope="module")
def eight(tmp_path_factory) -> Path:
    """A Le Quinze game of eight seats."""
    return _match(tmp_path_factory.mktemp("eight"), "--game", "quinze", "--seats", "8")


@pytest.fixture(scope="module")
def logs(tmp_path_factory, eight: Path) -> dict[str, Path]:
    out = {"quinze-8": eight}
    for game in ("quinze", "quatorze", "quinze-classique"):
        bots = ("builtin:threshold", "builtin:random") if game == "quinze-classique" else ("builtin:greedy", "builtin:random")
        out[game] = _match(tmp_path_factory.mktemp(game), "--game", game, bots=bots)
    return out


def _check(screen: str, width: int, height: int) -> list[str]:
    lines = screen.rstrip("\n").split("\n")
    assert len(lines) <= height and all(len(line) <= width for line in lines), screen
    assert "action " in lines[0] and "/" in lines[0], screen  # the header first
    return lines


@needs_tmux
@pytest.mark.parametrize(("width", "height"), [(80, 24), (50, 15), (40, 12)])
def test_an_eight_seat_game_keeps_its_header_and_cuts_its_lists(eight: Path, tmp_path: Path, width: int,
                                                                height: int) -> None:
    term = Tmux(tmp_path, [QUINZE, "replay", str(eight), "--step", "--at", "20"], size=(width, height))
    try:
        lines = _check(term.wait_for("action 20/"), width, height)
        shown = "\n".join(lines)
        assert "▶" in shown and "more" in shown  # the seat to act kept, the rest said cut
        assert any(line.startswith(">") for line in lines)  # the chosen action in sight
        if height >= 24:
            assert "hands:" in shown and "Deal 1" in shown and "Table:" in shown
        term.keys("Right")
        _check(term.wait_for("action 21/"), width, height)
        term.keys("0")
        lines = _check(term.wait_for("seat 0"), width, height)
        assert any("Your hand" in line for line in lines)
        term.keys("q")
    finally:
        term.close()


@needs_tmux
def test_the_viewer_redraws_when_the_terminal_is_resized(eight: Path, tmp_path: Path) -> None:
    term = Tmux(tmp_path, [QUINZE, "replay", str(eight), "--step", "--at", "20"])
    try:
        big = _check(term.wait_for("action 20/"), 80, 24)
        assert "hands:" in "\n".join(big)
        term.resize(40, 12)
        term.wait_for("→← step")  # no key pressed: the short key line of a small terminal
        _check(term.screen(), 40, 12)
        term.resize(30, 10)
        term.wait_for("too small")
        term.resize(80, 24)
        term.wait_for("next seat's view")
        _check(term.screen(), 80, 24)
        term.keys("q")
    finally:
        term.close()


@pytest.mark.parametrize(("width", "height"), [(80, 24), (60, 18), (50, 15), MIN_SIZE, (120, 40)])
@pytest.mark.parametrize("game", ["quinze-8", "quinze", "quatorze", "quinze-classique"])
def test_every_frame_fits_with_its_header_first(logs: dict[str, Path], game: str, width: int, height: int) -> None:
    logged = read_log(logs[game].read_text()).games[0]
    for seat in (None, 0):
        view = Viewer(logged, 1, seat=seat, color=False)
        console = Console(width=width, height=height, color_system=None, force_terminal=True)
        for index in range(0, view.timeline.last + 1, 7):
            view.index = index
            with console.capture() as shot:
                console.print(view.render(console))
            lines = shot.get().rstrip("\n").split("\n")
            assert len(lines) <= height, (index, shot.get())
            assert "action " in lines[0] or "end (" in lines[0]
            if index < view.timeline.last and (seat is None or view.timeline.frames[index].game.to_act == seat):
                assert any(line.startswith(">") for line in lines), (index, shot.get())


def test_below_the_smallest_size_it_says_the_terminal_is_too_small(eight: Path) -> None:
    view = Viewer(read_log(eight.read_text()).games[0], 1, color=False)
    console = Console(width=MIN_SIZE[0] - 1, height=MIN_SIZE[1], color_system=None, force_terminal=True)
    with console.capture() as shot:
        console.print(view.render(console))
    assert "terminal too small (39x12)" in shot.get() and "40x12" in shot.get()
