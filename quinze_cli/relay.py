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

The game's result decides which failure was its forfeit: the server takes the first forfeit and
refuses any later one (``game-not-running``), so when two seats fail in one game only the seat
``game-over.forfeit`` names forfeited it; the other seat's failure is reported with
``Failure.forfeit`` False (the bot failed, after the game was decided).

What a request is and when it expires is the connection's session's
(:class:`quinze_protocol.session.Asked`: id, seat, ``deadline`` in seconds as on the wire, dated
on trio's clock as it came): the relay reads the request the bot owes from it
(``ClientSession.to_answer``) and only times the bot against that expiry.

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
from datetime import datetime
from typing import Any, Protocol

import trio

from quinze_protocol.errors import ProtocolError
from quinze_protocol.session import Asked, LocalProtocolError
from quinze_protocol.transitions import STALE_CODES, TO_ACT
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
from quinze_cli.owed import OwedAnswers, quoted_detail, quoting_note
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


class _Game:
    """The relay's state for the current game at its table: the bot's failure and its times. The
    request the bot owes an answer to, its deadline and when it expires are the session's
    (:meth:`SeatRelay._owed_request`)."""

    def __init__(self) -> None:
        self.start: GameStart | None = None
        self.refusals = 0
        self.failure: Failure | None = None
        self.forfeit_sent = False
        self.bot_started = False
        self.started: datetime | None = None
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
        self._late: tuple[Failure, Asked] | None = None  # a timeout: its failure and the request it timed out
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
                    asked = self._owed_request()
                    if game is self._game and asked is not None and asked.late(trio.current_time()) >= 0:
                        reason = f"no answer to request {asked.id.request} in {asked.deadline:g} s"
                        reason += quoting_note(self._answers.quoting_others(asked.id.request))
                        partial = getattr(self.bot, "partial_output", lambda: "")()
                        if partial:
                            reason += f"; {partial}"
                        await self._fail("timeout", reason, late=asked)
                    continue
                await self._handle(item[0], item[1], [], None)
                if item[0] == "bot-error" or (item[0] == "bot-garbage" and item[1].fatal):
                    return
        except RelayError as err:
            self._error = err
            done.cancel()

    def _owed_request(self) -> Asked | None:
        """The request the bot owes an answer to now: the session's request at the table that
        waits for this seat's answer (asked, or refused and open again), unless this game's bot
        already failed. Its deadline and expiry are the session's
        (:meth:`quinze_protocol.session.ClientSession.to_answer`)."""
        if self._game.failure is not None:
            return None
        asked = self.conn.session.to_answer(self._table)
        return asked if asked is not None and asked.seat == self._seat else None

    def _answer_deadline(self) -> float:
        """When the bot's time to answer runs out (trio's clock), inf when it owes nothing."""
        asked = self._owed_request()
        deadline_at = asked.deadline_at if asked is not None else None
        return deadline_at if deadline_at is not None else math.inf

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
            if data["seat"] == self._seat:  # the session now holds it, dated (its deadline, its expiry)
                self._report_unasked()
                game.refusals = 0
                self._deadline_changed()
                if game.failure is None:
                    self._to_bot(data)
                    self._owe(data["request"])
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
        elif isinstance(msg, Accepted):  # the session closed the request if it was our answer's
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
                else:  # the session opened the request again: the bot owes another answer
                    self._owe(msg.request)
                    self._deadline_changed()
        elif isinstance(msg, GameOver):
            last = self.conn.session.last_asked(self._table)  # before the report empties the counts
            if last is not None and last.seat != self._seat:
                last = None
            ignored = quoting_note(self._answers.quoting_others(last.id.request)) if last is not None else ""
            self._report_unasked()
            self._to_bot(data)
            failure = game.failure
            if failure is not None:
                # A game has at most one forfeit, the seat its result names: a failure of this
                # seat after the game was decided (another seat forfeited first, or it ended; the
                # server refused this seat's forfeit) ended nothing.
                failure.forfeit = msg.forfeit is not None and msg.forfeit.seat == self._seat
            if failure is None and msg.forfeit is not None and msg.forfeit.seat == self._seat:
                # The server ended it first (its own deadline): report it all the same.
                why = "no answer in time" if msg.forfeit.kind == "timeout" else "forfeited"
                reason = f"{why}: the server ended the game for this seat ({msg.forfeit.kind})"
                if msg.forfeit.kind == "timeout" and last is not None:  # as when the relay's clock is first
                    reason += f"; no answer to request {last.id.request}{ignored}"
                partial = getattr(self.bot, "partial_output", lambda: "")() if msg.forfeit.kind == "timeout" else ""
                if partial:
                    reason += f"; {partial}"
                failure = Failure(msg.forfeit.kind, reason,
                                  self._table, self._seat, started=True, restart=msg.forfeit.kind in ("timeout", "crash"))
                await self._report(failure)
                asked = self.conn.session.last_asked(self._table)
                if msg.forfeit.kind == "timeout" and step is not None and step.before == TO_ACT and asked is not None:
                    self._late_seen = trio.Event()  # the bot owed the answer, which may still come: say how late
                    self._late = (failure, asked)
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
            elif msg.ref in ("action",) and self.conn.session.open_request(self._table) is not None \
                    and game.failure is None:
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
        n, quoted = self._answers.take_unasked()
        if n:
            log.warning("%s: %d line%s nobody asked for (no request pending, or quoting another request) "
                        "ignored%s", self.bot.name, n, "" if n == 1 else "s", quoted_detail(quoted))

    async def _from_bot(self, data: dict[str, Any], game: _Game) -> None:
        game = self._game  # the line is read now: it is judged in the game that runs now
        late = self._late
        if late is not None and data.get("type") == "action" and data.get("request", late[1].id.request) == \
                late[1].id.request and data.get("table", late[1].id.table) == late[1].id.table:
            # the answer to the request that timed out: too late, but say by how much
            (failure, asked), self._late = late, None
            failure.reason += f"; answered {asked.late(trio.current_time()):.2f} s late"
            self._late_seen.set()
            self._answers.forget(asked.id.table, asked.id.request)
            log.info("%s: answer to request %s came after its deadline (%s)", self.bot.name, asked.id.request,
                     failure.reason)
            return
        owed = self._owed_request()
        if data.get("type") == "action":
            where = self._answers.settle(data, self._table, owed.id.request if owed is not None else None)
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
        if owed is None:  # pragma: no cover - settle said "pending"
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
        took = owed.waited(trio.current_time())
        game.think += took
        game.moves += 1
        game.max_think = max(game.max_think, took)
        if took > 0.9 * owed.deadline:
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
        owed = self._owed_request()
        deadline_at = owed.deadline_at if owed is not None else None
        limit = deadline_at if deadline_at is not None else trio.current_time() + self.write_timeout
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

    async def _fail(self, kind: str, reason: str, *, restart: bool = False, late: Asked | None = None) -> None:
        """Record the first failure of this game and forfeit (now, or at game-start). ``late``: the
        request that timed out, whose answer may still come (to say how late it was)."""
        game = self._game
        if game.failure is not None:
            return
        tail = self.bot.stderr_tail() if kind in ("crash",) and "stderr" not in reason else ""
        if tail:
            reason += f"; stderr ends with: {tail}"
        game.failure = Failure(kind, reason, self._table, self._seat, started=game.bot_started,
                               restart=restart or kind == "timeout")
        if late is not None:
            # before any wait: the game-over may come meanwhile, and the server side waits for
            # the late answer only when it knows of it
            self._late_seen = trio.Event()
            self._late = (game.failure, late)
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
