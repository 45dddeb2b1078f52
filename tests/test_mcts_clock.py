"""The search bot under a real table clock and a real heartbeat (issue 13 §2): a time-budgeted
``builtin:mcts`` at ``--concurrency 2`` answers every request within the table's clock, and
while it thinks the other connections of the same process keep answering the server's pings.

The search runs in a worker thread (quinze_cli.builtin); run in the event loop, as it once
was, a search longer than three heartbeats froze every connection of the ``quinze match``
process and the embedded server dropped the idle ones ("no pong for 36.5 s" in a Le 14
tournament). Here the heartbeat is short (0.4 s: a client silent for 1.2 s is dropped) and
every search lasts 1.5 s, so a search in the loop would lose the opponent's connection in the
first game. No duration is asserted: the clock (10 s a decision) is the margin."""

from __future__ import annotations

import trio

from quinze_cli.matchrun import MatchConfig, MatchRunner, parse_bot_spec, validate_options
from quinze_protocol.replaylog import read_log, verify
from quinze_server.app import run_server
from quinze_server.config import ServerConfig


async def test_time_budgeted_mcts_never_forfeits_and_keeps_the_others_connected(tmp_path):
    game = "quinze-classique"
    specs = []
    for b in ["builtin:mcts@1.5s", "builtin:threshold"]:
        specs.append(parse_bot_spec(b, game, [s.name for s in specs]))
    options = validate_options(game, {"cave": "3", "tours": "1"}, None, 2)
    failures = []

    async def on_failure(bot, plan, failure):
        failures.append((plan.index, bot, failure.kind, failure.detail))

    async with trio.open_nursery() as nursery:
        port = await nursery.start(run_server, ServerConfig(host="127.0.0.1", port=0, log_dir=None, heartbeat=0.4))
        cfg = MatchConfig(game=game, bots=specs, games=4, seed=21, options=options, log_dir=tmp_path,
                          concurrency=2, move_time=10.0, duplicate=True, server=("127.0.0.1", port))
        runner = MatchRunner(cfg, on_failure=on_failure)
        with trio.fail_after(300):
            stats = await runner.run()
        nursery.cancel_scope.cancel()
    assert failures == []
    assert stats.games == 4 and all(not b.forfeits for b in stats.bots)
    result = read_log(runner.log_path.read_text())
    assert len(result.games) == 4 and result.problems == []
    for g in result.games:
        assert verify(g) is None and not g.result["forfeit"]
    assert any(len(g.actions) > 4 for g in result.games)  # the search bot had decisions to make
