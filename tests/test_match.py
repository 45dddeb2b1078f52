"""``quinze match``: real bot programs, an embedded (or given) server on loopback, real log files.

In-process :class:`MatchRunner` runs for the scenarios, the ``quinze`` executable for the command
line (``--json``, bad options, Ctrl-C)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import clikit
import pytest
import trio

from quinze_protocol.replaylog import read_log
from quinze_protocol.replaysim import verify
from quinze_cli.matchrun import MatchConfig, MatchError, MatchRunner, parse_bot_spec, validate_options
from quinze_cli.schedule import rotations, schedule
from quinze_cli.stats import MatchStats, elo_difference
import forkkit
from clikit import alive

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "bots"
BOTS = ROOT / "tests" / "bots"
PY = sys.executable
QUINZE = str(Path(PY).parent / "quinze")
RANDOM = f"{PY} {EXAMPLES / 'random_bot.py'}"
GREEDY = f"{PY} {EXAMPLES / 'greedy_bot.py'}"


def children_of(pid: int) -> list[int]:
    """Pids whose parent is ``pid`` (any thread of it), read from /proc."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def config(tmp_path, bots, *, games=2, seats=None, options=None, **kw) -> MatchConfig:
    specs = []
    for b in bots:
        specs.append(parse_bot_spec(b, "quinze", [s.name for s in specs]))
    opts = validate_options("quinze", options or {"target": "1"}, seats, len(specs))  # one deal: fast games
    return MatchConfig(game="quinze", bots=specs, games=games, seed=kw.pop("seed", 7), options=opts,
                       log_dir=tmp_path / "logs", **kw)


def logged_games(path: Path):
    result = read_log(path.read_text())
    assert result.problems == [] and result.partial == [] and not result.truncated
    return result.games


async def run(cfg: MatchConfig):
    failures = []

    async def on_failure(bot, plan, failure):
        failures.append((plan.index, bot, failure.kind))

    runner = MatchRunner(cfg, on_failure=on_failure)
    with trio.fail_after(60):
        stats = await runner.run()
    return runner, stats, failures


async def test_two_example_bots_play_and_every_game_is_logged(tmp_path):
    runner, stats, failures = await run(config(tmp_path, [RANDOM, GREEDY], games=4, concurrency=2))
    assert failures == [] and stats.games == 4
    assert [b.games for b in stats.bots] == [4, 4]
    assert sum(b.points for b in stats.bots) == pytest.approx(4.0)
    games = logged_games(runner.log_path)
    assert len(games) == 4
    assert sorted(g.header["seed"] for g in games) == [7, 8, 9, 10]
    for g in games:
        assert verify(g) is None
        assert sorted(g.header["players"]) == ["greedy_bot", "random_bot"]
    assert all(not alive(pid) for pid in runner.pids) and len(runner.pids) == 4  # 2 bots x 2 slots


async def test_builtin_against_a_program_with_rotated_seats(tmp_path):
    runner, stats, _ = await run(config(tmp_path, ["builtin:greedy", RANDOM], games=2))
    games = logged_games(runner.log_path)
    assert [g.header["players"] for g in games] == [["greedy", "random_bot"], ["random_bot", "greedy"]]
    assert len(runner.pids) == 1  # only the program has a process


async def test_four_seats_for_two_bots_runs_four_processes(tmp_path):
    runner, stats, failures = await run(config(tmp_path, [RANDOM, GREEDY], games=2, seats=4))
    assert failures == [] and stats.games == 2
    assert len(set(runner.pids)) == 4
    games = logged_games(runner.log_path)
    assert games[0].header["players"] == ["random_bot", "greedy_bot", "random_bot#2", "greedy_bot#2"]
    assert games[1].header["players"] == ["greedy_bot", "random_bot", "greedy_bot#2", "random_bot#2"]
    assert sum(b.points for b in stats.bots) == pytest.approx(2.0)


