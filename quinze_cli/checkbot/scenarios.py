"""The scripted scenarios of ``quinze check-bot`` played directly over the bot's stdin/stdout.

Each scenario starts a fresh process (:class:`~quinze_cli.checkbot.probe.Probe`), sends it the
messages a relay would (PROTOCOL.md "JSON-lines wire", "Messages"), crafted where a check needs
it (an unknown message type, a ``refused``, the end of input), and records verdicts in a
:class:`~quinze_cli.checkbot.report.Checklist`. Every answer is judged the same way
(:meth:`Session.ask`): on time, well formed, quoting its request, legal for the engine. An answer
that is wrong but in time is replaced by a legal action of the checker's choosing and the game
goes on; a late or missing answer, or an exit, stops the scenario (the rest would only wait).

The real-server scenario (several games on one process) is in
:mod:`quinze_cli.checkbot.server`.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from quinze_protocol.errors import ProtocolError
from quinze_protocol.framing import encode_frame
from quinze_protocol.game import Game, GameError, get_game
from quinze_protocol.messages import parse_message
from quinze_protocol.rng import Rng
from quinze_cli.checkbot.positions import concrete, crafted
from quinze_cli.checkbot.probe import Probe, ended, program_env
from quinze_cli.checkbot.report import HINTS, Checklist

SALT = "c0ffee0123456789"
AFTER_GAMES = ("unknown", "refused", "exit")
"""The checks whose scenario an exit fails, that can wait for the whole-games scenario to end (the
scenarios run in order, ``handshake`` first, or at the same time)."""
EXIT_WAIT = 2.0
"""Seconds a bot may take to exit once its stdin is closed."""
QUIET = 0.3
"""Seconds the checker listens before its first message (a bot must not speak first)."""
ASKS_PER_POSITION = 4
"""How many times each crafted position is asked (a random bot then tries several entries)."""
SEED_SPAN = 100
"""The scripted games use seeds ``seed`` .. ``seed + SEED_SPAN - 1`` (a whole game ``seed + 17·i``,
a session's games ``seed + number`` and ``seed + 50 + number``, the real server's
``seed + game``): ``--seed`` leaves them room below the protocol's largest seed."""


@dataclass
class Settings:
    """What to check: the program (``argv``, started in ``cwd``), the ``wire``, the ``games`` (ids),
    the ``deadline`` of each request (s) and the ``grace`` (s) waited past it for a late answer.

    Filled in as the run goes: ``answers``, the requests answered in time by scenario (only the
    whole-games one is counted), and ``games_done``, set when that scenario has ended (the
    scenarios that judge a stop by its count wait for it: the scenarios may run at the same time,
    ``quinze check-bot --concurrency``)."""

    argv: Sequence[str]
    wire: str = "json"
    games: Sequence[str] = ()
    deadline: float = 5.0
    grace: float = 2.0
    cwd: str | None = None
    seed: int = 1
    env: Mapping[str, str] | None = field(default_factory=program_env)
    """The program's environment: :func:`program_env` (this process's without ``PYTHONUNBUFFERED``)."""
    answers: dict[str, int] = field(default_factory=dict)
    games_done: threading.Event = field(default_factory=threading.Event)
    games_exit: str = ""
    """How the program ended in the whole-games scenario (``"exited with code 1"``), ``""`` when
    it kept running: an exit in a later scenario is then not blamed on what that scenario sent."""

    def answered_whole_games(self) -> bool:
        """Whether the whole-games scenario had a request answered in time; waits for it to end."""
        self.games_done.wait()
        return self.answers.get("whole games", 0) > 0

    def exited_in_whole_games(self) -> str:
        """:attr:`games_exit`, once the whole-games scenario has ended (waits for it)."""
        self.games_done.wait()
        return self.games_exit


class Stop(Exception):
    """The scenario cannot go on (no answer, late answer, the program ended)."""


def wire_hint(wire: str) -> str:
    """The hint of a bot that may speak the other wire than ``wire``."""
    if wire == "msgpack":
        return ("check --wire: this run spoke the msgpack wire (length-prefixed frames); a bot that reads and "
                "writes JSON lines fails so (give --wire json)")
    return ("check --wire: this run spoke the json wire (one JSON object per line); a bot that reads and writes "
            "msgpack frames fails so (give --wire msgpack)")


