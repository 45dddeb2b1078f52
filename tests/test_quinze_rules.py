"""Le Quinze rules (quinze_cli/rules/quinze.md), one behaviour per test, on positions built by hand."""

from __future__ import annotations

import json

import pytest

from quinze_protocol.cards import parse_cards
from quinze_protocol.game import ActionError, IllegalAction, PositionError, get_bot, get_game
from quinze_protocol.games.quinze_actions import END, Fifteen, Place
from quinze_protocol.games.quinze_legal import fifteens, is_fifteen
from quinze_helpers import Quinze, brute_fifteens, load, position, signature


def F(hand: str, table: str = "") -> Fifteen:
    return Fifteen(parse_cards(hand), parse_cards(table))


def P(cards: str) -> Place:
    return Place(parse_cards(cards))


def refused(g, action, code):
    before = g.to_position()
    with pytest.raises(IllegalAction) as err:
        g.apply(action)
    assert err.value.code == code
    assert err.value.reason
    assert g.to_position() == before
    return err.value


# ---------------------------------------------------------------- "A fifteen": the examples

EXAMPLES = ["7S 8S", "9S 6S", "10S 5S", "JS 4S", "QS 3S", "KS 2S", "AS AH", "10S 3S 2S",
            "6S 4S 3S AS AH", "KS AS AH", "KS 3S BJ", "QS AS AH 2S BJ", "JS 6S BJ RJ",
            "AS AH 2S BJ RJ"]


@pytest.mark.parametrize("cards", EXAMPLES)
def test_every_rules_example_is_a_fifteen_from_the_hand(cards):
    g = load([cards + " 9D", "4D 5D"])
    action = F(cards)
    assert action in g.legal_actions()
    events = g.apply(action)
    assert events[0].kind == "fifteen"
    assert g.hands[0] == parse_cards("9D")
    assert g.phase == "more"


@pytest.mark.parametrize("cards", EXAMPLES)
def test_every_rules_example_with_the_first_card_from_hand_and_the_rest_from_the_table(cards):
    first, *rest = cards.split()
    g = load([first + " 9D", "4D 5D"], table=" ".join(rest))
    action = F(first, " ".join(rest))
    assert action in g.legal_actions()
    g.apply(action)
    assert g.table == [] and g.fifteens_made == 1 and g.used_table


def test_near_miss_one_card():
    g = load(["7S 8S 9D", "4D 5D"])
    err = refused(g, F("9D"), "too-few-cards")
    assert "two" in err.reason


def test_near_miss_table_cards_only():
    g = load(["7S 9D", "4D 5D"], table="7H 8H")
    refused(g, F("", "7H 8H"), "no-hand-card")
    assert all(a.hand for a in g.legal_actions() if a[0] == "fifteen")


def test_near_miss_sum_of_sixteen():
    g = load(["9S 7S 8D", "4D 5D"])
    err = refused(g, F("9S 7S"), "not-fifteen")
    assert "16" in err.reason


def test_near_miss_an_ace_counted_twice():
    g = load(["AS KD 9D", "4D 5D"], table="2C")
    # one ace cannot be both 1 and 14: naming it twice is not holding it twice
    refused(g, F("AS AS"), "card-not-held")
    # K + A(1) + 2 = 16 and K + A(14) + 2 = 29: no fifteen
    refused(g, F("AS KD", "2C"), "not-fifteen")
    assert not is_fifteen(parse_cards("AS"), [])  # one ace alone is never a fifteen


def test_near_miss_a_card_not_held_or_not_on_the_table():
    g = load(["7S 9D", "4D 5D"], table="8H")
    refused(g, F("7H", "8H"), "card-not-held")
    refused(g, F("7S", "8C"), "card-not-on-table")


# ---------------------------------------------------------------- equivalent fifteens

def test_equivalent_fifteens_are_listed_once_and_any_equivalent_is_accepted():
    g = load(["7S 7H 2C BJ RJ", "4D 5D"], table="8C 8D 6H KC")
    legal = [a for a in g.legal_actions() if a[0] == "fifteen"]
    sigs = [signature(a.hand, a.table) for a in legal]
    assert len(sigs) == len(set(sigs))
    assert set(sigs) == brute_fifteens(g.hands[0], g.table)
    assert sum(1 for s in sigs if s == ((7,), (8,))) == 1
    # the listed one names the lowest-numbered cards, 7S and 8D; 7H with 8C is the same
    # fifteen and is accepted, moving exactly the cards it names
    assert F("7S", "8D") in legal and F("7H", "8C") not in legal
    g.apply(F("7H", "8C"))
    assert parse_cards("7S")[0] in g.hands[0] and parse_cards("8D")[0] in g.table


