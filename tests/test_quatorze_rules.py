"""Le 14 (``quatorze``): the rules of quinze_cli/rules/quatorze.md on hand-made positions, and positions themselves."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from quinze_protocol.cards import card_text, parse_cards
from quinze_protocol.game import ActionError, IllegalAction, PositionError, get_game
from quinze_protocol.games.quatorze import QuatorzeGame
from quinze_protocol.games.quatorze_actions import Combine, Discard, Draw, Substitute

ALL = [card_text(c) for c in range(52)] * 2


def make(
    hands: list[list[str]],
    *,
    table: list[list[str]] = (),  # type: ignore[assignment]
    packets: list[list[list[str]]] | None = None,
    discard: list[str] | None = None,
    stock: list[str] | None = None,
    phase: str = "combine",
    seat: int = 0,
    turn: int = 0,
    max_turns: int = 1000,
    rest_to: str = "stock",
    no_draw: str | None = None,
) -> dict[str, Any]:
    """A valid position: the cards not named go to the stock (or, ``rest_to="table-free"``,
    must all be named)."""
    n = len(hands)
    packets = packets if packets is not None else [[] for _ in range(n)]
    discard = list(discard) if discard is not None else ["KD"]
    used = Counter(c for h in hands for c in h)
    used.update(c for ps in packets for p in ps for c in p)
    used.update(c for comb in table for c in comb)
    used.update(discard)
    if stock is not None:
        used.update(stock)
    rest = Counter(ALL)
    rest.subtract(used)
    assert all(v >= 0 for v in rest.values()), rest
    leftover = sorted(rest.elements())
    if stock is None:
        stock = leftover
    else:
        assert not leftover, f"unplaced cards: {leftover}"
    return {
        "game": "quatorze",
        "format": 1,
        "options": {"players": n, "max_turns": max_turns},
        "rng": 12345,
        "to_act": seat,
        "phase": phase,
        "no_draw": no_draw,
        "turns": turn,
        "hands": [list(h) for h in hands],
        "packets": packets,
        "table": [list(c) for c in table],
        "discard": discard,
        "stock": stock,
        "winners": [],
        "end_reason": None,
    }


def game(**kw: Any) -> QuatorzeGame:
    hands = kw.pop("hands")
    return QuatorzeGame.from_position(make(hands, **kw))


def refused(g: QuatorzeGame, data: dict[str, Any], code: str) -> IllegalAction:
    before = g.to_position()
    with pytest.raises(IllegalAction) as info:
        g.apply(data)
    assert info.value.code == code, info.value.reason
    assert info.value.reason
    assert g.to_position() == before
    assert g.parse_action(data) not in g.legal_actions()
    return info.value


def test_registered_with_options() -> None:
    cls = get_game("quatorze")
    assert cls is QuatorzeGame
    g = cls.new({"players": "3"}, seed=7)
    assert g.options == {"players": 3, "max_turns": 1000, "max_substitutions": 20}
    assert [len(h) for h in g.hands] == [5, 5, 5]
    assert [[len(p) for p in ps] for ps in g.packets] == [[4, 3, 2]] * 3
    assert len(g.discard) == 1 and len(g.stock) == 104 - 3 * 14 - 1
    assert g.opening_events[0].kind == "setup"
    assert g.opening_events[0].for_seat(1)["hand"] == [card_text(c) for c in g.hands[1]]
    assert "hand" not in g.opening_events[0].for_seat(None)


# ------------------------------------------------------------------ substitutions (quinze_cli/rules/quatorze.md phase 3)


def test_hand_for_two_nine_for_six_and_three() -> None:
    g = game(hands=[["9S", "KH"], ["2C", "QC"]], table=[["6H", "3D", "5C"]])
    act = Substitute("hand-for-two", 0, hand=(parse_cards("9S")[0],), cards=tuple(parse_cards("3D 6H")))
    assert act in g.legal_actions()
    events = g.apply({"type": "substitute", "kind": "hand-for-two", "hand": "9S", "combination": 0, "cards": ["6H", "3D"]})
    assert g.table == [parse_cards("5C 9S")]
    assert sorted(g.view(0)["hand"]) == sorted(["3D", "6H", "KH"])
    assert events[0].kind == "substitute" and events[0].public["substitution"] == "hand-for-two"
    assert events[0].for_seat(None)["kind"] == "substitute"
    assert g.phase == "substitute"


def test_hand_for_two_leaving_thirteen_is_refused() -> None:
    g = game(hands=[["8S", "KH"], ["2C", "QC"]], table=[["6H", "3D", "5C"]])
    err = refused(g, {"type": "substitute", "kind": "hand-for-two", "hand": "8S", "combination": 0, "cards": ["6H", "3D"]}, "not-fourteen")
    assert "13" in err.reason


def test_hand_for_two_cannot_break_a_two_card_combination() -> None:
    g = game(hands=[["KS", "2H"], ["2C", "QC"]], table=[["6H", "8D"]])
    err = refused(g, {"type": "substitute", "kind": "hand-for-two", "hand": "KS", "combination": 0, "cards": ["6H", "8D"]}, "combination-too-small")
    assert "two" in err.reason
    assert not [a for a in g.legal_actions() if isinstance(a, Substitute)]


def test_two_for_one_six_and_three_for_the_nine() -> None:
    g = game(hands=[["6H", "3D", "KH"], ["2C", "QC"]], table=[["9C", "2H", "3S"]])
    data = {"type": "substitute", "kind": "two-for-one", "hand": ["6H", "3D"], "combination": 0, "card": "9C"}
    assert g.parse_action(data) in g.legal_actions()
    g.apply(data)
    assert g.table == [parse_cards("2H 3S 3D 6H")]
    assert g.view(0)["hand"] == ["9C", "KH"]


def test_two_for_one_leaving_thirteen_is_refused() -> None:
    g = game(hands=[["6H", "2D", "KH"], ["2C", "QC"]], table=[["9C", "2H", "3S"]])
    err = refused(g, {"type": "substitute", "kind": "two-for-one", "hand": ["6H", "2D"], "combination": 0, "card": "9C"}, "not-fourteen")
    assert "13" in err.reason


def test_between_six_and_three_for_the_nine_of_another() -> None:
    g = game(hands=[["KH", "QH"], ["2C", "QC"]], table=[["6H", "3D", "5C"], ["9C", "2H", "3S"]])
    data = {"type": "substitute", "kind": "between", "combination": 0, "cards": ["6H", "3D"], "other": 1, "card": "9C"}
    assert g.parse_action(data) in g.legal_actions()
    g.apply(data)
    assert g.table == [parse_cards("5C 9C"), parse_cards("2H 3S 3D 6H")]
    assert g.view(0)["hand"] == ["QH", "KH"]


def test_between_near_misses() -> None:
    g = game(hands=[["KH", "QH"], ["2C", "QC"]], table=[["6H", "3D", "5C"], ["8C", "2H", "4S"], ["9S", "5S"]])
    err = refused(g, {"type": "substitute", "kind": "between", "combination": 0, "cards": ["6H", "3D"], "other": 1, "card": "8C"}, "not-fourteen")
    assert "13" in err.reason
    refused(g, {"type": "substitute", "kind": "between", "combination": 2, "cards": ["9S", "5S"], "other": 0, "card": "6H"}, "combination-too-small")
    refused(g, {"type": "substitute", "kind": "between", "combination": 0, "cards": ["6H", "3D"], "other": 0, "card": "5C"}, "same-combination")
    refused(g, {"type": "substitute", "kind": "between", "combination": 0, "cards": ["6H", "3D"], "other": 7, "card": "9C"}, "no-such-combination")
    refused(g, {"type": "substitute", "kind": "two-for-one", "hand": ["KH", "QH"], "combination": 1, "card": "AC"}, "card-not-in-combination")


def test_no_combination_after_a_substitution() -> None:
    g = game(hands=[["9S", "KH", "AD"], ["2C", "QC"]], table=[["6H", "3D", "5C"]])
    g.apply({"type": "substitute", "kind": "hand-for-two", "hand": "9S", "combination": 0, "cards": ["6H", "3D"]})
    refused(g, {"type": "combine", "cards": ["KH", "AD"]}, "wrong-phase")
    assert all(not isinstance(a, Combine) for a in g.legal_actions())


# ------------------------------------------------------------------ draw (quinze_cli/rules/quatorze.md phase 1)


def test_whole_hand_layable_as_two_combinations_must_not_draw() -> None:
    g = game(hands=[["AS", "QH"], ["7S", "7D", "5H", "9C"]], phase="draw", seat=0, no_draw=None)
    g.apply({"type": "draw", "from": "stock"})
    events = g.apply({"type": "discard", "card": "AS"})
    assert g.to_act == 1 and g.phase == "combine" and g.no_draw == "whole-hand"
    assert [e.kind for e in events] == ["discard", "no-draw"]
    assert all(not isinstance(a, Draw) for a in g.legal_actions())
    err = refused(g, {"type": "draw", "from": "stock"}, "must-not-draw")
    assert "whole hand" in err.reason
    refused(g, {"type": "draw", "from": "discard"}, "must-not-draw")


def test_whole_hand_must_be_laid_not_discarded() -> None:
    # RULES phase 1 [decision]: who can lay the whole hand must not draw and must lay it
    g = game(hands=[["AS", "QH"], ["7S", "7D", "5H", "9C", "6S"]], phase="draw", seat=0, no_draw=None,
             packets=[[], [["2S", "QS"]]])
    g.apply({"type": "draw", "from": "stock"})
    g.apply({"type": "discard", "card": "AS"})
    assert g.to_act == 1 and g.phase == "draw"  # 7+7+5+9+6 = 34: not layable whole, draws
    g2 = game(hands=[["AS", "QH"], ["7S", "7D", "5H", "9C"]], phase="draw", seat=0, no_draw=None,
              packets=[[], [["2S", "QS"]]])
    g2.apply({"type": "draw", "from": "stock"})
    g2.apply({"type": "discard", "card": "AS"})
    assert g2.no_draw == "whole-hand"
    legal = g2.legal_actions()
    assert legal and all(isinstance(a, Combine) for a in legal)
    assert sorted(a.to_data()["cards"] for a in legal) == [["5H", "9C"], ["7S", "7D"]]
    err = refused(g2, {"type": "discard", "card": "7S"}, "must-lay-whole-hand")
    assert "whole hand" in err.reason
    g2.apply({"type": "combine", "cards": ["7S", "7D"]})
    assert g2.to_act == 1 and g2.legal_actions() == [Combine(tuple(parse_cards("5H 9C")))]
    events = g2.apply({"type": "combine", "cards": ["5H", "9C"]})
    assert [e.kind for e in events][:2] == ["combine", "take-up"]


def test_whole_hand_combination_must_leave_a_layable_rest() -> None:
    # 7+7 and 5+9 lay the hand whole; 5+9 then 7+7 also; but 2+5+7 would leave 7+9 = 16
    g = game(hands=[["AS", "QH"], ["2S", "5H", "7S", "7D", "9C", "QC"]], phase="draw", seat=0, no_draw=None)
    g.apply({"type": "draw", "from": "stock"})
    g.apply({"type": "discard", "card": "AS"})
    assert g.no_draw == "whole-hand"
    refused(g, {"type": "combine", "cards": ["2S", "5H", "7S"]}, "must-lay-whole-hand")
    for a in g.legal_actions():
        rest = list(g.hands[1])
        for c in a.cards:
            rest.remove(c)
        from quinze_protocol.games.quatorze_legal import can_lay_whole_hand
        assert not rest or can_lay_whole_hand(rest)


def test_hand_not_wholly_layable_draws() -> None:
    g = game(hands=[["AS", "KH"], ["7S", "7D", "5H", "8C"]], phase="combine")
    g.apply({"type": "discard", "card": "AS"})
    assert g.phase == "draw" and g.no_draw is None
    assert g.legal_actions() == [Draw("stock"), Draw("discard")]
    refused(g, {"type": "discard", "card": "8C"}, "must-draw")
    refused(g, {"type": "combine", "cards": ["7S", "7D"]}, "must-draw")
    g.apply({"type": "draw", "from": "discard"})
    assert "AS" in g.view(1)["hand"]
    refused(g, {"type": "draw", "from": "stock"}, "wrong-phase")


def _empty_stock_game() -> QuatorzeGame:
    # every card not named is in hands: seat 1 holds the rest; the stock is empty
    rest = Counter(ALL)
    rest.subtract(["AS", "KH", "5D", "6D", "7D", "8D", "QS"])
    big = sorted(rest.elements())
    # seat 1's hand must not be wholly layable: total value not a multiple of 14
    pos = make([["AS", "KH", "QS"], big], discard=["5D", "6D", "7D", "8D"], stock=[])
    return QuatorzeGame.from_position(pos)


def test_reshuffle_when_the_stock_is_empty() -> None:
    # RULES phase 1: the discard pile but its top card becomes the stock, at the draw itself
    g = _empty_stock_game()
    events = g.apply({"type": "discard", "card": "QS"})
    assert [e.kind for e in events] == ["discard"]
    assert g.phase == "draw" and g.stock == [] and len(g.discard) == 5
    assert g.legal_actions() == [Draw("stock"), Draw("discard")]
    events = g.apply({"type": "draw", "from": "stock"})
    assert [e.kind for e in events] == ["reshuffle", "draw"]
    assert events[0].public == {"stock": 4, "discard": "QS"}
    assert events[1].public == {"seat": 1, "from": "stock", "stock": 3}
    assert g.discard == parse_cards("QS")
    assert len(g.stock) == 3 and set(g.stock) <= set(parse_cards("5D 6D 7D 8D"))


def test_empty_stock_draw_is_legal_in_a_loaded_position() -> None:
    # what `quinze legal` loads: the draw phase with an empty stock and a discard pile of 2+
    rest = Counter(ALL)
    rest.subtract(["AS", "KH", "5D", "6D", "7D", "8D", "QS"])
    pos = make([sorted(rest.elements()), ["AS", "KH", "QS"]], discard=["5D", "6D", "7D", "8D"], stock=[],
               phase="draw", seat=1)
    g = QuatorzeGame.from_position(pos)
    assert g.legal_actions() == [Draw("stock"), Draw("discard")]
    again = QuatorzeGame.from_position(g.to_position())
    assert again.legal_data() == g.legal_data()
    # the stock draw is the same with the same generator state: seeded, reproducible
    e1 = g.apply({"type": "draw", "from": "stock"})
    e2 = again.apply({"type": "draw", "from": "stock"})
    assert [e.full() for e in e1] == [e.full() for e in e2]
    assert g.to_position() == again.to_position()


def test_nothing_to_draw_skips_the_draw() -> None:
    rest = Counter(ALL)
    rest.subtract(["5H", "9C", "AS", "KD", "2S"])
    big = sorted(rest.elements())
    pos = make(
        [["5H", "9C"], ["AS"] + big],
        packets=[[["KD", "2S"]], []],
        discard=[],
        stock=[],
    )
    g = QuatorzeGame.from_position(pos)
    events = g.apply({"type": "combine", "cards": ["5H", "9C"]})
    assert [e.kind for e in events] == ["combine", "take-up", "no-draw"]
    assert events[-1].public == {"seat": 1, "reason": "nothing-to-draw"}
    assert g.phase == "combine" and g.to_act == 1
    refused(g, {"type": "draw", "from": "stock"}, "nothing-to-draw")


def test_one_card_discard_pile_only_discard_draw() -> None:
    rest = Counter(ALL)
    rest.subtract(["AS", "KH", "QS"])
    g = QuatorzeGame.from_position(make([["AS", "KH", "QS"], sorted(rest.elements())], discard=[], stock=[]))
    g.apply({"type": "discard", "card": "QS"})
    assert g.legal_actions() == [Draw("discard")]
    refused(g, {"type": "draw", "from": "stock"}, "empty-stock")


# ------------------------------------------------------------------ emptying the hand


def test_laying_that_empties_the_hand_ends_the_turn_and_takes_up_the_next_packet() -> None:
    g = game(hands=[["5H", "9C"], ["2C", "QC", "3D"]], packets=[[["AS", "2S", "3S", "4S"], ["5S", "6S", "7S"], ["8S", "9S"]], []])
    events = g.apply({"type": "combine", "cards": ["9C", "5H"]})
    assert [e.kind for e in events] == ["combine", "take-up"]
    take = events[1]
    assert take.public == {"seat": 0, "size": 4, "packets_left": 2}
    assert take.for_seat(0)["cards"] == ["AS", "2S", "3S", "4S"]
    assert "cards" not in take.for_seat(1)
    assert g.to_act == 1 and g.turns == 1
    assert g.view(0)["hand"] == ["AS", "2S", "3S", "4S"]
    assert g.view(1)["packets"] == [[3, 2], []]
    assert g.table == [parse_cards("5H 9C")]
    assert g.discard == parse_cards("KD")  # no discard was made


def test_discard_that_empties_the_hand_takes_up_the_next_packet() -> None:
    g = game(hands=[["7H"], ["2C", "QC", "3D"]], packets=[[["8S", "9S"]], []])
    events = g.apply({"type": "discard", "card": "7H"})
    assert [e.kind for e in events][:2] == ["discard", "take-up"]
    assert g.view(0)["hand"] == ["8S", "9S"] and g.to_act == 1


def test_winning_with_the_fourteenth_card_by_discard() -> None:
    g = game(hands=[["7H"], ["2C", "QC", "3D"]])
    events = g.apply({"type": "discard", "card": "7H"})
    assert events[-1].kind == "game-end"
    assert g.is_over and g.to_act is None and g.legal_actions() == []
    r = g.result()
    assert r is not None and r.winners == (0,) and r.reason == "out"
    assert r.points == (1.0, 0.0) and r.scores == (0.0, 3.0)
    refused(g, {"type": "discard", "card": "2C"}, "game-over")


def test_winning_with_the_fourteenth_card_by_combination() -> None:
    g = game(hands=[["5H", "9C"], ["2C", "QC", "3D"]])
    g.apply({"type": "combine", "cards": ["5H", "9C"]})
    r = g.result()
    assert r is not None and r.winners == (0,) and r.reason == "out"


def test_combine_refusals() -> None:
    g = game(hands=[["5H", "8C", "KS"], ["2C", "QC"]])
    err = refused(g, {"type": "combine", "cards": ["5H", "8C"]}, "not-fourteen")
    assert "13" in err.reason
    refused(g, {"type": "combine", "cards": ["5H", "9C"]}, "card-not-held")
    refused(g, {"type": "discard", "card": "9C"}, "card-not-held")


# ------------------------------------------------------------------ max_turns (quinze_cli/rules/quatorze.md [decision])


def test_max_turns_fewest_cards_left_wins() -> None:
    g = game(hands=[["7H", "8S"], ["2C", "QC"]], packets=[[], [["AS", "2S"]]], max_turns=5, turn=4)
    g.apply({"type": "discard", "card": "7H"})
    r = g.result()
    assert r is not None and r.reason == "max-turns" and r.winners == (0,)
    assert r.scores == (1.0, 4.0)


def test_max_turns_equal_fewest_share() -> None:
    g = game(hands=[["7H", "8S", "9S"], ["2C", "QC"]], max_turns=5, turn=4)
    g.apply({"type": "discard", "card": "7H"})
    r = g.result()
    assert r is not None and r.winners == (0, 1) and r.points == (0.5, 0.5)


# ------------------------------------------------------------------ actions data


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({}, "type"),
        ({"type": "fly"}, "type"),
        ({"type": "draw", "from": "table"}, "from"),
        ({"type": "combine"}, "cards"),
        ({"type": "combine", "cards": ["5H", "zz"]}, "cards[1]"),
        ({"type": "combine", "cards": ["RJ", "AS"]}, "cards[0]"),
        ({"type": "combine", "cards": ["5H"]}, "cards"),
        ({"type": "discard"}, "card"),
        ({"type": "substitute", "kind": "swap"}, "kind"),
        ({"type": "substitute", "kind": "hand-for-two", "hand": "9S", "combination": -1, "cards": ["6H", "3D"]}, "combination"),
        ({"type": "substitute", "kind": "hand-for-two", "hand": "9S", "combination": 0, "cards": ["6H"]}, "cards"),
        ({"type": "substitute", "kind": "between", "combination": 0, "cards": ["6H", "3D"], "card": "9C"}, "other"),
    ],
)
def test_parse_errors_name_the_field(data: dict[str, Any], field: str) -> None:
    g = QuatorzeGame.new({"players": 2}, seed=1)
    before = g.to_position()
    with pytest.raises(ActionError) as info:
        g.apply(data)
    assert info.value.field == field
    assert g.to_position() == before


def test_action_data_round_trip() -> None:
    g = game(hands=[["6H", "3D", "9S", "KH"], ["2C", "QC"]], table=[["6C", "3C", "5C"], ["9C", "2H", "3S"]])
    legal = g.legal_actions()
    kinds = {a.kind for a in legal if isinstance(a, Substitute)}
    assert kinds == {"hand-for-two", "two-for-one", "between"}
    for a in legal:
        assert g.parse_action(a.to_data()) == a
    assert len(set(legal)) == len(legal)
    assert Discard(parse_cards("KH")[0]) in legal


# ------------------------------------------------------------------ positions


def test_position_round_trip_continues_identically() -> None:
    g = QuatorzeGame.new({"players": 3}, seed=99)
    for _ in range(40):
        g.apply(g.legal_actions()[-1], checked=False)
    pos = g.to_position()
    h = QuatorzeGame.from_position(pos)
    assert h.to_position() == pos
    for _ in range(60):
        if g.is_over:
            break
        a = g.legal_actions()[0]
        assert [e.full() for e in g.apply(a)] == [e.full() for e in h.apply(a)]
    assert g.to_position() == h.to_position()


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda p: p.__setitem__("game", "quinze"), "game"),
        (lambda p: p.__setitem__("phase", "dance"), "phase"),
        (lambda p: p.__setitem__("to_act", 5), "to_act"),
        (lambda p: p["hands"][0].append("AS"), "cards"),
        (lambda p: p["stock"].pop(), "cards"),
        (lambda p: p["hands"][1].__setitem__(0, "XX"), "hands.1[0]"),
        (lambda p: p["hands"].pop(), "hands"),
        (lambda p: p["packets"][0][0].pop(), "packets.0"),
        (lambda p: p.__setitem__("table", [["5H", "8C"]]), "table[0]"),
        (lambda p: p["options"].__setitem__("players", 9), "options.players"),
        (lambda p: p.__setitem__("rng", -1), "rng"),
        (lambda p: p.__setitem__("no_draw", "maybe"), "no_draw"),
        (lambda p: p.__setitem__("turns", 1000), "turns"),
        (lambda p: p.__setitem__("phase", "over"), "to_act"),
        (lambda p: p.update(phase="over", to_act=None), "winners"),
    ],
)
def test_bad_positions_name_the_field(change: Any, field: str) -> None:
    pos = QuatorzeGame.new({"players": 2}, seed=3).to_position()
    change(pos)
    with pytest.raises(PositionError) as info:
        QuatorzeGame.from_position(pos)
    assert info.value.field == field, info.value
    assert info.value.reason


def test_position_with_whole_layable_hand_in_draw_phase_is_refused() -> None:
    with pytest.raises(PositionError) as info:
        QuatorzeGame.from_position(make([["5H", "9C"], ["2C", "QC"]], phase="draw"))
    assert info.value.field == "phase"


def test_protocol_examples_are_real_actions() -> None:
    import json
    import re
    from pathlib import Path

    text = Path(__file__).resolve().parent.parent.joinpath("PROTOCOL.md").read_text(encoding="utf-8")
    section = text.split("### Le 14 (`quatorze`)", 1)[1].split("\n## ", 1)[0]
    examples = [json.loads(j) for j in re.findall(r"```json\n(.*?)```", section, re.S)]
    assert {(d["type"], d.get("kind")) for d in examples} == {
        ("draw", None),
        ("combine", None),
        ("substitute", "hand-for-two"),
        ("substitute", "two-for-one"),
        ("substitute", "between"),
        ("discard", None),
    }
    g = game(hands=[["6H", "3D", "9S", "KH", "AD"], ["2C", "QC"]], table=[["6C", "3C", "5C"], ["9C", "2H", "3S"]])
    legal = g.legal_actions()
    for d in examples:
        a = g.parse_action(d)
        assert a.to_data() == d
        assert d["type"] == "draw" or a in legal


def test_max_substitutions_bounds_a_turn_of_back_and_forth_swaps():
    """Safety decision (protocol/games/quatorze.py docstring): a player cannot swap the same cards
    back and forth for ever; after ``max_substitutions`` only the discard remains."""
    from quinze_protocol.game import IllegalAction, get_game
    from quinze_protocol.games.quatorze_actions import Substitute

    game = get_game("quatorze").new({"players": 2, "max_substitutions": 3}, seed=0)
    rng_seed = 0
    steps = 0
    # Play until some seat has a substitution available, then substitute as much as allowed.
    while not game.is_over and steps < 5000:
        legal = game.legal_actions()
        subs = [a for a in legal if isinstance(a, Substitute)]
        if subs:
            for _ in range(3):
                subs = [a for a in game.legal_actions() if isinstance(a, Substitute)]
                if not subs:
                    break
                game.apply(subs[0])
            else:
                assert not any(isinstance(a, Substitute) for a in game.legal_actions())
                before = game.to_position()
                assert before["substitutions"] == 3
                with pytest.raises(IllegalAction) as err:
                    game.apply(subs[0])
                assert err.value.code == "too-many-substitutions"
                assert game.to_position() == before
                again = get_game("quatorze").from_position(before)
                assert again.to_position() == before
                return
        game.apply(legal[rng_seed % len(legal)])
        rng_seed += 7
        steps += 1
    pytest.fail("no turn with three substitutions in a row was found")


def test_quinze_legal_offers_the_stock_draw_of_an_empty_stock(tmp_path) -> None:
    import json

    from typer.testing import CliRunner

    from quinze_cli.app import app

    rest = Counter(ALL)
    rest.subtract(["AS", "KH", "5D", "6D", "7D", "8D", "QS"])
    pos = make([sorted(rest.elements()), ["AS", "KH", "QS"]], discard=["5D", "6D", "7D", "8D"], stock=[],
               phase="draw", seat=1)
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(pos))
    out = CliRunner().invoke(app, ["legal", str(path)])
    assert out.exit_code == 0, out.output
    lines = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    assert sorted(lines, key=lambda d: d["from"]) == [{"type": "draw", "from": "discard"}, {"type": "draw", "from": "stock"}]