def _short(value: Any, limit: int = 120) -> str:
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


class Session:
    """One scenario's process and the message flow to it; ``where`` names the scenario in reasons."""

    def __init__(self, settings: Settings, checks: Checklist, where: str, crash_check: str = "stays-up") -> None:
        self.s = settings
        self.checks = checks
        self.where = where
        self.crash_check = crash_check
        """The check an exit of the program fails (the one this scenario is about)."""
        self.table = f"t{10 + Rng(settings.seed * 1009 + sum(map(ord, where))).below(89)}"
        self.request = 40
        self.number = 0
        self.answers = 0
        self.valid = 0
        self.crashed_anyway = False
        """Whether the program ended here as it does in whole games (not judged for this scenario)."""
        """The answers that were well-formed actions (a check passes only on one of them)."""
        self.loose = False
        """Whether the first line after a request is its answer, whatever it quotes (see ``_past_strays``)."""
        self.heard: Any = None
        """What was read as the answer to the last request (an :class:`~quinze_cli.checkbot.probe.Output`)."""
        self.probe = Probe(settings.argv, wire=settings.wire, cwd=settings.cwd, env=settings.env)

    # ------------------------------------------------------------------ messages

    def send(self, *msgs: Mapping[str, Any]) -> None:
        if not self.probe.send(*msgs, timeout=self.s.deadline):
            rc = self.probe.wait(0.5)
            if rc is not None:
                self._exited(rc, "while being written to")
            self.checks.fail("deadline", f"{self.where}: it stopped reading its input (a write waited {self.s.deadline:g} s)")
            raise Stop

    def game_start(self, game: Game, seat: int, **extra: Any) -> None:
        self.number += 1
        seed = self.s.seed + self.number
        self.seed = seed
        commitment = hashlib.sha256(f"{seed}:{SALT}".encode()).hexdigest()
        self.send({"type": "game-start", "table": self.table, "game": type(game).id, "number": self.number,
                   "players": [f"p{s}" for s in range(game.players)], "options": game.options,
                   "commitment": commitment, "seat": seat, **extra})

    def events(self, events: Sequence[Any], seat: int) -> None:
        if events:
            self.send(*({"type": "event", "table": self.table, "event": ev.for_seat(seat)} for ev in events))

    def game_over(self, game: Game, actions: list[dict[str, Any]], forfeit: dict[str, Any] | None = None) -> None:
        result = game.result()
        n = game.players
        data = result.to_data() if result is not None else {
            "points": [1.0 / n] * n, "scores": [0] * n, "winners": list(range(n)), "reason": "stopped"}
        self.send({"type": "game-over", "table": self.table, "number": self.number, "result": data,
                   "seed": self.seed, "salt": SALT, "actions": actions, "forfeit": forfeit})

    # ------------------------------------------------------------------ answers

    def _exited(self, rc: int | None, when: str) -> None:
        tail = self.probe.stderr_tail()
        early = ("keep reading until stdin ends (read returns end of file), and exit only then: "
                 "its end (status 0) came while input was still being sent") if rc == 0 else ""  # not the check's own hint
        reason = f"{self.where}: the program {ended(rc)} {when}" + (f"; stderr ends with: {tail}" if tail else "")
        if self.crash_check == "stays-up":
            self.s.games_exit = ended(rc)
        elif self.crash_check in AFTER_GAMES and self.s.exited_in_whole_games():
            # It ends in whole games too, where nothing unusual is sent: a crash, not this check's fault.
            self.crashed_anyway = True
            self.checks.not_judged(self.crash_check, f"not judged: {reason}; it {self.s.games_exit} in whole games "
                                                     "too (see stays-up)")
            raise Stop
        elif self.crash_check == "handshake" and self.answers == 0:
            early = early or f"{HINTS['handshake']}; {wire_hint(self.s.wire)}"
        self.checks.fail(self.crash_check, reason, early)
        raise Stop

    def ask(self, game: Game, label: str, after: str | None = None, **extra: Any) -> dict[str, Any] | None:
        """Send an action-request for the seat to act in ``game`` and judge the answer. Returns the
        action when it is legal, None when it was answered wrongly but in time (the caller plays
        something else). Raises :class:`Stop` when no usable answer came. With ``after`` (what was
        sent since the last answer, in words), lines before the answer fail the ``unknown`` check."""
        self.request += 1
        seat = game.to_act
        legal = game.legal_data()
        at = f"{label}, request {self.request}"
        where = f"{self.where}, {at}"
        self.send({"type": "action-request", "table": self.table, "request": self.request, "seat": seat,
                   "view": game.view(seat), "legal": legal, "deadline": self.s.deadline, **extra})
        out = self.probe.read(self.s.deadline)
        if after is not None:
            out = self._past_strays(out, after, where)
        self.heard = out
        if out.kind == "timeout":
            late = self.probe.read(self.s.grace)
            if late.kind in ("message", "garbage"):
                self.checks.fail("deadline", f"{where}: answered after {late.at:.2f} s, the deadline was {self.s.deadline:g} s")
                self.checks.ok("flush")
                raise Stop
            if late.kind == "exited":
                self._exited(late.returncode, f"at {at}")
            waited = self.s.deadline + self.s.grace
            self.checks.fail("deadline", f"{where}: no answer within {self.s.deadline:g} s")
            if late.partial:
                self.checks.fail("flush", f"{where}: {late.partial} bytes came without a line end in {waited:g} s")
            elif self.answers == 0:
                self.checks.fail("flush", f"{where}: nothing came out in {waited:g} s while the program kept running "
                                          "(an answer left in an unflushed buffer?)")
            raise Stop
        if out.kind == "exited":
            if out.partial:
                self.checks.fail("flush", f"{where}: {out.partial} bytes without a line end, then the output ended")
            self._exited(out.returncode, f"at {at}")
        self.answers += 1
        self.checks.ok("flush")
        if out.kind == "garbage":
            self.checks.fail("well-formed", f"{where}: {out.reason}" + (f": {_short(out.raw)}" if out.raw else ""),
                             f"{HINTS['well-formed']}; {wire_hint(self.s.wire)}" if out.other_wire else "")
            return None
        assert out.data is not None, "a message read carries its map"
        valid = self.valid
        action = self.judge(game, out.data, legal, where)
        if self.valid > valid:  # in time, and an answer: garbage in time answers nothing
            self.checks.ok("deadline")
        return action

    def _is_answer(self, out: Any) -> bool:
        return out.kind == "message" and out.data.get("type") == "action" and out.data.get("request") == self.request

    def _past_strays(self, out: Any, after: str, where: str) -> Any:
        """Skip what the program wrote before its answer to the request just sent, failing ``unknown``
        for each line: it was said unasked, after ``after``. A line that nothing follows before the
        deadline was its answer after all (a wrong one, judged by the caller); from then on the first
        line is taken as the answer (a program that quotes requests wrongly does it every time)."""
        strays: list[Any] = []
        while (not self.loose and out.kind in ("message", "garbage") and not self._is_answer(out)
               and len(strays) < 8):
            strays.append(out)
            out = self.probe.read(max(0.0, self.s.deadline - out.at))
            if out.kind == "timeout" and not out.partial:
                out = strays.pop()
                self.loose = True
        for stray in strays:
            said = _short(stray.raw) if stray.kind == "garbage" or self.s.wire == "json" else _short(stray.data)
            self.checks.fail("unknown", f"{where}: after {after} it said {said.strip()!r} "
                                        "before its answer: only action-requests want an answer")
        return out

    def judge(self, game: Game, data: dict[str, Any], legal: list[dict[str, Any]], where: str) -> dict[str, Any] | None:
        """The checks of one answer (a map with a type): well formed, copies, legal."""
        if data.get("type") != "action":
            self.checks.fail("well-formed", f"{where}: a {data.get('type')!r} message instead of an action")
            return None
        action = data.get("action")
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            self.checks.fail("well-formed", f'{where}: "action" is not a map with a "type": {_short(action)}')
            return None
        try:
            encode_frame(parse_message({"type": "action", "table": self.table, "request": self.request, "action": action}))
        except (ProtocolError, OverflowError, TypeError, ValueError) as err:
            self.checks.fail("well-formed", f"{where}: the server could not be sent it ({err})")
            return None
        self.checks.ok("well-formed")
        self.valid += 1
        if data.get("request") != self.request:
            self.checks.fail("copies", f"{where}: it quoted request {data.get('request')!r}")
        elif "table" in data and data["table"] != self.table:
            self.checks.fail("copies", f"{where}: it quoted table {data.get('table')!r}, the request's is {self.table!r}")
        else:
            self.checks.ok("copies", "" if "table" in data else "table left out (the relay fills it in)")
        trial = game.copy()
        try:
            trial.apply(action)
        except GameError as err:
            self.checks.fail("legal", f"{where}: {_short(action)} refused: {err.code}: {err}")
            return None
        self.checks.ok("legal")
        return action

    def close(self) -> None:
        self.probe.kill()


