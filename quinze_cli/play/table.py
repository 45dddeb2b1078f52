"""Sitting at (or watching) one table in ``quinze play``: the game-agnostic table loop.

Server messages (PROTOCOL.md "Game flow at a table") update a :class:`TableState`; the game's
:class:`~quinze_cli.play.registry.GameUI` turns events into words and draws the board; the
screen is redrawn after each burst of events. On our ``action-request`` the legal actions are
listed and the prompt comes; an entry is sent only once it is one of the ``legal`` entries
(a number, or typed text the game's reader matched to one); a ``refused`` is explained and the
prompt comes back while the deadline lasts.
"""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text

from quinze_cli.play.registry import GameUI, InputError, TableState, get_ui
from quinze_cli.errors import plain_reason
from quinze_cli.play.asides import Asides
from quinze_cli.play.screen import ShownSummary, clock_time, draw, legal_lines, seconds_left
from quinze_cli.play.asking import TableGone, ask_server, seat_connected, table_info
from quinze_cli.play.session import Quit, Session
from quinze_protocol.game import ABORTED
from quinze_protocol.session import Step

__all__ = ["join_table", "spectate_table"]

HELP_WORDS = {"help", "aide", "?"}
HINT_WORDS = {"hint", "conseil", "indice"}
RULES_WORDS = {"rules", "regles", "règles"}
QUIT_WORDS = {"quit", "quitter", "exit"}
"""Leave the table; during a game only after a yes to ``table.confirm-quit`` (a game is forfeited)."""
SHORT_QUIT = "q"
"""Leaves at once outside a game only: during one it is the queen (``q+3``), never a quit."""
LIST_WORDS = {"list", "liste", "ls"}
COMMAND_WORDS = {"en": ["help", "hint", "rules", "list", "quit"], "fr": ["aide", "conseil", "regles", "liste", "quitter"]}
WARN_AT = (60, 30, 10, 5)
"""Seconds left at which a reminder is printed during our turn (those not below the time the turn
began with)."""
DEBOUNCE = 0.05
"""Seconds to wait for more events before redrawing."""
SUMMARY_SECONDS = 6.0
"""Seconds a deal's or coup's summary stays on screen at a networked table (at a local table
without a clock it stays until Enter)."""



def distinct_names(players: list[str], cat: Any) -> list[str]:
    """The seated names as shown: a name two seats share (compared without case) gets its seat
    (``"Eve (seat 0)"``, ``"Eve (seat 1)"``), so that no line about them is ambiguous ("Waiting for
    Eve…"); other names as they are."""
    folded = [str(p).casefold() for p in players]
    return [cat("table.same-name", name=p, seat=i) if folded.count(folded[i]) > 1 else p
            for i, p in enumerate(players)]

def _key(s: Session, table: str) -> str:
    return s.opts.tokens.key(s.opts.host, s.opts.port, table, s.opts.name)


async def join_table(s: Session, table: str, seat: int | None = None, token: str | None = None,
                     info: dict[str, Any] | None = None) -> None:
    """Take a seat (or our seat back, with a token given or kept) and play until the table closes.

    A kept token (:class:`~quinze_cli.play.tokens.TokenStore`, keyed by server, table and our
    name) is used only when its seat is not held by a connected client, per ``info`` (the table's
    ``list-tables`` entry; asked for when not given): another person on this machine under the
    same account and name may be sitting there, and resuming would throw them out. Then a free
    seat is taken instead. An explicit ``token`` (``--token``) is always used.

    Raises :class:`TableGone` when the server refuses the seat."""
    key = _key(s, table)
    if token is None:
        kept = s.opts.tokens.get(key)
        if kept is not None:
            if info is None:
                info = await table_info(s, table)
            if seat_connected(info, kept.get("seat")):
                s.say(s.cat("table.seat-in-use", seat=kept.get("seat")))
            else:
                token = kept["token"]
    msg = await _join(s, table, seat, token)
    if msg.get("type") == "error" and token is not None and msg.get("code") == "bad-token":
        s.opts.tokens.forget(key)
        s.say(s.cat("table.token-refused"))
        msg = await _join(s, table, seat, None)
    if msg.get("type") == "error":
        raise TableGone(s.cat("table.join-refused", table=table, reason=plain_reason(msg.get("reason", "")), code=msg.get("code", "")))
    s.opts.tokens.put(key, msg["seat"], msg["token"], s.opts.name)
    s.held = table
    s.say(s.cat("table.resumed" if msg.get("resumed") else "table.joined", table=table, seat=msg["seat"]), style="bold")
    loop = TableLoop(s, table, msg["seat"], msg["token"], resuming=bool(msg.get("resumed")))
    try:
        await loop.run()
    finally:
        s.held = None if loop.closed else s.held


