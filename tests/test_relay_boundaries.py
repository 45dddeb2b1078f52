"""The relay keeps games apart and tells bot authors what went wrong (PROTOCOL.md "Game
boundaries"), with real bot programs (tests/bots) and a real server on loopback: a late answer
to an earlier game's request is dropped, never played nor blamed on the bot; a flood of lines
nobody asked for gets one warning per request with its count; a timeout says when a line was
left without its newline, and how late the answer came."""

from __future__ import annotations

import logging
import re
import sys
from pathlib import Path

import pytest
import trio
import forkkit
from netclient import NetClient
from serverkit import autoplay, create, serving

from quinze_cli.botproc import BotProcess
from quinze_cli.client import connect
from quinze_cli.relay import SeatRelay

BOTS = Path(__file__).resolve().parent / "bots"
PY = sys.executable


async def relay_games(port, table, bot_args, tmp_path, *, games, other):
    """Seat 0: the bot program ``bot_args`` through a relay; seat 1: ``other(client)``, a raw
    client's play. Returns (the relay's outcomes, the failures it reported)."""
    failures = []

    async def report(failure):
        failures.append(failure)

    bot = BotProcess([PY, *map(str, bot_args)], stderr_path=tmp_path / "bot.stderr")
    conn = await connect("127.0.0.1", port, "bot0", "bot")
    seat1 = await NetClient.connect(port, "bob")
    outcomes = []
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            await bot.start(nursery)
            relay = SeatRelay(conn, bot, on_failure=report)
            await relay.join(table, 0)
            await seat1.request({"type": "join", "table": table, "seat": 1}, "joined")

            async def play():
                outcomes.extend(await relay.play(table, 0, games=games))

            nursery.start_soon(play)
            await other(seat1)
            nursery.cancel_scope.deadline = trio.current_time() + 10
            while len(outcomes) < games:
                await trio.sleep(0.05)
            await bot.stop(grace=0.5, term_wait=0.5)
            nursery.cancel_scope.cancel()
    await conn.aclose()
    await seat1.aclose()
    return outcomes, failures


@pytest.mark.parametrize("quote", [False, True], ids=["quoting-nothing", "quoting-table-and-request"])
async def test_a_late_answer_to_a_game_another_seat_ended_is_not_played_in_the_next(tmp_path, quote) -> None:
    async with serving() as port:
        ctl = await NetClient.connect(port, "ctl")
        table = await create(ctl, games=2, move_time=5.0)

        async def bob(c):
            await c.expect("game-start", number=1)
            await trio.sleep(0.3)  # seat 0's bot has its request and thinks
            await c.send({"type": "forfeit", "table": table, "reason": "leave-me", "number": 1})
            over = await c.expect("game-over", number=1)
            assert over["forfeit"] == {"seat": 1, "kind": "leave-me"}
            over2 = await autoplay(c, table)  # game 2, while the late answer of game 1 arrives
            assert over2["number"] == 2

        args = [BOTS / "late_answer.py", "1.0", *(["--quote"] if quote else [])]
        outcomes, failures = await relay_games(port, table, args, tmp_path, games=2, other=bob)
        assert failures == [], [f.describe() for f in failures]
        second = outcomes[1].game_over
        assert second.number == 2 and second.forfeit is None  # played to its end by the moves
        assert second.result["reason"] == "said-three"


async def test_a_stale_answer_written_after_a_garbage_line_is_not_played_in_the_next_game(tmp_path) -> None:
    async with serving() as port:
        ctl = await NetClient.connect(port, "ctl")
        table = await create(ctl, games=2, move_time=5.0)

        async def bob(c):
            over = await c.expect("game-over", number=1)
            assert over["forfeit"] == {"seat": 0, "kind": "garbage"}
            await autoplay(c, table)

        args = [BOTS / "late_answer.py", "0.5", "--garbage"]
        outcomes, failures = await relay_games(port, table, args, tmp_path, games=2, other=bob)
        assert [f.kind for f in failures] == ["garbage"] and failures[0].table == table
        second = outcomes[1].game_over
        assert second.number == 2 and second.forfeit is None and outcomes[1].failure is None


async def test_a_flood_of_lines_nobody_asked_for_gets_one_warning_per_request(tmp_path, caplog) -> None:
    caplog.set_level(logging.INFO, logger="quinze.relay")
    async with serving() as port:
        ctl = await NetClient.connect(port, "ctl")
        table = await create(ctl, games=1, move_time=5.0)

        async def bob(c):
            await autoplay(c, table)

        outcomes, failures = await relay_games(port, table, [BOTS / "flood_lines.py", "3000"], tmp_path, games=1, other=bob)
        assert failures == [] and outcomes[0].game_over.forfeit is None
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING and r.name == "quinze.relay"]
    answered = outcomes[0].moves
    assert 1 <= len(warnings) <= answered, warnings[:5]  # one per request at most, not 3000 per request
    assert all("3000 lines nobody asked for" in w for w in warnings), warnings[:3]