async def test_duplicate_replays_each_deal_with_the_seats_rotated(tmp_path):
    runner, stats, _ = await run(config(tmp_path, ["builtin:random", "builtin:greedy"], games=4, duplicate=True))
    headers = [g.header for g in logged_games(runner.log_path)]
    assert [h["seed"] for h in headers] == [7, 7, 8, 8]
    assert headers[0]["players"] == headers[1]["players"][::-1]


@pytest.mark.parametrize(
    ("script", "args", "kind", "times"),
    [
        ("garbage.py", (), "garbage", 1),  # garbage only once, then correct: the same process plays on
        ("long_line.py", (), "garbage", 1),  # a 5 MiB line: skipped, the same process plays on
        ("illegal.py", (), "illegal", 2),
        ("exit_midgame.py", ("1",), "crash", 2),  # restarted for the second game
        ("exit_before_start.py", (), "crash", 2),
        ("never_flush.py", (), "timeout", 2),
    ],
)
async def test_a_misbehaving_bot_forfeits_and_the_match_goes_on(tmp_path, script, args, kind, times):
    bad = " ".join([PY, str(BOTS / script), *args])
    move_time = 0.5 if kind == "timeout" else 10.0  # a loaded machine must not turn other kinds into timeouts
    runner, stats, failures = await run(config(tmp_path, [bad, "builtin:random"], games=2, move_time=move_time))
    assert stats.games == 2
    assert [f[2] for f in failures] == [kind] * times
    assert dict(stats.bots[0].forfeits) == {kind: times}
    assert stats.bots[1].points == 2.0 if times == 2 else stats.bots[1].points >= 1.0
    games = logged_games(runner.log_path)
    assert len(games) == 2
    assert sum(1 for g in games if (g.result["forfeit"] or {}).get("kind") == kind) == times
    restarted = kind in ("crash", "timeout")
    assert len(runner.pids) == 1 and runner.players[0].restarts == (1 if restarted else 0)
    assert len(runner.all_pids) == (2 if restarted else 1)
    assert all(not alive(pid) for pid in runner.all_pids)


async def test_a_forfeited_game_never_counts_in_the_mean_total(tmp_path):
    # Finishes a game or two on 14 answers, then crashes in mid-game; restarted, again: a forfeit
    # gives every seat a total of 0, the best there is, so it must not count for either bot.
    bad = f"{PY} {BOTS / 'exit_midgame.py'} 14"
    runner, stats, failures = await run(config(tmp_path, [bad, "builtin:random"], games=6, max_restarts=10))
    games = logged_games(runner.log_path)
    finished = [g for g in games if g.result["result"]["reason"] != "forfeit"]
    assert len(games) == 6 and 0 < len(finished) < 6 and len(failures) == 6 - len(finished)
    for b in stats.bots:
        mine = [g.result["result"]["scores"][g.header["players"].index(b.name)] for g in finished]
        assert b.games == 6 and b.scored_games == len(finished)
        assert b.game_score == sum(mine) and b.game_score_mean == pytest.approx(sum(mine) / len(mine))
        assert b.to_data()["scored_games"] == len(finished)
    assert stats.bots[0].game_score_mean > 0  # counting the forfeits as 0 would have lowered it
    # A journal written before the result's reason was kept: its forfeits say the same.
    old = MatchStats([("a", "x"), ("b", "y")])
    old.add_game([0, 1], [0.0, 1.0], [(0, "crash")], [0.0, 0.0])
    old.add_game([1, 0], [1.0, 0.0], [], [10.0, 40.0])
    assert [(b.scored_games, b.game_score_mean) for b in old.bots] == [(1, 40.0), (1, 10.0)]


