"""What ``quinze play`` says back to a move typed wrong, after a tester's session at ``quinze play
--local``: the text quotes the entry whole, and a card named twice is told as such.

- Le Quinze classique quoted a cut entry: ``raise 1e2`` was ``'raise 1e' is not an action
  here``, ``raise 99.5`` ``'raise 99.'``, ``foo12`` ``'foo'``, ``raise 1 2`` ``'raise 1'`` (the
  reader took the longest run of trailing digits as an amount, and quoted what was left). Now a
  raise word with an amount that is not a whole number says so, with the range, quoting the entry;
  an entry starting with no known word is quoted whole.
- Le Quinze answered ``5h 5h`` (one 5H in the hand) with ``5H: neither in your hand nor on the
  table``, and Le 14 ``lay 7d 7d`` (one 7D held) with ``You do not hold 7D``: now the card is
  named twice (or N times), and there is only one (or M): two decks (Le 14 always, Le Quinze
  from five players) hold two of each card, so two of them typed may be right.

The readers are the real ones (through each game's GameUI, on real seeded games or on hand-written
views as tests/test_play_render.py does), in English and French with strict catalogues; the
terminal tests run ``quinze play --local`` under pexpect as tests/test_play_moves_pty.py does.
"""

from __future__ import annotations

import re

import pytest
from playkit import PROMPT, spawn_local as local
from test_play_games import Table, _classique_at_raise, _quatorze_at
from test_play_moves_pty import _to_raise, words
from test_play_render import VIEW, make_state

from quinze_cli.i18n import Catalogue
from quinze_cli.play import input_classique
from quinze_cli.play.cards_ui import CardStyle
from quinze_cli.play.registry import InputError, TableState, get_ui

# ---------------------------------------------------------------- Le Quinze classique: amounts

BAD_AMOUNTS = ["raise 1e2", "raise 99.5", "raise 1 2", "raise +-5", "raise 5-", "raise ten", "raise 3 chips",
               "r2d2", "raise1e2", "relancer 3,5", "renvi ½", "Raise  1E2", "raise max 5", "raise " + "9" * 5000]
"""A raise word and an amount that is not a whole number (``raise +-5`` and 5000 digits were a
ValueError out of int(), not an InputError)."""

UNKNOWN = ["foo12", "foo 12", "bet 5", "5x", "99.5", "1e2", "pass 1e2", "check 5.5", "fold now", "raisex", "x1 2"]
"""Entries that start with no action word, or a word that takes no amount and something after it."""


def _raise_state() -> tuple[TableState, int, int]:
    """A real classique game (seed 2, 2 players), seat 0 at a prompt where a raise is legal."""
    t = _classique_at_raise()
    lo, hi = t.st.public["raise"]
    return t.st, lo, hi


@pytest.fixture(scope="module")
def at_raise() -> tuple[TableState, int, int]:
    return _raise_state()


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("typed", BAD_AMOUNTS)
def test_classique_an_amount_that_is_no_whole_number_is_quoted_whole_with_the_range(at_raise, lang, typed):
    st, lo, hi = at_raise
    cat = Catalogue(lang, strict=True)
    with pytest.raises(InputError) as err:
        input_classique.parse(cat, st, f"  {typed} \n")
    said = str(err.value)
    assert said == cat("classique.err.bad-amount", typed=typed, lo=lo, hi=hi), said
    quoted = f"« {typed} »" if lang == "fr" else repr(typed)
    assert said.startswith(quoted + " ")
    assert (f"nombre entier de jetons de {lo} à {hi}" if lang == "fr" else f"whole number of chips from {lo} to {hi}") in said


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("typed", UNKNOWN)
def test_classique_an_unknown_entry_is_quoted_whole(at_raise, lang, typed):
    st, _, _ = at_raise
    cat = Catalogue(lang, strict=True)
    with pytest.raises(InputError) as err:
        get_ui("quinze-classique", cat, CardStyle(lang, False)).parse(st, typed + " ")
    said = str(err.value)
    start = f"« {typed} » n'est pas une action ici ; maintenant : " if lang == "fr" else f"{typed!r} is not an action here; now: "
    assert said.startswith(start), said


def test_classique_amounts_still_read_and_other_texts_stay(at_raise):
    st, lo, hi = at_raise
    cat = Catalogue("en", strict=True)

    def parse(text: str):
        return input_classique.parse(cat, st, text)

    assert parse(f"raise {lo}") == parse(f"raise{lo}") == parse(f"r {lo}") == parse("raise") == {"type": "raise", "amount": lo}
    assert parse(f"Relancer +{hi}") == parse("raise max") == parse("raisemax") == {"type": "raise", "amount": hi}
    assert parse("relancer min") == {"type": "raise", "amount": lo}
    assert parse("fold") == {"type": "fold"}
    with pytest.raises(InputError, match=re.escape(f"A raise of {hi + 1} is out of range: from {lo} ")):
        parse(f"raise {hi + 1}")
    with pytest.raises(InputError, match=re.escape(f"A raise of -1 is out of range: from {lo} ")):
        parse("raise -1")
    with pytest.raises(InputError, match=r"^'fold' takes no amount\.$"):
        parse("fold 5")
    with pytest.raises(InputError, match=r"^Pick a number from 1 to \d+\.$"):
        parse("-5")