async def test_a_timeout_says_which_request_the_ignored_answers_quoted(tmp_path, caplog) -> None:
    # The bot answers, but quoting request N+7: ignored (nobody asked for it), so it times out;
    # the timeout and the warning say what it quoted and what was expected.
    caplog.set_level(logging.INFO, logger="quinze.relay")
    async with serving() as port:
        ctl = await NetClient.connect(port, "ctl")
        table = await create(ctl, games=1, move_time=0.5)

        async def bob(c):
            await c.expect("game-over")

        args = [BOTS / "wrong_request.py", "--plus", "7"]
        outcomes, failures = await relay_games(port, table, args, tmp_path, games=1, other=bob)
    assert [f.kind for f in failures][:1] == ["timeout"]
    reason = outcomes[0].failure.reason
    # whichever clock comes first, the relay's (0.5 s) or the server's (the same move time): the
    # same request and the same note either way
    said = re.search(r"no answer to request (\d+)( in 0.5 s|$| \()", reason)
    assert said is not None, reason
    asked = int(said.group(1))
    assert f"(1 answer quoting request {asked + 7} was ignored)" in reason, reason
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING and r.name == "quinze.relay"]
    assert any("1 line nobody asked for" in w and f": 1 quoting request {asked + 7} while request {asked} was expected"
               in w for w in warnings), warnings


async def test_a_timeout_with_an_unfinished_line_says_to_end_lines_and_flush(tmp_path) -> None:
    async with serving() as port:
        ctl = await NetClient.connect(port, "ctl")
        table = await create(ctl, games=1, move_time=0.5)

        async def bob(c):
            await c.expect("game-over")

        outcomes, failures = await relay_games(port, table, [BOTS / "no_newline.py"], tmp_path, games=1, other=bob)
        assert [f.kind for f in failures][:1] == ["timeout"]
        reason = outcomes[0].failure.reason
        assert "no newline" in reason and "flush" in reason, reason


async def test_a_late_answer_after_a_timeout_says_how_late(tmp_path) -> None:
    async with serving() as port:
        ctl = await NetClient.connect(port, "ctl")
        table = await create(ctl, games=1, move_time=0.5)

        async def bob(c):
            await c.expect("game-over")

        outcomes, failures = await relay_games(port, table, [BOTS / "slow.py", "0.7"], tmp_path, games=1, other=bob)
        assert outcomes[0].failure is not None and outcomes[0].failure.kind == "timeout"
        assert re.search(r"answered \d+\.\d\d s late", outcomes[0].failure.reason), outcomes[0].failure.reason


def test_match_failure_lines_to_a_pipe_are_whole_and_the_json_has_move_times(tmp_path) -> None:
    """``quinze match`` with its stderr a pipe: each failure is one line however long; the results
    JSON gives each bot its mean and longest move time and the moves within 10% of the limit."""
    import json

    quinze = str(Path(PY).parent / "quinze")
    illegal = f"{PY} {BOTS / 'illegal.py'}"
    done = forkkit.run([quinze, "match", illegal, "builtin:random", "--games", "2", "--seed", "5", "--json", "out.json",
                           "--log-dir", "logs", "--option", "target=1"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    lines = [ln for ln in done.stderr.splitlines() if "forfeits" in ln]
    assert lines, done.stderr
    assert all(ln.rstrip().endswith("]") for ln in lines), lines  # the reason's [code] ends the same line
    assert max(len(ln) for ln in lines) > 80
    data = json.loads((tmp_path / "out.json").read_text())
    for bot in data["bots"]:
        t = bot["time"]
        assert {"mean", "max", "near_limit"} <= set(t) and isinstance(t["near_limit"], int)
    assert data["bots"][1]["time"]["near_limit"] == 0 and data["bots"][1]["time"]["moves"] > 0


async def test_a_relay_stalled_past_the_deadline_does_not_forfeit_the_game_that_started_meanwhile(tmp_path) -> None:
    """A real ``quinze bot`` relay (its own process) is stopped (SIGSTOP) while its bot thinks,
    longer than the move time: the server forfeits game 1 and starts game 2; when the relay runs
    again its own deadline for game 1 has passed and it forfeits, naming game 1: the server
    refuses that forfeit (``stale-game``), the bot's late answer to game 1 is dropped, and game
    2 is played to its end by the moves."""
    import signal
    import subprocess

    quinze = str(Path(PY).parent / "quinze")
    async with serving() as port:
        ctl = await NetClient.connect(port, "ctl")
        table = await create(ctl, games=2, move_time=2.0)
        bob = await NetClient.connect(port, "bob")
        await bob.request({"type": "join", "table": table, "seat": 1}, "joined")
        relay = forkkit.Popen([quinze, "bot", "--server", f"127.0.0.1:{port}", "--table", table, "--seat", "0",
                                  "--stderr", str(tmp_path / "bot.stderr"), "--", PY, str(BOTS / "late_answer.py"), "2.5", "--quote"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            await bob.expect("game-start", number=1, timeout=20)  # seat 0 acts first: its bot thinks 2.5 s
            # Stopped halfway to the 2 s deadline: by then the relay has passed the request on (after
            # only 0.2 s, on a loaded machine, it sometimes had not: the bot got game 1's request after
            # the stop, thought its 2.5 s in game 2 and timed out there).
            await trio.sleep(1.0)
            relay.send_signal(signal.SIGSTOP)
            over1 = await bob.expect("game-over", number=1, timeout=10)
            assert over1["forfeit"] == {"seat": 0, "kind": "timeout"}
            await bob.expect("game-start", number=2)
            relay.send_signal(signal.SIGCONT)  # it wakes up past its game-1 deadline
            over2 = await autoplay(bob, table)
            assert over2["number"] == 2 and over2["forfeit"] is None, over2
            assert over2["result"]["reason"] == "said-three"
        finally:
            relay.send_signal(signal.SIGCONT)
            relay.terminate()
            try:
                relay.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                relay.kill()
                relay.communicate()
        await bob.aclose()