# --------------------------------------------------------------------------- scenarios


def _acting(game: Game) -> int:
    """The seat to act in ``game`` (the scenarios only deal with games in play)."""
    seat = game.to_act
    if seat is None:
        raise RuntimeError("a check-bot scenario reached a finished game")
    return seat


def _new(game_id: str, players: int, seed: int) -> Game:
    cls = get_game(game_id)
    return cls.new(cls.validate_options({"players": players}), seed)


def _play_game(sess: Session, game: Game, seat: int, rng: Rng, label: str) -> None:
    """A whole game: the bot at ``seat``, the checker plays the other seats (random legal)."""
    actions: list[dict[str, Any]] = []
    sess.game_start(game, seat)
    sess.events(game.opening_events, seat)
    while not game.is_over:
        to_act = game.to_act
        action = None
        if to_act == seat:
            action = sess.ask(game, label)
            if action is not None:
                sess.send({"type": "accepted", "table": sess.table, "request": sess.request})
        if action is None:
            action = concrete(rng.choice(game.legal_data()))
        actions.append({"seat": to_act, "action": action})
        sess.events(game.apply(action), seat)
    sess.game_over(game, actions)


def run_handshake(s: Settings, checks: Checklist) -> None:
    """It must not speak first, must still be running, and must take game-start and a request
    with no hello before them."""
    sess = Session(s, checks, "start", crash_check="handshake")
    try:
        first = sess.probe.read(QUIET)
        if first.kind == "exited":
            checks.fail("handshake", f"the program {ended(first.returncode)} before any message was sent"
                        + (f"; stderr ends with: {sess.probe.stderr_tail()}" if sess.probe.stderr_tail() else ""))
            return
        if first.kind in ("message", "garbage"):
            what = first.data.get("type") if first.data else first.reason
            checks.fail("handshake", f"it wrote {what!r} before being sent anything: the bot wire has no handshake")
            return
        game = _new(s.games[0], 2, s.seed)
        seat = _acting(game)
        sess.game_start(game, seat)
        sess.events(game.opening_events, seat)
        sess.ask(game, f"{s.games[0]}: the first request")
        if sess.heard.kind == "message" and sess.heard.data.get("type") == "hello":
            # written first, though it came in after the quiet time (a program slow to start)
            checks.fail("handshake", "its first line was a 'hello', not an answer: the bot wire has no handshake")
        elif sess.heard.kind == "garbage" and sess.heard.other_wire:
            checks.fail("handshake", f"its first answer was {sess.heard.reason}", wire_hint(s.wire))
        checks.ok("handshake")
    except Stop:
        if sess.heard is not None and sess.heard.kind == "timeout" and sess.heard.other_wire:
            checks.fail("handshake", "its first output was a msgpack frame (no line end) where a JSON line was "
                                     "expected", wire_hint(s.wire))
        elif checks.verdicts["handshake"].status != "fail":
            checks.ok("handshake", "no answer to the first request (see deadline)")
    finally:
        sess.close()