async def test_a_bot_crashing_beyond_its_restarts_stops_the_match(tmp_path):
    bad = f"{PY} {BOTS / 'exit_midgame.py'} 1"
    cfg = config(tmp_path, [bad, "builtin:random"], games=5, max_restarts=1)
    runner = MatchRunner(cfg)
    with pytest.raises(MatchError, match="failed again after 1 restart"):
        with trio.fail_after(60):
            await runner.run()
    assert runner.stats.games == 2
    assert len(logged_games(runner.log_path)) == 2
    assert len(runner.all_pids) == 2 and all(not alive(pid) for pid in runner.all_pids)


def test_schedule_rotates_seats_evenly():
    plans = schedule(2, 4, 4, 10)
    assert [p.seat_bots for p in plans] == [(0, 1, 0, 1), (1, 0, 1, 0), (0, 1, 0, 1), (1, 0, 1, 0)]
    plans = schedule(3, 3, 3, 0)
    for seat in range(3):
        assert sorted(p.seat_bots[seat] for p in plans) == [0, 1, 2]
    assert [p.seed for p in schedule(2, 2, 4, 5, duplicate=True)] == [5, 5, 6, 6]
    with pytest.raises(ValueError, match="multiple of 2"):
        schedule(2, 2, 3, 0, duplicate=True)
    # Two bots at four seats: only two distinct rotations, so a deal is played twice, not four times.
    plans = schedule(2, 4, 4, 5, duplicate=True)
    assert [(p.seed, p.seat_bots) for p in plans] == [(5, (0, 1, 0, 1)), (5, (1, 0, 1, 0)), (6, (0, 1, 0, 1)),
                                                      (6, (1, 0, 1, 0))]
    assert rotations(3, 3) == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]


async def test_a_huge_match_starts_at_once(tmp_path):
    cfg = config(tmp_path, ["builtin:random", "builtin:greedy"], games=10**12)

    with trio.fail_after(30), trio.CancelScope() as scope:
        async def on_game(report):
            scope.cancel()

        runner = MatchRunner(cfg, on_game=on_game)
        await runner.run()
    assert runner.stats.games == 1
    assert len(logged_games(runner.log_path)) == 1


def test_bot_specs_and_options():
    assert parse_bot_spec("builtin:greedy", "quinze").builtin == "greedy"
    spec = parse_bot_spec(f"{PY} '{EXAMPLES / 'random_bot.py'}' 3", "quinze", ["random_bot"])
    assert spec.name == "random_bot-2" and spec.argv[-1] == "3"
    with pytest.raises(ValueError, match="known: greedy, mcts, mcts-easy, mcts-hard, random"):
        parse_bot_spec("builtin:nope", "quinze")
    with pytest.raises(ValueError, match="empty"):
        parse_bot_spec("  ", "quinze")
    with pytest.raises(ValueError, match="iterations"):  # a budget's own reason, as get_bot gives it
        parse_bot_spec("builtin:mcts@0", "quinze")
    assert parse_bot_spec("builtin:mcts@400", "quinze").builtin == "mcts@400"
    assert validate_options("quinze", {"target": "50"}, None, 2)["target"] == 50
    with pytest.raises(ValueError, match="disagree"):
        validate_options("quinze", {"players": "3"}, 4, 2)
    with pytest.raises(ValueError, match="every bot needs a seat"):
        validate_options("quinze", {}, 2, 3)


def test_elo_from_points():
    assert elo_difference([0.5] * 10)["difference"] == 0.0
    e = elo_difference([1, 1, 1, 0])
    # With the prior of one won and one lost game (stats.elo): 4 of 6, and a finite interval.
    assert e["difference"] == pytest.approx(120.4, abs=0.1) and e["low"] < e["difference"] < e["high"]
    assert e["games"] == 4 and e["score"] == 0.75
    assert elo_difference([0, 0])["difference"] < 0
    stats = MatchStats([("a", "x"), ("b", "y")])
    stats.add_game([0, 1, 0, 1], [0.5, 0, 0.5, 0], [(1, "crash")])
    assert [b.points for b in stats.bots] == [1.0, 0.0] and stats.bots[0].wins == 1
    assert dict(stats.bots[1].forfeits) == {"crash": 1}


