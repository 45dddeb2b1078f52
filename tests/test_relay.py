"""The relay, the bot subprocess and the client, against the real server on loopback with real
bot programs (examples/bots, tests/bots): one game per test, each failure reported with its kind."""

from __future__ import annotations

import math
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio

from quinze_protocol.messages import TableCreated
from quinze_cli.botproc import BotExited, BotProcess, describe_exit
from quinze_cli.builtin import BuiltinBot
from quinze_cli.client import ConnectError, connect, parse_address
from quinze_cli.relay import SeatRelay
from quinze_server.app import run_server
from quinze_server.config import ServerConfig
import forkkit
from clikit import alive

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "bots"
BOTS = ROOT / "tests" / "bots"
PY = sys.executable


@pytest.fixture
async def port(nursery):
    return await nursery.start(run_server, ServerConfig(port=0, log_dir=None))


async def play_one(port, bots, *, move_time=5.0, seed=1, tmp_path=None, **relay_kw):
    """Create a 2-seat quinze table and relay one game for each of ``bots`` (seat = index).

    Returns (outcomes by seat, failures reported through on_failure, the endpoints)."""
    ctl = await connect("127.0.0.1", port, "ctl", "player")
    await ctl.send({"type": "create-table", "game": "quinze", "options": {"players": len(bots), "target": 1}, "seed": seed,
                    "games": 1, "move_time": move_time})
    created = await ctl.receive()
    assert isinstance(created, TableCreated)
    table = created.table.table
    outcomes, failures = {}, []

    async def report(failure):
        failures.append(failure)

    async def seat(i, bot):
        conn = await connect("127.0.0.1", port, f"seat{i}", "bot")
        async with trio.open_nursery() as nursery:
            await bot.start(nursery)
            relay = SeatRelay(conn, bot, on_failure=report, **relay_kw)
            joined = await relay.join(table, i)
            assert joined.seat == i
            outcomes[i] = (await relay.play(table, i))[0]
            await bot.stop(grace=0.5, term_wait=0.5)
        await conn.aclose()

    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            for i, bot in enumerate(bots):
                nursery.start_soon(seat, i, bot)
    await ctl.aclose()
    return outcomes, failures


def program(path, *args, tmp_path=None, **kw):
    stderr = tmp_path / f"{Path(path).stem}.stderr" if tmp_path is not None else None
    return BotProcess([PY, str(path), *args], stderr_path=stderr, **kw)


async def test_program_against_builtin_plays_a_whole_game(port, tmp_path):
    bot = program(EXAMPLES / "random_bot.py", tmp_path=tmp_path)
    outcomes, failures = await play_one(port, [bot, BuiltinBot("greedy")])
    assert failures == []
    over0, over1 = outcomes[0].game_over, outcomes[1].game_over
    assert over0 is not None and over0.forfeit is None
    assert over0.to_data() == over1.to_data()
    assert over0.result["reason"] != "forfeit" and len(over0.actions) > 10
    assert outcomes[0].game_start.seat == 0 and outcomes[1].game_start.seat == 1
    assert bot.returncode == 0  # closing stdin was enough: it left on its own


async def test_msgpack_wire_fills_in_the_table(port, tmp_path):
    bot = program(BOTS / "msgpack_random.py", tmp_path=tmp_path, wire="msgpack")
    outcomes, failures = await play_one(port, [BuiltinBot("random"), bot])
    assert failures == [] and outcomes[1].game_over.forfeit is None
    assert any(a.seat == 1 for a in outcomes[1].game_over.actions)


async def test_crlf_line_endings_are_accepted(port, tmp_path):
    outcomes, failures = await play_one(port, [BuiltinBot("random"), program(BOTS / "crlf.py", tmp_path=tmp_path)])
    assert failures == [] and outcomes[0].game_over.forfeit is None