def run_games(s: Settings, checks: Checklist) -> None:
    """Whole games of each game against the checker's random play, then the crafted positions,
    all on one process (game-start ... game-over each); stderr drained throughout."""
    sess = Session(s, checks, "whole games")
    rng = Rng(s.seed)
    try:
        for i, game_id in enumerate(s.games):
            game = _new(game_id, 2, s.seed + 17 * i)
            _play_game(sess, game, i % 2, rng, f"{game_id} whole game")
        sess.where = "crafted positions"
        for game_id in s.games:
            for pos in crafted(game_id):
                game = pos.game
                sess.game_start(game, _acting(game))
                for _ in range(ASKS_PER_POSITION):
                    if sess.ask(game, f"{game_id}: {pos.label}") is not None:
                        sess.send({"type": "accepted", "table": sess.table, "request": sess.request})
                sess.game_over(game, [])
        checks.ok("stays-up")
        checks.ok("stderr", f"{sess.probe.stderr_bytes} bytes of stderr drained")
        if not sess.valid:
            checks.not_judged("deadline", "not judged: no answer was a well-formed action (see well-formed)")
    except Stop:
        if sess.probe.stderr_bytes > 65536 and checks.verdicts["deadline"].status == "fail":
            checks.fail("stderr", f"it went silent after writing {sess.probe.stderr_bytes} bytes to stderr")
        elif sess.answers:
            checks.ok("stderr", f"{sess.probe.stderr_bytes} bytes of stderr drained")
    finally:
        s.answers["whole games"] = sess.answers
        s.games_done.set()
        sess.close()


