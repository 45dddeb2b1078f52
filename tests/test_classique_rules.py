"""Le Quinze classique (quinze_cli/rules/quinze-classique.md): one test per rule branch and decision, positions, errors."""

from __future__ import annotations

import json

import pytest

from classique_helpers import CALL, CHECK, FOLD, H, P, R, S, first, kinds, play, rigged
from quinze_protocol.game import ActionError, IllegalAction, OptionError, PositionError, get_bot, get_game
from quinze_protocol.games.classique import ClassiqueGame


def new(players=3, seed=1, **opts):
    return ClassiqueGame.new({"players": players, **opts}, seed)


# ---------------------------------------------------------------- set-up


def test_registered_with_bots():
    assert get_game("quinze-classique") is ClassiqueGame
    for name in ("random", "threshold"):
        assert get_bot("quinze-classique", name, 3) is not None


@pytest.mark.parametrize("n", [2, 4, 6])
def test_ceremony_one_card_per_seat_lowest_deals(n):
    # RULES "Seats and the first dealer" [decision]: K, Q, J... shuffled, one to each seat;
    # the lowest card deals first
    g = new(n, seed=5)
    ev = [e.full() for e in g.opening_events]
    assert kinds(ev)[:4] == ["ceremony", "deck-change", "ante", "deal"]
    cer = ev[0]
    ranks = ["K", "Q", "J", "10", "9", "8"][:n]
    assert sorted(d["card"] for d in cer["draws"]) == sorted(r + "S" for r in ranks)
    assert [d["seat"] for d in cer["draws"]] == list(range(n))
    lowest = next(d["seat"] for d in cer["draws"] if d["card"] == ranks[-1] + "S")
    assert cer["first_dealer"] == lowest and cer["first_to_speak"] == (lowest + 1) % n
    assert ev[1] == {"kind": "deck-change", "dealer": lowest, "deck": "black", "talon": 52, "reason": "first"}
    deal = ev[3]
    order = [(lowest + 1 + k) % n for k in range(n)]
    assert deal["dealer"] == lowest and deal["order"] == order and deal["talon"] == 52 - n
    assert set(deal["private"]) == {str(s) for s in range(n)}
    assert g.to_act == order[0] and g.first_dealer == lowest and g.deck == "black"
    assert g.pot == n and g.chips == [99] * n


@pytest.mark.parametrize("n", [2, 3, 6])
def test_first_dealer_is_drawn_at_random_among_the_seats(n):
    dealers = {new(n, seed=seed).first_dealer for seed in range(60)}
    assert dealers == set(range(n))
    assert new(n, seed=9).first_dealer == new(n, seed=9).first_dealer  # seeded


