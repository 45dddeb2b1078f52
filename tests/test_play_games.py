"""``quinze play`` for Le 14 and Le Quinze classique without a terminal: screens rendered to plain
text from real views of seeded games, the state tracked from events matching the engine's own
view, events in words, and the typed input readers against real legal lists."""

from __future__ import annotations

import io
from collections import Counter
from typing import Any

import pytest
from rich.console import Console

from quinze_protocol.game import get_bot, get_game
from quinze_cli.play.cards_ui import CardStyle
from quinze_cli.i18n import Catalogue
from quinze_cli.play.registry import InputError, TableState, get_ui
from quinze_cli.play.screen import draw

NAMES = ["Ana", "Bob", "Cy", "Dee", "Eve", "Flo"]


class Table:
    """A real game of ``game`` seen from seat 0 through the client's GameUI, bots at every seat."""

    def __init__(self, game: str, options: dict[str, Any], seed: int, bot: str, lang: str = "en", color: bool = False):
        self.cat = Catalogue(lang)
        self.ui = get_ui(game, self.cat, CardStyle(lang, color))
        self.g = get_game(game).new(options, seed=seed)
        n = options["players"]
        self.st = TableState(table="t1", game=game, seat=0, players=NAMES[:n], options=self.g.options, number=1)
        self.ui.start(self.st)
        self.bots = [get_bot(game, bot, s) for s in range(n)]
        for e in self.g.opening_events:
            self.st.log.extend(self.ui.on_event(self.st, e.for_seat(0)))

    def request(self) -> None:
        """Seat 0 to act: give the client the view and legal list, as an action-request does."""
        self.st.view = self.g.view(0)
        self.st.legal = [a.to_data() for a in self.g.legal_actions()]
        self.st.to_act = 0
        self.ui.on_request(self.st)

    def play(self, action=None) -> None:
        """One move of the seat to act (``action`` data for seat 0, else its bot's choice)."""
        s = self.g.to_act
        if action is None:
            action = self.bots[s].choose(self.g.view(s), self.g.legal_actions())
        for e in self.g.apply(action):
            self.st.log.extend(self.ui.on_event(self.st, e.for_seat(0)))
        if s == 0:
            self.st.legal = []

    def until_mine(self, limit: int = 500) -> bool:
        """Bots play until seat 0 is to act (True) or the game is over (False)."""
        for _ in range(limit):
            if self.g.is_over:
                return False
            if self.g.to_act == 0:
                self.request()
                return True
            self.play()
        raise AssertionError("no turn for seat 0")

    def screen(self, width: int = 80) -> str:
        buf = io.StringIO()
        draw(Console(file=buf, no_color=True, width=width, force_terminal=False), self.ui, self.st, self.cat, clear=False)
        return buf.getvalue()


def fits(text: str) -> None:
    assert all(len(line) <= 80 for line in text.splitlines()), text
    assert "\x1b[" not in text and "♥" not in text and "♠" not in text


# ------------------------------------------------------------------ Le 14: screen


def test_quatorze_screen_shows_own_hand_and_nobody_elses():
    t = Table("quatorze", {"players": 3}, seed=11, bot="greedy")
    assert t.until_mine()
    text = t.screen()
    fits(text)
    view = t.g.view(0)
    hand = " ".join(view["hand"])
    assert f"Your hand: {hand}" in text  # canonical letters, sorted by value as the engine sorts
    for s in (1, 2):
        for c in t.g.view(s)["hand"]:
            assert c not in hand or c in view["hand"]  # only our own cards are listed as a hand
    assert "Le 14" in text and f"stock {view['stock']}" in text
    assert f"discard pile {len(view['discard'])}, top {view['discard'][-1]}" in text
    assert "packets 4 3 2" in text and "Bob" in text and "Cy" in text
    assert "Your turn" in text and "1) " in text
    # the legal actions in words: draws first
    assert "draw from the stock" in text and "take from the discard pile: " + view["discard"][-1] in text