async def _join(s: Session, table: str, seat: int | None, token: str | None) -> dict[str, Any]:
    return await ask_server(s, {"type": "join", "table": table, "seat": seat, "token": token})


async def spectate_table(s: Session, table: str) -> None:
    """Watch ``table`` with public information only until it closes. Raises :class:`TableGone`."""
    msg = await ask_server(s, {"type": "spectate", "table": table})
    if msg.get("type") == "error":
        raise TableGone(s.cat("table.spectate-refused", table=table, reason=plain_reason(msg.get("reason", "")), code=msg.get("code", "")))
    s.held = table
    s.say(s.cat("table.spectating", table=table), style="bold")
    loop = TableLoop(s, table, None)
    await loop.run()
    s.held = None


class TableLoop(Asides):
    """The loop of one table; ``seat`` None for a spectator."""

    def __init__(self, s: Session, table: str, seat: int | None, token: str | None = None, resuming: bool = False) -> None:
        self.s = s
        self.token = token
        self.cat = s.cat
        self.state = TableState(table=table, seat=seat)
        self.ui: GameUI | None = None
        self.sent = False
        self.closed = False
        self.redraw_at: float | None = None
        self.warned: set[int] = set()
        self.clear = s.console.is_terminal
        self.resuming = resuming
        """We took a seat back: the next ``game-start`` is a game going on, not a new one."""
        self.shown: ShownSummary | None = None
        self.hold_pending = False
        self.holding = False
        self.after_summary = False
        """Whether the line being handled was typed at a summary's prompt: the deal is over, and what
        comes next (the next deal, the game's end) waits behind it, so no move is owed anyone."""
        """A summary waits for Enter (:meth:`_hold`)."""
        self.asking = False
        """A yes/no question waits for its answer (:meth:`_ask`)."""
        self.aside: tuple[str, list[str]] | None = None
        """Text the player asked for (``help``) drawn in the place of the recent events, with its
        title, until our action is sent or a new request comes."""

    # ---------------------------------------------------------------- loop
    async def run(self) -> None:
        s = self.s
        s.reader.set_words(self._words())
        if self.state.seat is not None:
            s.say(self.cat("table.waiting-players"))
        s.on_resize = self._on_resize
        try:
            await self._loop()
        finally:
            s.on_resize = None

    def _on_resize(self) -> None:
        """The terminal was resized: the screen drawn again at its new size (a summary waiting
        for Enter with its prompt; nothing while a yes/no question waits: after the answer)."""
        if self.ui is None or self.state.number == 0 or self.asking:
            return
        if self.holding:
            draw(self.s.console, self.ui, self.state, self.cat, clear=self.clear, summary=self.shown)
            self.s.prompt(self.cat("summary.enter"))
        else:
            self.redraw()

    async def _loop(self) -> None:
        s = self.s
        while True:
            item = await s.next(self._wake_at())
            now = time.monotonic()
            if item is None:
                if self.shown is not None and self.shown.until is not None and now >= self.shown.until:
                    self.shown = None  # a networked table's summary has been up long enough
                    self.redraw()
                if self.redraw_at is not None and now >= self.redraw_at:
                    self.redraw()
                self._countdown()
                continue
            kind, data = item
            if kind == "resumed":
                await self._rejoin()
            elif kind == "input":
                await self.on_line(data)
            elif await self.on_message(data, s.step):
                return
            if self.hold_pending:
                await self._hold()

    def _wake_at(self) -> float | None:
        times = []
        if self.redraw_at is not None:
            times.append(self.redraw_at)
        if self.shown is not None and self.shown.until is not None:
            times.append(self.shown.until)
        st = self.state
        if st.legal and st.deadline_at is not None and not self.sent:
            times.extend(st.deadline_at - w for w in WARN_AT if w not in self.warned)
        return min(times) if times else None

    def _countdown(self) -> None:
        st = self.state
        if not st.legal or self.sent or st.deadline_at is None:
            return
        left = seconds_left(st)
        for w in WARN_AT:
            if w not in self.warned and left is not None and left <= w:
                self.warned.update(x for x in WARN_AT if x >= w)
                if (st.clock or {}).get("kind") == "bank":
                    self.s.say(self.cat("table.bank-left", time=clock_time(left)), style="bold yellow")
                else:
                    self.s.say(self.cat("table.time-left", seconds=left), style="bold yellow")
                self._prompt()
                return

    async def _rejoin(self) -> None:
        s, st = self.s, self.state
        if st.seat is None:
            msg = await ask_server(s, {"type": "spectate", "table": st.table})
        else:
            msg = await _join(s, st.table, None, self.token)
            if msg.get("type") == "error" and st.number == 0 and msg.get("code") == "bad-token":
                # before the first game the server frees a dropped seat: sit down again
                msg = await _join(s, st.table, None, None)
            if msg.get("type") == "joined":
                st.seat, self.token = msg["seat"], msg["token"]
                s.opts.tokens.put(_key(s, st.table), st.seat, self.token, s.opts.name)
        if msg.get("type") == "error":
            self.closed = True
            raise TableGone(self.cat("table.lost-seat", table=st.table, reason=plain_reason(msg.get("reason", ""))))
        self.sent = False
        self.resuming = st.seat is not None
        s.say(self.cat("table.resumed", table=st.table, seat=st.seat) if st.seat is not None else self.cat("table.spectating", table=st.table))

    # ---------------------------------------------------------------- drawing
    def redraw(self) -> None:
        self.redraw_at = None
        if self.ui is None:
            return
        title, aside = self.aside if self.aside is not None else ("", None)
        draw(self.s.console, self.ui, self.state, self.cat, clear=self.clear, summary=self.shown,
             aside=aside, aside_title=title)
        if self.state.legal and not self.sent and self.state.seat is not None:
            self._prompt()

    def _prompt(self) -> None:
        left = seconds_left(self.state)
        self.s.prompt(self.cat("prompt.move", seconds=left) if left is not None else self.cat("prompt.move-free"))

    def _soon(self) -> None:
        if self.redraw_at is None:
            self.redraw_at = time.monotonic() + DEBOUNCE

    # ---------------------------------------------------------------- summaries
    def _summary(self, lines: list[str]) -> None:
        """A deal or coup is over: show ``lines`` until Enter at a local table without a clock,
        typed at a terminal (the next deal waits meanwhile: nothing is on a clock there), else for
        :data:`SUMMARY_SECONDS` (a networked table: the others play on)."""
        st = self.state
        untimed = (st.clock or {}).get("kind", "none") == "none"
        if self.s.opts.local and untimed and self.s.reader.interactive:
            self.shown = ShownSummary(list(lines), None)
            self.hold_pending = True
        else:
            self.shown = ShownSummary(list(lines), time.monotonic() + SUMMARY_SECONDS)

    async def _hold(self) -> None:
        """Keep the summary on screen until a line is typed; server messages meanwhile wait in
        order (they are handled right after). A typed command other than Enter is then handled."""
        s = self.s
        self.hold_pending = False
        self.redraw_at = None
        draw(s.console, self.ui, self.state, self.cat, clear=self.clear, summary=self.shown)  # type: ignore[arg-type]
        s.prompt(self.cat("summary.enter"))
        self.holding = True
        try:
            line = (await s.next_line())[0].strip()
        finally:
            self.holding = False
        self.shown = None
        self._soon()
        if line:
            self.after_summary = True
            try:
                await self.on_line(line)
            finally:
                self.after_summary = False

    # ---------------------------------------------------------------- server
    async def on_message(self, msg: dict[str, Any], step: Step | None = None) -> bool:
        """Handle one server message; True when the table is over for us. ``step``: what the
        message did in the conversation (:class:`quinze_protocol.session.Step`; None when it is
        not known, e.g. replayed messages): an ``accepted`` or ``refused`` is ours only when the
        conversation says it answers our open request."""
        st, s, cat = self.state, self.s, self.cat
        t = msg.get("type")
        if msg.get("table", st.table) != st.table:
            return False
        if t == "game-start":
            same = st.number == msg.get("number") and st.game == msg.get("game") and st.public
            st.game = msg.get("game", "")
            st.number = msg.get("number", 1)
            st.players = distinct_names(list(msg.get("players", [])), cat)
            st.options = dict(msg.get("options", {}))
            st.seat = msg.get("seat", st.seat)
            st.result = None
            if self.ui is None or self.ui.game_id != st.game:
                self.ui = get_ui(st.game, s.cat, s.style)
            self.s.reader.set_words(self._words())
            if not same:
                self.ui.start(st)
                # back in a running game (a seat taken back): it goes on, it does not start again
                key = "table.game-resumed" if self.resuming else "table.game-start"
                st.add_log([cat(key, number=st.number, players=", ".join(st.players))])
            self.resuming = False
            self._soon()
        elif t == "event" and self.ui is not None:
            event = dict(msg.get("event", {}))
            lines = self.ui.on_event(st, event)
            st.add_log(lines, mine=st.seat is not None and event.get("seat") == st.seat)
            if st.summary:
                self._summary(st.summary)
                st.summary = None
            self._soon()
        elif t == "view" and self.ui is not None and isinstance(msg.get("view"), dict):
            # we arrived mid-game (spectator, or our seat taken back): rebuild the tracked state
            view = dict(msg["view"])
            st.view = view
            st.legal, st.request, st.deadline_at, self.sent = [], None, None, False
            if "to_act" in view:
                st.to_act = view["to_act"]
            self._clock(msg.get("clock"), st.to_act)
            self.ui.on_view(st)
            self.s.reader.set_words(self._words())
            self._soon()
        elif t == "action-request" and self.ui is not None:
            if msg.get("seat") != st.seat:
                return False
            st.view = dict(msg.get("view", {}))
            st.legal = [dict(a) for a in msg.get("legal", [])]
            st.request = msg.get("request")
            self._clock(msg.get("clock"), st.seat)
            untimed = (st.clock or {}).get("kind") == "none"
            st.deadline_at = None if untimed else time.monotonic() + float(msg.get("deadline", 0.0))
            st.to_act = st.seat
            self.sent = False
            self.warned = {w for w in WARN_AT if w >= float(msg.get("deadline", 0.0))}
            self.aside = None
            self.ui.on_request(st)
            forced = self.ui.forced(st)
            if forced is not None and await s.answer(st.table, st.request, forced[0]):
                # nothing to choose: answered at once, said in the log (drawn with the next events)
                st.add_log([forced[1]], mine=True)
                self.sent = True
                return False
            self.s.reader.set_words(self._words())
            self.redraw()
        elif t == "notice":
            self._on_notice(msg)
        elif t == "accepted":
            if step is not None and step.expected:  # accepted is expected only for our answer
                st.legal = []
                st.deadline_at = None
                self.sent = False
        elif t == "refused":
            # "refused": our open request, answer again; "refused:stale": our answer came after
            # the request closed (a deadline, the game's end); other requests' refusals are news
            if step is not None and step.key in ("refused", "refused:stale"):
                self.sent = False
                s.say(cat("table.refused", reason=plain_reason(msg.get("reason", "")), code=msg.get("code", "")), style="red")
                if step.key == "refused:stale":
                    st.legal, st.deadline_at = [], None
                if st.legal:
                    self._prompt()
        elif t == "game-over":
            st.result = dict(msg.get("result", {}))
            st.legal, st.deadline_at, self.sent = [], None, False
            forfeit = msg.get("forfeit")
            if forfeit:
                seat, kind = forfeit.get("seat"), str(forfeit.get("kind", ""))
                why = cat(f"forfeit-kind.{kind}") if cat.has(f"forfeit-kind.{kind}") else kind  # a client may give any code
                mine = st.seat is not None and seat == st.seat
                st.add_log([cat("table.forfeit.you" if mine else "table.forfeit", name=st.name(seat), why=why)],
                           mine=mine)
            if st.result.get("reason") == ABORTED:
                # The server stopped mid-game (PROTOCOL.md "Flow" 8): no result to show, no deal to
                # check as a finished game; its bye follows.
                if self.ui is not None:
                    self.redraw()
                s.say(cat("table.aborted", number=msg.get("number", st.number)), style="bold yellow")
                log_key = ("table.aborted.log-local" if s.opts.logged else "table.aborted.unlogged") if s.opts.local \
                    else "table.aborted.log-server"
                s.say(cat(log_key), style="dim")
                return False
            if self.ui is not None:
                self.redraw()
                for line in self.ui.result_lines(st, st.result):
                    s.say(line, style="bold")
            key = "table.seed" if s.opts.logged else "table.seed.unlogged"  # no log: nothing to check it with
            s.say(cat(key, seed=msg.get("seed"), salt=msg.get("salt")), style="dim")
        elif t == "table-closed":
            self.closed = True
            if st.seat is not None:
                s.opts.tokens.forget(_key(s, st.table))
            s.say(cat("table.closed", table=st.table), style="bold")
            return True
        elif t == "left":
            self.closed = True
            s.say(cat("table.left", table=st.table))
            return True
        elif t == "error":
            s.say(cat("table.error", reason=plain_reason(msg.get("reason", "")), code=msg.get("code", "")), style="red")
            if msg.get("ref") == "action":
                self.sent = False
                if st.legal:
                    self._prompt()
        return False

    def _clock(self, clock: Any, seat: int | None) -> None:
        if isinstance(clock, dict):
            st = self.state
            st.clock, st.clock_at, st.clock_seat = clock, time.monotonic(), seat

    def _on_notice(self, msg: dict[str, Any]) -> None:
        """``notice`` (PROTOCOL.md): a turn's clock, or news about another player for the log."""
        st, kind, seat = self.state, msg.get("kind"), msg.get("seat")
        if kind == "clock":
            self._clock(msg.get("clock"), seat)
            if seat is not None and seat != st.seat:
                st.to_act = seat
            self._soon()
            return
        if kind == "log-failed":  # the server's disk: said at once, whoever's news it is
            self.s.say(self.cat("notice.log-failed", number=msg.get("number"), reason=plain_reason(str(msg.get("reason") or ""))),
                       style="yellow")
            return
        if seat == st.seat and st.seat is not None:
            return  # news about ourselves: we know
        if kind in ("disconnected", "reconnected", "thinking"):
            st.add_log([self.cat(f"notice.{kind}", name=st.name(seat), seconds=int(msg.get("seconds") or 0))])
            if kind == "thinking":
                self._clock(msg.get("clock"), seat)
            self._soon()

    # ---------------------------------------------------------------- input
    def _words(self) -> list[str]:
        words = list(COMMAND_WORDS.get(self.cat.lang, COMMAND_WORDS["en"]))
        if self.ui is not None:
            words += self.ui.completions(self.state)
        return words

    def _not_your_turn(self) -> None:
        st = self.state
        if st.to_act is None or st.result is not None or self.after_summary:
            self.s.say(self.cat("table.no-move-now"))
        else:
            self.s.say(self.cat("table.not-your-turn", name=st.name(st.to_act)))

    async def on_line(self, line: str) -> None:
        st, s, cat = self.state, self.s, self.cat
        text = line.strip()
        low = text.lower()
        my_turn = bool(st.legal) and st.seat is not None and not self.sent
        in_game = st.seat is not None and st.number > 0 and st.result is None
        if low in QUIT_WORDS or (low == SHORT_QUIT and not in_game):
            if not in_game or await self._confirm_quit():
                raise Quit("quit")
            s.say(cat("table.quit-cancelled"))
            if st.legal and st.seat is not None and not self.sent:
                self._prompt()
            return
        if low == SHORT_QUIT and not my_turn:
            s.say(cat("table.quit-how"))
            return
        if low in HELP_WORDS:
            if self._show_help():
                return
        elif low in RULES_WORDS:
            if self.ui is not None:
                self.show_rules()
                return
        elif low in HINT_WORDS:
            if not my_turn or self.ui is None:
                self._not_your_turn()
            else:
                hint = self.ui.hint(st)
                if hint is None:
                    s.say(cat("table.no-hint"))
                else:
                    hint_line = Text(cat("table.hint") + " ")
                    hint_line.append_text(self.ui.action_text(st, hint))
                    s.console.print(hint_line, highlight=False)
        elif low in LIST_WORDS:
            if my_turn and self.ui is not None:
                for ln in legal_lines(self.ui, st, None):
                    s.console.print(ln, highlight=False)
            else:
                self._not_your_turn()
        elif not text:
            if not my_turn:
                self.redraw()
                return
        elif not my_turn:
            if self.sent:
                s.say(cat("conn.wait"))
            elif st.seat is None:
                s.say(cat("table.spectator-input"))
            else:
                self._not_your_turn()
            return
        else:
            action = self._read_action(text)
            question = self.ui.confirm(st, action, text) if action is not None and self.ui is not None else None
            if question is not None and not await self._ask(question):
                s.say(cat("table.not-sent"))
                action = None
            if action is not None and st.legal and not self.sent:
                self.aside = None
                self.sent = await s.answer(st.table, st.request, action)
                return
        if my_turn:
            self._prompt()

    def _read_action(self, text: str) -> dict[str, Any] | None:
        st, s, cat = self.state, self.s, self.cat
        if text.isdecimal():
            n = int(text)
            if 1 <= n <= len(st.legal):
                return st.legal[n - 1]
            s.say(cat("input.bad-number-one" if len(st.legal) == 1 else "input.bad-number", n=len(st.legal)), style="red")
            return None
        assert self.ui is not None
        try:
            return self.ui.parse(st, text)
        except InputError as err:
            s.say(str(err), style="red")
            if text.lower() == SHORT_QUIT:
                s.say(cat("table.quit-how"))
            return None
