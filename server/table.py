"""One table: its seats, spectators and the task that plays its games (PROTOCOL.md "Flow").

The table task (:meth:`Table.run`) waits until every seat is held, plays a game, and goes on with
the next one while ``games`` is not reached and every seat is still connected; then it closes.
Messages from clients (``join``, ``leave``, ``spectate``, ``action``, ``forfeit``) are handled
synchronously by the ``handle_*`` methods, called from the connection's reader task: Trio runs
one task at a time, so each handler sees and leaves a consistent state, and wakes the table task
when something it waits for changed. Who sits and who watches, their tokens, and sending to
them belong to :class:`quinze_server.seats.Seats` (``Table.seats``); the table keeps the games.

Rules applied here (PROTOCOL.md):

- a game starts when every seat is filled: ``game-start`` (with the seed commitment) to every
  seat and spectator, then the opening events, then ``action-request`` to the seat to act;
- an action is read with ``Game.parse_action`` and played with ``Game.apply``; an
  ``ActionError``/``IllegalAction`` is ``refused`` with the game's code, the state is unchanged
  and the seat may retry with the same request id until the deadline;
- the table's clock (:class:`~quinze_server.clock.TableClock`: per move, a time bank, or none) gives each
  request its deadline; expiry forfeits (kind ``"timeout"``); a ``forfeit`` message forfeits with its reason;
- people (seats not held by bots, and spectators) get ``notice`` messages: whose clock runs, a seat
  disconnected / reconnected, a seat thinking long; bots never do. At a table without a clock
  only people (and, on a server that runs only built-in bots, such as ``--local``, its bots) sit;
  leaving a seat while a game runs forfeits (kind ``"leave"``). The forfeiting seat gets 0
  points and the others share the point equally (result reason ``"forfeit"``);
- a dropped seat stays held during a game and may be taken back with its token
  (``joined{resumed:true}``, ``game-start`` again, the pending request if it is its turn).
  Before the first game a dropped seat is simply freed;
- an abandoned table closes (``table-closed`` to whoever is there): one waiting for its first
  game with no seat held once its creator's connection is gone (:meth:`Table.creator_left`,
  and when its last seated player leaves or drops after that), and one where nobody takes a
  seat for ``ServerConfig.table_idle`` seconds (:meth:`Table._until_seated`);
- when the server stops (:meth:`Table.abort`), a running game ends at once with the aborted
  result (:meth:`quinze_protocol.game.Result.aborted`, reason ``"aborted"``): ``game-over`` to every
  seat and spectator, before their ``bye``, and the game is logged as aborted;
- seeds: ``seed + number - 1`` when the table was given one, else ``secrets.randbits(SEED_BITS)`` (0 .. :data:`~quinze_protocol.rng.SEED_MAX`);
  salt ``secrets.token_hex(16)``; the commitment is SHA-256 of ``f"{seed}:{salt}"``;
- game boundaries: every message about a game carries the table and the game's ``number``;
  request ids are unique in the server run (:meth:`Lobby.next_request`); an ``action`` or a
  ``forfeit`` naming a game that is over, or a request that is not the open one, is refused
  and never touches the running game;
- each played action records the seconds the seat took (``time``, from the request to the
  answer), for the logs and ``game-over``.
"""

from __future__ import annotations

import functools
import logging
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import trio

from quinze_protocol.fields import FORFEIT_LEAVE, FORFEIT_TIMEOUT, MAX_MOVE_TIME
from quinze_protocol.game import Action, Game, GameError
from quinze_protocol.clocks import move_clock
from quinze_protocol.messages import commitment
from quinze_protocol.replaylog import iso_now, start_game
from quinze_protocol.rng import SEED_BITS
from quinze_server.clock import DecisionTimer, TableClock
from quinze_server.logs import write_game
from quinze_server.seats import Seats
from quinze_server.table_over import game_over_head, how_it_ended, log_job, settle
from quinze_server.wire import Records, TableWire, entries, joined_map, pack, rounded
from quinze_server.wire import frame as wire_frame

