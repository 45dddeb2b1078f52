"""``quinze play`` without a terminal: the Le Quinze screen rendered to plain text, the typed
input reader against hand-written views and legal lists, the language catalogues."""

from __future__ import annotations

import io
import json
from importlib import resources

import pytest
from rich.console import Console

from quinze_protocol.game import get_game
from quinze_cli.play.cards_ui import ANY_JOKER, CardStyle, parse_card_token, sort_cards
from quinze_cli.i18n import Catalogue, choose_language
from quinze_cli.play.registry import InputError, TableState, get_ui
from quinze_cli.play.screen import draw

VIEW = {
    "game": "quinze", "seat": 0, "hand": ["7H", "QS", "3D", "KC", "KD", "AS"], "table": ["8C", "2S"],
    "discard": ["5H", "10C", "9D"], "stock": 31, "hand_sizes": [6, 4, 7], "totals": [12, 30, 0],
    "dealer": 2, "to_act": 0, "phase": "fifteen", "turn": {"fifteens": 0, "used_table": False},
    "deal": 2, "turns": 5, "options": {"players": 3, "target": 100},
}


def make_state(lang: str = "en", color: bool = False, legal=None, view=VIEW, seat=0):
    cat = Catalogue(lang)
    style = CardStyle(lang, color)
    ui = get_ui("quinze", cat, style)
    st = TableState(table="t1", game="quinze", seat=seat, players=["Ana", "Bob", "Cy"],
                    options={"players": 3, "target": 100}, number=1)
    ui.start(st)
    if view is not None:
        st.view = dict(view)
        st.legal = legal if legal is not None else _legal(view)
        st.to_act = 0
        ui.on_request(st)
    return cat, ui, st


def _legal(view):
    g = get_game("quinze")
    # the legal list as the engine would give it for this hand and table
    from quinze_protocol.cards import parse_cards
    from quinze_protocol.games.quinze_legal import fifteens

    out = []
    for h, t in fifteens(parse_cards(view["hand"]), parse_cards(view["table"])):
        from quinze_protocol.cards import cards_text

        out.append({"type": "fifteen", "hand": cards_text(h), "table": cards_text(t)})
    assert g.id == "quinze"
    return out


def render(ui, st, cat) -> str:
    buf = io.StringIO()
    console = Console(file=buf, no_color=True, width=80, force_terminal=False)
    draw(console, ui, st, cat, clear=False)
    return buf.getvalue()


def test_plain_screen_shows_everything_a_seat_may_see():
    cat, ui, st = make_state()
    st.log.append("Bob made 15: 7S 8D")
    text = render(ui, st, cat)
    lines = text.splitlines()
    assert all(len(line) <= 80 for line in lines)
    assert len(lines) <= 24
    assert "Le Quinze" in text and "table t1" in text and "you: Ana (seat 0)" in text
    assert "Your hand: AS 3D 7H QS KD KC" in text  # sorted by rank, canonical letters
    assert "Table: 2S 8C" in text
    assert "discard pile 3, top 9D" in text and "stock 31" in text
    assert "Bob" in text and "4 cards" in text and "total 30" in text
    assert "Cy" in text and "7 cards" in text and "dealer" in text
    assert "Bob made 15: 7S 8D" in text
    assert "Your turn" in text and "1) make 15:" in text
    assert "♥" not in text and "\x1b[" not in text


def test_colour_screen_uses_suit_symbols():
    cat, ui, st = make_state(color=True)
    buf = io.StringIO()
    Console(file=buf, force_terminal=True, color_system="standard", width=80).print(ui.board(st))
    out = buf.getvalue()
    assert "7♥" in out and "Q♠" in out and "\x1b[" in out


def test_spectator_screen_has_no_hand():
    cat, ui, st = make_state(seat=None, view=None)
    for ev in (
        {"kind": "deal", "deal": 1, "dealer": 1, "first": 2, "hand_sizes": [8, 8, 8], "stock": 30},
        {"kind": "draw", "seat": 2, "stock": 29},
        {"kind": "fifteen", "seat": 2, "hand": ["7S"], "table": []},
    ):
        ui.on_event(st, ev)
    text = render(ui, st, cat)
    assert "Your hand" not in text and "spectator" in text
    assert "stock 29" in text and "9 cards" not in text