def test_quatorze_tracked_state_matches_the_engine_view_all_game():
    for seed, bot, players in ((1, "greedy", 2), (2, "random", 4), (3, "random", 3)):
        t = Table("quatorze", {"players": players, "max_turns": 120}, seed=seed, bot=bot)
        turns = 0
        while t.until_mine():
            view = t.g.view(0)
            for key in ("table", "discard", "stock", "hand_sizes", "packets", "hand", "phase"):
                assert t.st.public[key] == view[key], (seed, key)
            assert t.st.to_act == 0
            t.play(t.bots[0].choose(view, t.g.legal_actions()))
            turns += 1
        assert turns > 5
        text = t.screen()
        fits(text)
        assert "· over" in text and "The game ends" in text


def test_quatorze_combinations_are_numbered_and_substitutions_named_by_them():
    t = Table("quatorze", {"players": 2}, seed=5, bot="greedy")
    for _ in range(200):
        if not t.until_mine():
            pytest.fail("no substitution offered to seat 0")
        subs = [a for a in t.st.legal if a["type"] == "substitute"]
        if subs and len(t.st.public["table"]) >= 2:
            break
        t.play()
    text = t.screen()
    for i, comb in enumerate(t.st.public["table"]):
        assert f"#{i} {' '.join(comb)}" in text
    words = [t.ui.action_text(t.st, a).plain for a in subs]
    assert all(f"of #{a['combination']}" in w for a, w in zip(subs, words))


def test_quatorze_events_in_words_reuse_the_replay_narration():
    t = Table("quatorze", {"players": 2}, seed=5, bot="greedy")
    log = list(t.st.log)
    assert log[0].startswith("Each player gets four packets") and "plays first" in log[0]
    assert not any("hand of" in line for line in log)  # our hand is on the board, nobody else's anywhere
    lines = t.ui.on_event(t.st, {"kind": "two-for-one", "seat": 1, "hand": ["4S", "5D"], "combination": 0, "card": "9C"})
    assert lines == ["Bob swaps 4S 5D for 9C of #0."]


def test_quatorze_french_screen():
    t = Table("quatorze", {"players": 2}, seed=4, bot="greedy", lang="fr")
    assert t.until_mine()
    text = t.screen()
    fits(text)
    assert "Votre main :" in text and "piocher dans le talon" in text and "paquets 4 3 2" in text


# ------------------------------------------------------------------ Le 14: input


def _quatorze_at(phase: str, seed: int = 5) -> Table:
    t = Table("quatorze", {"players": 2}, seed=seed, bot="greedy")
    for _ in range(300):
        assert t.until_mine()
        if t.g.phase == phase and (phase != "combine" or any(a["type"] == "combine" for a in t.st.legal)):
            return t
        t.play()
    raise AssertionError(f"no {phase} phase for seat 0")


def test_quatorze_typed_draws():
    t = _quatorze_at("draw")
    assert t.ui.parse(t.st, "draw") == {"type": "draw", "from": "stock"}
    assert t.ui.parse(t.st, "draw discard") == {"type": "draw", "from": "discard"}
    assert t.ui.parse(t.st, "take") == {"type": "draw", "from": "discard"}
    with pytest.raises(InputError, match="Draw first"):
        t.ui.parse(t.st, "discard " + t.st.public["hand"][0].lower())
    with pytest.raises(InputError, match="Draw from where"):
        t.ui.parse(t.st, "draw table")


def test_quatorze_typed_combination_and_discard():
    t = _quatorze_at("combine")
    comb = next(a for a in t.st.legal if a["type"] == "combine")
    typed = " ".join(c.lower() for c in reversed(comb["cards"]))
    assert t.ui.parse(t.st, "lay " + typed) == comb
    assert t.ui.parse(t.st, typed) == comb
    card = t.st.public["hand"][-1]
    assert t.ui.parse(t.st, "discard " + card.lower()) == {"type": "discard", "card": card}
    assert t.ui.parse(t.st, card.lower()) == {"type": "discard", "card": card}
    with pytest.raises(InputError, match="draw"):
        t.ui.parse(t.st, "draw")
    with pytest.raises(InputError, match="not a card"):
        t.ui.parse(t.st, "lay 9h zz")
    missing = next(c for c in ("KS", "KH", "KD", "KC", "QS", "QH") if c not in t.st.public["hand"])
    with pytest.raises(InputError, match="You do not hold"):
        t.ui.parse(t.st, "discard " + missing)