UNKNOWN = (
    ("a table-news message (a type it does not know)",
     {"type": "table-news", "text": "a message type from a later version"}),
    ("an event of a kind it does not know (fireworks) with an extra key",
     {"type": "event", "event": {"kind": "fireworks", "colour": "red"}, "extra": 1}),
    ("a clock message (a type it does not know)", {"type": "clock", "left": [12.5, 30.0]}),
)
"""The messages of the ``unknown`` scenario a bot does not know: what they are called in reasons, the message."""


def _turn(sess: Session, game: Game, seat: int, rng: Rng, after: str, **extra: Any) -> tuple[Game, int]:
    """Ask the bot at ``seat`` (``after``: see :meth:`Session.ask`), then play the other seats
    until it is the bot's turn again, in a new game when this one ends. Returns the game and seat."""
    action = sess.ask(game, "the request after it", after=after, **extra)
    if action is not None:
        sess.send({"type": "accepted", "table": sess.table, "request": sess.request})
    else:
        action = concrete(rng.choice(game.legal_data()))
    sess.events(game.apply(action), seat)
    while not game.is_over and game.to_act != seat:
        sess.events(game.apply(concrete(rng.choice(game.legal_data()))), seat)
    if game.is_over:
        sess.game_over(game, [])
        game = _new(sess.s.games[0], 2, sess.s.seed + 50 + sess.number)
        seat = _acting(game)
        sess.game_start(game, seat)
        sess.events(game.opening_events, seat)
    return game, seat


def run_unknown(s: Settings, checks: Checklist) -> None:
    """Unknown message types and fields, an unknown event kind, a request with extra keys, each
    followed by a request: whatever comes before its answer was said to the unknown message."""
    sess = Session(s, checks, "unknown messages", crash_check="unknown")
    rng = Rng(s.seed + 6)
    try:
        game = _new(s.games[0], 2, s.seed + 5)
        seat = _acting(game)
        sess.game_start(game, seat, lobby={"motd": "hello", "future": [1, 2.5, None, True]})
        sess.events(game.opening_events, seat)
        after = "a game-start with a key it does not know (lobby)"
        for said, msg in UNKNOWN:
            game, seat = _turn(sess, game, seat, rng, after)
            sess.send({**msg, "table": sess.table})
            after = said
        extra = "an action-request with keys it does not know (hint, clock)"
        game, seat = _turn(sess, game, seat, rng, f"{after} or {extra}", hint={"note": "unknown"}, clock=[1.5, 2.5])
        _turn(sess, game, seat, rng, extra)
        if sess.valid:
            checks.ok("unknown")  # a pass never overrides a failure found above
        else:
            checks.not_judged("unknown", "not judged: no answer after them was a well-formed action (see well-formed)")
    except Stop:
        if checks.verdicts["unknown"].status == "fail" or sess.crashed_anyway:
            pass
        elif not s.answered_whole_games():
            checks.not_judged("unknown", "not judged: it answered no request in time (see deadline and flush)")
        else:
            checks.fail("unknown", "no answer after unknown messages and fields, though it answers otherwise: "
                                   + _first_failure(checks, ("deadline", "flush")))
    finally:
        sess.close()