# ---------------------------------------------------------------------------- the command line


def quinze(*args, cwd):
    """``quinze ARGS`` run in this process (tests/clikit.py), as the executable would from ``cwd``."""
    return clikit.quinze(*args, cwd=cwd)


def test_cli_match_writes_json_and_log(tmp_path):
    done = quinze("match", RANDOM, GREEDY, "--games", "2", "--seed", "3", "--json", "out.json", "--log-dir", "logs",
                  "--option", "target=1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "out.json").read_text())
    assert data["complete"] and data["played"] == 2 and data["seed"] == 3
    assert [b["name"] for b in data["bots"]] == ["random_bot", "greedy_bot"]
    assert data["elo"]["games"] == 2 and data["failures"] == []
    assert len(logged_games(tmp_path / data["log"])) == 2
    assert "Match results" in done.stdout and "Elo:" in done.stdout


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--option", "target=lots"], 1, "target: expects a whole number"),
        (["--option", "colour=blue"], 1, "colour"),
        (["--option", "target"], 2, "expected KEY=VALUE"),
        (["--seats", "1"], 2, "--seats: must be at least 2"),
        (["builtin:random", "--seats", "2"], 2, "every bot needs a seat"),
        (["--game", "chess"], 1, "chess"),
        (["--seed", "999999999999999999999999"], 2, "--seed must be in 0 .. 2**63-1"),
        (["--seed", "-1"], 2, "--seed must be in 0 .. 2**63-1"),
        (["--seed", str(2**63 - 1)], 2, "goes past the largest seed"),
    ],
)
def test_cli_bad_input_is_refused_before_any_game(tmp_path, monkeypatch, args, code, message):
    from typer.testing import CliRunner

    from quinze_cli.app import app

    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(app, ["match", "builtin:random", "builtin:greedy", "--games", "2", *args])
    assert done.exit_code == code, done.output
    assert message in " ".join(done.output.split())
    assert done.exception is None or isinstance(done.exception, SystemExit)  # no traceback
    assert not (tmp_path / "logs").exists()