def test_events_in_words_and_tracked_state():
    cat, ui, st = make_state(view=None)
    lines = ui.on_event(st, {"kind": "deal", "deal": 1, "dealer": 2, "first": 0, "hand_sizes": [8, 8, 8],
                             "stock": 30, "hand": ["7H", "8C", "2S", "3S", "4S", "5S", "6S", "9S"]})
    assert lines == ["Deal 1: Cy deals, Ana (you) plays first."]
    assert ui.on_event(st, {"kind": "draw", "seat": 0, "stock": 29, "card": "KD"}) == ["You draw KD."]
    assert ui.on_event(st, {"kind": "place", "seat": 0, "cards": ["KD"], "quick": False}) == ["You place KD on the table."]
    assert ui.on_event(st, {"kind": "draw", "seat": 1, "stock": 28}) == []
    assert ui.on_event(st, {"kind": "fifteen", "seat": 1, "hand": ["7S"], "table": ["8D"]}) == [
        "Bob makes 15: 7S 8D (8D from the table)."
    ]
    assert st.public["hand_sizes"] == [8, 8, 8] and st.public["table"] == ["KD"]
    out = ui.on_event(st, {"kind": "deal-end", "deal": 1, "reason": "out", "seat": 1, "scores": [20, 0, 33],
                           "totals": [20, 0, 33], "hands": []})
    assert out[0] == "Deal 1 over: Bob goes out." and "Cy +33→33" in out[1]


def test_french_plain_letters_and_words():
    cat, ui, st = make_state(lang="fr")
    text = render(ui, st, cat)
    assert "Votre main : AP 3K 7C DP RK RT" in text
    assert "faire 15 :" in text and "vous : Ana" in text
    assert ui.on_event(st, {"kind": "fifteen", "seat": 1, "hand": ["QS"], "table": ["3D"]}) == [
        "Bob fait 15 : 3K DP (3K de la table)."
    ]


# ------------------------------------------------------------------ typed input


def test_typed_cards_prefer_the_hand_then_the_table():
    cat, ui, st = make_state()
    assert ui.parse(st, "7h 8c") == {"type": "fifteen", "hand": ["7H"], "table": ["8C"]}
    assert ui.parse(st, "KC 2s") == {"type": "fifteen", "hand": ["KC"], "table": ["2S"]}


def test_values_resolve_to_a_legal_fifteen_preferring_hand_cards():
    cat, ui, st = make_state()
    q3 = ui.parse(st, "q+3")
    assert sorted(q3["hand"]) == ["3D", "QS"] and q3["table"] == [] and q3 in st.legal
    assert ui.parse(st, "7+8") == {"type": "fifteen", "hand": ["7H"], "table": ["8C"]}
    assert ui.parse(st, "k + 2")["table"] == ["2S"]
    with pytest.raises(InputError, match="No legal fifteen 7\\+9"):
        ui.parse(st, "7+9")


def test_ambiguous_values_are_explained():
    view = dict(VIEW, hand=["7H", "8S", "3D"], table=["7C", "8C"])
    legal = [
        {"type": "fifteen", "hand": ["7H"], "table": ["8C"]},
        {"type": "fifteen", "hand": ["8S"], "table": ["7C"]},
    ]
    cat, ui, st = make_state(view=view, legal=legal)
    with pytest.raises(InputError, match="ambiguous"):
        ui.parse(st, "7+8")


def test_invalid_entries_are_explained():
    cat, ui, st = make_state()
    for text, words in [
        ("zz", "is not a card"),
        ("9h 6s", "neither in your hand nor on the table"),
        ("7h 3d", "do not add up to 15"),
        ("8c 7c", "neither in your hand"),
        ("end", "must make one first"),
        ("place kc", "must make one first"),
        ("place ks", "do not hold KS"),
        ("7h", "at least two cards"),
        ("3d", "at least two cards"),
    ]:
        with pytest.raises(InputError, match=words):
            ui.parse(st, text)


def test_place_and_end():
    view = dict(VIEW, phase="place", hand=["KS", "KD", "2H"], table=["JC"])
    legal = [{"type": "place", "cards": ["2H"]}, {"type": "place", "cards": ["KS"]},
             {"type": "place", "cards": ["KS", "KD"]}]
    cat, ui, st = make_state(view=view, legal=legal)
    assert ui.parse(st, "place kd") == {"type": "place", "cards": ["KD"]}  # same rank as a legal entry
    assert ui.parse(st, "2h") == {"type": "place", "cards": ["2H"]}
    assert ui.parse(st, "ks kd") == {"type": "place", "cards": ["KS", "KD"]}
    with pytest.raises(InputError, match="place a card"):
        ui.parse(st, "end")
    with pytest.raises(InputError, match="do not hold"):
        ui.parse(st, "place qh")
    with pytest.raises(InputError, match="cannot make any fifteen"):
        ui.parse(st, "k+2")
    with pytest.raises(InputError, match="cannot make any fifteen"):
        ui.parse(st, "ks 2h")  # adds up to 15, but no fifteen is legal now: explained as such
    with pytest.raises(InputError, match="do not add up to 15"):
        ui.parse(st, "kd jc")
    st.legal = [{"type": "end"}]
    assert ui.parse(st, "end") == {"type": "end"}