@pytest.mark.parametrize(
    ("script", "args", "kind", "started"),
    [
        ("garbage.py", (), "garbage", True),
        ("huge_number.py", (), "garbage", True),
        ("long_line.py", (), "garbage", True),
        ("illegal.py", (), "illegal", True),
        ("exit_midgame.py", ("2",), "crash", True),
        ("never_flush.py", (), "timeout", True),
        ("slow.py", ("1.5",), "timeout", True),
    ],
)
async def test_a_broken_bot_forfeits_with_its_kind(port, tmp_path, script, args, kind, started):
    bot = program(BOTS / script, *args, tmp_path=tmp_path)
    move_time = 0.5 if kind == "timeout" else 10.0  # a loaded machine must not turn other kinds into timeouts
    outcomes, failures = await play_one(port, [BuiltinBot("random"), bot], move_time=move_time)
    over = outcomes[0].game_over
    assert over.forfeit is not None and over.forfeit.seat == 1 and over.forfeit.kind == kind
    assert over.result["reason"] == "forfeit" and over.result["points"] == [1.0, 0.0]
    assert [f.kind for f in failures] == [kind] and failures[0].seat == 1
    assert failures[0].started is started
    assert outcomes[1].failure is not None and outcomes[1].failure.kind == kind
    assert outcomes[0].failure is None
    assert not alive(bot.pid)


async def test_crash_reports_exit_code_and_stderr(port, tmp_path):
    bot = program(BOTS / "exit_midgame.py", "1", tmp_path=tmp_path)
    _, failures = await play_one(port, [BuiltinBot("random"), bot])
    assert failures[0].kind == "crash" and failures[0].restart
    assert "exited with code 1" in failures[0].reason
    assert "exit_midgame: exiting with code 1" in failures[0].reason


async def test_the_stderr_tail_is_read_after_the_pipe_is_drained(port, tmp_path):
    """The bot's last stderr line is still in the pipe when it exits: the tail waits for the copy."""
    for _ in range(2):
        bot = program(BOTS / "last_words.py", tmp_path=tmp_path)
        _, failures = await play_one(port, [bot, BuiltinBot("random")])
        assert failures[0].kind == "crash" and "exited with code 1" in failures[0].reason
        assert failures[0].reason.endswith("stderr ends with: last_words: the very last line"), failures[0].reason


async def test_a_killed_bot_is_described_as_killed_not_as_a_reader(port, tmp_path):
    bot = program(BOTS / "kill_self.py", tmp_path=tmp_path)
    _, failures = await play_one(port, [BuiltinBot("random"), bot])
    assert [f.kind for f in failures] == ["crash"]
    assert failures[0].reason == "the program was killed by signal SIGKILL"


async def test_exit_before_start_is_a_crash(port, tmp_path):
    bot = program(BOTS / "exit_before_start.py", tmp_path=tmp_path)
    outcomes, failures = await play_one(port, [bot, BuiltinBot("random")])
    assert outcomes[1].game_over.forfeit.to_data() == {"seat": 0, "kind": "crash"}
    assert failures[0].kind == "crash" and "exited with code 3" in failures[0].reason


async def test_illegal_after_retries_when_more_refusals_are_allowed(port, tmp_path):
    bot = program(BOTS / "illegal.py", tmp_path=tmp_path)
    outcomes, failures = await play_one(port, [BuiltinBot("random"), bot], move_time=1.0, max_refused=2)
    # illegal.py never retries: with 2 refusals allowed the relay waits, then times out.
    assert [f.kind for f in failures] == ["timeout"]


async def test_stderr_flood_is_capped_and_the_game_goes_on(port, tmp_path):
    bot = program(BOTS / "flood_stderr.py", "2", tmp_path=tmp_path, stderr_cap=100_000)
    outcomes, failures = await play_one(port, [bot, BuiltinBot("random")])
    assert failures == [] and outcomes[0].game_over.forfeit is None
    data = bot.stderr_path.read_bytes()
    assert 100_000 < len(data) < 100_200
    assert data.endswith(b"[quinze: stderr truncated after 100000 bytes]\n")


async def test_stop_kills_the_whole_process_group(tmp_path):
    pidfile = tmp_path / "child.pid"
    script = tmp_path / "stubborn.py"
    script.write_text(
        "import pathlib, signal, subprocess, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"pathlib.Path({str(pidfile)!r}).write_text(str(child.pid))\n"
        "time.sleep(60)\n"
    )
    bot = BotProcess([PY, str(script)], stderr_path=tmp_path / "err.log")
    async with trio.open_nursery() as nursery:
        await bot.start(nursery)
        with trio.fail_after(10):
            while not pidfile.exists() or not pidfile.read_text():
                await trio.sleep(0.05)
        child = int(pidfile.read_text())
        assert alive(bot.pid) and alive(child)
        rc = await bot.stop(grace=0.1, term_wait=0.2)
    assert rc == -signal.SIGKILL and describe_exit(rc) == "killed by signal SIGKILL"
    assert not alive(bot.pid)
    with trio.fail_after(5):
        while alive(child):  # orphaned to init, reaped once killed
            await trio.sleep(0.05)