def test_decks_are_one_colour_each():
    g = new(2)
    assert all(c // 13 in (0, 3) for c in g.talon + [g.hidden[0], g.hidden[1]])
    assert len(g.talon) == 50


def test_unequal_caves_option():
    g = new(3, caves="100,80,120")
    assert g.caves == [100, 80, 120] and g.chips == [99, 79, 119]
    with pytest.raises(OptionError) as err:
        new(3, caves="100,80")
    assert err.value.field == "caves"
    with pytest.raises(OptionError) as err:
        new(2, caves="100,x")
    assert err.value.field == "caves"
    with pytest.raises(OptionError) as err:
        new(7)
    assert err.value.field == "players"


# ---------------------------------------------------------------- speaking round


def test_all_pass_pot_stays_same_dealer_redeals():
    g = new(3)
    ev = play(g, P, P, P)
    assert kinds(ev) == ["speak", "speak", "speak", "coup-end", "ante", "deal"]
    assert first(ev, "coup-end")["outcome"] == "all-passed"
    assert g.dealer == 2 and g.coup == 2 and g.pot == 6 and g.chips == [98, 98, 98]
    assert g.phase == "speak" and g.to_act == 0


def test_single_opener_takes_pot_without_showing():
    g = new(3)
    ev = play(g, P, H, P)
    won = first(ev, "pot-won")
    assert won == {"kind": "pot-won", "seat": 1, "amount": 3, "shown": False, "reason": "single-opener"}
    assert "showdown" not in kinds(ev) and "burnt" not in kinds(ev)
    assert g.chips == [98, 101, 98]
    assert g.stats()["single_opener"] == 1 and g.stats()["coups"] == 2 and g.stats()["showdowns"] == 0
    assert ClassiqueGame.from_position(g.to_position()).stats() == g.stats()


def test_opener_is_first_to_open_and_starts_raising():
    g = new(3)
    play(g, P, S, H)
    assert g.opener == 1 and g.phase == "raise" and g.to_act == 1
    assert {type(a).__name__ for a in g.legal_actions()} == {"Check", "Raise", "Fold"}


# ---------------------------------------------------------------- raising


def test_raise_cap_is_what_the_poorest_other_player_can_cover():
    g = new(3, caves="100,30,100", ante=2)
    play(g, S, H, S)
    lr = [a.to_data() for a in g.legal_actions() if a.to_data()["type"] == "raise"]
    assert lr == [{"type": "raise", "min": 2, "max": 28}]
    before = g.to_position()
    with pytest.raises(IllegalAction) as err:
        g.apply(R(29))
    assert err.value.code == "raise-too-large"
    for small in (1, 0, -5):
        with pytest.raises(IllegalAction) as err:
            g.apply(R(small))
        assert err.value.code == "raise-too-small"
    assert g.to_position() == before
    ev = play(g, R(28))
    assert first(ev, "raise")["stake"] == 30 and g.chips == [70, 28, 98]
    # seat 1 can call everything; nobody may raise any more (seat 1 is all in)
    assert g.to_act == 1 and [a.to_data()["type"] for a in g.legal_actions()] == ["call", "fold"]
    play(g, CALL)
    assert g.chips[1] == 0 and g.raise_range(2) is None


def test_check_refused_after_raise_and_round_end():
    g = new(3)
    play(g, H, H, H)
    play(g, R(3))
    with pytest.raises(IllegalAction) as err:
        g.apply(CHECK)
    assert err.value.code == "cannot-check"
    play(g, CALL, R(2))  # seat 2 re-raises: seat 0 must answer again
    assert g.to_act == 0 and g.high == 6
    play(g, CALL, CALL)
    assert g.phase == "draw" and g.to_act == 0 and g.stakes == [6, 6, 6] and g.pot == 18


def test_everyone_folds_but_one_takes_pot_without_showing():
    g = new(3)
    play(g, H, S, P)
    ev = play(g, R(1), FOLD)
    assert first(ev, "pot-won") == {"kind": "pot-won", "seat": 0, "amount": 4, "shown": False, "reason": "last-in"}
    assert "showdown" not in kinds(ev)


def test_wrong_phase_and_nothing_to_call_codes():
    g = new(2)
    for act, code in ((CHECK, "wrong-phase"), (CALL, "wrong-phase"), (R(1), "wrong-phase")):
        with pytest.raises(IllegalAction) as err:
            g.apply(act)
        assert err.value.code == code and err.value.reason
    play(g, H, H)
    with pytest.raises(IllegalAction) as err:
        g.apply(CALL)
    assert err.value.code == "nothing-to-call"
    with pytest.raises(IllegalAction) as err:
        g.apply(P)
    assert err.value.code == "wrong-phase"


def test_parse_action_names_the_field():
    g = new(2)
    for data, field in (({}, "type"), ({"type": "jump"}, "type"), ({"type": "raise"}, "amount"),
                        ({"type": "raise", "amount": "3"}, "amount"), ({"type": "raise", "amount": True}, "amount"),
                        ([1], "action")):
        with pytest.raises(ActionError) as err:
            g.parse_action(data)
        assert err.value.field == field
    # keys unknown to this version are ignored (PROTOCOL.md "Conventions"), in an action too
    assert g.parse_action({"type": "hit", "card": "7S"}).to_data() == {"type": "hit"}
    assert g.parse_action({"type": "raise", "amount": 4, "min": 1, "max": 9}).to_data() == R(4)
    # the listed range is read back (built-in bots read legal entries), but cannot be applied
    play(g, H, H)
    listed = next(a for a in g.legal_actions() if a.to_data()["type"] == "raise")
    assert g.parse_action(listed.to_data()) == listed
    before = g.to_position()
    with pytest.raises(ActionError) as err:
        g.apply(listed.to_data())
    assert err.value.field == "amount" and g.to_position() == before


# ---------------------------------------------------------------- drawing


def test_burn_shows_hidden_card_and_stake_stays():
    g = rigged({"players": 2}, hidden={0: "KS", 1: "5C"}, draws=["6S", "2C"])
    play(g, H, S, R(4), CALL)
    assert g.pot == 10 and g.phase == "draw" and g.to_act == 0
    ev = play(g, H)
    assert first(ev, "hit")["card"] == "6S"
    assert first(ev, "burnt") == {"kind": "burnt", "seat": 0, "hidden": "KS", "total": 16}
    assert first(ev, "pot-won") == {"kind": "pot-won", "seat": 1, "amount": 10, "shown": False, "reason": "last-in"}
    assert g.chips == [94, 104]  # 95 and 105, then the next ante


def test_burnt_player_among_three_stays_out_and_shown():
    g = rigged({"players": 3}, hidden={0: "KS", 1: "5C", 2: "9S"}, draws=["8C", "AS"])
    play(g, H, H, S, CHECK, CHECK, CHECK)
    ev = play(g, H)
    assert kinds(ev) == ["hit", "burnt"] and g.status[0] == "burnt" and g.to_act == 1
    assert g.view(2)["hidden"] == ["KS", None, "9S"] and g.view(None)["hidden"] == ["KS", None, None]
    ev = play(g, H, S)  # seat 1: 5 + A = 6 vs seat 2: 9
    sd = first(ev, "showdown")
    assert [h["seat"] for h in sd["hands"]] == [1, 2]
    assert first(ev, "pot-won")["seat"] == 2 and first(ev, "pot-won")["shown"] is True


def test_raise_while_drawing_opens_round_answered_after_raiser():
    g = rigged({"players": 3}, hidden={0: "2S", 1: "5C", 2: "9S"}, draws=["3C", "AS"])
    play(g, P, H, H, CHECK, CHECK)
    assert g.phase == "draw" and g.to_act == 1
    play(g, H)
    assert g.to_act == 1 and g.face_up[1] == [g.face_up[1][0]]
    play(g, R(2))
    assert g.phase == "raise" and g.to_act == 2 and g.view(2)["awaiting"] == [2]
    play(g, CALL)
    assert g.phase == "draw" and g.to_act == 1  # back to the raiser's drawing turn
    play(g, S)
    assert g.to_act == 2


def test_talon_exhausted_mid_coup_forces_stand():
    g = rigged({"players": 2}, hidden={0: "2S", 1: "3C"}, draws=["AS", "AC"], talon_len=2)
    play(g, H, H, CHECK, CHECK, H)
    assert g.to_act == 0 and len(g.talon) == 1
    ev = play(g, H)
    stands = [e for e in ev if e["kind"] == "stand"]
    assert stands == [{"kind": "stand", "seat": 0, "forced": True}, {"kind": "stand", "seat": 1, "forced": True}]
    assert "showdown" in kinds(ev) and first(ev, "pot-won")["seat"] == 0  # 4 beats 3


# ---------------------------------------------------------------- showdown


def test_showdown_tie_goes_by_primaute_from_dealers_next_seat():
    # dealer 1: speaking order 2, 0, 1; seats 0 and 2 tie at 10, seat 2 has primauté
    g = rigged({"players": 3}, hidden={0: "KS", 1: "2C", 2: "10S"}, dealer=1, to_act=2)
    ev = play(g, S, S, P, CHECK, CHECK)
    sd = first(ev, "showdown")
    assert [h["total"] for h in sd["hands"]] == [10, 10] and [h["seat"] for h in sd["hands"]] == [2, 0]
    assert first(ev, "pot-won")["seat"] == 2


def test_highest_total_wins_showdown():
    g = rigged({"players": 2}, hidden={0: "4S", 1: "9C"}, draws=["10C"])
    ev = play(g, H, S, CHECK, CHECK, H, S)
    assert first(ev, "pot-won")["seat"] == 0 and first(ev, "showdown")["hands"][0]["total"] == 14


# ---------------------------------------------------------------- deal and deck


def test_dealer_keeps_deal_while_talon_gives_one_each_plus_two():
    g = rigged({"players": 3}, hidden={0: "KS", 1: "2C", 2: "10S"}, talon_len=5)
    ev = play(g, P, P, P)
    assert "deck-change" not in kinds(ev) and g.dealer == 2 and len(g.talon) == 2 and g.deck == "black"


def test_deck_change_when_talon_short():
    g = rigged({"players": 3}, hidden={0: "KS", 1: "2C", 2: "10S"}, talon_len=4)
    ev = play(g, P, P, P)
    assert first(ev, "deck-change") == {"kind": "deck-change", "dealer": 0, "deck": "red", "talon": 52,
                                        "reason": "talon-short"}
    assert g.dealer == 0 and g.deck == "red" and len(g.talon) == 49 and g.to_act == 1
    assert all(c // 13 in (1, 2) for c in g.talon + g.hidden)
    assert g.pot == 6  # the pot stays across the deal change


# ---------------------------------------------------------------- match


def test_player_who_cannot_ante_is_out():
    g = new(3, caves="1,100,100")
    ev = play(g, P, H, P)
    assert first(ev, "out") == {"kind": "out", "seat": 0, "chips": 0}
    assert first(ev, "ante")["seats"] == [1, 2]
    # the coup was played: the deal passed from seat 2 over seat 0 (out) to seat 1, seat 2 speaks
    assert first(ev, "deck-change")["reason"] == "played" and g.dealer == 1
    assert g.in_match == [False, True, True] and g.status[0] == "out" and g.to_act == 2
    assert g.view(1)["hidden"][0] is None and g.hidden[0] is None


def test_dealer_out_of_the_match_passes_the_deal():
    g = new(3, caves="100,100,1")
    ev = play(g, H, P, P)
    assert first(ev, "out")["seat"] == 2
    assert first(ev, "deck-change") == {"kind": "deck-change", "dealer": 0, "deck": "red", "talon": 52,
                                        "reason": "dealer-out"}
    assert g.dealer == 0 and g.to_act == 1 and first(ev, "deal")["order"] == [1, 0]


def test_last_player_with_chips_ends_match():
    g = new(2, caves="1,100")
    ev = play(g, P, H)
    end = first(ev, "match-end")
    assert end["reason"] == "last-player" and g.is_over and g.to_act is None
    r = g.result()
    assert r.scores == (-1, 1) and r.winners == (1,) and r.points == (0.0, 1.0) and r.reason == "last-player"
    assert g.legal_actions() == []
    with pytest.raises(IllegalAction) as err:
        g.apply(P)
    assert err.value.code == "game-over"


def test_match_end_after_tours_shares_leftover_pot_odd_chips_by_primaute():
    # dealer 1 with a short talon: the deal would pass to seat 2, the first dealer -> end (tours 1)
    g = rigged({"players": 3, "tours": 1}, hidden={0: "KS", 1: "2C", 2: "10S"}, talon_len=3, dealer=1, to_act=2,
               pot=11, chips=[97, 96, 96], first_dealer=2)
    ev = play(g, P, P, P)
    end = first(ev, "match-end")
    # pot 11 (8 left over + this coup's 3 antes): 3 each, 2 odd chips to seats 2 then 0 (primauté
    # from the dealer's next seat)
    assert end["reason"] == "tours"
    assert end["shares"] == [{"seat": 0, "amount": 4}, {"seat": 1, "amount": 3}, {"seat": 2, "amount": 4}]
    assert g.chips == [101, 99, 100] and g.pot == 0
    r = g.result()
    assert r.winners == (0,) and r.points == (1.0, 0.0, 0.0) and r.scores == (1, -1, 0)


def test_tours_count_full_rounds_of_the_deal():
    for tours in (1, 2):
        g = new(2, tours=tours, seed=3)
        changes = 0
        while not g.is_over:
            changes += sum(e.kind == "deck-change" for e in g.apply(P))
        assert g.end_reason in ("tours", "last-player")
        if g.end_reason == "tours":
            assert changes == 2 * tours - 1 and g.rounds == tours
    assert sum(g.chips) + g.pot == 200


def test_max_coups_safety():
    g = new(2, max_coups=3)
    play(g, P, P, P, P, P, P)
    assert g.is_over and g.end_reason == "max-coups" and g.coup == 3 and g.chips == [100, 100]
    r = g.result()
    assert r.reason == "max-coups" and g.rounds < g.options["tours"]


def test_max_coups_before_tours_is_reported_and_tours_win_when_both_end():
    # coups played one after the other (the deal passes each time): 2 players, tours 1 -> 2 coups
    g = new(2, tours=1, max_coups=2, seed=4)
    events = []
    while not g.is_over:
        legal = [a.to_data()["type"] for a in g.legal_actions()]
        events += [e.full() for e in g.apply({"type": "hit" if "hit" in legal and g.phase == "speak" else
                                              "stand" if "stand" in legal else "call" if "call" in legal
                                              else "check"})]
    end = first(events, "match-end")
    # the tours end the match at the same moment as max_coups: the result says tours
    assert g.coup == 2 and end["reason"] == "tours" and g.result().reason == "tours"
    assert end["coups"] == 2 and end["rounds"] == 1
    g = new(2, tours=4, max_coups=2, seed=4)
    while not g.is_over:
        legal = [a.to_data()["type"] for a in g.legal_actions()]
        events = [e.full() for e in g.apply({"type": "hit" if "hit" in legal and g.phase == "speak" else
                                             "stand" if "stand" in legal else "call" if "call" in legal
                                             else "check"})]
    end = first(events, "match-end")
    assert end["reason"] == "max-coups" and end["coups"] == 2 and end["rounds"] == 1
    assert g.result().reason == "max-coups"


def test_unequal_caves_winner_goes_by_chips_won_or_lost():
    # RULES "End of the match" [decision]: seat 2 holds the most chips but lost one; seat 1,
    # the single opener, won two: seat 1 wins the match
    g = rigged({"players": 3, "caves": "100,50,200", "max_coups": 1}, hidden={0: "KS", 1: "2C", 2: "10S"},
               dealer=2, to_act=0, first_dealer=2)
    play(g, P, H, P)
    r = g.result()
    assert g.is_over and r.reason == "max-coups"
    assert g.chips == [99, 52, 199] and r.scores == (-1, 2, -1)
    assert r.winners == (1,) and r.points == (0.0, 1.0, 0.0)


def test_deal_passes_after_every_played_coup():
    g = new(3, seed=2)
    d0, deck0 = g.dealer, g.deck
    order = [(d0 + 1 + k) % 3 for k in range(3)]
    acts = {order[0]: P, order[1]: H, order[2]: P}  # one opener: a played coup
    ev = play(g, *[acts[s] for s in order])
    change = first(ev, "deck-change")
    assert change["reason"] == "played" and change["dealer"] == (d0 + 1) % 3
    assert g.dealer == (d0 + 1) % 3 and g.deck != deck0 and len(g.talon) == 52 - 3


# ---------------------------------------------------------------- positions


def test_position_round_trip_continues_identically():
    g = new(4, seed=9)
    bot = get_bot("quinze-classique", "random", 2)
    for _ in range(30):
        g.apply(bot.choose({}, g.legal_actions()))
    pos = g.to_position()
    h = ClassiqueGame.from_position(json.loads(json.dumps(pos)))
    assert h.to_position() == pos and h.opening_events == []
    b1, b2 = get_bot("quinze-classique", "random", 7), get_bot("quinze-classique", "random", 7)
    while not g.is_over:
        e1 = [e.full() for e in g.apply(b1.choose({}, g.legal_actions()))]
        e2 = [e.full() for e in h.apply(b2.choose({}, h.legal_actions()))]
        assert e1 == e2
    assert g.result() == h.result()


@pytest.mark.parametrize(
    "change, field",
    [
        (lambda p: p["chips"].__setitem__(1, -1), "chips[1]"),
        (lambda p: p["chips"].__setitem__(1, p["chips"][1] + 1), "chips"),
        (lambda p: p.__setitem__("phase", "bidding"), "phase"),
        (lambda p: p["talon"].__setitem__(0, "7H"), "talon"),
        (lambda p: p["talon"].__setitem__(0, "RJ"), "talon[0]"),
        (lambda p: p["talon"].__setitem__(0, "ZZ"), "talon[0]"),
        (lambda p: p["talon"].pop(), "talon"),
        (lambda p: p["hidden"].__setitem__(0, None), "hidden[0]"),
        (lambda p: p["status"].__setitem__(0, "asleep"), "status[0]"),
        (lambda p: p.__setitem__("to_act", 9), "to_act"),
        (lambda p: p.__setitem__("deck", "green"), "deck"),
        (lambda p: p.pop("pot"), "pot"),
        (lambda p: p["options"].__setitem__("ante", 0), "options.ante"),
        (lambda p: p.__setitem__("game", "quinze"), "game"),
        (lambda p: p["stakes"].append(1), "stakes"),
    ],
)
def test_bad_positions_name_the_field(change, field):
    pos = new(3).to_position()
    change(pos)
    with pytest.raises(PositionError) as err:
        ClassiqueGame.from_position(pos)
    assert err.value.field == field and err.value.reason


def test_card_too_many_times_is_refused():
    pos = new(2).to_position()
    pos["talon"][0] = pos["talon"][1] = pos["talon"][2]
    with pytest.raises(PositionError) as err:
        ClassiqueGame.from_position(pos)
    assert err.value.field == "talon" and "appears" in err.value.reason


# ---------------------------------------------------------------- bots


def test_threshold_bot_plays_by_its_total():
    g = rigged({"players": 2}, hidden={0: "5S", 1: "KC"}, draws=["QS"])
    bot = get_bot("quinze-classique", "threshold", 0)
    assert bot.choose(g.view(0), g.legal_actions()).to_data() == H  # 5 < 11
    play(g, H)
    assert bot.choose(g.view(1), g.legal_actions()).to_data() == H  # 10 < 11
    play(g, H, CHECK, CHECK, H)  # seat 0: 5 + Q = 15
    assert g.to_act == 0 and bot.choose(g.view(0), g.legal_actions()).to_data() == R(1)


@pytest.mark.parametrize("seed", range(8))
def test_threshold_bots_raise_once_a_coup_and_never_each_other_forever(seed):
    """Two threshold bots holding 14 or 15 used to raise each other by 1 until the chips ran out
    (about 99 raises in one coup): now each raises at most once a coup, then calls."""
    from collections import Counter

    from quinze_protocol.games.classique_actions import Raise

    g = get_game("quinze-classique").new({"players": 2}, seed)
    bots = [get_bot("quinze-classique", "threshold", seed * 7 + k) for k in range(2)]
    raises: Counter = Counter()
    for _ in range(20000):
        if g.is_over:
            break
        seat = g.to_act
        view = g.view(seat)
        action = bots[seat].choose(view, g.legal_actions())
        if isinstance(action, Raise):
            raises[(view.get("coup"), seat)] += 1
        g.apply(action)
    assert g.is_over
    assert max(raises.values(), default=0) <= 1, raises.most_common(3)