def test_hint_is_the_greedy_choice():
    cat, ui, st = make_state()
    hint = ui.hint(st)
    assert hint in st.legal
    assert len(hint["hand"]) == max(len(a["hand"]) for a in st.legal)


def test_french_card_letters():
    assert parse_card_token("7c", "fr") == parse_card_token("7h", "en")  # cœur
    assert parse_card_token("dp", "fr") == parse_card_token("qs", "en")  # dame de pique
    assert parse_card_token("10t", "fr") == parse_card_token("10c", "en")  # trèfle
    assert parse_card_token("ks", "fr") == parse_card_token("ks", "en")  # canonical still works
    assert parse_card_token("7p", "en") is None  # French letters only in French
    assert parse_card_token("jk", "en") == parse_card_token("jo", "fr") == ANY_JOKER
    assert parse_card_token("7♦", "en") == parse_card_token("7d", "en")
    assert sort_cards(["RJ", "KS", "AH", "2C"]) == sort_cards(["2C", "AH", "RJ", "KS"])


# ------------------------------------------------------------------ languages


def test_language_choice():
    assert choose_language("fr") == "fr"
    assert choose_language(None, {"LANG": "fr_FR.UTF-8"}) == "fr"
    assert choose_language(None, {"LANG": "en_GB.UTF-8"}) == "en"
    assert choose_language(None, {"LC_ALL": "C", "LANG": "fr_CA.UTF-8"}) == "en"  # POSIX: LC_ALL overrides LANG
    assert choose_language(None, {}) == "en"
    with pytest.raises(ValueError, match="--lang"):
        choose_language("xx")


def test_catalogues_have_the_same_keys_and_fields():
    import string

    data = {}
    for lang in ("en", "fr"):
        data[lang] = json.loads(resources.files("quinze_cli").joinpath("locale", f"{lang}.json").read_text("utf-8"))
    assert set(data["en"]) == set(data["fr"])
    fmt = string.Formatter()
    for key, text in data["en"].items():
        fields_en = {f for _, f, _, _ in fmt.parse(text) if f}
        fields_fr = {f for _, f, _, _ in fmt.parse(data["fr"][key]) if f}
        assert fields_en == fields_fr, key


def test_french_rules_text():
    cat, ui, st = make_state(lang="fr")
    assert "Un quinze" in ui.rules_text()


def test_eight_players_and_many_actions_fit_an_80x24_terminal():
    view = dict(VIEW, hand=["AS", "AH", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S"], table=["6H", "7H", "8H", "9H"],
                hand_sizes=[10, 8, 8, 8, 8, 8, 8, 8], totals=[0] * 8)
    cat = Catalogue("en")
    ui = get_ui("quinze", cat, CardStyle("en", False))
    st = TableState(table="t1", game="quinze", seat=0, players=[f"P{i}" for i in range(8)], options={"players": 8}, number=1)
    ui.start(st)
    st.view, st.legal, st.to_act = view, _legal(view), 0
    ui.on_request(st)
    for i in range(10):
        st.log.append(f"event {i}")
    assert len(st.legal) > 20
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, no_color=True, width=80, height=24)
    draw(console, ui, st, cat, clear=False)
    lines = ANSI_RE.sub("", buf.getvalue()).splitlines()
    assert len(lines) <= 23  # the prompt takes the last line
    text = "\n".join(lines)
    assert "P7" in text and "Your hand:" in text and "1) make 15" in text and "'list' shows all" in text
    assert "event 9" in text


def test_deal_end_reveals_the_other_hands_in_words():
    cat, ui, st = make_state(view=None)
    lines = ui.on_event(st, {"kind": "deal-end", "deal": 1, "reason": "blocked", "seat": None, "scores": [3, 20, 0],
                             "totals": [3, 20, 0], "hands": [["3S"], ["KH", "QS"], []]})
    assert lines[0] == "Bob is left with QS KH." and "blocked" in lines[1]


ANSI_RE = __import__("re").compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def test_a_joker_typed_without_colour_is_the_one_at_hand():
    view = dict(VIEW, hand=["KS", "RJ", "5H"], table=["3C"])
    legal = [{"type": "fifteen", "hand": ["KS", "RJ"], "table": ["3C"]}]
    cat, ui, st = make_state(view=view, legal=legal)
    assert ui.parse(st, "ks jk 3c") == {"type": "fifteen", "hand": ["KS", "RJ"], "table": ["3C"]}
    assert ui.parse(st, "k+3+jk")["hand"] == ["KS", "RJ"]


