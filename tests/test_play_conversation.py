"""``quinze play`` follows the conversation layer (PROTOCOL.md "Conversation states", "Game
boundaries"): its lobby questions end with the answer the connection's session settles, its
answers are the session's (quoting the request and the game), and a ``refused`` or ``accepted``
is its own only when the session says it is about its open request. The real server on
in-memory streams, the real play session (inbox, pump) and table loop."""

from __future__ import annotations

import io
from typing import Any

import trio
from memserver import TOY, autoplay, memory_server
from rich.console import Console

from quinze_cli.client import Connection
from quinze_cli.i18n import Catalogue
from quinze_cli.play.cards_ui import CardStyle
from quinze_cli.play.session import PlayOptions, Session
from quinze_cli.play.asking import ask_server
from quinze_cli.play.table import TableLoop
from quinze_cli.play.terminal import LineReader


def _play_session(conn: Connection) -> tuple[Session, io.StringIO]:
    buf = io.StringIO()
    console = Console(file=buf, width=100, no_color=True, force_terminal=False)
    s = Session(PlayOptions(host="memory", port=0, name=conn.name), console, Catalogue("en"), CardStyle("en", False),
                LineReader())
    s.conn = conn
    return s, buf


async def _until(s: Session, loop: TableLoop, type_: str) -> dict[str, Any]:
    """Server messages through play's inbox and its table loop, until one of ``type_``."""
    with trio.fail_after(10):
        while True:
            item = await s.next()
            assert item is not None and item[0] == "server", item
            await loop.on_message(item[1], s.step)
            if item[1]["type"] == type_:
                return item[1]


async def test_play_asks_answers_and_reads_refusals_through_the_session() -> None:
    async with memory_server() as server:
        ana, bob = await server.connect("ana"), await server.connect("bob")
        s, out = _play_session(ana)
        async with trio.open_nursery() as nursery:
            s.nursery = nursery
            nursery.start_soon(s._pump, ana, s.generation)
            created = await ask_server(s, {"type": "create-table", "game": TOY, "options": {"players": 2}, "seed": 3,
                                           "games": 1})
            table = created["table"]["table"]
            assert created["type"] == "table-created" and s.settled is not None and s.settled.reply is not None
            refused = await ask_server(s, {"type": "join", "table": table, "seat": 7})
            assert refused["type"] == "error" and refused["ref"] == "join"  # the session settled it with its error
            joined = await ask_server(s, {"type": "join", "table": table, "seat": 0})
            assert joined["type"] == "joined" and joined["seat"] == 0
            await bob.join(table, 1)
            nursery.start_soon(autoplay, bob, table)  # the other seat

            loop = TableLoop(s, table, 0, joined["token"])
            request = await _until(s, loop, "action-request")
            assert s.step is not None and s.step.after == "to-act"
            assert ana.session.open_request(table).request == request["request"]  # type: ignore[union-attr]
            # an illegal answer: the session builds it, the server refuses it, the loop says so
            assert await s.answer(table, request["request"], {"type": "say", "n": 7})
            await _until(s, loop, "refused")
            assert s.step is not None and s.step.key == "refused" and s.step.after == "to-act"
            assert "refused" in out.getvalue().lower() and loop.state.legal  # the seat may answer again
            # an answer to a request that is not the open one is not sent at all
            assert not await s.answer(table, request["request"] + 1000, request["legal"][0])
            # a legal answer through the loop, as typed: entry 1 of the list
            await loop.on_line("1")
            assert loop.sent
            accepted = await _until(s, loop, "accepted")
            assert accepted["request"] == request["request"] and s.step is not None and s.step.expected
            assert not loop.sent
            nursery.cancel_scope.cancel()
        assert list(ana.session.unexpected) == []
