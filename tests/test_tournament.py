"""``quinze tournament``: schedules, bot entries and TOML, the real command (embedded server, built-in
bots, real files; run in this process by tests/clikit.py, the console script's own entry point),
and resume after ``kill -9`` of the executable compared with an uninterrupted run."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import clikit
import pytest

from quinze_protocol.replaylog import read_log
from quinze_protocol.replaysim import verify
from quinze_cli.journal import differences, player_names, reconcile_log
from quinze_cli.schedule import build_schedule, evenness
from quinze_cli.tournament import load_config, make_bots, parse_entry
import forkkit

pytest.importorskip("openskill")

PY = sys.executable
QUINZE = str(Path(PY).parent / "quinze")
THREE = ["builtin:greedy", "builtin:random", "name=random5 cmd=builtin:random seed=5"]
FAST = ["--option", "target=1"]  # one deal per game


def quinze(*args, cwd):
    """``quinze ARGS`` run in this process (tests/clikit.py), as the executable would from ``cwd``."""
    return clikit.quinze(*args, cwd=cwd)


# ---------------------------------------------------------------------------- schedules


def test_round_robin_and_gauntlet_schedules():
    s = build_schedule("round-robin", 4, seats=2, seed=10, duplicate=True, per_pairing=4)
    assert s.games == 6 * 4 and s.per_table == 2
    ev = evenness(s, 4)
    assert ev == {"games_per_bot": [12, 12], "games_per_seat": [6, 6], "meetings_per_pair": [4, 4]}
    # Duplicate: each deal twice, seats swapped; every pairing plays the same deals.
    assert [(p.seed, p.seat_bots) for p in s.plans[:4]] == [(10, (0, 1)), (10, (1, 0)), (10, (0, 2)), (10, (2, 0))]
    assert {p.seed for p in s.plans} == {10, 11}
    g = build_schedule("gauntlet", 4, seats=2, seed=0, duplicate=False, rounds=3)
    assert all(0 in p.seat_bots for p in g.plans) and g.games == 3 * 3 * 2
    assert len({p.seed for p in g.plans}) == 6  # without duplicate, each game of a pairing its own deal
    four = build_schedule("round-robin", 3, seats=4, seed=0, duplicate=True, per_pairing=2)
    assert four.plans[0].seat_bots == (0, 1, 0, 1) and four.plans[1].seat_bots == (1, 0, 1, 0)
    assert [p.index for p in s.plans] == list(range(s.games))


@pytest.mark.parametrize("bots,seats,rounds", [(5, 3, 4), (12, 4, 5), (8, 3, 3), (6, 6, 2)])
def test_free_for_all_is_balanced(bots, seats, rounds):
    s = build_schedule("free-for-all", bots, seats=seats, seed=1, duplicate=True, rounds=rounds)
    ev = evenness(s, bots)
    assert ev["games_per_bot"][0] == ev["games_per_bot"][1]  # whole rounds: everyone plays equally
    assert ev["games_per_seat"][0] == ev["games_per_seat"][1]  # every bot every seat equally
    lo, hi = ev["meetings_per_pair"]  # in games: a shared table is `seats` games
    tables_per_pair = s.tables * seats * (seats - 1) / (bots * (bots - 1))
    assert lo // seats <= tables_per_pair <= hi // seats and (hi - lo) // seats <= 3
    assert build_schedule("free-for-all", bots, seats=seats, seed=1, duplicate=True, rounds=rounds) == s
    with pytest.raises(ValueError, match="between 2 and"):
        build_schedule("free-for-all", 3, seats=4, seed=1, duplicate=True, rounds=1)


# ---------------------------------------------------------------------------- bots and config


def test_bot_entries_cutechess_style_and_errors():
    assert parse_entry("builtin:greedy") == {"cmd": "builtin:greedy"}
    assert parse_entry("python3 my_bot.py --x=3") == {"cmd": "python3 my_bot.py --x=3"}
    e = parse_entry("name=deep cmd='python3 bot.py' args='--depth 3' movetime=2")
    assert e == {"name": "deep", "cmd": "python3 bot.py", "args": "--depth 3", "movetime": "2"}
    specs, times = make_bots([e, {"cmd": "builtin:random", "seed": "4"}, {"cmd": "builtin:random"}], "quinze")
    assert specs[0].argv == ("python3", "bot.py", "--depth", "3") and specs[0].name == "deep" and times[0] == 2.0
    assert specs[1].seed == 4 and specs[2].name == "random-2" and times[1] is None
    with pytest.raises(ValueError, match="unknown key 'depth'"):
        parse_entry("name=x depth=3")
    for entries, message in [
        ([{"name": "a"}], "bot 1 \\(a\\): cmd is missing"),
        ([{"cmd": "builtin:greedy", "args": "-x"}], "a built-in bot takes no args"),
        ([{"cmd": "builtin:greedy", "movetime": "0"}], "movetime must be positive"),
        ([{"cmd": "builtin:greedy", "name": "a"}, {"cmd": "builtin:random", "name": "a"}], "bot 2 \\(a\\): the name 'a' is taken"),
        ([{"cmd": "python3 x.py", "seed": "1"}], "seed=N is for built-in bots"),
        ([{"cmd": "builtin:nope"}], "no built-in bot 'nope'"),
    ]:
        with pytest.raises(ValueError, match=message):
            make_bots(entries, "quinze")


def test_toml_config(tmp_path):
    f = tmp_path / "event.toml"
    f.write_text('game = "quinze"\nformat = "gauntlet"\nrounds = 2\n[options]\ntarget = 1\n'
                 '[[bots]]\nname = "g"\ncmd = "builtin:greedy"\n[[bots]]\ncmd = "builtin:random"\nmovetime = 5\n')
    data = load_config(f)
    assert data["format"] == "gauntlet" and len(data["bots"]) == 2 and data["options"] == {"target": 1}
    f.write_text('gamez = "quinze"\n')
    with pytest.raises(ValueError, match="unknown key 'gamez'"):
        load_config(f)
    f.write_text('game = \n')
    with pytest.raises(ValueError, match="not valid TOML"):
        load_config(f)


def test_journal_differences_and_log_reconcile(tmp_path):
    old = {"seed": 7, "bots": [{"name": "a", "cmd": "builtin:greedy"}], "games": 4}
    new = {"seed": 8, "bots": [{"name": "a", "cmd": "builtin:random"}], "games": 4}
    assert differences(old, new) == ["bot 1 cmd: \"builtin:greedy\" in the journal, \"builtin:random\" now",
                                     "seed: 7 in the journal, 8 now"]
    assert player_names(["a", "b"], (0, 1, 0, 1)) == ("a", "b", "a#2", "b#2")
    log = tmp_path / "games.jsonl"

    def game(seed, players):
        return [json.dumps({"record": "header", "seed": seed, "players": players}),
                json.dumps({"record": "action"}), json.dumps({"record": "result"})]

    lines = game(1, ["a", "b"]) + game(2, ["b", "a"]) + game(1, ["a", "b"]) + game(3, ["a", "b"])[:2]
    log.write_text("\n".join(lines) + '\n{"record": "ev')  # a duplicate, a game cut short, a cut record
    # records that do not re-simulate (no format, no commitment) never count as done, even when the
    # journal names their games (real logs cut in every way: tests/test_resume_cut_logs.py)
    assert reconcile_log(log, {(1, ("a", "b")): None, (2, ("b", "a")): None}) == (set(), 4)
    assert log.read_text() == ""


# ---------------------------------------------------------------------------- the command


def test_cli_round_robin_with_json_on_stdout_and_a_log_replay_reads(tmp_path):
    done = quinze("tournament", *THREE, "--games-per-pairing", "4", "--seed", "3", *FAST, "--concurrency", "2",
                  "--json", "-", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)  # stdout is the JSON alone: the tables went to stderr
    assert data["complete"] and data["played"] == data["games"] == 12 and data["duplicate"]
    names = [r["name"] for r in data["standings"]]
    assert sorted(names) == ["greedy", "random", "random5"]
    top = data["standings"][0]
    assert {"mu", "sigma", "ordinal", "elo", "elo_low", "elo_high"} <= set(top["rating"])
    assert top["time"]["moves"] > 0 and top["forfeits"] == {}
    cross = {c["name"]: c["against"] for c in data["crosstable"]}
    assert cross["greedy"]["random"]["games"] == 4
    assert cross["greedy"]["random"]["score"] + cross["random"]["greedy"]["score"] == pytest.approx(1.0)
    assert data["schedule"]["meetings_per_pair"] == [4, 4]
    assert "Standings" in done.stderr and "Crosstable" in done.stderr and "Forfeits and time" in done.stderr
    log = read_log(Path(tmp_path / data["log"]).read_text())
    assert len(log.games) == 12 and all(verify(g) is None for g in log.games)
    replay = quinze("replay", data["log"], "--verify", cwd=tmp_path)
    assert replay.returncode == 0, replay.stdout + replay.stderr


def test_cli_free_for_all_from_a_toml_file(tmp_path):
    (tmp_path / "event.toml").write_text(
        'format = "free-for-all"\nseats = 3\nrounds = 1\nseed = 4\n[options]\ntarget = 1\n'
        + "".join(f'[[bots]]\nname = "r{i}"\ncmd = "builtin:random"\nseed = {i}\n' for i in range(3))
        + '[[bots]]\nname = "g"\ncmd = "builtin:greedy"\nmovetime = 5\n')
    done = quinze("tournament", "--config", "event.toml", "--json", "out.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "out.json").read_text())
    assert data["format"] == "free-for-all" and data["seats"] == 3
    assert data["schedule"]["tables"] == 4 and data["games"] == 12  # lcm(4, 3) / 3 tables of 3 rotations
    assert data["schedule"]["games_per_seat"] == [3, 3]
    assert data["bots"][3]["movetime"] == 5.0
    log = read_log(Path(tmp_path / data["log"]).read_text())
    assert {len(g.header["players"]) for g in log.games} == {3}


def test_cli_bad_input_is_named(tmp_path):
    for args, message in [
        (["builtin:greedy"], "at least two bots"),
        (["builtin:greedy", "builtin:random", "--format", "swiss"], "--format must be one of"),
        (["builtin:greedy", "builtin:random", "--games-per-pairing", "2", "--rounds", "2"], "give one"),
        (["builtin:greedy", "name=x cmd=builtin:random zap=1"], "unknown key 'zap'"),
        (["builtin:greedy", "builtin:random", "--format", "free-for-all", "--seats", "3"], "between 2 and 2"),
    ]:
        done = quinze("tournament", *args, cwd=tmp_path)
        assert done.returncode == 2 and message in done.stderr, (args, done.stderr)
    assert not (tmp_path / "logs").exists()


# ---------------------------------------------------------------------------- resume


def _final(path: Path) -> dict:
    """The JSON without what differs between runs: wall-clock time, paths, table ids."""
    data = json.loads(path.read_text())
    for key in ("dir", "log"):
        data.pop(key)
    for row in data["standings"]:
        row.pop("time")
    for f in data["failures"]:
        f.pop("table", None)
    return data


def _games(log: Path) -> list[tuple]:
    """Each logged game as (seed, players, actions, result), in schedule-independent order (its
    start and end times and table id aside)."""
    result = read_log(log.read_text())
    assert result.problems == [] and result.partial == []
    out = [(g.header["seed"], tuple(g.header["players"]), json.dumps(g.actions, sort_keys=True),
            json.dumps({k: v for k, v in g.result.items() if k != "ended"}, sort_keys=True)) for g in result.games]
    return sorted(out)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="kill -9 timing: Linux")
def test_resume_after_kill_9_gives_the_uninterrupted_result(tmp_path):
    args = [*THREE, "--games-per-pairing", "8", "--seed", "11", *FAST, "--concurrency", "2"]
    ref = quinze("tournament", *args, "--log-dir", "ref", "--json", "ref.json", cwd=tmp_path)
    assert ref.returncode == 0, ref.stderr
    reference = _final(tmp_path / "ref.json")
    ref_dir = Path(tmp_path / json.loads((tmp_path / "ref.json").read_text())["dir"])

    proc = forkkit.Popen([QUINZE, "tournament", *args, "--log-dir", "run"], cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    kills = 0
    event: Path | None = None

    def journaled() -> int:
        """Games in the journal so far (its first line is the settings)."""
        found = list((tmp_path / "run").glob("tournament-*/journal.jsonl"))
        return max(0, found[0].read_text().count("\n") - 1) if found else 0

    try:
        # kill -9 when the journal reaches each of these counts: by progress, not by the clock, so
        # a fast machine cannot finish the event between two kills
        for target in (3, 9, 15):
            deadline = time.monotonic() + 120
            while journaled() < target and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.005)
            assert proc.poll() is None, "the event ended before it could be killed"
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            kills += 1
            event = next((tmp_path / "run").glob("tournament-*"))
            proc = forkkit.Popen([QUINZE, "tournament", "--resume", str(event), "--concurrency", "2"],
                                    cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert kills == 3 and event is not None
    final = quinze("tournament", "--resume", str(event), "--json", "resumed.json", cwd=tmp_path)
    assert final.returncode == 0, final.stderr
    assert _final(tmp_path / "resumed.json") == reference
    assert _games(event / "games.jsonl") == _games(ref_dir / "games.jsonl")


def test_resume_with_other_settings_is_refused_naming_them(tmp_path):
    done = quinze("tournament", "builtin:greedy", "builtin:random", "--games-per-pairing", "2", "--seed", "5", *FAST,
                  cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    event = next((tmp_path / "logs").glob("tournament-*"))
    again = quinze("tournament", "--resume", str(event), cwd=tmp_path)
    assert again.returncode == 0 and "2 of 2 games done" in again.stderr
    bad = quinze("tournament", "--resume", str(event), "--seed", "6", cwd=tmp_path)
    assert bad.returncode == 1 and "seed: 5 in the journal, 6 now" in bad.stderr
    bad = quinze("tournament", "--resume", str(event), "builtin:greedy", "builtin:greedy", cwd=tmp_path)
    assert bad.returncode == 1 and "bot 2" in bad.stderr
    missing = quinze("tournament", "--resume", str(tmp_path), cwd=tmp_path)
    assert missing.returncode == 1 and "no journal" in missing.stderr


def test_bench_gives_the_tournament_overhead_figures():
    from quinze_cli.bench.match import table_rows
    from quinze_cli.bench.tournament import tournament_overhead

    t = tournament_overhead(games=48, sample_games=1)
    assert t["game_ms"] > 0 and t["overhead_ms"] > 0 and t["journal_ms"] > 0 and t["games"] == 48
    assert t["share"] == pytest.approx(t["overhead_ms"] / t["game_ms"], rel=0.01)
    chain = {"ratio": 1.0, "target_ratio": 2.0, "rounds": 1, "request_bytes": 1, "move_us": 1, "tcp_echo_us": 1,
             "pipe_echo_us": 1, "thin_relay_us": 1, "thin_ratio": 1, "decisions": 1, "game_us_per_decision": 1}
    match = {"concurrency": 2, "games_per_second": 1, "decisions_per_second": 1}
    rows = table_rows({"chain": chain, "match": match, "tournament": t})
    assert len(rows) == 8 and rows[6][2] == "<= 1%"
