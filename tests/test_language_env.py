"""Which language the environment asks for (quinze_cli.i18n.choose_language): POSIX and GNU
gettext's reading for messages. The first of LC_ALL, LC_MESSAGES, LANG that is set and not empty
is the locale; C or POSIX there means untranslated (English); LANGUAGE is a list of preferences
read only when the locale is not C. Real processes for ``quinze rules`` and ``quinze replay``."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from playkit import QUINZE, TIMEOUT

from quinze_cli.i18n import choose_language

LOG = Path(__file__).resolve().parents[1] / "examples" / "positions" / "quinze-match.jsonl"
LOCALE_VARS = ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE")


@pytest.mark.parametrize(("env", "lang"), [
    ({}, "en"),
    ({"LANG": "fr_FR.UTF-8"}, "fr"),
    ({"LANG": "en_GB.UTF-8"}, "en"),
    ({"LANG": "de_DE.UTF-8"}, "en"),  # no German catalogue
    ({"LC_ALL": "C", "LANG": "fr_FR.UTF-8"}, "en"),  # POSIX: LC_ALL overrides LANG
    ({"LC_ALL": "POSIX", "LANG": "fr_FR.UTF-8"}, "en"),
    ({"LC_ALL": "C.UTF-8", "LANG": "fr_FR.UTF-8"}, "en"),
    ({"LC_ALL": "", "LANG": "fr_FR.UTF-8"}, "fr"),  # set but empty: the next decides
    ({"LC_ALL": "en_US.UTF-8", "LANG": "fr_FR.UTF-8"}, "en"),
    ({"LC_ALL": "fr_CA.UTF-8", "LANG": "en_US.UTF-8"}, "fr"),
    ({"LC_MESSAGES": "C", "LANG": "fr_FR.UTF-8"}, "en"),  # LC_MESSAGES overrides LANG
    ({"LC_MESSAGES": "fr_FR.UTF-8", "LANG": "C"}, "fr"),
    ({"LC_ALL": "C", "LC_MESSAGES": "fr_FR.UTF-8"}, "en"),
    ({"LC_ALL": "fr_FR@euro", "LC_MESSAGES": "en_US"}, "fr"),
    ({"LANG": "de_DE.UTF-8", "LANGUAGE": "de:fr"}, "fr"),  # LANGUAGE: the first with a catalogue
    ({"LANG": "fr_FR.UTF-8", "LANGUAGE": "en"}, "en"),
    ({"LANG": "fr_FR.UTF-8", "LANGUAGE": "de"}, "en"),  # gettext: no catalogue in the list, untranslated
    ({"LANG": "fr_FR.UTF-8", "LANGUAGE": ""}, "fr"),  # empty: not read
    ({"LC_ALL": "C", "LANGUAGE": "fr"}, "en"),  # C is untranslated whatever LANGUAGE says
    ({"LANGUAGE": "fr"}, "en"),  # no locale is C
    ({"LANG": "C", "LANGUAGE": "fr_FR"}, "en"),
])
def test_the_environments_language(env: dict[str, str], lang: str) -> None:
    assert choose_language(None, env) == lang


def test_lang_flag_wins_over_the_environment() -> None:
    assert choose_language("fr", {"LC_ALL": "C"}) == "fr"
    assert choose_language("fr_FR.UTF-8", {}) == "fr"
    assert choose_language("en", {"LANG": "fr_FR.UTF-8"}) == "en"
    with pytest.raises(ValueError, match="--lang: unknown language 'C'"):
        choose_language("C", {})


def _run(*args: str, **env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if k not in LOCALE_VARS}
    r = subprocess.run([QUINZE, *args], capture_output=True, text=True, env={**clean, **env}, timeout=TIMEOUT)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_lc_all_c_over_a_french_lang_gives_english_rules_and_replay() -> None:
    assert _run("rules", "quinze", LANG="fr_FR.UTF-8", LC_ALL="C").startswith("# Le Quinze (`quinze`)\n\nThe modern")
    assert _run("rules", "quinze", LANG="fr_FR.UTF-8").startswith("# Le Quinze (`quinze`)\n\nLe jeu de défausse")
    told = _run("replay", str(LOG), "--game", "1", LANG="fr_FR.UTF-8", LC_ALL="C")
    assert "Game 1: Le Quinze (quinze)" in told and "players: 0 greedy, 1 random" in told and "Partie" not in told
    told = _run("replay", str(LOG), "--game", "1", LANG="fr_FR.UTF-8")
    assert "Partie 1 : Le Quinze (quinze)" in told
