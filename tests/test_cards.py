"""Cards: canonical spelling, any-case parsing, errors (protocol/cards.py)."""

import pytest

from quinze_protocol.cards import (
    BLACK_JOKER,
    RED_JOKER,
    CardError,
    card,
    card_text,
    cards_text,
    deck,
    is_joker,
    is_red,
    parse_card,
    parse_cards,
    rank,
    suit,
)


def test_every_card_has_one_canonical_spelling_that_reads_back():
    texts = [card_text(c) for c in range(54)]
    assert len(set(texts)) == 54
    for c, t in enumerate(texts):
        assert parse_card(t) == c
        assert t == t.upper()


def test_spelling_examples():
    assert card_text(card(7, "H")) == "7H"
    assert card_text(card(10, "S")) == "10S"
    assert card_text(card(1, "C")) == "AC"
    assert card_text(card(12, "D")) == "QD"
    assert card_text(BLACK_JOKER) == "BJ"
    assert card_text(RED_JOKER) == "RJ"
    assert cards_text([card(13, 0), 53]) == ["KS", "RJ"]


@pytest.mark.parametrize(
    "text,expected",
    [("7h", "7H"), (" 10s ", "10S"), ("ts", "10S"), ("Td", "10D"), ("1c", "AC"), ("ac", "AC"),
     ("qD", "QD"), ("rj", "RJ"), ("bJ", "BJ"), ("kH", "KH")],
)
def test_parse_any_case(text, expected):
    assert card_text(parse_card(text)) == expected


@pytest.mark.parametrize("text", ["", "7", "H7", "11H", "1J", "ZZ", "0S", "7X", "JJ", "10"])
def test_parse_errors_name_the_text(text):
    with pytest.raises(CardError) as err:
        parse_card(text)
    assert repr(text) in str(err.value)


def test_parse_rejects_non_text():
    with pytest.raises(CardError):
        parse_card(7)  # type: ignore[arg-type]


def test_parse_cards_list_and_string():
    assert parse_cards("7H, 8c 10d") == [card(7, "H"), card(8, "C"), card(10, "D")]
    assert parse_cards(["rj", "as"]) == [53, card(1, "S")]
    with pytest.raises(CardError) as err:
        parse_cards(["7H", "XX"])
    assert "'XX'" in str(err.value)


def test_rank_suit_jokers_colours():
    assert rank(card(1, "S")) == 1 and rank(card(13, "C")) == 13 and rank(52) == 0
    assert suit(card(5, "D")) == 2 and suit(53) == -1
    assert is_joker(52) and is_joker(53) and not is_joker(51)
    assert is_red(card(3, "H")) and is_red(card(3, "D")) and is_red(RED_JOKER)
    assert not is_red(card(3, "S")) and not is_red(BLACK_JOKER)
    assert len(deck()) == 54 and len(deck(jokers=False)) == 52


def test_bad_card_numbers_and_ranks():
    with pytest.raises(CardError):
        card_text(54)
    with pytest.raises(CardError):
        card(14, "S")
    with pytest.raises(CardError):
        card(3, "X")
