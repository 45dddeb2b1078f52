"""Which request a bot's answer is for (PROTOCOL.md, "Game boundaries"; used by
:mod:`quinze_cli.relay`).

A bot program answers its requests in order, and may quote the ``table`` and ``request`` it
answers, or neither. :class:`OwedAnswers` remembers the requests passed on to one bot program
and not answered yet, so that an answer meant for an earlier request (of the running game, or of
a game long over at another table) is told apart from the answer to the open one, and from a
line nobody asked for.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["OwedAnswers"]

KEEP = 64
"""Owed requests remembered at most (a bot that never answers does not grow the list without end)."""


class OwedAnswers:
    """The ``(table, request)`` pairs passed on to one bot program and not answered yet, oldest
    first; and the count of lines nobody asked for since the last report."""

    __slots__ = ("owed", "unasked")

    def __init__(self) -> None:
        self.owed: list[tuple[str, int]] = []
        self.unasked = 0

    def owe(self, table: str, request: int) -> None:
        """The bot was passed ``request`` at ``table`` and owes an answer."""
        self.owed.append((table, request))
        del self.owed[:-KEEP]

    def forget(self, table: str, request: int) -> None:
        """That answer came (late): it is owed no more."""
        self.owed = [o for o in self.owed if o != (table, request)]

    def settle(self, data: Mapping[str, Any], table_now: str, pending: int | None) -> str:
        """Which request the bot's ``action`` line ``data`` answers, at ``table_now`` whose open
        request is ``pending`` (None: none is waiting for the bot): ``"pending"`` (that one),
        ``"stale"`` (an earlier request it owed: to drop), or ``"unasked"`` (none). The owed
        requests it answers or skips are crossed off."""
        current = (table_now, pending) if pending is not None else None
        table, request = data.get("table"), data.get("request")
        if isinstance(table, str) and table != table_now:  # the bot's earlier game at another table
            self.owed = [o for o in self.owed if o[0] != table]
            return "stale"
        if request is None:  # quoting no request: it answers the oldest one it owes
            if not self.owed:
                return "unasked"
            owed = self.owed.pop(0)
            return "pending" if owed == current else "stale"
        for i, owed in enumerate(self.owed):
            # the oldest owed request with this id (with the table when quoted): the bot answers
            # in order, so the ones before it were skipped
            if owed[1] == request and (table is None or owed[0] == table):
                del self.owed[: i + 1]
                return "pending" if owed == current else "stale"
        return "unasked"

    def take_unasked(self) -> int:
        """The lines nobody asked for since the last call (and start counting afresh)."""
        n, self.unasked = self.unasked, 0
        return n
