"""The search bot under a real table clock and a real heartbeat (issue 13 §2): a time-budgeted
``builtin:mcts`` at ``--concurrency 2`` answers every request within the table's clock, and
while it thinks the other connections of the same process keep answering the server's pings.

The search runs in a worker thread (quinze_cli.builtin); run in the event loop, as it once
was, a search longer than three heartbeats froze every connection of the ``quinze match``
process and the embedded server dropped the idle ones ("no pong for 36.5 s" in a Le 14
tournament). Here the heartbeat is short (0.2 s: a client silent for 0.6 s is dropped) and
every search lasts 0.8 s, so a search in the loop would lose the opponent's connection in the
first game. No duration is asserted: the clock (10 s a decision) is the margin. (Each search
spins a core for its whole budget: 0.8 s, not the 1.5 s of a 0.4 s heartbeat, halves the CPU
of the test for the same ratio of search to heartbeat.)

The other cause of lost connections in the ladder runs: in a round robin a bot sits out while
the others play, and nothing read its connection meanwhile, so the server dropped it after
three heartbeats and its next game failed ("connection lost while sending"). The match runner
now reads the connections of the bots sitting out (quinze_cli.matchrun)."""

from __future__ import annotations

import trio

from quinze_cli.matchrun import MatchConfig, MatchRunner, parse_bot_spec, validate_options
from quinze_cli.schedule import GamePlan
from quinze_protocol.replaylog import read_log
from quinze_protocol.replaysim import verify
from quinze_server.app import run_server
from quinze_server.config import ServerConfig


async def test_time_budgeted_mcts_never_forfeits_and_keeps_the_others_connected(tmp_path):
    game = "quinze-classique"
    specs = []
    for b in ["builtin:mcts@0.8s", "builtin:threshold"]:
        specs.append(parse_bot_spec(b, game, [s.name for s in specs]))
    options = validate_options(game, {"cave": "3", "tours": "1"}, None, 2)
    failures = []

    async def on_failure(bot, plan, failure):
        failures.append((plan.index, bot, failure.kind, failure.reason))

    async with trio.open_nursery() as nursery:
        port = await nursery.start(run_server, ServerConfig(host="127.0.0.1", port=0, log_dir=None, heartbeat=0.2))
        cfg = MatchConfig(game=game, bots=specs, games=2, seed=21, options=options, log_dir=tmp_path,
                          concurrency=2, move_time=10.0, duplicate=True, server=("127.0.0.1", port))
        runner = MatchRunner(cfg, on_failure=on_failure)
        with trio.fail_after(300):
            stats = await runner.run()
        nursery.cancel_scope.cancel()
    assert failures == []
    assert stats.games == 2 and all(not b.forfeits for b in stats.bots)
    result = read_log(runner.log_path.read_text())
    assert len(result.games) == 2 and result.problems == []
    for g in result.games:
        assert verify(g) is None and not g.result["forfeit"]
    assert any(len(g.actions) > 4 for g in result.games)  # the search bot had decisions to make


async def test_a_bot_sitting_out_for_many_heartbeats_keeps_its_connection(tmp_path):
    """A round robin's order (A-C, then A-B twice, then C-B): C waits through two games of
    searches of 0.3 s each, several times the 0.6 s after which a silent client is dropped."""
    game = "quinze-classique"
    specs = []
    for b in ["builtin:mcts@0.3s", "builtin:threshold", "builtin:random"]:
        specs.append(parse_bot_spec(b, game, [s.name for s in specs]))
    options = validate_options(game, {"cave": "3", "tours": "1"}, None, 2)
    plans = [GamePlan(0, 5, (0, 2)), GamePlan(1, 6, (0, 1)), GamePlan(2, 6, (1, 0)), GamePlan(3, 5, (2, 1))]
    async with trio.open_nursery() as nursery:
        port = await nursery.start(run_server, ServerConfig(host="127.0.0.1", port=0, log_dir=None, heartbeat=0.2))
        cfg = MatchConfig(game=game, bots=specs, games=4, seed=5, options=options, log_dir=tmp_path,
                          move_time=10.0, server=("127.0.0.1", port))
        runner = MatchRunner(cfg, plans=plans)
        with trio.fail_after(300):
            stats = await runner.run()
        nursery.cancel_scope.cancel()
    assert stats.games == 4 and [b.games for b in stats.bots] == [3, 3, 2]
