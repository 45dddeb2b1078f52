"""Le 14 (``quatorze``): properties over random games (hypothesis), 2–4 players. quinze_cli/rules/quatorze.md.
The properties every game shares (same seed same game, views, positions, copies, results) are in
tests/test_game_contract.py; these are this game's own (oracles, chips, what a seat may see)."""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quinze_protocol.cards import card_text
from quinze_protocol.game import ActionError, IllegalAction
from quinze_protocol.games.quatorze import QuatorzeGame
from quinze_protocol.games.quatorze_actions import Combine, Discard, Draw, Substitute, sort_cards, value
from quinze_protocol.rng import Rng

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

players = st.integers(min_value=2, max_value=4)
seeds = st.integers(min_value=0, max_value=2**32)


def play(g: QuatorzeGame, rng: Rng, steps: int) -> list[Any]:
    """Random legal play for ``steps`` actions (or to the end); the actions played."""
    done = []
    for _ in range(steps):
        if g.is_over:
            break
        legal = g.legal_actions()
        a = legal[rng.below(len(legal))]
        g.apply(a)
        done.append(a)
    return done


def all_cards(pos: dict[str, Any]) -> Counter[str]:
    c: Counter[str] = Counter()
    for h in pos["hands"]:
        c.update(h)
    for ps in pos["packets"]:
        for p in ps:
            c.update(p)
    for comb in pos["table"]:
        c.update(comb)
    c.update(pos["discard"])
    c.update(pos["stock"])
    return c


TWO_DECKS = Counter([card_text(c) for c in range(52)] * 2)


def layable(cards: list[int]) -> bool:
    """True if ``cards`` split into groups of two or more adding up to 14 (brute force)."""
    if not cards:
        return True
    first, rest = cards[0], cards[1:]
    for k in range(1, len(rest) + 1):
        for sub in itertools.combinations(range(len(rest)), k):
            if value(first) + sum(value(rest[i]) for i in sub) == 14:
                if layable([c for i, c in enumerate(rest) if i not in sub]):
                    return True
    return False


def brute_force_legal(g: QuatorzeGame) -> set[Any]:
    """The legal actions by brute force over subsets (small hands only)."""
    if g.phase == "draw":
        out_draw = {Draw("discard")} if g.discard else set()
        if g.stock or len(g.discard) >= 2:  # an empty stock is refilled from the discard pile
            out_draw.add(Draw("stock"))
        return out_draw
    hand = g.hands[g.seat]
    if g.no_draw == "whole-hand":  # must lay the whole hand: combinations leaving a layable rest
        whole: set[Any] = set()
        for k in range(2, len(hand) + 1):
            for sub in itertools.combinations(hand, k):
                if sum(value(c) for c in sub) == 14:
                    rest = list(hand)
                    for c in sub:
                        rest.remove(c)
                    if layable(rest):
                        whole.add(Combine(sort_cards(sub)))
        return whole
    out: set[Any] = {Discard(c) for c in hand}
    if g.phase == "combine":
        for k in range(2, len(hand) + 1):
            for sub in itertools.combinations(hand, k):
                if sum(value(c) for c in sub) == 14:
                    out.add(Combine(sort_cards(sub)))
    if g.substitutions >= g.options["max_substitutions"]:
        return out
    for i, comb in enumerate(g.table):
        if len(comb) >= 3:
            for pair in itertools.combinations(comb, 2):
                for h in hand:
                    if value(h) == value(pair[0]) + value(pair[1]):
                        out.add(Substitute("hand-for-two", i, hand=(h,), cards=sort_cards(pair)))
                for j, other in enumerate(g.table):
                    for c in other:
                        if j != i and value(c) == value(pair[0]) + value(pair[1]):
                            out.add(Substitute("between", i, cards=sort_cards(pair), other=j, card=c))
        for c in comb:
            for pair in itertools.combinations(hand, 2):
                if value(pair[0]) + value(pair[1]) == value(c):
                    out.add(Substitute("two-for-one", i, hand=sort_cards(pair), card=c))
    return out


