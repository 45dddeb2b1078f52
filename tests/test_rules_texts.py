"""The shipped rules texts (``quinze rules``, quinze_cli/rules/ and its French translation) state
every table option with its default, every safety limit and every decision, in both languages;
and every reference to the rules in code and docs points to a file the repository has."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from quinze_protocol.game import game_ids, get_game
from quinze_cli.app import app

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "quinze_cli" / "rules"
GAMES = ["quinze", "quatorze", "quinze-classique"]
SAFETY = {"quinze": ["max_turns"], "quatorze": ["max_turns", "max_substitutions"], "quinze-classique": ["max_coups"]}
DECISIONS = {
    # phrases of the decisions (English text), one per decision a reader must find
    "quinze": ["at least one card from your hand", "at\n   the next draw", "ends at once as **blocked**",
               "you must make at least one", "one such placement per turn", "`max_turns` turns",
               "nobody gets −50", "seeded generator"],
    "quatorze": ["read as the choice of pile", "you must not\n     draw, and you must then lay the whole hand",
                 "the discard pile except its top card is shuffled into a new stock", "none is allowed",
                 "No combination may be\n   laid after a substitution", "`max_substitutions` per turn",
                 "the turn ends there, with no substitution", "fewest cards left (hand + packets) wins"],
    "quinze-classique": ["the seat that drew the lowest card deals first", "it\n  must not always fall on the same seat",
                         "After a coup that was played", "re-deals only", "players still drawing must stand",
                         "no side pots", "**primauté**", "default 4", "`max_coups` coups", "its result says so",
                         "chips won or lost (final chips minus\n  cave)", "odd chips one each by primauté"],
}


def text(game: str, lang: str = "en") -> str:
    path = RULES / f"{game}.md" if lang == "en" else RULES / lang / f"{game}.md"
    return path.read_text(encoding="utf-8")


def test_every_registered_game_has_both_texts() -> None:
    assert set(game_ids()) == set(GAMES)
    for g in GAMES:
        assert text(g) and text(g, "fr")


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_options_and_their_defaults_are_stated(game: str, lang: str) -> None:
    body = text(game, lang)
    for opt in get_game(game).option_specs:
        assert f"`{opt.name}`" in body, opt.name
        if isinstance(opt.default, bool) or opt.default in ("", None):
            continue
        default = str(opt.default)
        near = body[body.index(f"`{opt.name}`"):]
        assert re.search(rf"`{opt.name}`[^.;]*?\b{default}\b", body, re.S) or default in near[:200], (opt.name, default)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_safety_limits_are_stated(game: str, lang: str) -> None:
    body = text(game, lang)
    word = "Safety" if lang == "en" else "Sécurité"
    for limit in SAFETY[game]:
        assert f"`{limit}`" in body
    assert word in body


@pytest.mark.parametrize("game", GAMES)
def test_decisions_are_stated_and_marked_in_both_languages(game: str) -> None:
    en, fr = text(game), text(game, "fr")
    for phrase in DECISIONS[game]:
        assert phrase in en, phrase
    assert en.count("[decision") == fr.count("[choix") >= len(DECISIONS[game])


@pytest.mark.parametrize("game", GAMES)
def test_quinze_rules_prints_the_text(game: str) -> None:
    out = CliRunner().invoke(app, ["rules", game])
    assert out.exit_code == 0 and "[decision" in out.output


def _repo_files():
    for top in ("protocol", "server", "quinze_cli", "docs", "examples"):
        yield from (p for p in (ROOT / top).rglob("*") if p.suffix in (".py", ".md", ".json") and "__pycache__" not in p.parts)
    yield ROOT / "README.md"
    yield ROOT / "PROTOCOL.md"


def test_no_reference_to_a_rules_file_outside_the_repository() -> None:
    offenders = [str(p.relative_to(ROOT)) for p in _repo_files() if "RULES.md" in p.read_text(encoding="utf-8")]
    assert offenders == []


def test_every_rules_citation_names_a_shipped_text_and_its_section() -> None:
    cite = re.compile(r'quinze_cli/rules/([a-z-]+\.md)(?: "([^"]+)")?')
    seen = 0
    for p in _repo_files():
        for name, section in cite.findall(p.read_text(encoding="utf-8")):
            path = RULES / name
            assert path.exists(), (p, name)
            seen += 1
            if section:
                body = path.read_text(encoding="utf-8")
                assert section in body, (p, name, section)
    assert seen > 20