def test_classique_a_raise_when_none_is_possible_says_so_whatever_its_amount():
    t = Table("quinze-classique", {"players": 3, "cave": 20}, seed=7, bot="threshold")
    assert t.until_mine() and t.g.phase == "speak"
    for typed in ("raise 3", "raise 1e2", "raise 1 2"):
        with pytest.raises(InputError, match="^No raise is possible now; now: pass, stand, hit"):
            t.ui.parse(t.st, typed)


# ---------------------------------------------------------------- Le Quinze: a card named twice

# VIEW: hand 7H QS 3D KC KD AS, table 8C 2S (one deck: three players)


@pytest.mark.parametrize(("typed", "said"), [
    ("7h 7h", "7H is named twice, but there is only one in your hand and on the table."),
    ("7h 7h 8c", "7H is named twice, but there is only one in your hand and on the table."),
    ("7h 8c 7h", "7H is named twice, but there is only one in your hand and on the table."),
    ("8c 7h 8c", "8C is named twice, but there is only one in your hand and on the table."),  # a table card
    ("8c 8c", "8C is named twice, but there is only one in your hand and on the table."),
    ("2s 2s kc", "2S is named twice, but there is only one in your hand and on the table."),
    ("kc, kc", "KC is named twice, but there is only one in your hand and on the table."),
    ("7h 7h 7h", "7H is named 3 times, but there is only one in your hand and on the table."),
    ("as as qd", "QD: neither in your hand nor on the table."),  # a card missing outright is told first
    ("9h 9h", "9H 9H: neither in your hand nor on the table."),  # as before: no card of them is there
    ("9h 6s", "9H 6S: neither in your hand nor on the table."),
])
def test_le_quinze_a_card_named_twice_is_told_as_such(typed, said):
    cat, ui, st = make_state()
    with pytest.raises(InputError) as err:
        ui.parse(st, typed)
    assert str(err.value) == said


def test_le_quinze_a_card_named_twice_in_symbols_and_in_french():
    cat, ui, st = make_state(color=True)
    with pytest.raises(InputError, match="^7♥ is named twice, but there is only one in your hand and on the table.$"):
        ui.parse(st, "7h 8c 7h")
    cat, ui, st = make_state(lang="fr")
    with pytest.raises(InputError, match="^Vous nommez 7C deux fois, mais votre main et la table n'en ont qu'un exemplaire.$"):
        ui.parse(st, "7c 7c")  # 7 de cœur
    with pytest.raises(InputError, match="^Vous nommez 8T deux fois, mais votre main et la table n'en ont qu'un exemplaire.$"):
        ui.parse(st, "7c 8t 8t")  # 8 de trèfle, on the table
    with pytest.raises(InputError, match="^Vous nommez RT 3 fois, mais votre main et la table n'en ont qu'un exemplaire.$"):
        ui.parse(st, "rt rt rt")


def test_le_quinze_two_decks_take_a_card_twice_when_there_are_two():
    """Five players or more play with two decks (quinze_cli/rules/quinze.md "Material"): 5H in
    the hand and 5H on the table are two cards, typed twice; named more often than that is told."""
    view = dict(VIEW, hand=["5H", "5H", "KC", "AS"], table=["5H", "2S"], options={"players": 6})
    legal = [{"type": "fifteen", "hand": ["5H", "5H"], "table": ["5H"]}, {"type": "fifteen", "hand": ["KC"], "table": ["2S"]}]
    cat, ui, st = make_state(view=view, legal=legal)
    assert ui.parse(st, "5h 5h 5h") == {"type": "fifteen", "hand": ["5H", "5H"], "table": ["5H"]}
    with pytest.raises(InputError, match="^5H is named 4 times, but there are only 3 in your hand and on the table.$"):
        ui.parse(st, "5h 5h 5h 5h")
    view = dict(view, hand=["5H", "KC", "AS"])
    cat, ui, st = make_state(view=view, legal=[{"type": "fifteen", "hand": ["KC"], "table": ["2S"]}], lang="fr")
    with pytest.raises(InputError, match="^Vous nommez 5C 3 fois, mais votre main et la table n'en ont que 2 exemplaires.$"):
        ui.parse(st, "5c 5c 5c")


def test_le_quinze_a_card_placed_twice_is_told_as_such():
    view = dict(VIEW, phase="place", hand=["KS", "KD", "2H"], table=["JC"])
    legal = [{"type": "place", "cards": ["2H"]}, {"type": "place", "cards": ["KS"]}, {"type": "place", "cards": ["KS", "KD"]}]
    cat, ui, st = make_state(view=view, legal=legal)
    for typed in ("place ks ks", "ks ks", "place 2h 2h", "poser kd ks kd"):
        card = typed.split()[-1].upper()
        with pytest.raises(InputError, match=f"^{card} is named twice, but you hold only one.$"):
            ui.parse(st, typed)
    with pytest.raises(InputError, match="^You do not hold QH.$"):  # as before
        ui.parse(st, "place qh")
    with pytest.raises(InputError, match="^You do not hold QH.$"):  # the card not held at all is told
        ui.parse(st, "place ks ks qh")
    cat, ui, st = make_state(view=view, legal=legal, lang="fr")
    with pytest.raises(InputError, match="^Vous nommez RP deux fois, mais vous n'en avez qu'un exemplaire.$"):
        ui.parse(st, "poser rp rp")