def test_names_are_never_read_as_markup():
    cat, ui, st = make_state()
    st.players = ["[bold]Ana[/]", "Bob [/x]", "Cy"]
    text = render(ui, st, cat)
    assert "[bold]Ana[/]" in text and "Bob [/x]" in text


def test_one_action_is_not_a_range_from_1_to_1():
    """'Pick a number from 1 to 1' reads oddly: with one action the message says so."""
    from quinze_cli.play import input_classique


    for lang, said in (("en", "There is one action: type 1"), ("fr", "Il n'y a qu'un coup : tapez 1")):
        state = TableState(table="t1", game="quinze-classique", seat=0, players=["Ana", "Bob"],
                           legal=[{"type": "check"}])
        with pytest.raises(InputError, match=said):
            input_classique.parse(Catalogue(lang, strict=True), state, "3")
        state.legal = [{"type": "check"}, {"type": "fold"}]
        with pytest.raises(InputError, match="1 .. 2|1 to 2|1 à 2"):
            input_classique.parse(Catalogue(lang, strict=True), state, "3")


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_classique_board_adds_up_what_it_shows_and_one_chip_is_singular(lang):
    """'2S + 7S = 7 showing' read as 2 + 7 = 7: a known hidden card gives the whole total, an
    unknown one says what is showing; calling 1 is '1 chip'."""
    cat, style = Catalogue(lang, strict=True), CardStyle(lang, False)
    ui = get_ui("quinze-classique", cat, style)
    st = TableState(table="t1", game="quinze-classique", seat=0, players=["Ana", "Bob"], options={"players": 2}, number=1)
    ui.start(st)
    p = st.public
    p.update(coup=1, phase="raise", stakes=[1, 2], status=["hit", "hit"], hidden=["2S", None],
             face_up=[["7S"], ["8D"]])
    buf = io.StringIO()
    Console(file=buf, no_color=True, width=80, force_terminal=False).print(ui.board(st))
    text = buf.getvalue()
    two, seven = style.text("2S"), style.text("7S")
    assert f"{two} + {seven} = 9" in text
    assert ("(8 showing)" if lang == "en" else "(8 visibles)") in text and "= 8" not in text
    call = ui.action_text(st, {"type": "call"}).plain
    assert call == ("call (1 chip)" if lang == "en" else "je tiens (1 jeton)")


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_classique_header_says_how_far_the_match_is(lang):
    """A newcomer never knew how many coups were left: the header gives the round of the deal out
    of the ``tours`` the match lasts (quinze_cli/rules/quinze-classique.md "End of the match"), and
    says when it is the last one."""
    cat, style = Catalogue(lang, strict=True), CardStyle(lang, False)
    ui = get_ui("quinze-classique", cat, style)
    st = TableState(table="t1", game="quinze-classique", seat=0, players=["Ana", "Bob"], options={"players": 2}, number=1)
    ui.start(st)

    def header(**picture) -> str:
        st.public.update(picture)
        buf = io.StringIO()
        Console(file=buf, no_color=True, width=120, force_terminal=False).print(ui.board(st))
        return buf.getvalue().splitlines()[0]

    first = header(coup=1, rounds=0, tours=4, phase="speak")
    assert ("round 1 of 4 · " if lang == "en" else "tour 1 sur 4 · ") in first and "last" not in first
    last = header(coup=7, rounds=3, tours=4)
    assert ("round 4 of 4 (last round)" if lang == "en" else "tour 4 sur 4 (dernier tour)") in last
    assert ("of 4" if lang == "en" else "sur 4") not in header(coup=0, rounds=0, tours=4)  # before the first deal


@pytest.mark.parametrize("word", ["hit", "draw", "card", "carte", "tirer"])
def test_classique_asks_for_a_card_in_any_of_its_words(word):
    """A newcomer typed 'card' (the list says '(card)') and was refused: every word for a hit is read."""
    from quinze_cli.play import input_classique

    state = TableState(table="t1", game="quinze-classique", seat=0, players=["Ana", "Bob"],
                       legal=[{"type": "stand"}, {"type": "hit"}])
    assert input_classique.parse(Catalogue("en", strict=True), state, word) == {"type": "hit"}


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_two_seats_of_one_name_are_told_apart_by_their_seat(lang):
    """A newcomer saw 'Game 1 starts: Eve, Eve, greedy_bot.' and 'Waiting for Eve…': a name two
    seats share (without case) is shown with its seat; other names as they are."""
    from quinze_cli.play.table import distinct_names

    cat = Catalogue(lang, strict=True)
    seat = "seat" if lang == "en" else "place"
    assert distinct_names(["Eve", "eve", "greedy_bot"], cat) == [f"Eve ({seat} 0)", f"eve ({seat} 1)", "greedy_bot"]
    assert distinct_names(["Ana", "Bob"], cat) == ["Ana", "Bob"]
