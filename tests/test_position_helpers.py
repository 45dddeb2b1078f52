"""quinze_protocol.positions: the field checks every game's position loader shares."""

from __future__ import annotations

import pytest

from quinze_protocol.game import PositionError
from quinze_protocol.game import get_game
from quinze_protocol.positions import INT64_MAX, INT64_MIN, card, cards, check_int64, entries, need, rng_state, whole, whole_at
from quinze_protocol.rng import MASK64


def _fails(fn, *args, **kwargs) -> PositionError:
    with pytest.raises(PositionError) as info:
        fn(*args, **kwargs)
    return info.value


def test_need_names_the_missing_field():
    assert need({"a": 1}, "a") == 1
    err = _fails(need, {}, "target", where="options.")
    assert err.field == "options.target" and "missing" in str(err)


@pytest.mark.parametrize(("value", "lo", "hi", "text"), [
    ("3", 0, None, "expects a whole number"), (True, 0, None, "expects a whole number"), (2.0, 0, None, "expects a whole number"),
    (-1, 0, None, "must be at least 0, got -1"), (9, 0, 8, "must be at most 8, got 9"),
])
def test_whole_refuses_what_is_not_a_whole_number_in_range(value, lo, hi, text):
    err = _fails(whole, value, "deal", lo, hi)
    assert err.field == "deal" and text in str(err)


def test_whole_accepts_bounds_and_none_when_asked():
    assert whole(0, "x", 0, 0) == 0
    assert whole(None, "x", 0, 3, none=True) is None
    assert whole_at({"dealer": 2}, "dealer", 0, 3) == 2
    assert _fails(whole_at, {"dealer": 4}, "dealer", 0, 3, where="p.").field == "p.dealer"


def test_rng_state_is_a_generator_state_of_64_bits():
    assert rng_state({"rng": MASK64}).state == MASK64 and rng_state({"rng": 0}).state == 0
    for bad in (-1, MASK64 + 1, "7", True):
        assert _fails(rng_state, {"rng": bad}).field == "rng"
    assert _fails(rng_state, {}).field == "rng"


def test_entries_checks_the_list_and_its_length():
    assert entries([1, 2], "chips", 2) == [1, 2]
    assert "expects a list" in str(_fails(entries, {"a": 1}, "chips"))
    assert "expects 3 entries (one per seat), got 2" in str(_fails(entries, [1, 2], "chips", 3))


def test_cards_name_the_entry_at_fault_and_jokers_where_refused():
    assert len(cards(["7H", "BJ"], "hand")) == 2
    assert _fails(cards, ["7H", "ZZ"], "hands.1").field == "hands.1[1]"
    err = _fails(cards, ["7H", "RJ"], "stock", no_jokers="Le 14 is played without jokers")
    assert err.field == "stock[1]" and "without jokers" in str(err)
    assert card("10D", "discard[0]") == cards(["10D"], "discard")[0]


def test_check_int64_names_the_first_number_outside_the_signed_64_bit_range():
    check_int64({"rng": MASK64, "totals": [INT64_MIN, INT64_MAX], "flag": True, "hands": [["7H"]]})
    err = _fails(check_int64, {"totals": [0, INT64_MAX + 1]})
    assert err.field == "totals[1]" and f"got {INT64_MAX + 1}" in str(err)
    assert _fails(check_int64, {"options": {"target": INT64_MIN - 1}}).field == "options.target"
    assert _fails(check_int64, {"turn": {"rng": 10**30}}).field == "turn.rng"  # only the top-level rng is its own


@pytest.mark.parametrize(("game", "key"), [("quinze", "totals"), ("quinze-classique", "chips"), ("quatorze", "turns")])
def test_every_game_refuses_a_position_number_beyond_64_bits(game, key):
    pos = get_game(game).new({"players": 2}, 3).to_position()
    pos[key] = [10**30] * len(pos[key]) if isinstance(pos[key], list) else 10**30
    err = _fails(get_game(game).from_position, pos)
    assert err.field in (key, f"{key}[0]") and "64-bit whole number" in str(err)