@SETTINGS
@given(players, seeds, st.integers(min_value=0, max_value=300))
def test_cards_conserved_and_legal_complete(n: int, seed: int, steps: int) -> None:
    g = QuatorzeGame.new({"players": n}, seed)
    rng = Rng(seed + 1)
    for _ in range(steps):
        if g.is_over:
            break
        pos = g.to_position()
        assert all_cards(pos) == TWO_DECKS
        legal = g.legal_actions()
        assert len(set(legal)) == len(legal)
        if len(g.hands[g.seat]) <= 12:
            assert set(legal) == brute_force_legal(g)
        g.apply(legal[rng.below(len(legal))])
    assert all_cards(g.to_position()) == TWO_DECKS


card_texts = st.sampled_from([card_text(c) for c in range(52)] + ["XX", "RJ"])
small = st.integers(min_value=0, max_value=6)
action_data = st.one_of(
    st.fixed_dictionaries({"type": st.just("draw"), "from": st.sampled_from(["stock", "discard", "table"])}),
    st.fixed_dictionaries({"type": st.just("combine"), "cards": st.lists(card_texts, min_size=0, max_size=5)}),
    st.fixed_dictionaries({"type": st.just("discard"), "card": card_texts}),
    st.fixed_dictionaries(
        {"type": st.just("substitute"), "kind": st.just("hand-for-two"), "hand": card_texts, "combination": small, "cards": st.lists(card_texts, min_size=2, max_size=2)}
    ),
    st.fixed_dictionaries(
        {"type": st.just("substitute"), "kind": st.just("two-for-one"), "hand": st.lists(card_texts, min_size=2, max_size=2), "combination": small, "card": card_texts}
    ),
    st.fixed_dictionaries(
        {"type": st.just("substitute"), "kind": st.just("between"), "combination": small, "cards": st.lists(card_texts, min_size=2, max_size=2), "other": small, "card": card_texts}
    ),
)


@SETTINGS
@given(players, seeds, st.integers(min_value=0, max_value=200), st.lists(action_data, min_size=1, max_size=8), st.data())
def test_illegal_actions_refused_state_unchanged(n: int, seed: int, steps: int, tries: list[dict[str, Any]], data: st.DataObject) -> None:
    g = QuatorzeGame.new({"players": n}, seed)
    play(g, Rng(seed), steps)
    # aim some tries at real cards: the hand and the table
    if not g.is_over:
        hand = [card_text(c) for c in g.hands[g.seat]]
        table = [card_text(c) for comb in g.table for c in comb]
        near = st.sampled_from(hand + table)
        for t in tries:
            for k in ("hand", "card"):
                if k in t and isinstance(t[k], str) and data.draw(st.booleans()):
                    t[k] = data.draw(near)
            for k in ("cards", "hand"):
                if k in t and isinstance(t[k], list):
                    t[k] = [data.draw(near) if data.draw(st.booleans()) else c for c in t[k]]
    for t in tries:
        before = g.to_position()
        legal = set(g.legal_actions())
        try:
            a = g.parse_action(t)
        except ActionError:
            continue
        if a in legal:
            g.apply(a)
        else:
            try:
                g.apply(t)
            except IllegalAction as err:
                assert err.code and err.reason
            else:
                raise AssertionError(f"accepted an action not in the legal list: {t}")
            assert g.to_position() == before


@settings(max_examples=15, deadline=None)
@given(players, seeds, st.integers(min_value=5, max_value=120))
def test_every_game_ends(n: int, seed: int, max_turns: int) -> None:
    g = QuatorzeGame.new({"players": n, "max_turns": max_turns}, seed)
    rng = Rng(seed)
    steps = 0
    while not g.is_over:
        legal = g.legal_actions()
        assert legal
        g.apply(legal[rng.below(len(legal))], checked=False)
        steps += 1
        assert g.turns <= max_turns and steps < 200 * max_turns
    r = g.result()
    assert r is not None and r.reason in ("out", "max-turns")
    assert abs(sum(r.points) - 1.0) < 1e-9 and r.winners
    assert list(r.scores) == [float(x) for x in g.cards_left()]
    assert r.reason == "out" or g.turns == max_turns
    pos = g.to_position()
    back = QuatorzeGame.from_position(pos)
    assert back.to_position() == pos and back.result() == r
