"""The search bot ``mcts`` (quinze_protocol.search): legal in whole games of every game, reproducible
for a seed and an iteration budget, budgets readable by name, and usable as ``builtin:mcts`` in
a real ``quinze match`` (embedded server, real TCP)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from quinze_protocol.game import GameError, bot_names, get_bot, get_game, is_bot_name
from quinze_protocol.search.bots import LEVELS, MctsBot
from searchkit import assert_plays_as
import forkkit

QUINZE = str(Path(sys.executable).parent / "quinze")
SMALL = {"quinze": {"target": 15}, "quatorze": {"max_turns": 60}, "quinze-classique": {"cave": 6}}


def play(game_id, names, seed, options):
    """One whole game in process, every action checked; the bots see views and their events."""
    n = len(names)
    g = get_game(game_id).new(dict(options, players=n), seed)
    bots = [get_bot(game_id, names[s], seed * 31 + s) for s in range(n)]
    for e in g.opening_events:
        for s in range(n):
            bots[s].observe(e.for_seat(s))
    moves = []
    while not g.is_over:
        s = g.to_act
        a = bots[s].choose(g.view(s), g.legal_actions())
        moves.append(a.to_data())
        for e in g.apply(a):  # checked: an illegal choice raises
            for t in range(n):
                bots[t].observe(e.for_seat(t))
    return moves, g.result()


@pytest.mark.parametrize("game_id", sorted(SMALL))
def test_mcts_plays_whole_games_legally_and_reproducibly(game_id: str) -> None:
    first = play(game_id, ["mcts@12", "random"], 3, SMALL[game_id])
    again = play(game_id, ["mcts@12", "random"], 3, SMALL[game_id])
    assert first[0] == again[0] and first[1] == again[1]


@pytest.mark.parametrize("game_id", sorted(SMALL))
def test_every_game_has_the_levels_and_budgets(game_id: str) -> None:
    names = bot_names(game_id)
    assert {"mcts", "mcts-easy", "mcts-hard", "mcts@N"} <= set(names)
    assert get_bot(game_id, "mcts", 0).iterations == LEVELS["normal"]
    assert get_bot(game_id, "mcts-hard", 0).iterations == LEVELS["hard"]
    bot = get_bot(game_id, "mcts@0.05s", 0)
    assert isinstance(bot, MctsBot) and bot.seconds == 0.05
    assert is_bot_name(game_id, "mcts@400") and not is_bot_name(game_id, "mcts@fast")
    with pytest.raises(GameError) as err:
        get_bot(game_id, "mcts@0", 0)
    assert err.value.field == "bot" and "iterations" in err.value.reason


def test_a_time_budget_stops_the_search_on_the_clock() -> None:
    g = get_game("quinze").new({"players": 2}, 11)
    bot = get_bot("quinze", "mcts@0.02s", 0)
    while len(g.legal_actions()) < 2:
        g.apply(g.legal_actions()[0])
    bot.choose(g.view(g.to_act), g.legal_actions())
    assert 1 <= bot.last_stats["iterations"] < 100_000


def test_mcts_beats_random_at_le_quinze() -> None:
    """A sanity check of strength, not a measurement (docs/bots.md has those): 6 short matches
    with the seats swapped."""
    won = 0.0
    for seed in range(3):
        won += play("quinze", ["mcts@40", "random"], seed, {"target": 20})[1].points[0]
        won += play("quinze", ["random", "mcts@40"], seed, {"target": 20})[1].points[1]
    assert won >= 4


def test_builtin_mcts_in_a_real_match(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    proc = forkkit.run(
        [QUINZE, "match", "builtin:mcts@10", "builtin:threshold", "--game",
         "quinze-classique", "--games", "2", "--seed", "4", "--option", "cave=5", "--log-dir", str(tmp_path),
         "--json", str(out)],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads(out.read_text())
    text = json.dumps(data)
    assert "mcts@10" in text and "forfeit" in text
    logs = list(tmp_path.glob("match-*.jsonl"))
    verify = forkkit.run([QUINZE, "replay", "--verify", str(logs[0])],
                            capture_output=True, text=True, timeout=120)
    assert verify.returncode == 0, verify.stdout + verify.stderr


def test_le_14_search_with_greedys_prior_and_one_iteration_plays_greedys_move() -> None:
    """With ``prior=greedy`` the Le 14 search's first move is greedy's (up to suits, which never
    matter): with one iteration it plays as greedy (docs/bots.md; by default the first move is
    the planner's, tests/test_plan_quatorze.py)."""
    from quinze_cli.bench.duel import make_bot

    for seed in range(3):
        g = get_game("quatorze").new({"players": 2}, seed)
        mcts = [make_bot("quatorze", "mcts@1", s, {"prior": "greedy", "planned_turn": False}) for s in range(2)]
        assert_plays_as(g, mcts, get_bot("quatorze", "greedy", 0))


def test_le_14_search_has_a_bias_by_table_size() -> None:
    """The Le 14 search's progressive bias has a value for two seats and one for larger tables
    (docs/bots.md, "Le 14 at three seats"); other games keep the model's bias."""
    from quinze_protocol.search.models import model_for

    m = model_for("quatorze")
    two, three = (get_game("quatorze").new({"players": n}, 1) for n in (2, 3))
    assert m.bias_at(two) == m.bias == 5.0
    assert m.bias_at(three) == m.bias_large == 5.0
    q = model_for("quinze")
    assert q.bias_at(get_game("quinze").new({"players": 4}, 1)) == q.bias
