"""The relay between the server and one bot (PROTOCOL.md, "Bots"): one seat, one connection,
one bot (a program, :class:`~quinze_cli.botproc.BotProcess`, or a built-in,
:class:`~quinze_cli.builtin.BuiltinBot`).

What the bot sees: the game messages of its table only, as maps (``game-start``, ``event``,
``action-request``, ``accepted``, ``refused``, ``game-over``), never the lobby. What it says:
``{"type": "action", "request": N, "action": {...}}`` answering an ``action-request``; the relay
fills ``table`` (and ``request`` when left out) and passes it on to the server.

A broken bot forfeits the game at once (``forfeit {table, reason}``) with one of four kinds:

- ``timeout``: no answer before the request's deadline, or the bot stopped reading its input;
- ``crash``: the program ended (exit code or signal), before the game started or mid-game;
- ``garbage``: output that is not a message (not JSON, no ``type``, not an ``action``, an
  ``action`` that is not a map, an action the server wire cannot carry such as an integer
  beyond 64 bits);
- ``illegal``: the server refused its action. The relay passes the ``refused`` on and forfeits
  once ``max_refused`` refusals were made for one request (1 by default: a first illegal action
  loses, as an illegal move does in engine matches) rather than letting a confused bot retry
  until its time runs out.

Game boundaries (PROTOCOL.md "Game boundaries"): the relay remembers, for the bot program it
talks to, the requests it passed on and the bot has not answered yet (the bot answers them in
order). An answer meant for an earlier request, whether that request's game is still on or long
over (it ended early because another seat forfeited, or the bot timed out), is dropped and
logged, never played in the running game and never held against the bot: an answer naming
another table, a request that is not the pending one, or (quoting neither) arriving while an
earlier request is still owed (a line of garbage is no answer). The server's refusal of an answer to a request that closed meanwhile (``stale-request``,
``game-not-running``, ``stale-game``: ``quinze_protocol.transitions.STALE_CODES``) is not an illegal action. The
relay's forfeits name the game (``number``), so a late one never ends a later game. A failure
seen before the game starts (a bot that died at once) is acted on at ``game-start``.

Messages for bot authors: lines nobody asked for are counted and reported once per request
(one warning with the count, not one per line); a timeout says when the bot had written part of
a line with no newline (end lines, flush); a late answer after a timeout is shown ("answered
0.05 s late"); each game counts the answers that took more than 90% of their time
(:attr:`GameOutcome.near_limit`).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

import trio

from quinze_protocol.errors import ProtocolError
from quinze_protocol.session import LocalProtocolError
from quinze_protocol.transitions import STALE_CODES
from quinze_protocol.framing import encode_frame
from quinze_protocol.replaylog import utc_now
from quinze_protocol.messages import (
    Accepted,
    Error,
    ForfeitMessage,
    GameOver,
    GameStart,
    Joined,
    Left,
    Refused,
    TableClosed,
    parse_message,
)
from quinze_cli.botproc import BotError, BotGarbage
from quinze_cli.errors import plain_reason
from quinze_cli.owed import OwedAnswers
from quinze_cli.relay_outcomes import Failure, GameOutcome
from quinze_cli.client import ClientError, Connection, RequestRefused, ServerProtocolError

__all__ = ["BotLike", "Failure", "GameOutcome", "RelayError", "SeatRelay"]

log = logging.getLogger("quinze.relay")

LATE_GRACE = 0.5
"""Seconds the relay waits, after the game of a timed-out request is over, for the late answer,
to tell the bot's author how late it was."""



class BotLike(Protocol):
    """What the relay needs from a bot: a program or a built-in."""

    name: str

    async def send(self, msg: dict[str, Any]) -> None: ...

    async def send_many(self, msgs: list[dict[str, Any]]) -> None: ...

    async def receive(self) -> dict[str, Any]: ...

    def stderr_tail(self, limit: int = 200) -> str: ...