async def test_a_program_that_cannot_start_is_reported(tmp_path):
    bot = BotProcess([str(tmp_path / "no-such-program")])
    async with trio.open_nursery() as nursery:
        with pytest.raises(BotExited, match="cannot start"):
            await bot.start(nursery)


async def test_garbage_lines_are_reported_and_reading_goes_on(tmp_path):
    bot = BotProcess([PY, "-c", "print('hello'); print('[1]'); print('{\"x\": 1}'); print('{\"type\": \"action\"}')"],
                     stderr_path=tmp_path / "e.log")
    async with trio.open_nursery() as nursery:
        await bot.start(nursery)
        errors = []
        for _ in range(3):
            with pytest.raises(Exception) as info:
                await bot.receive()
            errors.append(info.value)
        assert [e.kind for e in errors] == ["garbage"] * 3
        assert await bot.receive() == {"type": "action"}
        with pytest.raises(BotExited, match="exited with code 0"):
            await bot.receive()
        await bot.stop()


async def test_an_over_long_line_is_skipped_and_reading_goes_on(tmp_path):
    script = ("import sys; w = sys.stdout.buffer.write; w(b'{\"type\": \"a\"}\\n' + b'x' * 3000 + b'\\r\\n');"
              "w(b'{\"type\": \"b\"}\\r\\n' + b'y' * 2048 + b'\\r\\n' + b'z' * 5000); sys.stdout.flush();"
              "w(b'\\n{\"type\": \"c\"}\\n')")
    bot = BotProcess([PY, "-c", script], stderr_path=tmp_path / "e.log", max_frame=2048)
    async with trio.open_nursery() as nursery:
        await bot.start(nursery)
        assert await bot.receive() == {"type": "a"}
        with pytest.raises(Exception) as info:
            await bot.receive()
        assert info.value.kind == "garbage" and not info.value.fatal and "longer than the limit" in info.value.reason
        assert await bot.receive() == {"type": "b"}
        with pytest.raises(Exception) as info:  # 2048 bytes and \r\n: at the limit, read as a line (not JSON)
            await bot.receive()
        assert "not-json" in info.value.reason
        with pytest.raises(Exception) as info:
            await bot.receive()
        assert "longer than the limit" in info.value.reason
        assert await bot.receive() == {"type": "c"}
        with pytest.raises(BotExited):
            await bot.receive()
        await bot.stop()


async def test_connect_errors_are_clear():
    with pytest.raises(ConnectError, match="cannot reach 127.0.0.1:1"):
        await connect("127.0.0.1", 1, "x", "bot")
    with pytest.raises(ConnectError, match="name"):
        await connect("127.0.0.1", 1, "", "bot")


def test_parse_address():
    assert parse_address("localhost:1234") == ("localhost", 1234)
    assert parse_address(":99") == ("127.0.0.1", 99)
    assert parse_address("[::1]:5") == ("::1", 5)
    assert parse_address("example.org") == ("example.org", 15015)
    for bad in ("h:0", "h:x", "h:70000", ""):
        with pytest.raises(ValueError):
            parse_address(bad)