# ---------------------------------------------------------------- Le 14: a card named twice


def test_le_14_a_card_named_twice_is_told_as_such():
    """Le 14 plays with two decks: a card typed twice is right when both are held."""
    t = _quatorze_at("combine")
    hand = t.st.public["hand"]
    once = [c for c in hand if hand.count(c) == 1]
    a, b = once[0], once[1]
    for typed in (f"lay {a} {a}", f"{a} {a}", f"{a} {b} {a}", f"lay {b} {a} {a}", f"{a},{a}"):
        with pytest.raises(InputError, match=f"^{a} is named twice, but you hold only one.$"):
            t.ui.parse(t.st, typed.lower())
    with pytest.raises(InputError, match=f"^{a} is named 3 times, but you hold only one.$"):
        t.ui.parse(t.st, f"{a} {a} {a}".lower())
    missing = next(c for c in ("KS", "KH", "KD", "KC", "QS", "QH") if c not in hand)
    with pytest.raises(InputError, match=f"^You do not hold {missing}.$"):  # the card not held at all is told
        t.ui.parse(t.st, f"lay {a} {a} {missing}".lower())
    with pytest.raises(InputError, match=f"^You do not hold {missing} {missing}.$"):  # as before
        t.ui.parse(t.st, f"lay {missing} {missing}".lower())
    t.st.public["hand"] = hand + [a]  # two of them: read as two cards (and summed)
    with pytest.raises(InputError, match="add up to|not among your legal moves") as err:
        t.ui.parse(t.st, f"lay {a} {a}".lower())
    assert "named" not in str(err.value)
    with pytest.raises(InputError, match=f"^{a} is named 3 times, but you hold only 2.$"):
        t.ui.parse(t.st, f"lay {a} {a} {a}".lower())
    t.st.public["hand"] = hand
    fr = get_ui("quatorze", Catalogue("fr", strict=True), CardStyle("fr", False))
    plain = CardStyle("fr", False).text(a)
    with pytest.raises(InputError, match=f"^Vous nommez {plain} deux fois, mais vous n'en avez qu'un exemplaire.$"):
        fr.parse(t.st, f"poser {plain} {plain}".lower())


# ---------------------------------------------------------------- the terminal


@pytest.mark.parametrize("lang", [None, "fr"])
def test_terminal_classique_quotes_what_was_typed(env, lang):
    fr = lang == "fr"
    child = local(env, "quinze-classique", "--opponents", "builtin:threshold", "--seed", "5", size=(24, 80), lang=lang)
    entries = _to_raise(child, fr)
    lo, hi = next(map(int, m.groups()) for _, e in entries if (m := re.search(r"(\d+) (?:to|à) (\d+)", e)))
    for typed in ("raise 1e2", "raise 99.5", "raise 1 2", "raise +-5", "relancer 5-"):
        child.sendline(typed)
        child.expect(words(f"« {typed} » n'est pas une relance : tapez un nombre entier de jetons de {lo} à {hi}" if fr else
                           f"'{typed}' is not a raise: type a whole number of chips from {lo} to {hi}"))
        child.expect(PROMPT)
    child.sendline("foo12")
    child.expect(words("« foo12 » n'est pas une action ici" if fr else "'foo12' is not an action here"))
    child.expect(PROMPT)
    child.close(force=True)


@pytest.mark.parametrize("lang", [None, "fr"])
def test_terminal_le_quinze_and_le_14_say_a_card_is_named_twice(env, lang):
    fr = lang == "fr"
    child = local(env, "quinze", "--seed", "4", size=(24, 80), lang=lang)  # hand 3C 4C 6C 7C 8S 8C 10S QS KS
    child.expect(PROMPT)
    for typed, card in (("3c 3c qs", "3C"), ("7c 8s 7c", "7C")) if not fr else (("3t 3t dp", "3T"), ("7t 8p 7t", "7T")):
        child.sendline(typed)
        child.expect(words(f"Vous nommez {card} deux fois, mais votre main et la table n'en ont qu'un exemplaire." if fr else
                           f"{card} is named twice, but there is only one in your hand and on the table."))
        child.expect(PROMPT)
    child.close(force=True)
    child = local(env, "quatorze", "--seed", "4", size=(24, 80), lang=lang)  # hand 3C 4S 5D 7D 8C, then 6C
    child.expect(PROMPT)
    child.sendline("piocher" if fr else "draw")
    child.expect(PROMPT)
    child.sendline("poser 7k 7k" if fr else "lay 7d 7d")
    child.expect(words("Vous nommez 7K deux fois, mais vous n'en avez qu'un exemplaire." if fr else
                       "7D is named twice, but you hold only one."))
    child.expect(PROMPT)
    child.close(force=True)
