"""``quinze check-bot``: every example bot passes every check; each misbehaving bot of tests/bots
fails the check about its fault. The bots are real subprocesses (the server check plays on a
real embedded server); check-bot itself runs in this process (tests/clikit.py: the console
script's entry point, whose report and exit code are the subject)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from clikit import quinze
from test_native_bots import CARGO, GCC, build_c, build_rust, built_once

from quinze_cli.checkbot.report import CHECKS

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "bots"
BOTS = ROOT / "tests" / "bots"
PY = sys.executable
NODE = shutil.which("node")


def check_bot(*args: str) -> subprocess.CompletedProcess:
    return quinze("check-bot", *args, cwd=ROOT)


def checklist(*args: str, deadline: float = 5.0, grace: float = 2.0) -> tuple[int, dict]:
    """The ``--json`` checklist, every scenario at the same time (``--concurrency 6``: the
    checklist is the same as one after the other, as
    :func:`test_the_checklist_prints_one_line_per_check_with_reason_and_fix` sees;
    a bot that never answers then costs the deadline and the grace once, not six times). Deadlines
    are generous: a loaded machine must not make a correct bot late, nor a misbehaving one late for
    another fault than its own (a bot that exits on a ``refused`` was once seen answering the
    request before it 2.7 s late with four test workers on two cores); only the bots that never
    answer in time get a short one (:data:`SILENT`)."""
    done = check_bot("--json", "--concurrency", "6", "--deadline", str(deadline), "--grace", str(grace), *args)
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)


def statuses(data: dict) -> dict[str, str]:
    return {c["check"]: c["status"] for c in data["checks"]}


def assert_all_pass(*args: str) -> None:
    code, data = checklist(*args)
    failing = [c for c in data["checks"] if c["status"] != "pass"]
    assert code == 0 and data["passed"] and not failing, failing
    assert [c["check"] for c in data["checks"]] == [c[0] for c in CHECKS]


# --------------------------------------------------------------------------- bots that pass


@pytest.mark.parametrize("script", ["random_bot.py", "greedy_bot.py"])
def test_python_example_bots_pass_every_check(script: str) -> None:
    assert_all_pass("--", PY, str(EXAMPLES / script))


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_js_example_bot_passes_every_check() -> None:
    assert_all_pass("--", NODE, str(EXAMPLES / "random_bot.js"))


@pytest.mark.skipif(GCC is None, reason="no C compiler (gcc or cc) on PATH")
def test_c_example_bot_passes_every_check(tmp_path_factory: pytest.TempPathFactory) -> None:
    assert_all_pass("--", str(built_once(tmp_path_factory, "c-bot", build_c)))  # the build of test_native_bots.py


@pytest.mark.skipif(CARGO is None, reason="cargo is not on PATH nor in ~/.cargo/bin")
def test_rust_example_bot_passes_every_check(tmp_path_factory: pytest.TempPathFactory) -> None:
    assert_all_pass("--", str(built_once(tmp_path_factory, "rust-bot", build_rust)))


@pytest.mark.parametrize("script", ["crlf.py", "flood_stderr.py"])
def test_correct_test_bots_pass_every_check(script: str) -> None:
    assert_all_pass("--game", "quinze", "--", PY, str(BOTS / script))


def test_a_msgpack_bot_passes_on_the_msgpack_wire() -> None:
    # msgpack_random.py sends a range entry as it is, so it is a Le Quinze bot only.
    assert_all_pass("--wire", "msgpack", "--game", "quinze", "--", PY, str(BOTS / "msgpack_random.py"))


def test_the_flooding_bot_has_its_stderr_drained_and_counted() -> None:
    _, data = checklist("--game", "quinze", "--", PY, str(BOTS / "flood_stderr.py"))
    stderr = next(c for c in data["checks"] if c["check"] == "stderr")
    drained = int(stderr["notes"][0].split()[0])
    assert drained > 4 * 1024 * 1024


# --------------------------------------------------------------------------- bots that fail

MISBEHAVING = [
    ("exit_before_start.py", "handshake", "exited with code 3"),
    ("needs_hello.py", "handshake", "'hello'"),
    ("slow.py", "deadline", "answered after"),
    ("never_flush.py", "flush", "unflushed"),
    ("no_newline.py", "flush", "without a line end"),
    ("unflushed.py", "flush", "unflushed"),
    ("garbage.py", "well-formed", "not JSON"),
    ("long_line.py", "well-formed", "longer than the limit"),
    ("huge_number.py", "well-formed", "64-bit"),
    ("illegal.py", "legal", "refused"),
    ("wrong_request.py", "copies", "quoted request"),
    ("strict_types.py", "unknown", "exited with code 2"),
    ("crash_on_refused.py", "refused", "exited with code 4"),
    ("exit_midgame.py", "stays-up", "exited with code 1"),
    ("kill_self.py", "stays-up", "SIGKILL"),
    # the end after game 1 is seen either between the games or as game 2's crash, as the timing falls
    ("one_game.py", "games", ("a crash between games", "game 2: crash")),
    ("linger.py", "exit", "still running"),
    ("close_stdout.py", "handshake", "the program closed its standard output (it is still running) before any message"),
    ("deep_line.py", "well-formed", "[too-many-elements]"),
]


SILENT = {"needs_hello.py", "slow.py", "never_flush.py", "no_newline.py", "unflushed.py", "close_stdout.py"}
"""The bots that answer no request in time whatever its deadline: every scenario waits the deadline
and the grace out on them, so they get a short deadline (slow.py sleeps the deadline + 1 s, still
within the 2 s grace, so its answer is still seen late)."""

NEVER = SILENT - {"slow.py", "no_newline.py"}
"""The silent bots that answer nothing at all while running (no late answer to look for): a short
grace too, as no timing can turn their fault into another one. no_newline.py is not one of them:
its fault is told by the bytes it does write, which a cold start of the bot under the suite's load
(four workers on two cores) delayed past a 0.5 s grace once (a red CI run: "nothing came out in
1 s" instead of "without a line end"); it keeps the 2 s grace. slow.py gets a long one instead
(4 s): its answer, 1 s past the deadline, must be seen late, and was once seen only after the 2 s
grace, the suite's heaviest tests running beside it under load 9; the grace costs it nothing, as
it answers every request."""


@pytest.mark.parametrize(("script", "check", "why"), MISBEHAVING, ids=[m[0] for m in MISBEHAVING])
def test_each_misbehaving_bot_fails_the_check_about_its_fault(script: str, check: str, why: str) -> None:
    deadline = 0.5 if script in SILENT else 5.0
    code, data = checklist("--game", "quinze", "--", PY, str(BOTS / script), deadline=deadline,
                           grace=0.5 if script in NEVER else 4.0 if script == "slow.py" else 2.0)
    assert code == 1 and not data["passed"]
    verdict = next(c for c in data["checks"] if c["check"] == check)
    assert verdict["status"] == "fail", data["checks"]
    assert any(w in verdict["reason"] for w in ((why,) if isinstance(why, str) else why)), verdict
    assert verdict["hint"], verdict


def test_a_bot_exiting_0_too_early_is_told_to_keep_reading_not_to_exit_0() -> None:
    """An exit with status 0 while input is still coming: the failed checks say so, and their fix
    is to keep reading until stdin ends, never the exit check's own "exit with status 0" (which it
    did, too early: a newcomer's report of contradictory advice)."""
    code, data = checklist("--game", "quinze", "--", PY, str(BOTS / "exit_zero_early.py"), deadline=5.0, grace=2.0)
    assert code == 1 and not data["passed"]
    early = [c for c in data["checks"] if c["status"] == "fail" and "exited with code 0" in c["reason"]]
    assert early, data["checks"]
    assert all("exit with status 0" not in verdict["hint"] for verdict in early), early
    assert any("keep reading until stdin ends" in verdict["hint"] for verdict in early), early


def test_a_bot_crashing_anyway_is_not_blamed_on_unknown_messages() -> None:
    # It exits on its 3rd request whatever it is sent: in whole games too (stays-up), so the
    # crash in the unknown-messages scenario is said as a crash, not "skip unknown types".
    code, data = checklist("--game", "quinze", "--", PY, str(BOTS / "exit_midgame.py"), "2")
    verdicts = {c["check"]: c for c in data["checks"]}
    assert code == 1 and verdicts["stays-up"]["status"] == "fail", verdicts["stays-up"]
    unknown = verdicts["unknown"]
    assert unknown["status"] == "skip" and "skip messages" not in unknown["hint"], unknown
    assert "exited with code 1" in unknown["reason"] and "stderr ends with: exit_midgame: exiting with code 1" \
        in unknown["reason"] and "in whole games too (see stays-up)" in unknown["reason"], unknown


def test_a_bot_that_only_writes_garbage_passes_no_check_about_its_answers() -> None:
    code, data = checklist("--game", "quinze", "--", PY, str(BOTS / "garbage_always.py"))
    verdicts = {c["check"]: c for c in data["checks"]}
    assert code == 1 and verdicts["well-formed"]["status"] == "fail"
    for check in ("deadline", "unknown", "refused"):
        assert verdicts[check]["status"] != "pass", verdicts[check]
        assert "well-formed" in verdicts[check]["reason"], verdicts[check]


@pytest.mark.parametrize(("bot", "wire", "other"), [
    ([str(EXAMPLES / "random_bot.py")], "msgpack", "--wire json"),  # a JSON bot: it crashes on the frames
    ([str(BOTS / "other_wire.py"), "json-out"], "msgpack", "--wire json"),  # it answers JSON text
    ([str(BOTS / "other_wire.py"), "frames-out"], "json", "--wire msgpack"),  # it answers frames
])
def test_a_bot_on_the_other_wire_is_told_to_check_wire(bot: list[str], wire: str, other: str) -> None:
    code, data = checklist("--wire", wire, "--game", "quinze", "--", PY, *bot, deadline=1.0, grace=0.5)
    handshake = next(c for c in data["checks"] if c["check"] == "handshake")
    assert code == 1 and handshake["status"] == "fail", handshake
    assert f"check --wire: this run spoke the {wire} wire" in handshake["hint"] and other in handshake["hint"], handshake


def test_every_check_but_stderr_is_failed_by_some_test_bot() -> None:
    # stderr has no failing bot: flood_stderr.py is correct and must pass it.
    assert {m[1] for m in MISBEHAVING} == {c[0] for c in CHECKS} - {"stderr"}


def test_the_checklist_prints_one_line_per_check_with_reason_and_fix() -> None:
    done = check_bot("--game", "quinze", "--", PY, str(BOTS / "illegal.py"))
    assert done.returncode == 1
    at_once = check_bot("--concurrency", "6", "--game", "quinze", "--", PY, str(BOTS / "illegal.py"))
    # every scenario at the same time: the same lines (reasons, counts of further failures, notes)
    assert (at_once.returncode, at_once.stdout) == (done.returncode, done.stdout)
    lines = done.stdout.splitlines()
    assert lines[0].startswith("check-bot: ")
    for check, title, _ in CHECKS:
        assert any(line.split()[1:2] == [check] and title in line for line in lines), (check, done.stdout)
    failed = next(i for i, line in enumerate(lines) if line.startswith("FAIL") and " legal " in line)
    assert "refused" in lines[failed + 1] and lines[failed + 2].strip().startswith("fix: send one entry")
    failed_count = sum(line.startswith("FAIL") for line in lines)
    assert failed_count >= 1 and lines[-1].endswith(f", {failed_count} failed")


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--game", "chess", "--", "true"], 2, "--game must be one of"),
        (["--wire", "xml", "--", "true"], 2, "--wire must be json or msgpack"),
        (["--deadline", "0", "--", "true"], 2, "--deadline"),
        (["--grace", "0", "--", "true"], 2, "--grace must be 0.1 .. 600 seconds"),
        (["--concurrency", "0", "--", "true"], 2, "--concurrency must be 1 .. 6"),
        (["--", "no-such-program-here"], 1, "is not an executable program"),
    ],
)
def test_bad_usage_is_refused_before_anything_runs(args: list[str], code: int, message: str) -> None:
    done = check_bot(*args)
    assert done.returncode == code and message in done.stderr, done.stderr