async def test_quinze_bot_command_creates_joins_and_exits_zero(port):
    quinze = [str(Path(PY).parent / "quinze")]
    first = await trio.lowlevel.open_process(
        quinze + ["bot", "--server", f"127.0.0.1:{port}", "--create", "quinze", "--games", "2", "--seed", "4",
                  "--option", "target=1",
                  "--", PY, str(EXAMPLES / "random_bot.py")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    with trio.fail_after(30):
        table = (await first.stdout.receive_some(100)).decode().strip()
        assert re.fullmatch(r"[a-z2-9]{4}-t\d+", table)  # <server run>-t<N>
        second = await trio.run_process(
            quinze + ["bot", "--server", f"127.0.0.1:{port}", "--table", table, "--", "builtin:greedy"],
            capture_stdout=True, capture_stderr=True, check=False,
        )
        assert second.returncode == 0, second.stderr
        assert b"closed after 2 game(s)" in second.stderr
        assert await first.wait() == 0


@pytest.mark.parametrize("seed", ["999999999999999999999999", "-1"])
def test_quinze_bot_refuses_a_seed_beyond_63_bits(seed):
    from typer.testing import CliRunner

    from quinze_cli.app import app

    # Port 9 (discard): nothing listens; the seed must be refused before any connection.
    done = CliRunner().invoke(app, ["bot", "--server", "127.0.0.1:9", "--create", "quinze", "--seed", seed,
                                    "--", "builtin:random"])
    assert done.exit_code == 2, done.output
    assert "--seed must be in 0 .. 2**63-1" in " ".join(done.output.split())
    assert done.exception is None or isinstance(done.exception, SystemExit)


async def test_quinze_bot_reports_a_refused_join(port):
    quinze = str(Path(PY).parent / "quinze")
    with trio.fail_after(30):
        done = await trio.run_process([quinze, "bot", "--server", f"127.0.0.1:{port}", "--table", "t404", "--",
                                       "builtin:random"], capture_stdout=True, capture_stderr=True, check=False)
    assert done.returncode == 1
    assert b"cannot join table t404" in done.stderr and b"unknown-table" in done.stderr


async def test_receive_answers_pings_so_the_server_keeps_the_connection(nursery, autojump_clock):
    # trio's mock clock: twelve heartbeats of 10 s in no real time
    port = await nursery.start(run_server, ServerConfig(port=0, log_dir=None, heartbeat=10.0))
    conn = await connect("127.0.0.1", port, "quiet", "player")
    with trio.move_on_after(120):
        msg = await conn.receive()  # only pings come (answered inside), never returned
        pytest.fail(f"unexpected message {msg}")
    await conn.send({"type": "list-tables"})
    with trio.fail_after(5):
        assert (await conn.receive()).type == "tables"
    await conn.aclose()


async def test_a_silent_client_is_dropped_and_told_clearly(nursery, autojump_clock):
    # trio's mock clock: twelve heartbeats of 10 s in no real time
    port = await nursery.start(run_server, ServerConfig(port=0, log_dir=None, heartbeat=10.0))
    conn = await connect("127.0.0.1", port, "deaf", "player")
    await trio.sleep(120)  # nobody reads: no pong
    from quinze_cli.client import ClientError

    with trio.fail_after(300), pytest.raises(ClientError):
        while True:
            await conn.receive()


def test_quinze_bot_ctrl_c_exits_130_and_stops_the_program(tmp_path):
    import threading

    done = threading.Event()
    ports: list[int] = []

    async def serve() -> None:
        async with trio.open_nursery() as nursery:
            ports.append(await nursery.start(run_server, ServerConfig(port=0, log_dir=None)))
            await trio.to_thread.run_sync(done.wait)
            nursery.cancel_scope.cancel()

    server = threading.Thread(target=trio.run, args=(serve,))
    server.start()
    try:
        while not ports:
            time.sleep(0.01)
        proc = forkkit.Popen(
            [str(Path(PY).parent / "quinze"), "bot", "--server", f"127.0.0.1:{ports[0]}", "--create", "quinze",
             "--stderr", str(tmp_path / "bot.err"), "--", PY, str(BOTS / "never_flush.py")],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        try:
            assert proc.stdout.readline().strip().endswith("-t1")  # the table id: <server run>-t1
            assert proc.stderr.readline().startswith("seated at table")  # the program runs, waiting
            children = [int(p) for p in (Path("/proc") / str(proc.pid) / "task").glob("*/children")
                        for p in p.read_text().split()]
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=10)
            assert proc.returncode == 130, err
            assert children and all(not alive(pid) for pid in children)
        finally:
            if proc.poll() is None:
                proc.kill()
    finally:
        done.set()
        server.join()


HEADER = "import json, sys\nfor line in sys.stdin:\n    m = json.loads(line)\n    if m['type'] != 'action-request':\n        continue\n"


@pytest.mark.parametrize(
    ("body", "kind", "reason"),
    [
        ("    print(json.dumps({'type': 'hello'}), flush=True)\n", "garbage", "expected an action message"),
        ("    print(json.dumps({'type': 'action', 'action': 'fifteen'}), flush=True)\n", "garbage", "not a map"),
        ("    print('[1, 2]', flush=True)\n", "garbage", "not-a-map"),
        ("    print(json.dumps({'type': 'action', 'request': m['request'] + 100, 'action': m['legal'][0]}), flush=True)\n",
         "timeout", "no answer"),
        ("    sys.exit(7)\n", "crash", "exited with code 7"),
        ("    import os, signal; os.kill(os.getpid(), signal.SIGSEGV)\n", "crash", "killed by signal SIGSEGV"),
    ],
)
async def test_wrong_answers_are_told_apart(port, tmp_path, body, kind, reason):
    script = tmp_path / "bot.py"
    script.write_text(HEADER + body)
    bot = BotProcess([PY, str(script)], stderr_path=tmp_path / "err.log")
    _, failures = await play_one(port, [BuiltinBot("random"), bot], move_time=0.5 if kind == "timeout" else 10.0)
    assert [f.kind for f in failures] == [kind]
    assert reason in failures[0].reason


async def test_a_bot_may_retry_after_a_refusal_when_allowed(port, tmp_path):
    script = tmp_path / "retry.py"
    script.write_text(
        "import json, sys\n"
        "req = None\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['type'] == 'action-request':\n"
        "        req = m\n"
        "        print(json.dumps({'type': 'action', 'request': m['request'], 'action': {'type': 'no-such-move'}}), flush=True)\n"
        "    elif m['type'] == 'refused':\n"
        "        print(json.dumps({'type': 'action', 'request': req['request'], 'action': req['legal'][0]}), flush=True)\n"
    )
    bot = BotProcess([PY, str(script)], stderr_path=tmp_path / "err.log")
    outcomes, failures = await play_one(port, [BuiltinBot("random"), bot], max_refused=2)
    assert failures == [] and outcomes[1].game_over.forfeit is None


async def test_a_late_answer_after_the_other_seat_forfeits_is_not_our_failure(nursery, monkeypatch, tmp_path):
    """The other seat forfeits while our (healthy, a little slow) bot thinks; the server is slow to
    send the game-over (a loaded server: its table task sleeps first), so our answer meets
    ``game-not-running``. That is no failure of our bot."""
    from quinze_server.table import Table

    original = Table._game_over

    async def late_game_over(self, game):
        await trio.sleep(0.6)
        await original(self, game)

    monkeypatch.setattr(Table, "_game_over", late_game_over)
    port = await nursery.start(run_server, ServerConfig(port=0, log_dir=None))
    ctl = await connect("127.0.0.1", port, "ctl", "player")
    await ctl.send({"type": "create-table", "game": "quinze", "options": {"players": 2, "target": 1}, "seed": 1,
                    "games": 1, "move_time": 10})
    table = (await ctl.receive()).table.table
    failures = []

    async def report(failure):
        failures.append(failure)

    async def quitter():
        # Seat 1 plays its turn; once no request of its own follows its last action (the turn
        # passed to seat 0, whose slow bot now thinks), it forfeits.
        conn = await connect("127.0.0.1", port, "quitter", "player")
        await conn.send({"type": "join", "table": table, "seat": 1})
        played = False
        while True:
            msg = None
            with trio.move_on_after(0.1 if played else math.inf):
                msg = await conn.receive()
            if msg is None:
                await conn.send({"type": "forfeit", "table": table, "reason": "leave"})
                played = False
                continue
            data = msg.to_data()
            if data["type"] == "action-request" and data["seat"] == 1:
                entry = next((e for e in data["legal"] if e["type"] == "end"), data["legal"][0])
                await conn.send({"type": "action", "table": table, "request": data["request"], "action": entry})
                played = True
            elif data["type"] == "game-over":
                await conn.aclose()
                return

    bot = program(BOTS / "slow.py", "0.5", tmp_path=tmp_path)
    with trio.fail_after(30):
        async with trio.open_nursery() as inner:
            inner.start_soon(quitter)
            conn = await connect("127.0.0.1", port, "seat0", "bot")
            await bot.start(inner)
            relay = SeatRelay(conn, bot, on_failure=report)
            await relay.join(table, 0)
            outcome = (await relay.play(table, 0))[0]
            await bot.stop(grace=0.5, term_wait=0.5)
            await conn.aclose()
    await ctl.aclose()
    assert outcome.game_over.forfeit.to_data() == {"seat": 1, "kind": "leave"}
    assert failures == [] and outcome.failure is None


async def test_quinze_bot_ctrl_c_mid_game_leaves_the_seat_and_prints_each_game(port):
    """Ctrl-C in game 2: game 1's line was printed when it ended, the seat is left (the other seat
    gets the game-over with kind ``leave`` at once, not after the 30 s move time), a summary is
    printed, and the empty temporary stderr file is removed."""
    quinze = [str(Path(PY).parent / "quinze")]
    proc = await trio.lowlevel.open_process(
        quinze + ["bot", "--server", f"127.0.0.1:{port}", "--create", "quinze", "--games", "3", "--seed", "4",
                  "--option", "target=1", "--move-time", "30", "--seat", "0", "--", PY, str(EXAMPLES / "random_bot.py")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    errors = bytearray()

    async def read_stderr():
        while chunk := await proc.stderr.receive_some(4096):
            errors.extend(chunk)

    try:
        with trio.fail_after(20):  # far below the 30 s move time
            table = (await proc.stdout.receive_some(100)).decode().strip()
            async with trio.open_nursery() as nursery:
                nursery.start_soon(read_stderr)
                other = await connect("127.0.0.1", port, "other", "player")
                await other.send({"type": "join", "table": table, "seat": 1})
                while True:
                    data = (await other.receive()).to_data()
                    if data["type"] == "action-request" and data["seat"] == 1:
                        entry = next((e for e in data["legal"] if e["type"] == "end"), data["legal"][0])
                        await other.send({"type": "action", "table": table, "request": data["request"], "action": entry})
                    elif data["type"] == "game-start" and data["number"] == 2:
                        while b"game 1:" not in errors:  # printed as game 1 ended, before the table closes
                            await trio.sleep(0.01)
                        proc.send_signal(signal.SIGINT)
                    elif data["type"] == "game-over" and data["number"] == 2:
                        assert data["forfeit"] == {"seat": 0, "kind": "leave"}
                        break
                assert await proc.wait() == 130
                await other.aclose()
    finally:
        if proc.returncode is None:
            proc.kill()
    text = errors.decode()
    assert "summary: 1 game(s) finished" in text
    stderr_path = Path(text.split("(bot stderr: ")[1].split(")")[0])
    assert not stderr_path.parent.exists()  # random_bot.py wrote nothing on stderr: no leftover /tmp dir


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--seat", "7", "--", "builtin:random"], 2, "--seat 7: a quinze table with players=2 has seats 0 .. 1"),
        (["--", "/no/such/bot"], 1, "'/no/such/bot' is not an executable program"),
    ],
)
async def test_quinze_bot_create_checks_seat_and_program_before_the_table(port, args, code, message):
    quinze = str(Path(PY).parent / "quinze")
    with trio.fail_after(30):
        done = await trio.run_process([quinze, "bot", "--server", f"127.0.0.1:{port}", "--create", "quinze", *args],
                                      capture_stdout=True, capture_stderr=True, check=False)
        assert done.returncode == code, done.stderr
        assert message in " ".join(done.stderr.decode().split())
        conn = await connect("127.0.0.1", port, "look", "player")
        await conn.send({"type": "list-tables"})
        tables = (await conn.receive()).to_data()
        await conn.aclose()
    assert tables["tables"] == []  # no empty table left on the server


async def test_two_tasks_waiting_for_one_child_both_see_its_end():
    """One task waits on the pidfd while another polls and closes it: neither may fail
    (this raced as ClosedResourceError in the match bench)."""
    import sys

    from quinze_cli.childproc import open_child

    for i in range(30):
        child = await open_child([sys.executable, "-c", f"import time; time.sleep({i % 5} * 0.004)"])
        results = []

        async def waiter():
            results.append(await child.wait())

        async with trio.open_nursery() as nursery:
            for _ in range(6):
                nursery.start_soon(waiter)
        assert results == [0] * 6
        for s in (child.stdin, child.stdout, child.stderr):
            await s.aclose()