def test_cli_duplicate_rounds_the_games_up_to_whole_rotations(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from quinze_cli.app import app

    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(app, ["match", "builtin:random", "builtin:greedy", "--games", "3", "--duplicate",
                                    "--option", "target=1", "--seed", "5", "--json", "out.json"])
    assert done.exit_code == 0, done.output
    assert "3 games rounded up to 4" in " ".join(done.output.split())
    data = json.loads((tmp_path / "out.json").read_text())
    assert data["played"] == 4 and data["complete"]
    assert [g.header["seed"] for g in logged_games(tmp_path / data["log"])] == [5, 5, 6, 6]


def test_cli_ctrl_c_stops_fast_keeps_games_and_leaves_no_process(tmp_path):
    # 100 000 000 games: the schedule is made lazily, so the first game starts at once.
    proc = forkkit.Popen([QUINZE, "match", RANDOM, GREEDY, "--games", "100000000", "--seed", "1", "--json", "out.json"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        logs = tmp_path / "logs"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if any(p.read_text().count('"record":"result"') >= 1 for p in logs.glob("match-*.jsonl")):
                break
            time.sleep(0.1)
        children = children_of(proc.pid)
        assert len(children) == 2
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
        assert proc.returncode == 130, err
        assert all(not alive(pid) for pid in children)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    data = json.loads((tmp_path / "out.json").read_text())
    assert data["interrupted"] and not data["complete"] and data["played"] >= 1
    assert len(logged_games(tmp_path / data["log"])) == data["played"]


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_cli_javascript_bot_against_python_bot(tmp_path):
    done = quinze("match", f"node {EXAMPLES / 'random_bot.js'}", RANDOM, "--games", "2", "--json", "out.json",
                  "--option", "target=1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "out.json").read_text())
    assert data["complete"] and data["failures"] == []
    assert [b["games"] for b in data["bots"]] == [2, 2]


def test_bench_functions_give_figures():
    from quinze_cli.bench.match import chain_overhead, match_throughput, table_rows

    chain = chain_overhead(games=1, rounds=30)
    assert chain["decisions"] > 0 and chain["move_us"] > 0 and chain["ratio"] > 0
    match = match_throughput(games=2)
    assert match["games"] == 2 and match["games_per_second"] > 0
    assert len(table_rows({"chain": chain, "match": match})) == 6


async def test_the_same_seed_gives_the_same_games(tmp_path):
    actions = []
    for run_dir in ("a", "b"):
        runner, _, _ = await run(config(tmp_path / run_dir, ["builtin:random", "builtin:greedy"], games=2, concurrency=2))
        games = sorted(logged_games(runner.log_path), key=lambda g: g.header["seed"])
        actions.append([g.actions for g in games])
    assert actions[0] == actions[1] and actions[0][0] != actions[0][1]


async def test_a_flooding_bot_plays_on_with_its_stderr_capped_in_the_log_dir(tmp_path):
    flood = f"{PY} {BOTS / 'flood_stderr.py'} 1.5"
    cfg = config(tmp_path, [flood, "builtin:random"], games=1)
    cfg.stderr_cap = 200_000
    runner, stats, failures = await run(cfg)
    assert failures == [] and stats.games == 1
    (log_file,) = runner.stderr_dir.iterdir()
    assert log_file.name == "flood_stderr-slot1.log"
    assert 200_000 < log_file.stat().st_size < 200_100
    assert log_file.read_bytes().endswith(b"[quinze: stderr truncated after 200000 bytes]\n")


def test_cli_unreachable_server_is_a_clear_error(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from quinze_cli.app import app

    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(app, ["match", "builtin:random", "builtin:greedy", "--server", "127.0.0.1:1"])
    assert done.exit_code == 1
    assert "cannot reach 127.0.0.1:1" in " ".join(done.output.split())
    assert list((tmp_path / "logs").glob("match-*.jsonl")) == []  # no empty log left behind


@pytest.mark.parametrize("target", ["nonexistent/dir/r.json", "."])
def test_cli_json_file_is_checked_before_playing(tmp_path, monkeypatch, target):
    from typer.testing import CliRunner

    from quinze_cli.app import app

    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(app, ["match", "builtin:random", "builtin:greedy", "--json", target])
    assert done.exit_code == 1, done.output
    assert f"--json {target}" in " ".join(done.output.split())
    assert done.exception is None or isinstance(done.exception, SystemExit)
    assert not (tmp_path / "logs").exists()  # refused before the match began


def test_cli_ctrl_c_before_any_game_says_so_and_leaves_no_log(tmp_path):
    silent = f"{PY} {BOTS / 'never_flush.py'}"
    proc = forkkit.Popen([QUINZE, "match", silent, silent, "--games", "3", "--json", "out.json"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while len(children_of(proc.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "no game finished" in err and "the finished games are in" not in err
    assert list((tmp_path / "logs").glob("match-*.jsonl")) == []
    data = json.loads((tmp_path / "out.json").read_text())
    assert data["played"] == 0 and data["log"] is None


def test_cli_results_piped_with_a_narrow_columns_keep_numbers_and_the_elo_line_whole(tmp_path):
    done = forkkit.run([QUINZE, "match", "builtin:random", "builtin:greedy", "--games", "4", "--seed", "3",
                           "--option", "target=1"], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env={**__import__("os").environ, "COLUMNS": "40"})
    assert done.returncode == 0, done.stderr
    assert "…" not in done.stdout
    lines = done.stdout.splitlines()
    assert any(line.startswith("Elo: random - greedy = ") and line.endswith("over 4 games, score " + line.split()[-1])
               for line in lines), done.stdout
    assert any("Score" in line for line in lines)  # headers whole too
    assert any(line.startswith("log: ") and line.endswith(".jsonl") for line in lines)


def test_results_on_a_narrow_terminal_never_cut_a_number():
    import io

    from rich.console import Console

    from quinze_cli.commands.match import print_results

    stats = MatchStats([("random_bot", "x"), ("greedy_bot", "y")])
    for _ in range(3):
        stats.add_game([0, 1], [0.0, 1.0], [(0, "timeout")])
    out = Console(file=io.StringIO(), width=40, force_terminal=True, color_system=None)
    print_results(out, stats)
    text = out.file.getvalue()
    assert "…" not in text
    flat = " ".join(text.split())
    # Wins and Win rate only repeat Points and Score here: left out.
    # Three forfeits: no game with a total to count (docs/match.md "Results"), never "0.0".
    assert "random_bot: games 3, points 0, score 0.000, mean total - (0 of 3), forfeits timeout 3" in flat
    assert "points 3, score 1.000" in flat and "win rate" not in flat


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parent-death signal: Linux only")
def test_kill_9_of_quinze_match_leaves_no_orphan_bot(tmp_path):
    silent = f"{PY} {BOTS / 'never_flush.py'}"  # never exits at the end of its input
    proc = forkkit.Popen([QUINZE, "match", silent, silent, "--games", "3"], cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    children: list[int] = []
    try:
        deadline = time.monotonic() + 30
        while len(children) < 2 and time.monotonic() < deadline:
            children = children_of(proc.pid)
            time.sleep(0.05)
        assert len(children) == 2
        proc.kill()
        proc.wait()
        deadline = time.monotonic() + 10
        while any(alive(pid) for pid in children) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(alive(pid) for pid in children)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_cli_sprt_stops_early_with_a_complete_log(tmp_path):
    # Games to 30 points (two or three deals, not eight or nine): 27 games to the decision where
    # whole games took 13, for two thirds of the CPU (4.3 -> 2.8 s); the stop is the same rule.
    done = quinze("match", "builtin:greedy", "builtin:random", "--sprt", "elo0=0,elo1=100", "--seed", "1",
                  "--option", "target=30", "--concurrency", "2", "--json", "out.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "out.json").read_text())
    sprt = data["sprt"]
    assert sprt["result"] == "H1" and sprt["llr"] >= sprt["upper"] and data["complete"]
    assert data["played"] < 100 and data["played"] >= sprt["decided_at"]
    assert f"LLR {sprt['llr']:.2f} ({sprt['lower']:.2f}, {sprt['upper']:.2f})" in done.stdout
    assert "H1 accepted" in done.stdout
    games = logged_games(tmp_path / data["log"])
    assert len(games) == data["played"] and all(verify(g) is None for g in games)
    bad = quinze("match", "builtin:greedy", "builtin:random", "--sprt", "elo0=5,elo1=0", cwd=tmp_path)
    assert bad.returncode == 2 and "--sprt: elo0 (5) must be less than elo1 (0)" in bad.stderr


def test_results_show_the_games_own_score_chips_for_classique():
    import io

    from rich.console import Console

    from quinze_cli.commands.match import print_results

    stats = MatchStats([("threshold", "x"), ("random", "y")])
    stats.add_game([0, 1], [1.0, 0.0], [], [12.0, -12.0])
    stats.add_game([1, 0], [1.0, 0.0], [], [5.0, -5.0])
    out = Console(file=io.StringIO(), width=120, color_system=None)
    print_results(out, stats, "quinze-classique")
    text = out.file.getvalue()
    assert "Chips" in text
    rows = {line.split("│")[1].strip(): line for line in text.splitlines() if line.count("│") > 3}
    assert "+7" in rows["threshold"] and "-7" in rows["random"]
    assert stats.bots[0].to_data()["game_score"] == 7.0