def run_refused(s: Settings, checks: Checklist) -> None:
    """An answer refused, the forfeit's game-over that follows through a relay, then a new game."""
    sess = Session(s, checks, "after a refused", crash_check="refused")
    try:
        game = _new(s.games[0], 2, s.seed + 9)
        seat = _acting(game)
        sess.game_start(game, seat)
        sess.events(game.opening_events, seat)
        sess.ask(game, "a request to refuse")
        sess.send({"type": "refused", "table": sess.table, "request": sess.request, "code": "illegal-for-the-check",
                   "reason": "refused by quinze check-bot to see that the bot copes"})
        n = game.players
        sess.send({"type": "game-over", "table": sess.table, "number": sess.number,
                   "result": {"points": [0.0 if s_ == seat else 1.0 / (n - 1) for s_ in range(n)], "scores": [0] * n,
                              "winners": [s_ for s_ in range(n) if s_ != seat], "reason": "forfeit"},
                   "seed": sess.seed, "salt": SALT, "actions": [], "forfeit": {"seat": seat, "kind": "illegal"}})
        # A retry of the refused request may come: it is allowed on the wire, skip it.
        extra = sess.probe.read(0.2)
        if extra.kind == "exited":
            sess._exited(extra.returncode, "after the refused")
        game = _new(s.games[0], 2, s.seed + 10)
        sess.game_start(game, _acting(game))
        sess.events(game.opening_events, _acting(game))
        valid = sess.valid
        sess.ask(game, "the next game's first request")
        if sess.valid > valid:
            checks.ok("refused")  # answered in time (whether the answer is right is judged by the other checks)
        else:
            checks.not_judged("refused", "not judged: the answer after it was not a well-formed action (see well-formed)")
    except Stop:
        if checks.verdicts["refused"].status == "fail" or sess.crashed_anyway:
            pass
        elif not s.answered_whole_games():
            checks.not_judged("refused", "not judged: it answered no request in time (see deadline and flush)")
        else:
            checks.fail("refused", "no answer after a refused, though it answers otherwise: "
                                   + _first_failure(checks, ("deadline", "flush")))
    finally:
        sess.close()


def run_exit(s: Settings, checks: Checklist) -> None:
    """One request, a game-over, the end of input: it must exit, status 0, within 2 s. An answer
    that only comes out when the input ends sat in a buffer (not flushed)."""
    sess = Session(s, checks, "end of input", crash_check="exit")
    try:
        game = _new(s.games[0], 2, s.seed + 3)
        seat = _acting(game)
        sess.game_start(game, seat)
        sess.events(game.opening_events, seat)
        sess.send({"type": "action-request", "table": sess.table, "request": 1, "seat": seat, "view": game.view(seat),
                   "legal": game.legal_data(), "deadline": s.deadline})
        answered = sess.probe.read(s.deadline + s.grace).kind in ("message", "garbage")
        sess.game_over(game, [])
        sess.probe.close_stdin()
        after = sess.probe.read(EXIT_WAIT)
        if not answered and after.kind in ("message", "garbage"):
            checks.fail("flush", f"its answer came out only when its input ended (none in {s.deadline + s.grace:g} s "
                                 "before): it sat in an unflushed buffer")
            after = sess.probe.read(EXIT_WAIT)
        rc = sess.probe.wait(max(0.0, EXIT_WAIT - after.at)) if after.kind != "exited" else after.returncode
        if rc is None:
            checks.fail("exit", f"still running {EXIT_WAIT:g} s after its stdin closed")
        elif rc != 0:
            checks.fail("exit", f"at the end of its input the program {ended(rc)}, not 0")
        else:
            checks.ok("exit")
    except Stop:
        pass  # the program ended before its input did: the exit check failed with the reason
    finally:
        sess.close()


def _first_failure(checks: Checklist, order: Sequence[str]) -> str:
    for check in order:
        v = checks.verdicts[check]
        if v.status == "fail":
            return f"{check}: {v.reason}"
    return "see the other checks"


DIRECT = (run_handshake, run_games, run_unknown, run_refused, run_exit)
"""The direct scenarios, in the order they run."""

ASKED = ("deadline", "flush", "well-formed", "copies", "legal")
"""The checks an answer to a request is judged by (:meth:`Session.ask`)."""
RECORDS: dict[Any, frozenset[str]] = {
    run_handshake: frozenset(("handshake", *ASKED)),
    run_games: frozenset(("stays-up", "stderr", *ASKED)),
    run_unknown: frozenset(("unknown", *ASKED)),
    run_refused: frozenset(("refused", *ASKED)),
    run_exit: frozenset(("exit", "flush", "deadline")),
}
"""The checks each direct scenario may record a verdict for: a check's verdict is decided once
every scenario that may record it has ended (``quinze check-bot`` prints it then)."""