if TYPE_CHECKING:
    from quinze_server.connection import ClientConnection
    from quinze_server.lobby import Lobby

log = logging.getLogger("quinze.server")

@dataclass(slots=True)
class Pending:
    """The open ``action-request``: its id, the seat to act, when it is due and when it opened
    (trio clock seconds); once sent, the legal actions it offered (``listed``) and each one's
    data encoded as in its ``legal`` array (``offered``), kept until it is answered."""

    request: int
    seat: int
    timer: DecisionTimer
    opened: float = 0.0
    told_thinking: bool = False
    listed: list[Action] | None = None
    offered: list[bytes] | None = None


class Table:
    """A table of ``game_cls`` with validated ``options``.

    ``seed``: seed of the first game (None: drawn per game); ``games``: games before closing;
    ``move_time``: seconds per decision; ``clock``: the clock spec (:mod:`quinze_protocol.clocks`),
    None for per move with ``move_time``; ``seat_move_times``: with a per-move clock, a seat's
    own seconds per decision, where not None.
    """

    def __init__(
        self,
        lobby: Lobby,
        table_id: str,
        game_cls: type[Game],
        options: Mapping[str, Any],
        *,
        seed: int | None,
        games: int,
        move_time: float,
        clock: Mapping[str, Any] | None = None,
        seat_move_times: tuple[float | None, ...] | None = None,
        position: Mapping[str, Any] | None = None,
    ) -> None:
        self.lobby = lobby
        self.position = dict(position) if position is not None else None
        """Every game starts from this position (``create-table.position``), or None."""
        self.id = table_id
        self.game_cls = game_cls
        self.options = dict(options)
        self.base_seed = seed
        self.games = games
        spec = dict(clock) if clock is not None else move_clock(move_time)
        self.move_time: float | None = spec["move"] if spec["kind"] == "move" else None
        self.seat_move_times = tuple(seat_move_times or ())
        self.seats = Seats(table_id, self.options["players"], lobby)
        """Who sits and who watches (:class:`quinze_server.seats.Seats`)."""
        self.clock = TableClock(spec, len(self.seats), self.seat_move_times)
        self.state = "waiting"
        self.number = 0
        self.request_id = 0
        self.game: Game | None = None
        self.pending: Pending | None = None
        self.forfeit: tuple[int, str] | None = None
        self.records = Records()
        """The actions of the game in progress (or the last one), encoded (see ``quinze_server.wire``)."""
        self.players: list[str] = []
        self.seed = 0
        self.salt = ""
        self.started = ""
        self.creator = -1
        """The id of the connection that created the table (its per-connection limit)."""
        self.creator_gone = False
        """The connection that created the table has ended (:meth:`creator_left`)."""
        self._seated_at = trio.current_time()
        """When a seat was last taken (or the table created), trio clock: its idle time counts from there."""
        self.aborted: str | None = None
        self._announced = False
        self._changed = trio.Event()
        self._wake_at = float("inf")
        """When the table task wakes next at the latest (trio clock)."""
        self.wire = TableWire(table_id, lobby.config.max_frame)
        self._info: bytes | None = None

    @property
    def actions(self) -> list[dict[str, Any]]:
        """The actions of the game in progress (or the last one): ``[{"seat", "action"}]``."""
        return self.records.data()

    # ------------------------------------------------------------------ info

    def info(self) -> dict[str, Any]:
        """TableInfo (PROTOCOL.md): table, game, options, seats, state, number, games, move_time, spectators, clock."""
        return {
            "table": self.id,
            "game": self.game_cls.id,
            "options": self.options,
            "seats": [{"seat": s.index, "name": s.name, "connected": s.conn is not None} for s in self.seats],
            "state": self.state,
            "number": self.number,
            "games": self.games,
            "move_time": self.move_time,
            "spectators": len(self.seats.spectators),
            "clock": self.clock.spec,
        }

    def info_body(self) -> bytes:
        """:meth:`info` encoded (msgpack), kept until the table changes (:meth:`_touch`)."""
        if self._info is None:
            self._info = pack(self.info())
        return self._info

    def _touch(self) -> None:
        """Something :meth:`info` shows may change: forget its encoding and the lobby's listing.
        Called before every change of the seats, the spectators, the state or the game number."""
        self._info = None
        self.lobby.listing_changed(self)

    # ------------------------------------------------------------------ sending

    def _clock_state(self, now: float | None = None) -> dict[str, Any]:
        """The clock state at ``now`` (trio clock; None: read it)."""
        p = self.pending
        return self.clock.state(p.seat, p.timer, now) if p is not None else self.clock.state()

    def _game_start(self, seat: int | None) -> dict[str, Any]:
        return {
            "type": "game-start",
            "table": self.id,
            "game": self.game_cls.id,
            "number": self.number,
            "seat": seat,
            "players": self.players,
            "options": self.options,
            "commitment": commitment(self.seed, self.salt, self.position),
        }

    def _view(self, seat: int | None) -> dict[str, Any]:
        """``view`` for a client arriving mid-game: ``Game.view(seat)`` (None: the public view)
        (PROTOCOL.md, "Flow" 6, `view`)."""
        assert self.game is not None
        return {"type": "view", "table": self.id, "view": self.game.view(seat), "number": self.number,
                "clock": self._clock_state()}

    def _next_request(self, now: float | None = None) -> None:
        """Open the request of the seat to act (a new id, a fresh deadline from ``now``, trio
        clock, None: read it) and send it; none once over."""
        game = self.game
        if game is None or game.is_over:
            self.pending = None
            return
        seat = game.to_act
        assert seat is not None
        self.request_id = self.lobby.next_request()
        timer = self.clock.start(seat, now)
        now = timer.started
        self.pending = Pending(self.request_id, seat, timer, now)
        if self.seats.has_people:  # notices are for people: none is built for bots alone
            self.seats.notice("clock", seat, clock=self._clock_state(now))
        self._send_request(now)
        think_at = now + self.lobby.config.thinking_long
        if (think_at if think_at < timer.at else timer.at) < self._wake_at:  # (min, inline)
            self._poke()  # the table task sleeps past this request's deadline or "thinking" moment

    def _send_request(self, now: float | None = None) -> None:
        """The open request to its seat, its deadline and clock as at ``now`` (trio clock; None: read it).

        Its ``legal`` array is ``Game.legal_data()``, each entry encoded once and kept with the
        actions it lists (``Pending.offered``, ``Pending.listed``: the same list again if the
        request is sent again to a seat taken back), so that an answer naming one of them, byte
        for byte, is read without parsing it again (:meth:`handle_action`)."""
        p, game = self.pending, self.game
        if p is None or game is None:
            return
        conn = self.seats.list[p.seat].conn
        if conn is None:
            return
        if now is None:
            now = trio.current_time()
        offered = p.offered
        if offered is None:
            if type(game).legal_data is Game.legal_data:  # the data of the listed actions, in order
                listed = p.listed = game.legal_actions()
                offered = entries(type(game), listed)
            else:  # pragma: no cover - a game's own legal_data (none does): its entries, not read back
                offered = [pack(d) for d in game.legal_data()]
            p.offered = offered
        timer = p.timer
        # timer.wire(now) inline: min(max(0.0, min(timer.seconds, timer.at - now)), MAX_MOVE_TIME)
        left, seconds = timer.at - now, timer.seconds
        left = left if left < seconds else seconds
        left = left if left > 0.0 else 0.0
        deadline = MAX_MOVE_TIME if MAX_MOVE_TIME < left else left
        frame = self.wire.request(p.request, p.seat, game.packed_view(p.seat) or game.view(p.seat), offered, deadline, self.number,
                                  self.clock.packed_state(p.seat, deadline))
        if frame is not None:
            conn.send_frame(frame)
            if p.listed is not None:  # its answer, a listed entry as it is, is read undecoded
                conn.asked = (self.wire.answer_head(p.request), offered, self.id, p.request)
        else:  # never silently: the client is told (the log says why)
            self.lobby.unsendable([conn], {"type": "action-request"})

    def _poke(self) -> None:
        self._changed.set()

    async def _until(self, cond: Any) -> None:
        while not cond():
            self._changed = trio.Event()
            await self._changed.wait()

    # ------------------------------------------------------------------ the table task

    async def run(self) -> None:
        """Play games until ``games`` are played or a seat is no longer held; then close.
        Never raises (an engine failure closes the table and is logged)."""
        try:
            lobby = self.lobby
            while True:
                await self._until_seated()
                if lobby.stopping or self.state == "closed":  # shutting down (no new game), or abandoned
                    break
                await self._play_one()
                if self.number >= self.games or not self.seats.all_connected or lobby.stopping:
                    break
        except Exception:
            log.exception("table %s failed", self.id)
        finally:
            self._close()

    async def _until_seated(self) -> None:
        """Wait until every seat is held, the server stops or the table is closed; close it
        when nobody has taken a seat for ``table_idle`` seconds (PROTOCOL.md "Timeouts and limits")."""
        lobby = self.lobby
        idle = lobby.config.table_idle
        while not (lobby.stopping or self.state == "closed" or self.seats.all_held):
            if trio.current_time() >= self._seated_at + idle:
                log.info("table %s: nobody took a seat for %g s", self.id, idle)
                self._close()
                return
            self._changed = trio.Event()
            with trio.move_on_at(self._seated_at + idle):
                await self._changed.wait()

    def creator_left(self) -> None:
        """The connection that created the table has ended: a table still waiting for its first
        game with no seat held closes now; one with players closes when the last of them goes
        before the game (:meth:`_close_if_abandoned`)."""
        self.creator_gone = True
        self._close_if_abandoned()

    def _close_if_abandoned(self) -> None:
        """Close the table if it waits for its first game, its creator is gone and no seat is held."""
        if self.state == "waiting" and self.number == 0 and self.creator_gone \
                and not any(s.held for s in self.seats):
            log.info("table %s: abandoned (its creator is gone and no seat is held)", self.id)
            self._close()
            self._poke()

    async def _play_one(self) -> None:
        self._touch()
        self.number += 1
        self.seed = self.base_seed + self.number - 1 if self.base_seed is not None else secrets.randbits(SEED_BITS)
        self.salt = secrets.token_hex(16)
        self.players = self.seats.names()
        self.records = Records()
        self.forfeit = None
        self.clock.new_game()
        self._announced = False
        game = self.game = start_game(self.game_cls.id, self.options, self.seed, self.position)
        self.state = "playing"
        self.started = iso_now()
        log.info("table %s: game %d of %s starts (%s)", self.id, self.number, self.game_cls.id, ", ".join(self.players))
        self.seats.to_all_each(self._game_start)
        self.seats.events(game.opening_events, self.number, self.wire, game.packed_event)

        self._next_request()
        while (p := self.pending) is not None and self.forfeit is None and self.aborted is None:
            # handle_action plays each move and opens the next request itself, without waking
            # this task (no task switch between a move and the next request): this task only
            # wakes at the deadline of the request it saw, or when the game ends or is forfeited.
            if p.timer.expired:
                self.forfeit = (p.seat, FORFEIT_TIMEOUT)
                break
            think_at = p.timer.started + self.lobby.config.thinking_long
            if not p.told_thinking and trio.current_time() >= think_at:
                p.told_thinking = True
                self.seats.notice("thinking", p.seat, seconds=round(trio.current_time() - p.timer.started, 1),
                             clock=self._clock_state())
            # (a move opens the next request without waking this task, unless that request's
            # "thinking" moment comes before the wake-up set here: see _next_request)
            self._wake_at = p.timer.at if p.told_thinking else min(p.timer.at, think_at)
            with trio.move_on_at(self._wake_at):
                await self._until(lambda: self.pending is not p or self.forfeit is not None)
        self.pending = None
        await self._game_over(game)

    async def _game_over(self, game: Game) -> None:
        if self._announced:  # aborted by the server's shutdown, which writes the log itself
            return
        job = self._announce(game)
        if job is not None:
            await write_game(**job, failed=functools.partial(self._log_failed, job["number"]))

    def _log_failed(self, number: int, why: str) -> None:
        """The log of game ``number`` could not be written (``why``, e.g. a full disk): the people
        at the table are told (``notice`` ``log-failed``, PROTOCOL.md); the result stands."""
        self.seats.notice("log-failed", None, number=number, reason=why)

    def _announce(self, game: Game) -> dict[str, Any] | None:
        """Send ``game-over`` to every seat and spectator (once per game) and return what
        :func:`quinze_server.logs.write_game` needs to log the game (None without a log directory):
        :mod:`quinze_server.table_over` settles the result and builds both."""
        self._announced = True
        result, forfeit = settle(game, len(self.seats), self.aborted, self.forfeit)
        # The recorded actions are joined in as they were encoded: "actions" is the last key.
        over = wire_frame(joined_map(game_over_head(self, result, forfeit), "actions", self.records.packed()),
                          self.lobby.config.max_frame, "game-over")
        if over is not None:
            self.seats.to_all_frame(over)
        else:  # never silently: every receiver is told (the log says why)
            self.lobby.unsendable(self.seats.receivers(), {"type": "game-over"})
        (log.debug if self.lobby.stopping else log.info)("table %s: game %d over: %s", self.id, self.number,
                                                         how_it_ended(result, forfeit, self.aborted, self.players))
        return log_job(self, result, forfeit)

    def abort(self, reason: str) -> dict[str, Any] | None:
        """The server stops (``reason``, e.g. ``"shutdown"``): a game not yet announced over ends
        now, the running one with the aborted result (one that just ended or was forfeited with
        its own); ``game-over`` is sent at once, so it reaches every seat and spectator before
        their ``bye``. Returns the log job of that game for :func:`quinze_server.logs.write_game` (None
        when no game is left to announce or there is no log directory). Never raises."""
        game = self.game
        if self.state != "playing" or game is None or self._announced:
            return None
        if not game.is_over and self.forfeit is None:
            self.aborted = reason
        self.pending = None
        self._poke()
        return self._announce(game)

    def _close(self) -> None:
        if self.state == "closed":
            return
        self._touch()
        self.state = "closed"
        self.pending = None
        self.game = None  # a closed table stays listed a while: it keeps no game or records
        self.records = Records()
        self.seats.close(self)
        self.lobby.table_closed(self)
        (log.debug if self.lobby.stopping else log.info)("table %s closed", self.id)  # at shutdown: one line for all

    # ------------------------------------------------------------------ client messages

    def handle_join(self, conn: ClientConnection, seat: int | None, token: str | None) -> None:
        """``join``: take a free seat, or take back a held one with its token (PROTOCOL.md "Flow" 1 and 6, `join`).
        A bot may not sit at a table without a clock (``no-clock``) unless the server's bots are all
        built-in (``ServerConfig.builtin_bots``)."""
        self._touch()
        if self.state == "closed":
            conn.error("game-not-running", f"table {self.id} is closed", "join")
            return
        if self.clock.kind == "none" and conn.role == "bot" and not self.lobby.config.builtin_bots:
            conn.error("no-clock", f"table {self.id} has no clock, so only people may sit there: a bot could keep "
                       "it waiting forever (create the table with a clock: move or bank)", "join")
            return
        taken = self.seats.join(conn, seat, token, open_=self.state == "waiting", table=self)
        if taken is None:
            return
        target, old = taken
        self._seated_at = trio.current_time()
        if token is None:
            log.info("table %s: %s takes seat %d", self.id, conn.name, target.index)
            self._poke()
            return
        log.info("table %s: %s back in seat %d", self.id, conn.name, target.index)
        if self.state == "playing" and old is None:
            self.seats.notice("reconnected", target.index, skip=conn)
        if self.state == "playing" and self.game is not None:
            conn.send(self._game_start(target.index))
            conn.send(self._view(target.index))
            if self.pending is not None and self.pending.seat == target.index:
                self._send_request()
        self._poke()

    def handle_spectate(self, conn: ClientConnection) -> None:
        """``spectate``: watch with public information only; ``game-start`` then ``view`` (public) at once if a game runs."""
        self._touch()
        if self.state == "closed":
            conn.error("game-not-running", f"table {self.id} is closed", "spectate")
            return
        if not self.seats.watch(conn, self):
            return
        if self.state == "playing" and self.game is not None:
            conn.send(self._game_start(None))
            conn.send(self._view(None))

    def handle_leave(self, conn: ClientConnection) -> None:
        """``leave``: give up the seat (forfeiting a running game, kind ``"leave"``) or stop watching."""
        self._touch()
        mine = self.seats.of(conn)
        if mine is not None and self.state == "playing" and self.game is not None and not self.game.is_over \
                and self.forfeit is None:
            self.forfeit = (mine.index, FORFEIT_LEAVE)
        if self.seats.leave(conn, self) is not None:
            self._poke()
            self._close_if_abandoned()

    def dropped(self, conn: ClientConnection) -> None:
        """``conn`` is gone: spectating stops; a seat is freed before the first game, else kept for
        a reconnect with its token (the clock keeps running)."""
        self._touch()
        mine = self.seats.dropped(conn, free=self.state == "waiting" and self.number == 0)
        if mine is None:
            return
        if mine.held and self.state == "playing":
            self.seats.notice("disconnected", mine.index)
        self._poke()
        self._close_if_abandoned()

    def handle_forfeit(self, conn: ClientConnection, kind: str, number: int | None = None) -> None:
        """``forfeit``: the sender's seat concedes the running game; ``kind`` (the message's
        ``reason`` field) becomes ``game-over.forfeit.kind``.
        A forfeit naming another game (``number``) than the running one is refused
        (``stale-game``): a late forfeit never ends a game that started after it was meant."""
        self._touch()
        mine = self.seats.of(conn)
        if mine is None:
            conn.error("not-seated", f"you hold no seat at {self.id}", "forfeit")
            return
        if number is not None and (number != self.number or self.state != "playing"):
            which = "is over (no game is running)" if number == self.number and number else self._which_game(number)
            conn.error("stale-game", f"game {number} at {self.id} {which}: the forfeit is ignored", "forfeit")
            return
        if self.state != "playing" or self.game is None or self.forfeit is not None:
            conn.error("game-not-running", f"no game is running at {self.id}", "forfeit")
            return
        self.forfeit = (mine.index, kind)
        self._poke()

    def handle_action(self, conn: ClientConnection, request: int, data: Mapping[str, Any] | None,
                      number: int | None = None, index: int | None = None) -> None:
        """``action``: checked and played, then ``accepted`` and the events; else ``refused`` with a
        stable code (``not-your-turn``, ``stale-request``, or the game's own) and the state unchanged.
        An answer naming an earlier game (``number``) is ``stale-request``, never played.
        ``index`` (``data`` None): the action was the entry ``index`` of the ``legal`` array of
        request ``request``, byte for byte (:meth:`ClientConnection.serve` read it undecoded)."""
        mine = self.seats.of(conn)
        if mine is None:
            conn.error("not-seated", f"table {self.id} is closed: its games are over and it has no seats any more"
                       if self.state == "closed" else f"you hold no seat at {self.id}", "action")
            return
        if number is not None and number != self.number:
            self._refuse(conn, request, "stale-request", f"request {request} names game {number} at {self.id}, "
                         f"which {self._which_game(number)}", number)
            return
        game, p = self.game, self.pending
        if self.state != "playing" or game is None or game.is_over or self.forfeit is not None:
            conn.error("game-not-running", f"no game is running at {self.id}", "action")
            return
        if p is None or p.seat != mine.index:
            if p is not None and request < p.request:  # an earlier request's answer: late, not out of turn
                self._refuse(conn, request, "stale-request", f"request {request} is an earlier one at {self.id} (the open one: {p.request})")
            else:
                self._refuse(conn, request, "not-your-turn", f"seat {mine.index} is not to act at {self.id}")
            return
        if request != p.request:
            self._refuse(conn, request, "stale-request", f"the open request at {self.id} is {p.request}, not {request}")
            return
        now = self.lobby.now()  # (trio.current_time) the answer's arrival: its lateness, its time, the next request's start
        if now >= p.timer.at:
            late = now - p.timer.at
            self._refuse(conn, request, "stale-request", f"the deadline of request {request} has passed: answered {late:.2f} s late")
            return
        # An answer naming a listed action byte for byte is that action (tests/test_server_listed.py), its
        # encoding the one recorded; checked by apply unless the game lists only actions legal as they stand
        # (Game.listed_legal: a classique raise's range is listed, refused when sent back). Else the game reads it.
        packed: bytes | None = None
        listed = p.listed
        if index is not None and listed is not None and p.offered is not None:  # (request is p's)
            packed, action = p.offered[index], listed[index]
        elif listed is not None and p.offered is not None:
            packed = pack(data)
            try:
                action = listed[p.offered.index(packed)]
            except ValueError:
                packed = None
        try:
            if packed is None:
                action = game.parse_action(data or {})  # (data is None only with an index, never unlisted)
                events = game.apply(action)
            else:
                events = game.apply(action, checked=not game.listed_legal)
        except GameError as e:
            reason = f"{e.field}: {e.reason}" if e.field else e.reason
            self._refuse(conn, request, e.code, reason)
            return
        except (TypeError, ValueError, KeyError, AttributeError, IndexError) as e:  # data the engine did not expect
            self._refuse(conn, request, "bad-action", f"unreadable action ({type(e).__name__}: {e})"[:500])
            return
        except Exception as e:  # an engine bug must not take the server down
            log.exception("table %s: engine failed on %r", self.id, data if data is not None else action.to_data())
            self._refuse(conn, request, "engine-error", f"{type(e).__name__}: {e}")
            return
        if self.clock.kind == "bank":  # (TableClock.stop: only a bank is charged)
            self.clock.stop(p.seat, p.timer, now)
        if packed is not None:
            self.records.add_packed(mine.index, packed, rounded(now - p.opened, 4))
        else:
            self.records.add(mine.index, action.to_data(), rounded(now - p.opened, 4))
        conn.moves += 1
        conn.send_frame(self.wire.accepted(request, self.number))
        self.seats.events(events, self.number, self.wire, game.packed_event)
        self._next_request(now)
        if self.pending is None:  # the game is over: the table task takes it from here
            self._poke()

    def _which_game(self, number: int) -> str:
        """Why game ``number`` (not the current one) cannot be played: over (below the current),
        not started yet, or never played at this table (above its ``games``)."""
        current = f"game {self.number} is the current one" if self.number else "no game has started yet"
        if number < self.number:
            return f"is over ({current})"
        if number > self.games:
            return f"does not exist (the table plays {self.games} game{'s' if self.games > 1 else ''}; {current})"
        return f"has not started ({current})"

    def _refuse(self, conn: ClientConnection, request: int, code: str, reason: str, number: int | None = None) -> None:
        """``refused`` for the answer to ``request`` of game ``number`` (default: the current game)."""
        conn.send({"type": "refused", "table": self.id, "request": request, "code": code, "reason": reason,
                   "number": number or self.number or None})
