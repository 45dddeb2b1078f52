"""``quinze play``'s questions to the lobby and their answers (``create-table``, ``list-tables``,
``join``, ``spectate``; PROTOCOL.md "Lobby"): :func:`ask_server` waits for the answer that
settles a question (:class:`quinze_protocol.session.ClientSession`), keeping what else comes
meanwhile; :class:`TableGone` says we no longer sit at a table. Used by the lobby
(:mod:`quinze_cli.play.lobby`) and the table loop (:mod:`quinze_cli.play.table`).
"""

from __future__ import annotations

from typing import Any

from quinze_cli.play.session import Quit, Session

__all__ = ["TableGone", "ask_server", "seat_connected", "table_info"]


class TableGone(Exception):
    """We no longer sit at the table (refused join, seat lost); ``str()`` says why."""


async def ask_server(s: Session, question: dict[str, Any]) -> dict[str, Any]:
    """Send a lobby question (``create-table``, ``list-tables``, ``join``, ``spectate``) and wait
    for its answer: the message the conversation (:class:`quinze_protocol.session.ClientSession`)
    says settles it, the good answer or an ``error`` whose ``ref`` is the question's type; an
    ``error`` naming no message ends the wait too. Lines typed on a terminal meanwhile are
    answered with "please wait"; lines from a pipe or a file (a script's next commands) and
    other messages are kept for later. The end of input meanwhile does not cut the wait short:
    the answer (a refusal above all) is still taken and said, then the end of input is read
    again by whatever reads next (so ``quinze play --table T < /dev/null`` says why the seat was
    refused, and exits 1). Raises :class:`TableGone` when the connection was lost (and restored)
    meanwhile; :class:`~quinze_cli.play.session.Quit` at once on Ctrl-C."""
    ask = await s.send(question)
    kept: list[tuple] = []
    ended = False
    try:
        while True:
            try:
                item = await s.next()
            except Quit as q:
                if q.why != "eof" or ended:
                    raise
                ended = True
                continue
            if item is None:  # pragma: no cover - no deadline given
                continue
            kind, data = item
            if kind == "input":
                if s.reader.interactive:
                    s.say(s.cat("conn.wait"))
                else:
                    kept.append(s.item)
                continue
            if kind == "resumed":
                raise TableGone(s.cat("conn.lost-during", what=question["type"]))
            if ask is not None and s.settled is ask:
                return data
            if data.get("type") == "error" and data.get("ref") is None:
                if ask is not None and s.conn is not None:
                    s.conn.session.forget(ask)
                return data
            kept.append(s.item)
    finally:
        s.backlog.extend(kept)
        if ended:
            s.backlog.append(("input", None))


async def table_info(s: Session, table: str) -> dict[str, Any] | None:
    """The lobby's info on ``table`` (``list-tables``: ``seats`` with ``name`` and ``connected``),
    or None when the server does not list it."""
    msg = await ask_server(s, {"type": "list-tables", "table": table, "closed": True})  # that table only, closed or not
    return next((t for t in msg.get("tables", []) if t.get("table") == table), None)


def seat_connected(info: dict[str, Any] | None, seat: int | None) -> bool:
    """True when ``info`` (a ``list-tables`` entry) shows ``seat`` held by a connected client."""
    for entry in (info or {}).get("seats", []):
        if entry.get("seat") == seat:
            return bool(entry.get("connected"))
    return False
