"""The step-through viewer in French says everything in French and writes every card one way
(docs/botkit.md, "The step-through viewer"): "what happened" wrote the narration's canonical
codes (2C AH QH: D for diamonds) under a board in French letters (D for dame), and the "next"
part said "chose #1" in English. Every frame of a game of each of the three games, drawn in
French, in the full view and in each seat's view; and a real ``quinze replay --step --lang fr``
in tmux."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from rich.console import Console

import forkkit
from quinze_protocol.replaylog import read_log
from quinze_cli.viewer.screen import Viewer
from test_viewer import Tmux, needs_tmux

QUINZE = str(Path(sys.executable).parent / "quinze")
LOCALE = Path(__file__).resolve().parent.parent / "quinze_cli" / "locale"
WORD = re.compile(r"[A-Za-zÀ-ÿ']{3,}")
CANONICAL = re.compile(r"(?<![\w♠♥♦♣])(?:(?:10|[2-9AJQK])[SHD]|[JQK][SHDC])(?!\w)")
"""A card in the canonical spelling that French letters cannot be (♠♥♦ suits or a J, Q, K rank)."""
ENGLISH_TOO = ("chose #", "to act", "legal action", "what happened", "game over", "hands:", "view:", "before action",
               " more", "Result", "reason", "forfeited", "Aborted", "nothing yet", "log ends")
"""English of the viewer whose words French also has (chose, action ...): looked for as phrases."""


def _words(texts: dict[str, str]) -> set[str]:
    return {w.lower() for v in texts.values() for w in WORD.findall(re.sub(r"\{[^}]*\}", " ", v))}


ENGLISH = _words(json.loads((LOCALE / "en.json").read_text())) - _words(json.loads((LOCALE / "fr.json").read_text()))


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> dict[str, Path]:
    out = {}
    bots = {"quinze": ("builtin:greedy", "builtin:random"), "quatorze": ("builtin:greedy", "builtin:random"),
            "quinze-classique": ("builtin:threshold", "builtin:random")}
    for game, pair in bots.items():
        where = tmp_path_factory.mktemp(game)
        done = forkkit.run([QUINZE, "match", *pair, "--game", game, "--games", "1", "--seed", "4", "--log-dir", "logs"],
                           cwd=where, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        out[game] = next((where / "logs").glob("match-*.jsonl"))
    return out


def _frames(log: Path, lang: str, color: bool):
    logged = read_log(log.read_text()).games[0]
    players = {w.lower() for p in logged.header["players"] for w in WORD.findall(str(p))}
    for seat in (None, 0, 1):
        view = Viewer(logged, 1, seat=seat, color=color, lang=lang)
        console = Console(width=120, height=60, color_system=None, force_terminal=True)
        for index in range(view.timeline.last + 1):
            view.index = index
            with console.capture() as shot:
                console.print(view.render(console))
            screen = shot.get()
            yield players, screen, screen[screen.index("ce qui s'est passé" if lang == "fr" else "what happened"):]


@pytest.mark.parametrize("game", ["quinze", "quatorze", "quinze-classique"])
def test_no_english_word_and_no_canonical_card_is_left_on_the_french_screen(logs: dict[str, Path], game: str) -> None:
    shots = 0
    for players, screen, happened in _frames(logs[game], "fr", color=False):
        shots += 1
        left = [w for w in WORD.findall(screen) if w.lower() in ENGLISH and w.lower() not in players]
        assert not left, (left, screen)
        assert not [p for p in ENGLISH_TOO if p in screen], screen
        assert not CANONICAL.findall(happened), happened  # the narration's cards in French letters, as the board
    assert shots > 30


@pytest.mark.parametrize("game", ["quinze", "quatorze", "quinze-classique"])
def test_the_narration_writes_cards_with_the_suit_symbols_as_the_board(logs: dict[str, Path], game: str) -> None:
    symbols = 0
    for _, _, happened in _frames(logs[game], "en", color=True):
        told = "\n".join(line for line in happened.split("\n") if line.startswith("  "))
        assert not re.findall(r"(?<![\w♠♥♦♣])(?:10|[2-9AJQK])[SHDC](?!\w)", told), told
        symbols += sum(told.count(s) for s in "♠♥♦♣")
    assert symbols > 0


@needs_tmux
def test_a_french_terminal_shows_the_narration_in_french_cards(logs: dict[str, Path], tmp_path: Path) -> None:
    term = Tmux(tmp_path, [QUINZE, "replay", str(logs["quinze"]), "--step", "--lang", "fr", "--at", "10"])
    try:
        shown = term.wait_for("avant l'action 10/")
        happened = shown[shown.index("ce qui s'est passé"):shown.index("ensuite")]
        assert not CANONICAL.findall(happened), happened
        assert "choisie : n° " in shown and "chose #" not in shown
        term.keys("q")
    finally:
        term.close()