class RelayError(Exception):
    """The server side failed: the join was refused (``code``), or the connection was lost."""

    def __init__(self, message: str, code: str = "connection") -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class _Request:
    """What the relay uses of an ``action-request`` (read by the connection's session:
    ``quinze_protocol.session``): ``request``, ``seat``, ``deadline`` (s)."""

    request: int
    seat: int
    deadline: float


class _Game:
    """The relay's state for the current game at its table."""

    def __init__(self) -> None:
        self.start: GameStart | None = None
        self.pending: _Request | None = None
        self.deadline_at = math.inf
        self.waiting_bot = False
        self.refusals = 0
        self.failure: Failure | None = None
        self.forfeit_sent = False
        self.bot_started = False
        self.started: datetime | None = None
        self.asked_at = 0.0
        self.think = 0.0
        self.moves = 0
        self.max_think = 0.0
        self.near_limit = 0


class SeatRelay:
    """Relays one seat between ``conn`` and ``bot``.

    - ``max_refused``: refusals of one request before the relay forfeits as ``illegal`` (>= 1);
    - ``write_timeout``: seconds a message to the bot may take to be written (a bot that does
      not read its input is a ``timeout``) when no deadline is running;
    - ``on_failure``: called (awaited) with each :class:`Failure` as it happens, for reports;
    - ``on_outcome``: called (awaited) with each :class:`GameOutcome` as its game ends (a line
      per game at once, not only when :meth:`play` returns).

    ``bot`` may be replaced between games (a restarted program).
    """

    def __init__(
        self,
        conn: Connection,
        bot: BotLike,
        *,
        max_refused: int = 1,
        write_timeout: float = 10.0,
        on_failure: Callable[[Failure], Awaitable[None]] | None = None,
        on_outcome: Callable[[GameOutcome], Awaitable[None]] | None = None,
    ) -> None:
        if max_refused < 1:
            raise ValueError("max_refused must be at least 1")
        self.conn = conn
        self.bot = bot
        self.max_refused = max_refused
        self.write_timeout = write_timeout
        self.on_failure = on_failure
        self.on_outcome = on_outcome
        self.bot_broken: BotError | None = None
        """The error that made the bot unusable (crash, fatal garbage), until it is replaced."""
        self._outbox: list[dict[str, Any]] = []
        self._answers = OwedAnswers()
        """The requests passed on to this bot program and not answered yet (:mod:`quinze_cli.owed`)."""
        self._late: tuple[Failure, str, int, float] | None = None  # a timeout: failure, table, request, deadline
        self._late_seen = trio.Event()

    # ------------------------------------------------------------------ lobby

    async def join(self, table: str, seat: int | None = None, *, timeout: float = 10.0) -> Joined:
        """Take ``seat`` (None: the first free one) at ``table``. Raises :class:`RelayError`
        (``code``: the server's error code, e.g. ``seat-taken``, ``unknown-table``)."""
        try:
            with trio.fail_after(timeout):
                return await self.conn.join(table, seat)
        except RequestRefused as err:
            raise RelayError(f"cannot join table {table}: {plain_reason(err.reason)} [{err.code}]", err.code) from None
        except trio.TooSlowError:
            raise RelayError(f"no answer to join {table} in {timeout:g} s", "timeout") from None
        except ClientError as err:
            raise RelayError(str(err)) from None

    def replace_bot(self, bot: BotLike) -> None:
        """Use ``bot`` from the next game on (after a restart)."""
        self.bot = bot
        self.bot_broken = None
        self._answers = OwedAnswers()  # a new program owes nothing
        self._late = None

    # ------------------------------------------------------------------ play

    async def play(self, table: str, seat: int, *, games: int | None = 1) -> list[GameOutcome]:
        """Relay the games at ``table`` (already joined at ``seat``) until ``games`` games are over
        (None: until ``table-closed``). Returns one :class:`GameOutcome` per game. Raises
        :class:`RelayError` if the server connection fails.

        Two tasks share the state: one reads the server (and writes to the bot), one reads the
        bot (and writes to the server) under a cancel scope whose deadline is the pending
        request's, so a message goes through with no hop between tasks."""
        outcomes: list[GameOutcome] = []
        self._table, self._seat = table, seat
        self._game = _Game()
        self._outbox = []
        self._bot_scope: trio.CancelScope | None = None
        self._error: RelayError | None = None
        async with trio.open_nursery() as nursery:
            if self.bot_broken is None:
                nursery.start_soon(self._bot_side, nursery.cancel_scope)
            else:
                await self._fail("crash", self.bot_broken.reason, restart=True)
            nursery.start_soon(self._server_side, outcomes, games, nursery.cancel_scope)
        if self._error is not None:
            raise self._error
        return outcomes

    async def _server_side(self, outcomes: list[GameOutcome], games: int | None, done: trio.CancelScope) -> None:
        try:
            while True:
                try:
                    batch = await self.conn.receive_maps()
                except ServerProtocolError as err:
                    if self.conn.closed:
                        raise RelayError(f"lost the server: {err}") from None
                    log.warning("%s: %s (skipped)", self.conn.name, err)
                    continue
                except ClientError as err:
                    raise RelayError(f"lost the server: {err}") from None
                finished = await self._handle("server", batch, outcomes, games)
                await self._flush()
                if finished or (games is not None and len(outcomes) >= games):
                    if self._late is not None and not self._late_seen.is_set():
                        # a timeout: a moment for the late answer, to say how late it was
                        with trio.move_on_after(LATE_GRACE):
                            await self._late_seen.wait()
                    return
        except RelayError as err:
            self._error = err
        finally:
            done.cancel()

    async def _bot_side(self, done: trio.CancelScope) -> None:
        try:
            while True:
                game = self._game
                with trio.CancelScope(deadline=self._answer_deadline()) as scope:
                    self._bot_scope = scope
                    try:
                        item: tuple[str, Any] = ("bot", await self.bot.receive())
                    except BotGarbage as err:
                        item = ("bot-garbage", err)
                    except BotError as err:
                        item = ("bot-error", err)
                self._bot_scope = None
                if scope.cancelled_caught:
                    pending = game.pending
                    if game is self._game and pending is not None and game.waiting_bot and game.failure is None \
                            and trio.current_time() >= game.deadline_at:
                        reason = f"no answer to request {pending.request} in {pending.deadline:.1f} s"
                        partial = getattr(self.bot, "partial_output", lambda: "")()
                        if partial:
                            reason += f"; {partial}"
                        self._late_seen = trio.Event()
                        await self._fail("timeout", reason)
                        if game.failure is not None and game.failure.kind == "timeout":
                            self._late = (game.failure, self._table, pending.request, game.deadline_at)
                    continue
                await self._handle(item[0], item[1], [], None)
                if item[0] == "bot-error" or (item[0] == "bot-garbage" and item[1].fatal):
                    return
        except RelayError as err:
            self._error = err
            done.cancel()

    def _answer_deadline(self) -> float:
        game = self._game
        return game.deadline_at if game.waiting_bot and game.failure is None else math.inf

    def _deadline_changed(self) -> None:
        """Tell the bot side that the pending request (hence its deadline) changed."""
        if self._bot_scope is not None:
            self._bot_scope.deadline = self._answer_deadline()

    async def _handle(self, source: str, item: Any, outcomes: list[GameOutcome], games: int | None) -> bool:
        """Handle one thing from either side (from the server: a batch of maps); True when the
        relay is done (table closed)."""
        game = self._game
        if source == "server":
            for i, data in enumerate(item):
                if await self._from_server(data, outcomes):
                    self._track_only(item[i + 1:])
                    return True
                if games is not None and len(outcomes) >= games:
                    self._track_only(item[i + 1:])
                    return False
            return False
        if source == "bot-garbage":
            await self._fail("garbage", f"output that is not a message: {item.reason}", restart=item.fatal)
            if item.fatal:
                self.bot_broken = item
        elif source == "bot-error":
            self.bot_broken = item
            await self._fail(item.kind, item.reason, restart=True)
        elif source == "bot":
            await self._from_bot(item, game)
        return False

    async def _from_server(self, data: dict[str, Any], outcomes: list[GameOutcome]) -> bool:
        """One server message (a map), given to the connection's session first
        (:meth:`quinze_protocol.session.ClientSession.receive_data`: the table's state, the game
        and its open request). ``event`` and ``action-request``, the frequent ones, are checked
        only for the fields used and passed on as they came; the others are read into
        messages. A bad one is logged and skipped."""
        game = self._game
        kind = data["type"]
        try:
            step = self.conn.session.receive_data(data)
        except ProtocolError as err:
            if kind == "action-request":
                log.warning("%s: malformed action-request ignored (%s)", self.conn.name, err)
            else:
                log.warning("%s: bad message from the server ignored: %s", self.conn.name, err)
            return False
        table = data.get("table")
        if table is not None and table != self._table and kind != "table-closed":
            log.debug("%s: message for another table ignored: %s", self.conn.name, kind)
            return False
        if kind == "event":
            if isinstance(data.get("event"), dict):
                self._to_bot(data)
            return False
        if kind == "action-request":
            if data["seat"] == self._seat:
                request = _Request(data["request"], data["seat"], float(data["deadline"]))
                self._report_unasked()
                game.pending = request
                game.refusals = 0
                game.asked_at = trio.current_time()
                game.deadline_at = game.asked_at + request.deadline
                game.waiting_bot = True
                self._deadline_changed()
                if game.failure is None:
                    self._to_bot(data)
                    self._owe(request.request)
            return False
        msg = self.conn.session.message  # read whole by the session, but for the light types
        if msg is None:
            try:
                msg = parse_message(data)
            except ProtocolError as err:
                log.warning("%s: bad message from the server ignored: %s", self.conn.name, err)
                return False
        if isinstance(msg, GameStart):
            if game.start is not None and game.start.number != msg.number:
                self._game = game = _Game()
            game.start = msg
            game.started = game.started or utc_now()
            self._to_bot(data)
            if self.bot_broken is None:
                game.bot_started = True
            elif game.failure is None:
                await self._fail("crash", self.bot_broken.reason, restart=True)
            if game.failure is not None and not game.forfeit_sent:
                await self._send_forfeit(game.failure.kind)
        elif isinstance(msg, Accepted):
            if step is not None and step.expected:  # the session expects accepted only for our answer
                game.pending = None
                game.waiting_bot = False
            self._to_bot(data)
        elif isinstance(msg, Refused):
            self._to_bot(data)
            if msg.code in STALE_CODES:
                # The request closed before our answer arrived (its deadline passed, the game
                # ended): no illegal move; the server's own game-over tells what happened.
                log.info("%s: answer to request %s came too late: %s", self.conn.name, msg.request, msg.code)
            elif step is not None and step.key == "refused:other":
                # about another request or an earlier game (the session reads request ids in their game)
                log.info("%s: refusal of request %s (game %s) ignored: not the open request", self.conn.name,
                         msg.request, msg.number)
            elif game.failure is None and step is not None and step.key == "refused":  # our open request
                game.refusals += 1
                if game.refusals >= self.max_refused:
                    await self._fail("illegal", f"action refused: {msg.reason} [{msg.code}]")
                else:
                    game.waiting_bot = True
                    self._owe(msg.request)
                    self._deadline_changed()
        elif isinstance(msg, GameOver):
            self._report_unasked()
            self._to_bot(data)
            failure = game.failure
            if failure is None and msg.forfeit is not None and msg.forfeit.seat == self._seat:
                # The server ended it first (its own deadline): report it all the same.
                why = "no answer in time" if msg.forfeit.kind == "timeout" else "forfeited"
                reason = f"{why}: the server ended the game for this seat ({msg.forfeit.kind})"
                partial = getattr(self.bot, "partial_output", lambda: "")() if msg.forfeit.kind == "timeout" else ""
                if partial:
                    reason += f"; {partial}"
                failure = Failure(msg.forfeit.kind, reason,
                                  self._table, self._seat, started=True, restart=msg.forfeit.kind in ("timeout", "crash"))
                await self._report(failure)
                if msg.forfeit.kind == "timeout" and game.pending is not None and game.waiting_bot:
                    self._late_seen = trio.Event()  # the answer may still come: say how late
                    self._late = (failure, self._table, game.pending.request, game.deadline_at)
            outcomes.append(GameOutcome(self._table, self._seat, game.start, msg, failure, game.started,
                                        utc_now(), game.think, game.moves, game.max_think,
                                        game.near_limit))
            if self.on_outcome is not None:
                await self.on_outcome(outcomes[-1])
            self._game = _Game()
            self._deadline_changed()
        elif isinstance(msg, TableClosed):
            if msg.table == self._table:
                if game.start is not None:
                    outcomes.append(GameOutcome(self._table, self._seat, game.start, None, game.failure))
                return True
        elif isinstance(msg, Left):
            if msg.table == self._table:
                return True
        elif isinstance(msg, Error):
            if game.forfeit_sent:
                log.debug("%s: error after forfeit ignored: %s", self.conn.name, msg.code)
            elif msg.code in STALE_CODES:
                # E.g. the other seat forfeited while our bot was thinking: the game is over and
                # its game-over is on its way; our late answer is not our bot's failure.
                log.info("%s: %s ignored: %s", self.conn.name, msg.code, msg.reason)
            elif msg.ref in ("action",) and game.pending is not None and game.failure is None:
                await self._fail("illegal", f"action rejected: {msg.reason} [{msg.code}]")
            else:
                log.warning("%s: server error: %s [%s]", self.conn.name, msg.reason, msg.code)
        return False

    def _track_only(self, rest: list[dict[str, Any]]) -> None:
        """The rest of a burst after the relay is done: the session still takes it in (the
        connection may serve another table next), the bot is not given it."""
        for data in rest:
            try:
                self.conn.session.receive_data(data)
            except ProtocolError:
                pass

    def _owe(self, request: int) -> None:
        """The bot was passed ``request`` at this table and owes an answer."""
        self._answers.owe(self._table, request)

    def _report_unasked(self) -> None:
        """One warning for the lines nobody asked for since the last one, with their count."""
        n = self._answers.take_unasked()
        if n:
            log.warning("%s: %d line%s nobody asked for (no request pending, or quoting another request) "
                        "ignored", self.bot.name, n, "" if n == 1 else "s")

    async def _from_bot(self, data: dict[str, Any], game: _Game) -> None:
        game = self._game  # the line is read now: it is judged in the game that runs now
        late = self._late
        if late is not None and data.get("type") == "action" and data.get("request", late[2]) == late[2] \
                and data.get("table", late[1]) == late[1]:
            # the answer to the request that timed out: too late, but say by how much
            failure, self._late = late[0], None
            failure.reason += f"; answered {trio.current_time() - late[3]:.2f} s late"
            self._late_seen.set()
            self._answers.forget(late[1], late[2])
            log.info("%s: answer to request %s came after its deadline (%s)", self.bot.name, late[2], failure.reason)
            return
        if data.get("type") == "action":
            pending = game.pending if game.waiting_bot else None
            where = self._answers.settle(data, self._table, pending.request if pending is not None else None)
            if where == "stale":
                log.info("%s: answer to an earlier request dropped (table %s, request %s): it is not for the "
                         "running game", self.bot.name, data.get("table", self._table), data.get("request", "not quoted"))
                return
            if where == "unasked":
                self._answers.unasked += 1
                return
        if game.failure is not None:
            return
        if data.get("type") != "action":
            await self._fail("garbage", f"expected an action message, got type {data.get('type')!r}")
            return
        action = data.get("action")
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            await self._fail("garbage", f"the action is not a map with a \"type\": {action!r:.200}")
            return
        pending = game.pending
        if pending is None or not game.waiting_bot:  # pragma: no cover - _settle said "pending"
            return
        # The session's answer quotes the open request in its game's scope (table, request,
        # number). A map, not an ActionMessage: the server checks the action's content, and
        # building the message would walk the data once more on every move (the relay's hot path).
        try:
            message = self.conn.session.answer_data(self._table, action)
        except LocalProtocolError:  # pragma: no cover - the relay passes on only open requests
            log.warning("%s: answer dropped: no open request at %s", self.bot.name, self._table)
            return
        try:
            frame = encode_frame(message)  # once: what cannot go to the server is the bot's garbage
        except (OverflowError, TypeError, ValueError, ProtocolError) as err:
            # A number beyond msgpack's 64 bits (10**30), a frame over the limit: the server
            # could not even be told; garbage, and the match goes on.
            await self._fail("garbage", f"an action that cannot be sent to the server ({type(err).__name__}: {err}): "
                                        f"{action!r:.200}")
            return
        game.waiting_bot = False
        took = trio.current_time() - game.asked_at
        game.think += took
        game.moves += 1
        game.max_think = max(game.max_think, took)
        if took > 0.9 * pending.deadline:
            game.near_limit += 1
        try:
            await self.conn.send_encoded(message, frame)
        except ClientError as err:
            raise RelayError(f"lost the server: {err}") from None

    def _to_bot(self, data: dict[str, Any]) -> None:
        """Queue a game message for the bot (unless it is known broken); :meth:`_flush` writes
        the queue in one go once the server's burst is handled."""
        if self.bot_broken is None:
            self._outbox.append(data)

    async def _flush(self) -> None:
        """Write the queued messages to the bot; a bot that cannot take them in time (the
        request's deadline, else ``write_timeout``) is a timeout, one that is gone a crash."""
        if not self._outbox:
            return
        batch, self._outbox = self._outbox, []
        if self.bot_broken is not None:
            return
        game = self._game
        limit = game.deadline_at if game.waiting_bot else trio.current_time() + self.write_timeout
        limit = max(limit, trio.current_time() + 1.0)
        with trio.move_on_at(limit) as scope:
            try:
                await self.bot.send_many(batch)
            except ProtocolError as err:  # a message too large for the wire: the bot cannot be told
                log.error("%s: cannot pass a message to the bot: %s", self.bot.name, err)
            except BotError as err:
                self.bot_broken = err
                await self._fail(err.kind, err.reason, restart=True)
                return
        if scope.cancelled_caught:
            stuck = BotError("it stopped reading its input")
            self.bot_broken = stuck
            await self._fail("timeout", stuck.reason, restart=True)

    async def _fail(self, kind: str, reason: str, *, restart: bool = False) -> None:
        """Record the first failure of this game and forfeit (now, or at game-start)."""
        game = self._game
        if game.failure is not None:
            return
        tail = self.bot.stderr_tail() if kind in ("crash",) and "stderr" not in reason else ""
        if tail:
            reason += f"; stderr ends with: {tail}"
        game.failure = Failure(kind, reason, self._table, self._seat, started=game.bot_started,
                               restart=restart or kind == "timeout")
        game.waiting_bot = False
        await self._report(game.failure)
        if game.start is not None:
            await self._send_forfeit(kind)

    async def _send_forfeit(self, kind: str) -> None:
        game = self._game
        game.forfeit_sent = True
        try:
            number = game.start.number if game.start is not None else None
            await self.conn.send(ForfeitMessage(table=self._table, reason=kind, number=number))
        except ClientError as err:
            raise RelayError(f"lost the server: {err}") from None

    async def _report(self, failure: Failure) -> None:
        log.info("%s seat %s at %s: %s", self.bot.name, failure.seat, failure.table, failure.describe())
        if self.on_failure is not None:
            await self.on_failure(failure)
