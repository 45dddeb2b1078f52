"""``quinze replay --lang``: a logged game told in English or French, every event of the three
games worded from the language's catalogue (never the plain ``kind: field value`` fallback of an
unknown event), the viewer of ``--step`` in the same language, and the language taken from the
environment as ``quinze play`` and ``quinze rules`` take it. Real ``quinze match`` logs, the real
``quinze replay`` process (forked from the suite's zygote: tests/forkkit.py)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from rich.console import Console

from quinze_protocol.replaylog import read_log
from quinze_cli.i18n import LANGUAGES
from quinze_cli.narrate import Names, narrate_event, result_lines
from quinze_cli.viewer.app import handle
from quinze_cli.viewer.screen import KEYS, Viewer
import forkkit

QUINZE = str(Path(sys.executable).parent / "quinze")
GAMES = ("quinze", "quatorze", "quinze-classique")
ENGLISH_ONLY = ("seen by", "Result:", "players:", "draws", "makes fifteen", "what happened", "legal action", "view:")


def quinze(*args: str, cwd: Path, env: dict[str, str] | None = None) -> forkkit.subprocess.CompletedProcess:
    return forkkit.run([QUINZE, *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                       env={**os.environ, "LANG": "C.UTF-8", "LC_ALL": "", **(env or {})})


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> dict[str, Path]:
    """One log per game: 3 seeded games between the built-in bots (a deal or coup enough for
    every kind of event the games log in ordinary play)."""
    where = tmp_path_factory.mktemp("replay-lang")
    found = {}
    for game in GAMES:
        first = "builtin:threshold" if game == "quinze-classique" else "builtin:greedy"
        done = quinze("match", first, "builtin:random", "--game", game, "--games", "3", "--seed", "5",
                      "--log-dir", game, cwd=where)
        assert done.returncode == 0, done.stderr
        found[game] = next((where / game).glob("match-*.jsonl"))
    return found


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("seat", [None, 0, 1])
def test_every_logged_event_is_worded_from_the_catalogue(logs, game, lang, seat) -> None:
    """No event of these games falls back to the plain form, in either language and either
    viewpoint (a strict catalogue lacking a text would raise MissingText, not fall back)."""
    kinds = set()
    for logged in read_log(logs[game].read_text()).games:
        who = Names(logged.header["players"], seat, lang)
        for rec in logged.records:
            if rec.get("record") != "event":
                continue
            kind = rec["event"]["kind"]
            _, lines = narrate_event(game, rec["event"], who, seat, lang)
            kinds.add(kind)
            assert lines and not lines[0].startswith(f"{kind}:"), (kind, lines)
        assert result_lines(logged.result, who, lang)
    assert len(kinds) >= 4, kinds


@pytest.mark.parametrize("game", GAMES)
def test_replay_tells_the_game_in_french_with_the_same_numbers(logs, game, tmp_path) -> None:
    en = quinze("replay", str(logs[game]), "--game", "1", "--lang", "en", cwd=tmp_path)
    fr = quinze("replay", str(logs[game]), "--game", "1", "--lang", "fr", cwd=tmp_path)
    assert en.returncode == fr.returncode == 0, en.stderr + fr.stderr
    assert fr.stdout.splitlines()[1].startswith("joueurs : 0 ") and ", 1 random" in fr.stdout.splitlines()[1]
    assert "Résultat : " in fr.stdout and "Result: " in en.stdout
    for word in ENGLISH_ONLY:
        assert word not in fr.stdout, word
    # the same game: the action numbers and the cards named line by line are the same
    assert len(fr.stdout.splitlines()) == len(en.stdout.splitlines())
    numbered = [[line[:6] for line in out.stdout.splitlines() if line.startswith("#")] for out in (en, fr)]
    assert numbered[0] == numbered[1] and len(numbered[0]) > 10
    # the whole table's telling and one seat's differ in French as in English
    seat = quinze("replay", str(logs[game]), "--game", "1", "--lang", "fr", "--seat", "1", cwd=tmp_path)
    assert seat.returncode == 0 and "(vous)" in seat.stdout and seat.stdout != fr.stdout


def test_the_language_comes_from_the_environment_as_for_play(logs, tmp_path) -> None:
    log = str(logs["quinze"])
    french = quinze("replay", log, "--game", "1", cwd=tmp_path, env={"LANG": "fr_FR.UTF-8"})
    assert french.returncode == 0 and "Partie 1 : Le Quinze" in french.stdout
    forced = quinze("replay", log, "--game", "1", "--lang", "en", cwd=tmp_path, env={"LANG": "fr_FR.UTF-8"})
    assert forced.returncode == 0 and forced.stdout.startswith("─") and "Game 1: Le Quinze" in forced.stdout
    plain = quinze("replay", log, "--game", "1", cwd=tmp_path)
    assert plain.stdout == forced.stdout


def test_an_unknown_language_is_a_usage_error_before_the_log_is_read(tmp_path) -> None:
    done = quinze("replay", str(tmp_path / "missing.jsonl"), "--lang", "de", cwd=tmp_path)
    assert done.returncode == 2
    assert "--lang: unknown language 'de' (known: en, fr)" in done.stderr and "no such file" not in done.stderr


def test_verify_and_json_are_the_same_in_every_language(logs, tmp_path) -> None:
    """--verify and --json are for programs: their output does not change with the language."""
    log = str(logs["quatorze"])
    for args in (("--verify",), ("--json", "--game", "2")):
        outs = {lang: quinze("replay", log, *args, "--lang", lang, cwd=tmp_path) for lang in LANGUAGES}
        assert all(o.returncode == 0 for o in outs.values())
        assert outs["fr"].stdout == outs["en"].stdout


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_viewer_speaks_the_language_and_its_key_lines_fit_80_columns(logs, lang) -> None:
    logged = read_log(logs["quinze"].read_text()).games[0]
    view = Viewer(logged, 1, color=False, lang=lang)
    console = Console(width=80, height=24, color_system=None, record=True, file=open(os.devnull, "w"))
    for keys in ("", "right", "0", "s", "f", "end"):
        if keys:
            handle(view, keys)
        console.print(view.render(console))
    shown = console.export_text()
    assert all(len(view.cat(k)) <= 80 for k in KEYS)
    if lang == "fr":
        assert "avant l'action 1/" in shown and "vue : toute la table" in shown and "vue : place 0" in shown
        assert "partie finie : victoire de" in shown and "ce qui s'est passé" in shown
        for word in ("before action", "what happened", "full view", "game over", "legal action"):
            assert word not in shown, word
    else:
        assert "before action 1/" in shown and "view: full view" in shown and "game over:" in shown
    handle(view, "9")
    assert view.message == {"en": "no seat 9: seats are 0..1", "fr": "pas de place 9 : les places vont de 0 à 1"}[lang]
