"""The example bots (examples/bots) and the misbehaving test bots (tests/bots), run as real
subprocesses speaking the JSON-lines bot wire (PROTOCOL.md, "JSON-lines wire"; examples/README.md).

The example bots play whole real games against the engines (every registered game): each answer
must be one of the ``legal`` actions of its request (a range entry answered with ``amount=min``).
Each misbehaving bot must misbehave exactly as its docstring says, so the relay and match tests
that use them test what they think they test.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from quinze_protocol.framing import encode_line
from quinze_protocol.game import GameError, game_ids, get_game
from quinze_protocol.messages import Accepted, ActionRequest, EventMessage, GameOver, GameStart, SeatAction, commitment

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "bots"
TEST_BOTS = ROOT / "tests" / "bots"
PY = sys.executable
NODE = shutil.which("node")
TABLE = "t1"
SALT = "0123456789abcdef"


class BotUnderTest:
    """A bot program under test: JSON lines to its stdin, lines read from its stdout with a timeout."""

    def __init__(self, argv: list[str], stderr: Any = subprocess.DEVNULL) -> None:
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, cwd=ROOT)
        self.buffer = b""

    def send(self, message: Any) -> None:
        """One message (a protocol message object or a dict) as one JSON line, flushed."""
        self.proc.stdin.write(encode_line(message))
        self.proc.stdin.flush()

    def read_line(self, timeout: float = 20.0) -> bytes | None:
        """The next line from stdout, terminator included; None if none came within ``timeout`` seconds
        or stdout closed first."""
        end = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buffer:
            left = end - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                return None
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line + b"\n"

    def answer(self, timeout: float = 20.0) -> dict[str, Any]:
        line = self.read_line(timeout)
        assert line is not None, "the bot did not answer"
        return json.loads(line)

    def close(self, timeout: float = 20.0) -> int:
        """Close stdin and wait for the exit code (kill after ``timeout`` seconds)."""
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass


def concrete(entry: dict[str, Any]) -> dict[str, Any]:
    """A legal entry as the bots must answer it: a range ``{min, max}`` becomes ``amount=min``."""
    if "min" in entry and "max" in entry:
        out = {k: v for k, v in entry.items() if k not in ("min", "max")}
        out["amount"] = entry["min"]
        return out
    return entry


def new_game(game_id: str, seed: int, players: int = 2):
    cls = get_game(game_id)
    return cls.new(cls.validate_options({"players": players}), seed)


def game_start(game, game_id: str, seed: int, seat: int | None) -> GameStart:
    return GameStart(
        table=TABLE,
        game=game_id,
        number=1,
        players=tuple(f"p{s}" for s in range(game.players)),
        options=game.options,
        commitment=commitment(seed, SALT),
        seat=seat,
    )


def request_for(game, request: int, deadline: float = 30.0) -> ActionRequest:
    seat = game.to_act
    return ActionRequest(
        table=TABLE, request=request, seat=seat, view=game.view(seat), legal=tuple(game.legal_data()), deadline=deadline
    )


def first_request(game_id: str = "quinze", seed: int = 7) -> tuple[Any, GameStart, ActionRequest]:
    """A fresh game, the game-start of the seat to act and its first action-request."""
    game = new_game(game_id, seed)
    return game, game_start(game, game_id, seed, game.to_act), request_for(game, 1)


def play(game_id: str, argvs: list[list[str]], seed: int) -> tuple[Any, list[dict[str, Any]]]:
    """Play one whole game with one bot process per seat, as a relay would: game-start and the
    events as each seat sees them, an action-request to the seat to act, accepted, game-over.

    Asserts that every answer quotes its request and is one of its legal actions. Returns the
    finished game and the actions played."""
    game = new_game(game_id, seed, players=len(argvs))
    bots = [BotUnderTest(argv) for argv in argvs]
    played: list[dict[str, Any]] = []
    try:
        for seat, bot in enumerate(bots):
            bot.send(game_start(game, game_id, seed, seat))
        events = game.opening_events
        request = 0
        while True:
            for seat, bot in enumerate(bots):
                for ev in events:
                    bot.send(EventMessage(table=TABLE, event=ev.for_seat(seat)))
            if game.is_over:
                break
            request += 1
            msg = request_for(game, request)
            bot = bots[msg.seat]
            bot.send(msg)
            answer = bot.answer()
            assert answer["type"] == "action" and answer["request"] == request, answer
            assert answer["action"] in [concrete(e) for e in msg.legal], (answer, msg.legal)
            events = game.apply(answer["action"])
            played.append({"seat": msg.seat, "action": answer["action"]})
            bot.send(Accepted(table=TABLE, request=request))
        over = GameOver(
            table=TABLE,
            number=1,
            result=game.result().to_data(),
            seed=seed,
            salt=SALT,
            actions=tuple(SeatAction(seat=a["seat"], action=a["action"]) for a in played),
        )
        for bot in bots:
            bot.send(over)
        assert [bot.close() for bot in bots] == [0] * len(bots)
    finally:
        for bot in bots:
            bot.kill()
    return game, played


RANDOM_PY = [PY, str(EXAMPLES / "random_bot.py")]
GREEDY_PY = [PY, str(EXAMPLES / "greedy_bot.py")]
RANDOM_JS = [NODE or "node", str(EXAMPLES / "random_bot.js")]
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")


# --------------------------------------------------------------------------- example bots


@pytest.mark.parametrize("game_id", game_ids())
def test_random_bot_plays_a_whole_game_of_every_game(game_id: str) -> None:
    game, played = play(game_id, [RANDOM_PY + ["1"], RANDOM_PY], seed=11)
    assert game.is_over and played


@pytest.mark.parametrize("game_id", game_ids())
def test_greedy_bot_plays_a_whole_game(game_id: str) -> None:
    game, played = play(game_id, [RANDOM_PY + ["1"], GREEDY_PY], seed=11)
    assert game.is_over and played


def test_greedy_bot_rules_of_thumb_for_le_14_and_classique() -> None:
    bot = BotUnderTest(GREEDY_PY)
    try:
        bot.send({"type": "game-start", "table": TABLE, "game": "quatorze", "seat": 0})
        legal = [
            {"type": "substitute", "kind": "hand-for-two", "hand": "9S", "combination": 0, "cards": ["3C", "6C"]},
            {"type": "combine", "cards": ["5H", "9C"]},
            {"type": "combine", "cards": ["2H", "3H", "9D"]},
            {"type": "discard", "card": "KD"},
        ]
        bot.send({"type": "action-request", "table": TABLE, "request": 1, "seat": 0, "view": {}, "legal": legal, "deadline": 5.0})
        assert bot.answer()["action"] == {"type": "combine", "cards": ["2H", "3H", "9D"]}
        legal = [{"type": "discard", "card": "9H"}, {"type": "discard", "card": "QS"}, {"type": "discard", "card": "AC"}]
        bot.send({"type": "action-request", "table": TABLE, "request": 2, "seat": 0, "view": {}, "legal": legal, "deadline": 5.0})
        assert bot.answer()["action"] == {"type": "discard", "card": "QS"}
        bot.send({"type": "game-start", "table": TABLE, "game": "quinze-classique", "seat": 0})
        legal = [{"type": "pass"}, {"type": "stand"}, {"type": "hit"}]
        bot.send({"type": "action-request", "table": TABLE, "request": 3, "seat": 0, "view": {"total": 6}, "legal": legal, "deadline": 5.0})
        assert bot.answer()["action"] == {"type": "hit"}
        bot.send({"type": "action-request", "table": TABLE, "request": 4, "seat": 0, "view": {"total": 13}, "legal": legal, "deadline": 5.0})
        assert bot.answer()["action"] == {"type": "stand"}
        legal = [{"type": "fold"}, {"type": "call"}, {"type": "raise", "min": 1, "max": 9}]
        bot.send({"type": "action-request", "table": TABLE, "request": 5, "seat": 0, "view": {"total": 13}, "legal": legal, "deadline": 5.0})
        assert bot.answer()["action"] == {"type": "call"}
    finally:
        bot.close()


@needs_node
@pytest.mark.parametrize("game_id", game_ids())
def test_js_bot_plays_a_whole_game_of_every_game(game_id: str) -> None:
    game, played = play(game_id, [RANDOM_JS + ["1"], RANDOM_PY + ["2"]], seed=12)
    assert game.is_over and played


def test_random_bot_is_reproducible_with_a_seed() -> None:
    _, first = play("quinze", [RANDOM_PY + ["5"], RANDOM_PY + ["6"]], seed=3)
    _, again = play("quinze", [RANDOM_PY + ["5"], RANDOM_PY + ["6"]], seed=3)
    assert first == again


def test_greedy_bot_makes_the_fifteen_with_most_hand_cards_then_sheds_the_heaviest_card() -> None:
    bot = BotUnderTest(GREEDY_PY)
    try:
        bot.send({"type": "game-start", "table": TABLE, "game": "quinze", "seat": 0})
        legal = [
            {"type": "fifteen", "hand": ["7H"], "table": ["8C"]},
            {"type": "fifteen", "hand": ["10S", "3D", "2H"], "table": []},
            {"type": "fifteen", "hand": ["KS"], "table": ["2C"]},
        ]
        bot.send({"type": "action-request", "table": TABLE, "request": 4, "seat": 0, "view": {}, "legal": legal, "deadline": 5.0})
        assert bot.answer()["action"] == legal[1]
        legal = [
            {"type": "place", "cards": ["7H"]},
            {"type": "place", "cards": ["AS"]},
            {"type": "place", "cards": ["QS", "QH"]},
            {"type": "place", "cards": ["RJ"]},
        ]
        bot.send({"type": "action-request", "table": TABLE, "request": 5, "seat": 0, "view": {}, "legal": legal, "deadline": 5.0})
        assert bot.answer()["action"] == legal[2]
        legal = [{"type": "end"}]
        bot.send({"type": "action-request", "table": TABLE, "request": 6, "seat": 0, "view": {}, "legal": legal, "deadline": 5.0})
        assert bot.answer() == {"type": "action", "table": TABLE, "request": 6, "action": {"type": "end"}}
        assert bot.close() == 0
    finally:
        bot.kill()


@pytest.mark.parametrize(
    "argv", [RANDOM_PY, GREEDY_PY, pytest.param(RANDOM_JS, marks=needs_node)], ids=["random.py", "greedy.py", "random.js"]
)
def test_example_bots_answer_a_range_with_its_minimum_in_any_game(argv: list[str]) -> None:
    bot = BotUnderTest(argv)
    try:
        bot.send({"type": "game-start", "table": TABLE, "game": "some-new-game", "seat": 1, "commitment": "00" * 32})
        legal = [{"type": "raise", "min": 2, "max": 9}]
        bot.send({"type": "action-request", "table": TABLE, "request": 9, "seat": 1, "view": {}, "legal": legal, "deadline": 5.0})
        assert bot.answer() == {"type": "action", "table": TABLE, "request": 9, "action": {"type": "raise", "amount": 2}}
        assert bot.close() == 0
    finally:
        bot.kill()


# --------------------------------------------------------------------------- misbehaving bots


def test_never_flush_sends_nothing_and_does_not_exit() -> None:
    game, start, request = first_request()
    bot = BotUnderTest([PY, str(TEST_BOTS / "never_flush.py")])
    try:
        bot.send(start)
        bot.send(request)
        assert bot.read_line(timeout=1.0) is None
        bot.proc.stdin.close()
        assert bot.read_line(timeout=1.0) is None
        assert bot.proc.poll() is None, "never_flush.py exited at the end of its input"
    finally:
        bot.kill()


def test_exit_before_start_exits_with_code_3_without_output() -> None:
    proc = subprocess.run([PY, str(TEST_BOTS / "exit_before_start.py")], input=b"", capture_output=True, timeout=20)
    assert proc.returncode == 3
    assert proc.stdout == b""


def test_exit_midgame_answers_then_exits_with_code_1() -> None:
    game, start, request = first_request()
    bot = BotUnderTest([PY, str(TEST_BOTS / "exit_midgame.py"), "2"])
    try:
        bot.send(start)
        for n in (1, 2):
            msg = request_for(game, n)
            bot.send(msg)
            answer = bot.answer()
            assert answer["action"] in [concrete(e) for e in msg.legal]
            game.apply(answer["action"])
            while not game.is_over and game.to_act != request.seat:  # answer only for the bot's seat
                game.apply(game.legal_actions()[0], checked=False)
        bot.send(request_for(game, 3))
        assert bot.read_line(timeout=20) is None
        assert bot.proc.wait(20) == 1
    finally:
        bot.kill()


def test_crlf_bot_answers_legally_with_crlf_line_endings() -> None:
    game, start, request = first_request()
    bot = BotUnderTest([PY, str(TEST_BOTS / "crlf.py")])
    try:
        bot.send(start)
        bot.send(request)
        line = bot.read_line()
        assert line is not None and line.endswith(b"}\r\n")
        answer = json.loads(line)
        assert answer["request"] == 1 and answer["action"] in [concrete(e) for e in request.legal]
        game.apply(answer["action"])  # the engine accepts it
        assert bot.close() == 0
    finally:
        bot.kill()


def test_flood_stderr_writes_megabytes_and_still_answers_legally(tmp_path: Path) -> None:
    game, start, request = first_request()
    with open(tmp_path / "stderr.txt", "wb") as err:
        bot = BotUnderTest([PY, str(TEST_BOTS / "flood_stderr.py"), "2"], stderr=err)
        try:
            bot.send(start)
            bot.send(request)
            answer = bot.answer()
            assert answer["action"] in [concrete(e) for e in request.legal]
            assert bot.close() == 0
        finally:
            bot.kill()
    assert (tmp_path / "stderr.txt").stat().st_size >= 2 * 1024 * 1024


def test_garbage_bot_answers_the_first_request_with_non_json() -> None:
    game, start, request = first_request()
    bot = BotUnderTest([PY, str(TEST_BOTS / "garbage.py")])
    try:
        bot.send(start)
        bot.send(request)
        line = bot.read_line()
        assert line is not None
        with pytest.raises(ValueError):
            json.loads(line)
        assert bot.close() == 0
    finally:
        bot.kill()


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_illegal_bot_answers_an_action_the_engine_refuses(seed: int) -> None:
    game, start, request = first_request(seed=seed)
    bot = BotUnderTest([PY, str(TEST_BOTS / "illegal.py")])
    try:
        bot.send(start)
        bot.send(request)
        answer = bot.answer()
        assert answer["type"] == "action" and answer["request"] == 1
        assert answer["action"] not in [concrete(e) for e in request.legal]
        before = game.to_position()
        with pytest.raises(GameError):
            game.apply(answer["action"])
        assert game.to_position() == before
        assert bot.close() == 0
    finally:
        bot.kill()


def test_slow_bot_answers_only_after_the_deadline() -> None:
    game, start, _ = first_request()
    request = request_for(game, 1, deadline=0.5)
    bot = BotUnderTest([PY, str(TEST_BOTS / "slow.py")])
    try:
        bot.send(start)
        bot.send(request)
        assert bot.read_line(timeout=request.deadline) is None  # nothing within the deadline
        answer = bot.answer(timeout=20)  # the answer comes, too late
        assert answer["action"] in [concrete(e) for e in request.legal]
        assert bot.close() == 0
    finally:
        bot.kill()


# --------------------------------------------------------------------------- examples/README.md


def readme_blocks(lang: str) -> list[str]:
    text = (ROOT / "examples" / "README.md").read_text(encoding="utf-8")
    return [block for block in text.split("```" + lang + "\n")[1:] for block in [block.split("```")[0]]]


def test_readme_messages_are_valid_protocol_messages() -> None:
    from quinze_protocol.messages import parse_message

    lines = [line for block in readme_blocks("json") for line in block.splitlines() if line.strip()]
    types = {parse_message(json.loads(line)).type for line in lines}
    assert {"game-start", "event", "action-request", "accepted", "refused", "game-over", "action"} <= types


@pytest.mark.parametrize("wire", ["json", "msgpack"])
def test_readme_bots_answer_a_real_request_legally(tmp_path: Path, wire: str) -> None:
    from quinze_protocol.framing import FrameDecoder, encode_frame

    [code] = [b for b in readme_blocks("python") if ("msgpack" in b) == (wire == "msgpack")]
    script = tmp_path / "bot.py"
    script.write_text(code, encoding="utf-8")
    game, start, request = first_request()
    encode = encode_line if wire == "json" else encode_frame
    proc = subprocess.run([PY, str(script)], input=encode(start) + encode(request), capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    if wire == "json":
        [answer] = [json.loads(line) for line in proc.stdout.splitlines()]
    else:
        decoder = FrameDecoder()
        decoder.feed(proc.stdout)
        [answer] = [m.to_data() for m in decoder.messages()]
    assert answer["request"] == 1 and answer["table"] == TABLE
    game.apply(answer["action"])
