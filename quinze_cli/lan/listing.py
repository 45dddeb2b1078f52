"""The servers found, as people read them (``quinze servers`` and ``quinze play``'s pick)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from rich.text import Text

from quinze_cli.lan.browse import FoundServer

HEADERS = ("#", "name", "address", "games", "tables", "version")
"""The English column headers."""


def tables_text(server: FoundServer, free_word: str = "with free seats", open_word: str = "open") -> str:
    """``"2 open, 1 with free seats"`` (``"?"`` when the announcement does not say)."""
    if server.tables is None:
        return "?"
    free = "?" if server.free is None else str(server.free)
    return f"{server.tables} {open_word}, {free} {free_word}"


def servers_table(found: Sequence[FoundServer], headers: Sequence[str] = HEADERS, free_word: str = "with free seats",
                  open_word: str = "open") -> Table:
    """The servers as a numbered rich table; names are shown as announced, never read as markup."""
    table = Table(box=None, pad_edge=False, header_style="bold")
    for col in headers:
        table.add_column(col, overflow="fold")
    for i, s in enumerate(found, 1):
        cells = (str(i), s.name, s.address, ", ".join(s.games), tables_text(s, free_word, open_word), s.version or "?")
        table.add_row(*(Text(c) for c in cells))
    return table
