"""The CLI as a new user meets it: bad values refused up front with the option that was wrong,
``-`` for standard output (or input), one seed rule for every command, no empty files left
behind, a bot program started only once seated. Real server, real bot programs, real files;
``quinze play`` in a pseudo-terminal and ``quinze bot`` as real subprocesses; the commands whose
refusals, output and files are the subject run in this process (tests/clikit.py: the console
script's own entry point, same exit codes and messages).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest
import trio
from clikit import quinze as quinze_here
from playkit import plain
from serverkit import serving
import forkkit

ROOT = Path(__file__).resolve().parent.parent
QUINZE = str(Path(sys.executable).with_name("quinze"))
PY = sys.executable
BOTS = ROOT / "tests" / "bots"
RANDOM_BOT = f"{PY} {ROOT / 'examples' / 'bots' / 'random_bot.py'}"
TIMEOUT = 120


def quinze(*args: str, cwd: Path | None = None, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return quinze_here(*args, cwd=cwd, input=stdin)


def usage_error(proc: subprocess.CompletedProcess[str], *words: str) -> None:
    """Exit 2, one ``error:`` line naming ``words``, no traceback."""
    text = " ".join((proc.stdout + proc.stderr).split())
    assert proc.returncode == 2, text
    assert "Traceback" not in text and "error:" in text
    for word in words:
        assert word in text, (word, text)


# --------------------------------------------------------------------------- quinze play --local


@pytest.mark.parametrize("value", ["-3", "0", "inf", "nan"])
def test_play_local_move_time_must_be_positive_and_finite(value: str, tmp_path: Path) -> None:
    proc = quinze("play", "--local", "--move-time", value, "--name", "x", "--no-log", cwd=tmp_path)
    usage_error(proc, "--move-time must be positive, finite seconds")


def test_play_local_too_many_opponents_names_opponents(tmp_path: Path) -> None:
    proc = quinze("play", "--local", "--opponents", ",".join(["greedy"] * 8), "--name", "x", "--no-log", cwd=tmp_path)
    usage_error(proc, "--opponents: 8 bot(s) make 9 players", "at most 8")
    assert "--option" not in proc.stdout + proc.stderr


def test_play_local_players_option_and_opponents_must_agree(tmp_path: Path) -> None:
    proc = quinze("play", "--local", "--option", "players=4", "--opponents", "greedy", "--name", "x", "--no-log",
                  cwd=tmp_path)
    usage_error(proc, "--option players=4", "--opponents", "disagree")


@pytest.mark.parametrize(("players", "bots"), [(2, ["mcts"]), (4, ["mcts", "greedy", "mcts"])])
def test_play_local_players_option_sets_the_number_of_default_opponents(players: int, bots: list[str], env,
                                                                        tmp_path: Path) -> None:
    child = forkkit.spawn(QUINZE, ["play", "--local", "--option", f"players={players}", "--name", "Ana", "--seed", "3",
                                   "--no-log"], env=env, encoding="utf-8", timeout=60, dimensions=(24, 80),
                          cwd=str(tmp_path))
    try:
        child.expect(r"Starting a local server with ([^\r\n]*)…")
        assert child.match.group(1).split(", ") == bots
        child.expect(r"Your move(?: \(\d+ s\))?> ")
        board = plain(child.before)
        for seat, bot in enumerate(bots, 1):
            assert f"{bot}-{seat}" in board  # every seat on the board, and no more
        assert f"-{players}" not in board.replace(f"-t{players}", "")
        child.sendintr()
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)


# --------------------------------------------------------------------------- seeds


@pytest.mark.parametrize("seed", ["-1", "99999999999999999999"])
@pytest.mark.parametrize("command", [["selfplay", "--games", "2"], ["match", "builtin:random", "builtin:random", "--games", "2"],
                                     ["play", "--local", "--no-log", "--name", "x"]])
def test_one_seed_rule_for_every_command(command: list[str], seed: str, tmp_path: Path) -> None:
    proc = quinze(*command, "--seed", seed, cwd=tmp_path)
    usage_error(proc, "--seed must be in 0 .. 2**63-1")
    assert not (tmp_path / "logs").exists()


def test_selfplay_seed_plus_games_stays_in_range(tmp_path: Path) -> None:
    usage_error(quinze("selfplay", "--games", "3", "--seed", str(2**63 - 2), cwd=tmp_path), "later games")
    assert quinze("selfplay", "--games", "1", "--seed", str(2**63 - 1), cwd=tmp_path).returncode == 0


# --------------------------------------------------------------------------- quinze match


def test_match_json_dash_is_stdout_alone(tmp_path: Path) -> None:
    proc = quinze("match", "builtin:random", "builtin:greedy", "--games", "2", "--seed", "1", "--json", "-",
                  "--option", "target=1", cwd=tmp_path)  # games of one deal: where the JSON goes is the subject
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)  # nothing but the JSON on stdout
    assert data["played"] == 2 and data["complete"] is True
    assert not (tmp_path / "-").exists()
    assert "random" in proc.stderr and "greedy" in proc.stderr  # the tables went to stderr


def test_replay_dash_reads_stdin(tmp_path: Path) -> None:
    # games of one deal (target=1): reading the log from stdin is the subject, not its length
    assert quinze("match", "builtin:random", "builtin:random", "--games", "2", "--seed", "1", "--option", "target=1",
                  cwd=tmp_path).returncode == 0
    (log,) = (tmp_path / "logs").glob("match-*.jsonl")
    proc = quinze("replay", "-", "--verify", stdin=log.read_text(encoding="utf-8"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "2/2 verified"


def test_match_fewer_seats_than_bots_says_so(tmp_path: Path) -> None:
    proc = quinze("match", "builtin:greedy", "builtin:random", RANDOM_BOT, "--seats", "2", cwd=tmp_path)
    usage_error(proc, "--seats 2", "a match needs at least as many seats as bots")
    assert "(use --seats)" not in proc.stderr


def test_match_too_many_bots_for_the_game_does_not_blame_option(tmp_path: Path) -> None:
    proc = quinze("match", *["builtin:random"] * 9, cwd=tmp_path)
    usage_error(proc, "9 bots need 9 seats", "at most 8")
    assert "--option" not in proc.stderr


@pytest.mark.parametrize(("args", "words"), [
    (["builtin:random", "builtin:random", "--move-time", "inf"], ["--move-time must be positive, finite seconds"]),
    (["nosuchprog", "builtin:random"], ["BOT 'nosuchprog'", "not an executable program"]),
    (["builtin:random", f"{PY} examples/bots/greedy_bot.py"], ["no file 'examples/bots/greedy_bot.py'"]),
])
def test_match_refuses_before_starting_and_leaves_nothing(args: list[str], words: list[str], tmp_path: Path) -> None:
    proc = quinze("match", *args, "--json", "results.json", cwd=tmp_path)
    assert proc.returncode in (1, 2), proc.stderr
    text = " ".join(proc.stderr.split())
    assert "error:" in text and "Traceback" not in text and "the match stopped" not in text
    for word in words:
        assert word in text
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no results file, no logs, no stderr folder


def test_match_keeps_only_non_empty_stderr_files(tmp_path: Path) -> None:
    noisy = f"{PY} {BOTS / 'flood_stderr.py'} 0.01"
    # games of one deal (target=1): the files are the subject; the flood still fills its file to the cap
    proc = quinze("match", noisy, RANDOM_BOT, "--games", "2", "--seed", "3", "--option", "target=1", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    (folder,) = (tmp_path / "logs").glob("match-*-stderr")
    assert [p.name for p in folder.iterdir()] == ["flood_stderr-slot1.log"]  # the quiet bot's empty file is gone
    quiet = quinze("match", RANDOM_BOT, RANDOM_BOT, "--games", "1", "--seed", "3", "--log-dir", "quiet", "--option", "target=1",
                   cwd=tmp_path)
    assert quiet.returncode == 0, quiet.stderr
    names = sorted(p.name for p in (tmp_path / "quiet").iterdir())  # the log and its journal (docs/match.md "Resume")
    assert len(names) == 2 and names[0].endswith(".journal") and names[1].endswith(".jsonl")
    assert not list((tmp_path / "quiet").glob("*-stderr"))


# --------------------------------------------------------------------------- quinze bot


async def test_bot_program_is_not_started_when_the_join_fails(tmp_path: Path) -> None:
    mark = tmp_path / "started"
    program = f"import pathlib; pathlib.Path({str(mark)!r}).touch()"
    async with serving() as port:
        done = await trio.run_process(
            [QUINZE, "bot", "--server", f"127.0.0.1:{port}", "--table", "zzzz-t9", "--", PY, "-c", program],
            capture_stdout=True, capture_stderr=True, check=False, cwd=tmp_path)
    err = done.stderr.decode()
    assert done.returncode == 1 and "cannot join table zzzz-t9" in err and "unknown-table" in err
    assert not mark.exists()  # the program never ran
    assert "bot stderr:" not in err