def test_two_jokers_are_interchangeable():
    g = load(["KS 3S BJ RJ 9D", "4D 5D"])
    jokers = [a for a in g.legal_actions() if signature(a.hand, a.table) == ((0, 3, 13), ())]
    assert len(jokers) == 1
    g.apply(F("KS 3S RJ"))
    assert g.hands[0] == parse_cards("9D BJ")


def test_legal_matches_brute_force_on_two_decks():
    g = load(["AS AS AH 2S 2S BJ 3D", "4D", "5D", "6D", "7D"], table="AD KC BJ RJ 3C 10H 10H")
    legal = [a for a in g.legal_actions() if a[0] == "fifteen"]
    sigs = [signature(a.hand, a.table) for a in legal]
    assert len(sigs) == len(set(sigs))
    assert set(sigs) == brute_fifteens(g.hands[0], g.table)


# ---------------------------------------------------------------- a turn

def test_must_make_a_fifteen_when_one_exists():
    g = load(["7S 8S KD", "4D 5D"])
    assert g.phase == "fifteen"
    assert all(a[0] == "fifteen" for a in g.legal_actions())
    refused(g, P("KD"), "must-make-fifteen")
    refused(g, END, "must-make-fifteen")


def test_further_fifteens_are_optional_then_end():
    g = load(["7S 8S 6D 9D KD", "4D 5D"])
    g.apply(F("7S 8S"))
    assert g.view(0)["turn"] == {"fifteens": 1, "used_table": False,
                                 "actions": [{"type": "fifteen", "hand": ["8S", "7S"], "table": []}]}
    assert Quinze.from_position(g.to_position()).turn_actions == [F("7S 8S")]
    legal = g.legal_actions()
    assert END in legal and F("6D 9D") in legal
    events = g.apply(END)
    assert [e.kind for e in events][:2] == ["end-turn", "draw"]
    assert g.to_act == 1


def test_place_when_no_fifteen_ends_the_turn():
    g = load(["KS QD", "4D 5D"])
    assert g.phase == "place"
    assert set(g.legal_actions()) == {P("KS"), P("QD")}
    refused(g, END, "cannot-end")
    events = g.apply(P("QD"))
    assert events[0].kind == "place" and events[1].kind == "draw"
    assert g.table == parse_cards("QD") and g.to_act == 1


def test_face_pair_only_with_three_cards_held():
    g = load(["JS JH 2C", "4D 5D"])
    assert P("JS JH") in g.legal_actions()
    g2 = load(["JS JH", "4D 5D"])
    assert P("JS JH") not in g2.legal_actions()
    refused(g2, P("JS JH"), "pair-needs-three")
    refused(g, P("JS 2C"), "cannot-place")
    g.apply(P("JH JS"))
    assert g.hands[0] == parse_cards("2C")


def test_placements_of_the_same_rank_are_listed_once():
    g = load(["KS KH QD", "4D 5D"])
    places = [a for a in g.legal_actions() if a == P("KS") or a == P("KH")]
    assert places == [P("KS")]
    g.apply(P("KH"))  # the equivalent one is accepted
    assert g.table == parse_cards("KH")


def test_after_a_fifteen_no_placement_without_quick_place():
    g = load(["7S 9D KD", "4D 5D"], table="8C")
    g.apply(F("7S", "8C"))
    assert all(a[0] != "place" for a in g.legal_actions())
    refused(g, P("KD"), "cannot-place")


def test_quick_place_after_a_fifteen_using_a_table_card():
    g = load(["7S 9D KD", "4D 5D"], table="8C", options={"quick_place": True})
    g.apply(F("7S", "8C"))
    assert P("KD") in g.legal_actions() and P("9D") in g.legal_actions()
    g.apply(P("KD"))
    assert g.phase == "placed" and g.legal_actions() == [END]
    refused(g, P("9D"), "cannot-place")
    refused(g, F("9D", "KD"), "cannot-fifteen")
    g.apply(END)
    assert g.to_act == 1 and parse_cards("KD")[0] in g.table