# --------------------------------------------------------------------------- saying something unasked

TALKERS = [  # (what it says, what it says it after, the words naming that in the reason)
    ("garbage", "table-news", "after a table-news message"),
    ("json", "clock", "after a clock message"),
    ("action", "fireworks", "after an event of a kind it does not know (fireworks)"),
    ("garbage", "lobby", "after a game-start with a key it does not know (lobby)"),
    ("json", "hint", "or an action-request with keys it does not know (hint, clock)"),
    ("action", "table-news", "after a table-news message"),
]


@pytest.mark.parametrize(("mode", "trigger", "after"), TALKERS, ids=[f"{m}-{t}" for m, t, _ in TALKERS])
def test_a_bot_that_says_anything_after_an_unknown_message_fails_unknown(mode: str, trigger: str, after: str) -> None:
    """Whatever it says (not JSON, JSON that is no action, an action nobody asked for) and however
    fast: the request that follows each unknown thing tells what came in answer to it."""
    code, data = checklist("--game", "quinze", "--", PY, str(BOTS / "talk_unknown.py"), mode, trigger)
    assert code == 1
    verdicts = {c["check"]: c for c in data["checks"]}
    assert verdicts["unknown"]["status"] == "fail", verdicts["unknown"]
    reason = verdicts["unknown"]["reason"]
    assert after in reason, reason
    said = {"garbage": f"what is {trigger}?", "json": '"question"', "action": '"type": "action"'}[mode]
    assert said in reason, reason
    # its answers themselves are right: only unknown fails
    assert [c for c, v in verdicts.items() if v["status"] != "pass"] == ["unknown"], verdicts


def test_a_bot_silent_after_unknown_messages_passes_unknown() -> None:
    assert_all_pass("--game", "quinze", "--", PY, str(BOTS / "talk_unknown.py"), "silent", "table-news")


def test_a_too_deep_line_is_told_in_the_relays_words_in_both_checks() -> None:
    # The direct scenarios read a bot's line as the relay does (its element limit): one code, one wording.
    _, data = checklist("--game", "quinze", "--", PY, str(BOTS / "deep_line.py"))
    reasons = {c["check"]: c["reason"] for c in data["checks"]}
    assert "[too-many-elements]" in reasons["well-formed"] and "[too-many-elements]" in reasons["games"], reasons
    assert "RecursionError" not in json.dumps(data)
    words = reasons["well-formed"].split("[too-many-elements]")[0].split(": ", 3)[-1]
    assert words in reasons["games"], (words, reasons["games"])
