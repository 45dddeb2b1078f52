"""``quinze play`` for a client that arrives mid-game (PROTOCOL.md, `view`): a spectator who starts
watching during a deal, or a seat taken back while it is not its turn.

The client gets ``game-start``, then ``view``, then only new events. Each game's UI, through the
table loop's own message handling (:class:`quinze_cli.play.table.TableLoop`), must show the
counts, the hand, the table and the chips of that view at once; before any view (an older
server), counts never show negative and unknown ones show as ``?``. Last, the real client in a
pseudo-terminal watches a running table joined mid-deal.
"""

from __future__ import annotations

import io
import re
from types import SimpleNamespace
from typing import Any

import pexpect
import pytest
from playkit import QUINZE, TIMEOUT, plain
from rich.console import Console

from quinze_protocol.game import get_bot, get_game
from quinze_cli.play.cards_ui import CardStyle
from quinze_cli.i18n import Catalogue
from quinze_cli.play.table import TableLoop
from quinze_cli.play.terminal import LineReader
import forkkit

NAMES = ["Ana", "Bob", "Cy"]
NEGATIVE = re.compile(r"-\d+ (cards?|in hand|left|chips?)")

GAMES = [
    ("quinze", {"players": 3}, "greedy"),
    ("quatorze", {"players": 3}, "greedy"),
    ("quinze-classique", {"players": 3, "cave": 20}, "threshold"),
]


class Arrival:
    """A seeded game played by bots for ``before`` moves; then a client for ``seat`` (None: a
    spectator) arrives: it gets ``game-start`` and, with ``send_view``, the ``view``; then the
    events of ``after`` more moves, as the server sends them."""

    def __init__(self, game: str, options: dict[str, Any], bot: str, seat: int | None, seed: int = 5) -> None:
        self.g = get_game(game).new(options, seed=seed)
        self.bots = [get_bot(game, bot, s) for s in range(options["players"])]
        self.cat = Catalogue("en")
        self.buf = io.StringIO()
        console = Console(file=self.buf, no_color=True, width=80, force_terminal=False)
        session = SimpleNamespace(cat=self.cat, style=CardStyle("en", False), console=console, reader=LineReader(),
                                  opts=SimpleNamespace(local=False),
                                  say=lambda *a, **k: None, prompt=lambda *a, **k: None)
        self.loop = TableLoop(session, "t1", seat)  # type: ignore[arg-type]
        self.seat = seat

    async def send(self, msg: dict[str, Any]) -> None:
        assert await self.loop.on_message({"table": "t1", **msg}) is False

    def move(self) -> list[dict[str, Any]]:
        """One bot move (skipping ``self.seat`` only when told); the events as the client sees them."""
        s = self.g.to_act
        events = self.g.apply(self.bots[s].choose(self.g.view(s), self.g.legal_actions()))
        return [e.for_seat(self.seat) for e in events]

    async def arrive(self, before: int, send_view: bool) -> None:
        for _ in range(before):
            self.move()
        assert not self.g.is_over
        await self.send({"type": "game-start", "game": self.g.id, "number": 1, "seat": self.seat,
                         "players": NAMES, "options": self.g.options, "commitment": "0" * 64})
        if send_view:
            await self.send({"type": "view", "view": self.g.view(self.seat)})

    async def watch(self, moves: int) -> None:
        """Events of up to ``moves`` more moves, stopping before the client's own turn."""
        for _ in range(moves):
            if self.g.is_over or (self.seat is not None and self.g.to_act == self.seat):
                return
            for ev in self.move():
                await self.send({"type": "event", "event": ev})

    def screen(self) -> str:
        self.buf.seek(0)
        self.buf.truncate()
        self.loop.redraw()
        return self.buf.getvalue()