def test_quick_place_needs_a_table_card_and_never_the_last_card():
    g = load(["7S 8S KD", "4D 5D"], options={"quick_place": True})
    g.apply(F("7S 8S"))
    assert g.legal_actions() == [END]
    refused(g, P("KD"), "cannot-place")
    g = load(["7S 3D KD", "4D 5D"], table="8C 2C", options={"quick_place": True})
    g.apply(F("7S", "8C"))
    assert {P("3D"), P("KD")} <= set(g.legal_actions())
    g2 = load(["7S 6D", "4D 5D"], table="8C 9C", options={"quick_place": True})
    g2.apply(F("7S", "8C"))  # one card left: 6D (6 + 9C is a fifteen)
    assert all(a[0] != "place" for a in g2.legal_actions())
    refused(g2, P("6D"), "last-card")


# ---------------------------------------------------------------- scoring

def test_going_out_scores_zero_and_the_others_count_their_hands():
    g = load(["7S 8S", "KD AH 5C"], seat_turns=[2, 2], totals=[10, 20])
    events = g.apply(F("7S 8S"))
    end = next(e for e in events if e.kind == "deal-end")
    assert end.public["reason"] == "out" and end.public["seat"] == 0
    assert end.public["scores"] == [0, 16]
    assert end.public["totals"] == [10, 36]
    assert g.deal_no == 3 and g.dealer == 0  # the deal passes to the next seat (it was seat 1)


def test_going_out_on_the_first_turn_scores_minus_fifty():
    g = load(["7S 8S", "KD AH 5C"], seat_turns=[1, 0], turns=1)
    events = g.apply(F("7S 8S"))
    end = next(e for e in events if e.kind == "deal-end")
    assert end.public["reason"] == "first-turn"
    assert end.public["scores"] == [-50, 0] and g.totals == [-50, 0]


def test_blocked_deal_when_stock_and_discard_are_empty():
    # seat 1 holds every other card: seat 0 must place, then seat 1 cannot draw (stock and
    # discard pile empty): the deal is blocked and everybody scores their hand, no -50
    rest = position(["KS QD", "JD"])["stock"]
    g = Quinze.from_position(position(["KS QD", "JD " + " ".join(rest)], stock="", seat_turns=[1, 1]))
    assert g.phase == "place"
    events = g.apply(P("QD"))
    end = next(e for e in events if e.kind == "deal-end")
    assert end.public["reason"] == "blocked" and end.public["seat"] is None
    assert end.public["scores"][0] == 10 and min(end.public["scores"]) >= 0
    assert end.public["hands"][0] == ["KS"]


def test_reshuffle_of_the_discard_pile_when_the_stock_is_empty():
    data = position(["KS QD", "JD"], table="9C 9H")
    data["discard"], data["stock"] = data["stock"], []
    g = Quinze.from_position(data)
    events = g.apply(P("QD"))
    assert [e.kind for e in events][:3] == ["place", "reshuffle", "draw"]
    assert g.discard == [] and g.table == sorted(parse_cards("9C 9H QD"))  # the table stays
    assert events[1].public["stock"] == len(g.stock) + 1


def test_max_turns_ends_the_deal_as_blocked():
    g = load(["KS QD", "JD 9C"], options={"max_turns": 5}, turns=5, seat_turns=[3, 2])
    events = g.apply(P("QD"))
    end = next(e for e in events if e.kind == "deal-end")
    assert end.public["reason"] == "max-turns"
    assert end.public["scores"] == [10, 19]


def test_target_reached_lowest_total_wins():
    g = load(["7S 8S", "KD 5C"], seat_turns=[2, 2], totals=[40, 90])
    events = g.apply(F("7S 8S"))
    assert g.is_over and g.to_act is None and g.legal_actions() == []
    assert events[-1].kind == "game-end"
    res = g.result()
    assert res.winners == (0,) and res.points == (1.0, 0.0) and res.scores == (40, 105)
    assert res.reason == "target"
    refused(g, END, "game-over")


def test_equal_lowest_totals_share_the_win():
    g = load(["7S 8S", "AS", "KD"], seat_turns=[2, 2, 2], totals=[60, 99, 50], to_act=0)
    g.apply(F("7S 8S"))
    res = g.result()
    assert res.scores == (60, 100, 60)
    assert res.winners == (0, 2) and res.points == (0.5, 0.0, 0.5)


# ---------------------------------------------------------------- new games, views, events

