"""The catalogues of quinze_cli/i18n.py: plural forms by language, the ``.one``/``.other`` key
pairs, and the counts shown by the screens and narrations ("0 carte", "1 carte", "2 cartes")."""

from __future__ import annotations

import io
import json
import re
from importlib import resources

import pytest
from rich.console import Console

from quinze_cli.i18n import LANGUAGES, Catalogue, Own, YouCatalogue, plural_form
from quinze_cli.narrate import Names
from quinze_cli.narrate import classique as narrate_classique
from quinze_cli.narrate import quatorze as narrate_quatorze
from quinze_cli.play.cards_ui import CardStyle
from quinze_cli.play.registry import TableState, get_ui
from quinze_cli.play.screen import draw


def _keys(lang: str) -> dict[str, str]:
    return json.loads(resources.files("quinze_cli").joinpath("locale", f"{lang}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(("lang", "n", "form"), [
    ("en", 0, "other"), ("en", 1, "one"), ("en", 2, "other"), ("en", 21, "other"),
    ("fr", 0, "one"), ("fr", 1, "one"), ("fr", 2, "other"), ("fr", 21, "other"),
    ("en", "?", "other"), ("fr", "?", "other"), ("fr", True, "other"),
])
def test_plural_form_follows_each_language(lang, n, form):
    assert plural_form(lang, n) == form


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_counted_text_has_both_forms(lang):
    keys = _keys(lang)
    bases = {k.rsplit(".", 1)[0] for k in keys if k.endswith((".one", ".other"))}
    assert bases, "no counted texts"
    for base in bases:
        assert f"{base}.one" in keys and f"{base}.other" in keys, base
        assert base not in keys, f"{base} is both a plain and a counted text"


@pytest.mark.parametrize(("lang", "texts"), [
    ("fr", ["0 carte", "1 carte", "2 cartes"]),
    ("en", ["0 cards", "1 card", "2 cards"]),
])
def test_the_quinze_board_counts_cards_in_the_players_language(lang, texts):
    cat = Catalogue(lang, strict=True)
    ui = get_ui("quinze", cat, CardStyle(lang, False))
    st = TableState(table="t1", game="quinze", seat=0, players=["Ana", "Bob", "Cy", "Dee"],
                    options={"players": 4, "target": 100}, number=1)
    ui.start(st)
    st.view = {
        "game": "quinze", "seat": 0, "hand": ["7H", "QS"], "table": [], "discard": [], "stock": 30,
        "hand_sizes": [2, 0, 1, 2], "totals": [0, 0, 0, 0], "dealer": 3, "to_act": 1, "phase": "fifteen",
        "turn": {"fifteens": 0, "used_table": False}, "deal": 1, "turns": 3, "options": {"players": 4, "target": 100},
    }
    st.legal = []
    st.to_act = 1
    ui.on_request(st)
    buf = io.StringIO()
    draw(Console(file=buf, no_color=True, width=100, force_terminal=False), ui, st, cat, clear=False)
    lines = buf.getvalue().splitlines()
    for name, text in zip(("Bob", "Cy", "Dee"), texts):
        row = next(line for line in lines if name in line)
        assert text in row, (name, row)


@pytest.mark.parametrize(("n", "fr", "en"), [
    (0, "0 jeton", "0 chips"), (1, "1 jeton", "1 chip"), (2, "2 jetons", "2 chips"),
])
def test_chip_counts(n, fr, en):
    assert Catalogue("fr", strict=True).plural("classique.chips", n) == fr
    assert Catalogue("en", strict=True).plural("classique.chips", n) == en
    line = narrate_classique.out({"seat": 0, "chips": n}, {}, Names(["Ana", "Bob"]), Catalogue("fr", strict=True))
    assert f"({fr})" in line[0]
    for lang, text in (("fr", fr), ("en", en)):  # and about oneself, in the second person
        you = YouCatalogue(Catalogue(lang, strict=True)).plural("classique.ev.out", n, name=Own("Ana (you)"), chips=n)
        assert f"({text})" in you and "Ana" not in you, you


@pytest.mark.parametrize(("n", "fr"), [(1, "talon de 1 carte."), (2, "talon de 2 cartes.")])
def test_a_reshuffled_stock_is_counted_right(n, fr):
    line = narrate_quatorze.reshuffle({"discard": "7H", "stock": n}, {}, Names(["Ana", "Bob"]), Catalogue("fr", strict=True))
    assert line[0].endswith(fr)
    cat = Catalogue("fr", strict=True)
    ui = get_ui("quinze", cat, CardStyle("fr", False))
    st = TableState(table="t1", game="quinze", seat=0, players=["Ana", "Bob"], options={"players": 2}, number=1)
    ui.start(st)
    told = ui.on_event(st, {"kind": "reshuffle", "stock": n})
    assert any(f"({n} carte{'s' if n > 1 else ''})" in line for line in told), told


@pytest.mark.parametrize(("n", "fr"), [(0, "(0 visible)"), (1, "(1 visible)"), (14, "(14 visibles)")])
def test_the_classique_face_up_total_agrees_with_its_count(n, fr):
    assert Catalogue("fr", strict=True).plural("classique.showing", n) == fr


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_text_is_a_bare_code_word(lang):
    # A reason shown in parentheses ("freshly shuffled (dealer-out)") must be words, not the wire's code.
    codes = {k: v for k, v in _keys(lang).items() if re.fullmatch(r"[a-z]+(-[a-z]+)+|first|tours", v)}
    assert codes == {}