def check_screen(a: Arrival, turn: bool = True) -> None:
    """The screen and the tracked state agree with the engine's view for the arrival's seat
    (``turn``: the seat to act too; after events the next action-request tells it)."""
    st, view, text = a.loop.state, a.g.view(a.seat), a.screen()
    p = st.public
    assert not NEGATIVE.search(text), text
    assert "joined during a deal" not in text, text
    assert st.to_act == view["to_act"] or not turn
    if a.g.id == "quinze":
        for key in ("deal", "stock", "hand_sizes", "totals", "table", "discard", "dealer"):
            assert p[key] == view[key], key
        assert f"Deal {view['deal']} · stock {view['stock']} · discard pile {len(view['discard'])}" in text, text
        for name, n, total in zip(NAMES, view["hand_sizes"], view["totals"]):
            assert re.search(rf"{name}\b.*\b{n} cards?  total {total}", text), (name, n, text)
    elif a.g.id == "quatorze":
        for key in ("stock", "hand_sizes", "packets", "table", "discard", "phase"):
            assert p[key] == view[key], key
        assert f"stock {view['stock']} · discard pile {len(view['discard'])}" in text, text
        for name, n in zip(NAMES, view["hand_sizes"]):
            assert re.search(rf"{name}\b.*\b{n} in hand", text), (name, n, text)
    else:
        for key in ("chips", "stakes", "pot", "coup", "talon", "status", "hidden", "face_up"):
            assert p[key] == view[key], key
        assert f"pot {view['pot']}" in text and f"talon {view['talon']}" in text, text
        for name, n in zip(NAMES, view["chips"]):
            assert re.search(rf"{name}\b.*\b{n} chips?", text), (name, n, text)
    if a.g.id != "quinze-classique" and a.seat is not None:
        line = next(ln for ln in text.splitlines() if ln.startswith("Your hand:"))
        assert sorted(line.split()[2:]) == sorted(view["hand"]) and view["hand"], line
    if a.seat is None:
        assert "Your hand" not in text and "Your hidden card" not in text


@pytest.mark.parametrize("game,options,bot", GAMES, ids=[g[0] for g in GAMES])
async def test_spectator_arriving_mid_deal_sees_the_view_at_once(game, options, bot):
    a = Arrival(game, options, bot, seat=None)
    await a.arrive(before=7, send_view=True)
    check_screen(a)
    await a.watch(6)  # the events after the view keep it right
    check_screen(a, turn=False)


@pytest.mark.parametrize("game,options,bot", GAMES, ids=[g[0] for g in GAMES])
async def test_seat_resumed_out_of_turn_sees_its_hand_at_once(game, options, bot):
    a = Arrival(game, options, bot, seat=0)
    for _ in range(40):  # a moment when it is not seat 0's turn
        a.move()
        if a.g.to_act != 0:
            break
    await a.arrive(before=0, send_view=True)
    assert a.g.to_act != 0 and not a.loop.state.legal
    check_screen(a)
    if game == "quinze-classique":
        own = a.g.view(0)["hidden"][0]
        assert own is None or f"Your hidden card: {own}" in a.screen()
    await a.watch(3)
    check_screen(a, turn=False)


async def test_without_a_view_counts_are_unknown_never_negative():
    """An older server sends no view: a Le Quinze spectator's counts show as ``?`` until the next
    deal; the sizes tracked from the fifteens it saw never go below 0."""
    a = Arrival("quinze", {"players": 3}, "greedy", seat=None)
    await a.arrive(before=2, send_view=False)
    await a.watch(10)
    text = a.screen()
    assert "joined during a deal" in text and "Deal ? · stock ?" in text, text
    assert not NEGATIVE.search(text) and all(n >= 0 for n in a.loop.state.public["hand_sizes"])
    assert re.search(r"Bob\b.*\? cards\s+total \?", text), text


def test_quinze_play_spectate_joins_a_running_table_mid_deal(host, env):
    """The real client: Ana holds seat 0 and has played; a spectator arriving now sees the deal's
    real counts (no "Deal 0", no negative count, no "joined during a deal" notice)."""
    port, table = host(3)
    ana = forkkit.spawn(QUINZE, ["play", "--server", f"127.0.0.1:{port}", "--table", table, "--name", "Ana"],
                        env=env, encoding="utf-8", timeout=TIMEOUT, dimensions=(24, 80))
    ana.expect(r"Your move(?: \(\d+ s\))?> ")
    ana.sendline("1")
    ana.expect(r"Your move(?: \(\d+ s\))?> ")  # the deal is under way and waits for Ana
    sam = forkkit.spawn(QUINZE, ["play", "--server", f"127.0.0.1:{port}", "--spectate", table, "--name", "Sam"],
                        env=env, encoding="utf-8", timeout=TIMEOUT, dimensions=(24, 80))
    sam.expect(f"You are watching table {table}")
    sam.expect(r"Deal \S+ · stock \S+ · discard pile \S+")
    head = plain(sam.after)
    sam.expect(r"Ana.*\n.*\n.*\n")  # the seats' lines
    seen = plain(sam.before + sam.after)
    assert re.match(r"Deal 1 · stock [1-9]\d* · discard pile \d+", head), head
    assert not NEGATIVE.search(seen) and "joined during a deal" not in seen and "Deal 0" not in seen, seen
    assert "Your hand" not in seen
    sam.sendline("quit")
    sam.expect(pexpect.EOF)
    sam.close()
    ana.sendline("quit")
    ana.expect(r"\?")
    ana.sendline("y")
    ana.expect(pexpect.EOF)
    ana.close()
    assert sam.exitstatus == 0