def test_new_game_deals_and_draws():
    g = Quinze.new({"players": 2}, seed=5)
    assert g.opening_events[0].kind == "deal"
    first = g.to_act
    assert first == (g.dealer + 1) % 2
    assert len(g.hands[first]) == 10 and len(g.hands[1 - first]) == 9
    assert len(g.stock) == 54 - 19
    g5 = Quinze.new({"players": 5}, seed=5)
    assert sum(len(h) for h in g5.hands) == 41 and len(g5.stock) == 108 - 41
    assert g.to_position() == Quinze.new({"players": 2}, seed=5).to_position()


def test_views_show_own_hand_only():
    g = Quinze.new({"players": 3}, seed=9)
    v = g.view(1)
    assert len(v["hand"]) == len(g.hands[1]) and v["hand_sizes"] == [len(h) for h in g.hands]
    assert "hand" not in g.view(None)
    text = json.dumps(g.view(None))
    for s in range(3):
        assert json.dumps(g.view(s))
    assert isinstance(v["stock"], int) and "hands" not in text
    draw = next(e for e in g.opening_events if e.kind == "draw")
    assert "card" in draw.for_seat(draw.public["seat"]) and "card" not in draw.for_seat(None)


def test_options_are_checked():
    from quinze_protocol.game import OptionError

    with pytest.raises(OptionError) as err:
        Quinze.new({"players": 9}, 1)
    assert err.value.field == "players"
    with pytest.raises(OptionError) as err:
        Quinze.new({"players": 2, "target": 0}, 1)
    assert err.value.field == "target"
    assert Quinze.new({"players": 2, "quick_place": True}, 1).options["quick_place"] is True
    with pytest.raises(OptionError) as err:  # the command line's words are read there only (text=True)
        Quinze.new({"players": 2, "quick_place": "true"}, 1)
    assert err.value.field == "quick_place"
    assert Quinze.validate_options({"players": 2, "quick_place": "true"}, text=True)["quick_place"] is True


# ---------------------------------------------------------------- action data

def test_parse_action_names_the_field():
    g = Quinze.new({"players": 2}, 1)
    assert g.parse_action({"type": "fifteen", "hand": ["7h"], "table": ["8c"]}) == F("7H", "8C")
    assert g.parse_action({"type": "end"}) == END
    for data, field in [({"type": "fifteen", "hand": ["7H", "ZZ"]}, "hand[1]"),
                        ({"type": "fifteen"}, "hand"),
                        ({"type": "fifteen", "hand": "7H"}, "hand"),
                        ({"type": "fifteen", "hand": ["7H"], "table": ["8C", 3]}, "table[1]"),
                        ({"type": "jump"}, "type"), ({}, "type"),
                        ({"type": "place", "cards": []}, "cards")]:
        with pytest.raises(ActionError) as err:
            g.parse_action(data)
        assert err.value.field == field, data
    # keys unknown to this version are ignored (PROTOCOL.md "Conventions"), in an action too
    assert g.parse_action({"type": "end", "extra": 1}) == END
    assert g.parse_action({"type": "fifteen", "hand": ["7H"], "table": ["8C"], "why": "sums"}) == F("7H", "8C")


def test_action_data_round_trips_and_apply_takes_data():
    g = load(["7S 8S KD", "4D 5D"])
    for a in g.legal_actions():
        assert g.parse_action(json.loads(json.dumps(a.to_data()))) == a
    before = g.to_position()
    with pytest.raises(ActionError):
        g.apply({"type": "fifteen", "hand": ["XX"]})
    assert g.to_position() == before
    g.apply({"type": "fifteen", "hand": ["8s", "7s"]})
    assert g.phase == "more"


# ---------------------------------------------------------------- positions

def test_positions_round_trip_and_continue_identically():
    g = Quinze.new({"players": 4, "quick_place": True}, seed=3)
    bot = get_bot("quinze", "random", 1)
    for _ in range(60):
        g.apply(bot.choose({}, g.legal_actions()))
    data = json.loads(json.dumps(g.to_position()))
    h = Quinze.from_position(data)
    assert h.to_position() == g.to_position()
    bot1, bot2 = get_bot("quinze", "random", 2), get_bot("quinze", "random", 2)
    for _ in range(200):
        if g.is_over:
            break
        a = bot1.choose({}, g.legal_actions())
        assert bot2.choose({}, h.legal_actions()) == a
        g.apply(a)
        h.apply(a)
    assert h.to_position() == g.to_position()