def test_quatorze_typed_combination_not_fourteen_is_explained():
    t = _quatorze_at("combine")
    hand = t.st.public["hand"]
    from quinze_protocol.cards import parse_card, rank

    for i in range(len(hand)):
        for j in range(i + 1, len(hand)):
            total = rank(parse_card(hand[i])) + rank(parse_card(hand[j]))
            if total != 14:
                with pytest.raises(InputError, match=f"add up to {total}, not 14"):
                    t.ui.parse(t.st, f"lay {hand[i]} {hand[j]}")
                return
    pytest.skip("every pair makes 14")


def test_quatorze_typed_substitution():
    t = Table("quatorze", {"players": 2}, seed=5, bot="greedy")
    for _ in range(300):
        assert t.until_mine()
        subs = [a for a in t.st.legal if a["type"] == "substitute" and a["kind"] in ("hand-for-two", "two-for-one")]
        if subs:
            break
        t.play()
    a = subs[0]
    if a["kind"] == "hand-for-two":
        typed = f"swap {a['hand']} for {' '.join(a['cards'])} in {a['combination']}"
    else:
        typed = f"swap {' '.join(a['hand'])} for {a['card']} in {a['combination']}"
    got = t.ui.parse(t.st, typed.lower())
    assert got in t.st.legal and got["kind"] == a["kind"] and got["combination"] == a["combination"]
    with pytest.raises(InputError, match="swap 9s for 6h 3d"):
        t.ui.parse(t.st, "swap 9s")


def test_quatorze_typed_exchange_between_two_combinations():
    """A newcomer typed 'swap as ad for 2s in 1', an exchange the list showed, and was told no such
    substitution is legal: an exchange between two combinations takes the same words, either way
    round, with 'in N' naming either combination; what is typed is one of the legal entries."""
    for seed in range(5, 40):
        t = Table("quatorze", {"players": 2}, seed=seed, bot="greedy")
        for _ in range(300):
            if not t.until_mine():
                break
            between = [a for a in t.st.legal if a["type"] == "substitute" and a["kind"] == "between"]
            if between:
                a = between[0]
                two, one = " ".join(a["cards"]).lower(), a["card"].lower()
                read = 0
                for typed in (f"swap {two} for {one}", f"swap {one} for {two}",
                              f"swap {two} for {one} in {a['combination']}", f"swap {one} for {two} in {a['other']}"):
                    try:
                        got = t.ui.parse(t.st, typed)
                    except InputError as err:  # several exchanges fit: the message says which
                        assert "in N" in str(err) or "'in N'" in str(err), (typed, err)
                        continue
                    assert got in t.st.legal and got["kind"] == "between"
                    assert Counter(got["cards"]) == Counter(a["cards"]) and got["card"] == a["card"]
                    assert {got["combination"], got["other"]} & {a["combination"], a["other"]}
                    read += 1
                assert read, "none of the typed forms was read"
                return
            t.play()
    pytest.fail("no exchange between two combinations came up in 35 games")


# ------------------------------------------------------------------ classique: screen


def test_classique_screen_shows_own_hidden_card_and_nobody_elses():
    t = Table("quinze-classique", {"players": 3, "cave": 20}, seed=7, bot="threshold")
    assert t.until_mine()
    text = t.screen()
    fits(text)
    v = t.g.view(0)
    own = v["hidden"][0]
    assert f"Your hidden card: {own}" in text
    for s in (1, 2):
        other = t.g.view(s)["hidden"][s]
        if other != own:
            assert other not in text.split("recent")[0]
    assert f"pot {v['pot']}" in text and f"talon {v['talon']} (black deck)" in text
    assert "(dealer)" in text and "chips" in text and "stake 1" in text
    assert "Your turn" in text and "pass" in text


