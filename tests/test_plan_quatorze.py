"""The Le 14 turn planner (quinze_protocol.search.plan_quatorze): its steps are legal, it never
ends a turn with more cards than greedy's line, it finds substitution chains greedy misses, it
sees only the seat's view, and it is the first move of the Le 14 search (docs/bots.md)."""

from __future__ import annotations

from typing import Any

import pytest

from quinze_cli.bench.duel import duel
from quinze_protocol.game import get_bot, get_game
from quinze_protocol.games.quatorze_actions import sort_cards
from quinze_protocol.rng import Rng
from quinze_protocol.search.plan_quatorze import PlannerBot, game_plan, most_laid, plan_turn
from searchkit import assert_plays_as


def _turn_end(g: Any, bot: Any) -> int:
    """Play the seat to act's turn to its end with ``bot`` on a copy: the cards it then has left."""
    g = g.copy()
    seat, turns = g.seat, g.turns
    while not g.is_over and g.turns == turns:
        g.apply(bot.choose(g.view(seat), g.legal_actions()))
    return g.cards_left()[seat]


def _positions(seeds: range, players: int = 2):
    """Every decision after a draw in seeded games of greedy against itself."""
    for seed in seeds:
        g = get_game("quatorze").new({"players": players}, seed)
        greedy = get_bot("quatorze", "greedy", 0)
        while not g.is_over:
            if g.phase == "combine" and g.no_draw is None:
                yield g
            g.apply(greedy.choose(g.view(g.seat), g.legal_actions()))


@pytest.mark.parametrize("players, seed", [(p, s) for p in (2, 3, 4) for s in range(4)])
def test_every_planned_step_is_legal_and_whole_games_end(players: int, seed: int) -> None:
    # One game a test (a 4-seat game is up to 3 s of planning): the suite's workers share them out.
    g = get_game("quatorze").new({"players": players}, seed)
    bots = [PlannerBot(s) for s in range(players)]
    while not g.is_over:
        s = g.to_act
        legal = g.legal_actions()
        a = bots[s].choose(g.view(s), legal)
        assert a in legal
        g.apply(a)
    assert g.turns < 1000


def test_the_planner_never_ends_a_turn_with_more_cards_than_greedy_and_sometimes_fewer() -> None:
    planner, greedy = PlannerBot(0), get_bot("quatorze", "greedy", 0)
    fewer = 0
    for g in _positions(range(30)):
        p, q = _turn_end(g, planner), _turn_end(g, greedy)
        assert p <= q, g.to_position()
        fewer += p < q
    assert fewer > 0


def test_a_hand_for_two_that_opens_more_two_for_one_substitutions() -> None:
    """Hand 3, 5, K and the table A-2-J, 2-Q, 5-9, 7-7 (a position of a seeded game): greedy
    finds no substitution and ends with two cards. The planner first gives the K for the 2
    and the J (the hand grows to four cards), and the substitutions these open end the turn
    with one card."""
    hand, table = (3, 5, 13), ((1, 2, 11), (2, 12), (5, 9), (7, 7))
    value, first = plan_turn(hand, table)
    assert first == ("H", 13, 0, (2, 11))
    greedy_line = plan_turn(hand, table, non_shedding=0)
    assert greedy_line[1] == ("D", 13)
    assert (round(-value), round(-greedy_line[0])) == (1, 2)  # cards left in hand (values carry a hand score below 1)


def test_most_laid_counts_disjoint_combinations() -> None:
    assert most_laid((5, 7, 7, 9)) == 4
    assert most_laid((1, 13, 13)) == 2
    assert most_laid((2, 3, 4)) == 0


def test_the_planner_reads_only_the_view() -> None:
    """Two games that differ only in what the seat cannot see (the other hands, the packets, the
    stock's order) show the seat the same view and get the same planned move."""
    for n, g in enumerate(_positions(range(3))):
        if n >= 20:
            break
        seat = g.seat
        other = g.copy()
        hidden = [c for s, h in enumerate(other.hands) if s != seat for c in h] + other.stock
        for ps in other.packets:
            for p in ps:
                hidden += p
        Rng(n).shuffle(hidden)
        k = 0
        for s, h in enumerate(other.hands):
            if s != seat:
                other.hands[s] = list(sort_cards(hidden[k:k + len(h)]))
                k += len(h)
        for ps in other.packets:
            for i, p in enumerate(ps):
                ps[i] = list(sort_cards(hidden[k:k + len(p)]))
                k += len(p)
        other.stock = hidden[k:]
        assert other.view(seat) == g.view(seat)
        assert game_plan(g) == game_plan(other)
        legal = g.legal_actions()
        assert PlannerBot(0).choose(g.view(seat), legal) == PlannerBot(0).choose(other.view(seat), legal)


@pytest.mark.parametrize("players", [2, 3])
def test_le_14_search_with_one_iteration_plays_the_planners_move(players: int) -> None:
    """With the planner as its prior, ``mcts@1`` expands only its first searched move, the
    planner's (docs/bots.md)."""
    for seed in range(2):
        g = get_game("quatorze").new({"players": players}, seed)
        assert_plays_as(g, [get_bot("quatorze", "mcts@1", s) for s in range(players)], PlannerBot(0))


def test_the_duel_runner_seats_the_planner() -> None:
    a = duel("quatorze", "planner", "greedy", seed=5, deals=2)
    b = duel("quatorze", "planner", "greedy", seed=5, deals=2)
    assert (a["score"], a["games"]) == (b["score"], 4)