@pytest.mark.parametrize(
    "change,field",
    [
        (lambda d: d["hands"][0].pop(), "cards"),
        (lambda d: d["hands"][0].append("7S"), "cards"),
        (lambda d: d["hands"][0].__setitem__(1, "7X"), "hands[0][1]"),
        (lambda d: d["hands"].pop(), "hands"),
        (lambda d: d.__setitem__("dealer", 2), "dealer"),
        (lambda d: d.__setitem__("to_act", -1), "to_act"),
        (lambda d: d.__setitem__("phase", "place"), "phase"),
        (lambda d: d["options"].__setitem__("target", 0), "options.target"),
        (lambda d: d.__setitem__("totals", [0]), "totals"),
        (lambda d: d.__setitem__("game", "quatorze"), "game"),
        (lambda d: d.__setitem__("rng", "x"), "rng"),
        (lambda d: d.__setitem__("table", "8C"), "table"),
        (lambda d: d["turn"].__setitem__("fifteens", -1), "turn.fifteens"),
        (lambda d: d["turn"].__setitem__("actions", [{"type": "fifteen", "hand": ["7S", "8Q"]}]), "turn.actions[0].hand[1]"),
    ],
)
def test_bad_positions_name_the_field(change, field):
    data = position(["7S 8S KD", "4D 5D"])
    Quinze.from_position(data)
    change(data)
    with pytest.raises(PositionError) as err:
        Quinze.from_position(data)
    assert err.value.field == field


def test_position_hand_sizes_are_checked():
    data = position(["7S", "4D 5D"])
    with pytest.raises(PositionError) as err:
        Quinze.from_position(data)
    assert err.value.field == "hands[0]"
    data = position(["7S 8S", ""])
    with pytest.raises(PositionError) as err:
        Quinze.from_position(data)
    assert err.value.field == "hands[1]"


def test_two_deck_positions_need_every_card_twice():
    data = position(["7S 8S", "4D", "5D", "6D", "7D"])
    Quinze.from_position(data)
    data["stock"].remove("KC")
    with pytest.raises(PositionError) as err:
        Quinze.from_position(data)
    assert err.value.field == "cards" and "two 54-card decks" in err.value.reason


def test_generator_is_deterministic_and_ordered():
    h, t = parse_cards("7S 7H 8D 2C 5S AS"), parse_cards("8C 6H BJ")
    assert fifteens(sorted(h), sorted(t)) == fifteens(sorted(reversed(h)), sorted(reversed(t)))
    assert {signature(a, b) for a, b in fifteens(h, t)} == {signature(a, b) for a, b in fifteens(h[::-1], t[::-1])}
    assert get_game("quinze") is Quinze


def test_position_of_another_format_is_refused_naming_the_field():
    from quinze_protocol.game import PositionError, get_game

    pos = get_game("quinze").new({"players": 2}, seed=3).to_position()
    for bad in (2, True, "1"):
        with pytest.raises(PositionError) as err:
            get_game("quinze").from_position({**pos, "format": bad})
        assert err.value.field == "format"


# ---------------------------------------------------------------- positions after a fifteen

def test_position_loaded_without_turn_actions_dumps_one_that_loads_again():
    # a fifteen made this turn, turn.actions not given (hand-written positions may leave it out)
    g = load(["7H 8C 9S 6D 2S", "3S 4S"], phase="more", turn={"fifteens": 1, "used_table": False})
    assert g.phase == "more"
    again = Quinze.from_position(g.to_position())
    assert again.to_position() == g.to_position()
    # a further fifteen of the same turn: the turn's first one is still unknown, it still loads
    g.apply(F("7H 8C"))
    dumped = g.to_position()
    assert dumped["turn"]["fifteens"] == 2
    again = Quinze.from_position(dumped)
    assert again.to_position() == dumped
    # the next turn is wholly known again: its actions are listed
    g.apply(END)
    assert g.to_position()["turn"]["actions"] == []
    assert Quinze.from_position(g.to_position()).to_position() == g.to_position()


def test_position_after_a_fifteen_of_a_played_game_round_trips():
    g = Quinze.new({"players": 3}, 5)
    bot = get_bot("quinze", "random", 1)
    seen = 0
    while not g.is_over and seen < 40:
        if g.phase == "more":
            seen += 1
            pos = g.to_position()
            assert Quinze.from_position(pos).to_position() == pos
            partial = json.loads(json.dumps(pos))
            del partial["turn"]["actions"]
            loaded = Quinze.from_position(partial)
            assert Quinze.from_position(loaded.to_position()).to_position() == loaded.to_position()
        g.apply(bot.choose(g.view(g.to_act), g.legal_actions()))
    assert seen