def test_classique_tracked_state_matches_the_engine_view_all_match():
    keys = ("pot", "stakes", "chips", "status", "hidden", "face_up", "talon", "dealer", "deck", "coup", "phase", "awaiting")
    for seed, players in ((1, 2), (2, 4), (3, 6)):
        t = Table("quinze-classique", {"players": players, "cave": 8}, seed=seed, bot="random")
        seen = 0
        while t.until_mine():
            view = t.g.view(0)
            for key in keys:
                assert t.st.public[key] == view[key], (seed, key)
            text = t.screen()
            fits(text)
            t.play(t.bots[0].choose(view, t.g.legal_actions()))
            seen += 1
        assert seen >= 1
        assert t.st.public["chips"] == t.g.view(None)["chips"]


def _classique_at_raise() -> "Table":
    """A real classique game (seed 2, 2 players, cave 30), seat 0 at a prompt where a raise is
    legal (tests/test_play_typed_errors.py starts there too)."""
    t = Table("quinze-classique", {"players": 2, "cave": 30}, seed=2, bot="threshold")
    for _ in range(200):
        assert t.until_mine()
        if t.st.public["raise"]:
            break
        t.play({"type": "hit"} if {"type": "hit"} in t.st.legal else t.st.legal[0])
    return t


def test_classique_raise_is_listed_as_amounts_and_a_range():
    t = _classique_at_raise()
    lo, hi = t.st.public["raise"]
    raises = [a for a in t.st.legal if a["type"] == "raise"]
    assert raises[0] == {"type": "raise", "amount": lo} and all("amount" in a for a in raises)
    text = t.screen()
    assert f"raise by {lo}" in text and f"N from {lo} to {hi}" in text
    assert t.ui.parse(t.st, f"raise {hi}") == {"type": "raise", "amount": hi}
    assert t.ui.parse(t.st, "raise") == {"type": "raise", "amount": lo}
    with pytest.raises(InputError, match=f"out of range: from {lo} .* to {hi}"):
        t.ui.parse(t.st, f"raise {hi + 1}")
    with pytest.raises(InputError, match="out of range"):
        t.ui.parse(t.st, "raise 0")
    hint = t.ui.hint(t.st)
    assert hint is not None and hint["type"] in {a["type"] for a in t.st.legal}
    # the picked amount is accepted by the engine
    t.play(t.ui.parse(t.st, f"raise {lo}"))


def test_classique_typed_words_resolve_or_explain():
    t = Table("quinze-classique", {"players": 3, "cave": 20}, seed=7, bot="threshold")
    assert t.until_mine()
    assert t.g.phase == "speak"
    assert t.ui.parse(t.st, "pass") == {"type": "pass"}
    assert t.ui.parse(t.st, "Stand") == {"type": "stand"}
    assert t.ui.parse(t.st, "hit") == {"type": "hit"}
    with pytest.raises(InputError, match="cannot call now; now: pass, stand, hit"):
        t.ui.parse(t.st, "call")
    with pytest.raises(InputError, match="No raise is possible now"):
        t.ui.parse(t.st, "raise 3")
    with pytest.raises(InputError, match="'bet' is not an action"):
        t.ui.parse(t.st, "bet")
    fr = Table("quinze-classique", {"players": 3, "cave": 20}, seed=7, bot="threshold", lang="fr")
    assert fr.until_mine()
    assert fr.ui.parse(fr.st, "je passe") == {"type": "pass"}
    assert fr.ui.parse(fr.st, "carte") == {"type": "hit"}
    text = fr.screen()
    fits(text)
    assert "Votre carte cachée :" in text and "tour de parole" in text and "jetons" in text
    assert "Tirage du premier donneur" in "\n".join(fr.st.log)  # the events in words, in French (classique.ev.*)


