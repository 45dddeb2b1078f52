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

__all__ = ["OwedAnswers", "quoted_detail", "quoting_note"]

KEEP = 64
"""Owed requests remembered at most (a bot that never answers does not grow the list without end)."""


class OwedAnswers:
    """The ``(table, request)`` pairs passed on to one bot program and not answered yet, oldest
    first; the count of lines nobody asked for since the last report; and, of those that quoted a
    request, how many quoted which (:attr:`quoted`: ``(expected, quoted) -> lines``, ``expected``
    the request pending then, None when none was)."""

    __slots__ = ("owed", "quoted", "unasked")

    def __init__(self) -> None:
        self.owed: list[tuple[str, int]] = []
        self.unasked = 0
        self.quoted: dict[tuple[int | None, int], int] = {}

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
        if isinstance(request, int) and ((pending, request) in self.quoted or len(self.quoted) < KEEP):
            self.quoted[pending, request] = self.quoted.get((pending, request), 0) + 1
        return "unasked"

    def quoting_others(self, expected: int) -> dict[int, int]:
        """Of the lines nobody asked for since the last report, those that quoted another request
        while ``expected`` was pending: ``quoted request -> lines``."""
        return {quoted: n for (pending, quoted), n in self.quoted.items() if pending == expected}

    def take_unasked(self) -> tuple[int, dict[tuple[int | None, int], int]]:
        """The lines nobody asked for since the last call, and of them the ones that quoted a
        request (:attr:`quoted`); counting starts afresh."""
        n, self.unasked = self.unasked, 0
        quoted, self.quoted = self.quoted, {}
        return n, quoted


def _requests(ids: list[int]) -> str:
    return f"request {ids[0]}" if len(ids) == 1 else "requests " + ", ".join(map(str, ids))


def quoting_note(quoting: dict[int, int]) -> str:
    """What a timeout adds about the answers ignored for quoting other requests
    (:meth:`OwedAnswers.quoting_others`): ``" (2 answers quoting request 8 were ignored)"``, or
    ``""`` when there were none."""
    n = sum(quoting.values())
    if not n:
        return ""
    return f" ({n} answer{'s' if n > 1 else ''} quoting {_requests(sorted(quoting))} " \
           f"{'were' if n > 1 else 'was'} ignored)"


def quoted_detail(quoted: dict[tuple[int | None, int], int]) -> str:
    """What the warning about lines nobody asked for adds about those that quoted a request
    (:meth:`OwedAnswers.take_unasked`): ``": 2 quoting request 8 while request 1 was expected"``
    (or ``"while none was pending"``), ``""`` when none quoted one."""
    by_expected: dict[int | None, dict[int, int]] = {}
    for (expected, request), n in quoted.items():
        by_expected.setdefault(expected, {})[request] = n
    parts = []
    for expected, requests in by_expected.items():
        when = f"while request {expected} was expected" if expected is not None else "while none was pending"
        parts.append(f"{sum(requests.values())} quoting {_requests(sorted(requests))} {when}")
    return ": " + "; ".join(parts) if parts else ""