def test_rules_texts_exist_in_french():
    for game, needle in (("quatorze", "Votre tour, en quatre temps"), ("quinze-classique", "Un coup")):
        ui = get_ui(game, Catalogue("fr"), CardStyle("fr", False))
        assert needle in ui.rules_text()
        assert ui.help_lines() and all(not line.startswith(game.split("-")[0] + ".help") for line in ui.help_lines())


def test_colour_boards_use_suit_symbols():
    for game, options, bot in (("quatorze", {"players": 2}, "greedy"), ("quinze-classique", {"players": 3, "cave": 9}, "threshold")):
        t = Table(game, options, seed=3, bot=bot, color=True)
        assert t.until_mine()
        buf = io.StringIO()
        Console(file=buf, force_terminal=True, color_system="standard", width=80).print(t.ui.board(t.st))
        out = buf.getvalue()
        assert "\x1b[" in out and any(sym in out for sym in "♠♥♦♣")


def test_spectators_see_no_hand_and_no_hidden_card():
    for game, options, bot, mine in (("quatorze", {"players": 3}, "greedy", "Your hand"),
                                     ("quinze-classique", {"players": 3, "cave": 9}, "threshold", "Your hidden card")):
        t = Table(game, options, seed=6, bot=bot)
        t.st.seat = None
        t.ui.start(t.st)
        for e in t.g.opening_events:
            t.st.log.extend(t.ui.on_event(t.st, e.for_seat(None)))
        for _ in range(12):
            if t.g.is_over:
                break
            s = t.g.to_act
            for e in t.g.apply(t.bots[s].choose(t.g.view(s), t.g.legal_actions())):
                t.st.log.extend(t.ui.on_event(t.st, e.for_seat(None)))
        text = t.screen()
        fits(text)
        assert mine not in text and "spectator" in text
        view = t.g.view(None)
        if game == "quatorze":
            assert t.st.public["hand_sizes"] == view["hand_sizes"] and t.st.public["table"] == view["table"]
        else:
            assert t.st.public["hidden"] == view["hidden"] and t.st.public["chips"] == view["chips"]


def test_quatorze_french_typed_forms_and_list_order():
    t = Table("quatorze", {"players": 2}, seed=5, bot="greedy", lang="fr")
    assert t.until_mine()
    assert t.ui.parse(t.st, "piocher") == {"type": "draw", "from": "stock"}
    assert t.ui.parse(t.st, "prendre") == {"type": "draw", "from": "discard"}
    for _ in range(300):
        if t.g.phase != "draw" and any(a["type"] == "combine" for a in t.st.legal):
            break
        t.play()
        assert t.until_mine()
    comb = next(a for a in t.st.legal if a["type"] == "combine")
    style = t.ui.style
    assert t.ui.parse(t.st, "poser " + " ".join(style.text(c).lower() for c in comb["cards"])) == comb
    order = [a["type"] if a["type"] != "substitute" else a["kind"] for a in t.st.legal]
    firsts = {k: order.index(k) for k in set(order)}
    assert firsts["combine"] < firsts["discard"]
    if "between" in firsts:
        assert max(i for i, k in enumerate(order) if k == "discard") < firsts["between"]


def test_le_14_lists_actions_that_differ_only_by_suit_once():
    from quinze_cli.play.render_quatorze import merge_by_rank

    legal = [{"type": "combine", "cards": ["2C", "QH"]}, {"type": "combine", "cards": ["2C", "QC"]},
             {"type": "combine", "cards": ["5H", "9S"]},
             {"type": "substitute", "kind": "hand-for-two", "hand": "5H", "cards": ["2C", "3D"], "combination": 1},
             {"type": "substitute", "kind": "hand-for-two", "hand": "5C", "cards": ["3D", "2H"], "combination": 1},
             {"type": "substitute", "kind": "hand-for-two", "hand": "5C", "cards": ["3D", "2H"], "combination": 2},
             {"type": "discard", "card": "KD"}, {"type": "discard", "card": "KS"}]
    assert merge_by_rank(legal) == [legal[0], legal[2], legal[3], legal[5], legal[6]]
