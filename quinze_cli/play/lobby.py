"""The lobby of ``quinze play``: list the tables, create one, take a seat or watch.

Commands at the ``lobby>`` prompt (English or French words): a number (or a table id) to sit
at that table, ``w N`` / ``watch N`` (``r N`` / ``regarder N``) to watch it, ``c`` / ``create``
(``créer``) to create a table (game, seats, options ``K=V``; a wrong answer is explained and
asked again, ``q`` goes back to the lobby), Enter to refresh, ``q`` to quit.

The server lists one page of tables (100 by default) with the ``total`` (PROTOCOL.md
``tables``): when there are more, the lobby says how many it shows of how many, and a table id
typed that is not on the page is asked for all the same.
"""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

from quinze_protocol.clocks import clock_text
from quinze_protocol.game import GameError, game_ids, get_game
from quinze_cli.play.session import Quit, Session
from quinze_cli.errors import plain_reason
from quinze_cli.play.asking import TableGone, ask_server
from quinze_cli.play.table import join_table, spectate_table

__all__ = ["ask", "lobby", "parse_options"]

CREATE_WORDS = {"c", "create", "créer", "creer", "new", "nouvelle"}
WATCH_WORDS = {"w", "watch", "s", "spectate", "r", "regarder", "voir"}
QUIT_WORDS = {"q", "quit", "quitter", "exit"}
HELP_WORDS = {"help", "aide", "?", "h"}


async def ask(s: Session, prompt: str, default: str = "") -> str:
    """Prompt and wait for one typed line (``default`` when empty). Server messages meanwhile are
    kept for later. Raises :class:`Quit` on Ctrl-C or end of input."""
    s.prompt(prompt)
    while True:
        item = await s.next()
        if item is None:
            continue
        kind, data = item
        if kind == "input":
            return data.strip() or default
        if kind == "server":
            s.backlog.append(s.item)
            if len(s.backlog) > 1000:  # nobody reads them: keep the newest
                s.backlog.popleft()
        # "resumed": the connection came back; keep waiting for the line


def parse_options(text: str) -> dict[str, str]:
    """``"target=1 quick_place=true"`` as ``{"target": "1", "quick_place": "true"}``.

    Raises ``ValueError`` naming the entry without ``=``."""
    out: dict[str, str] = {}
    for part in text.replace(",", " ").split():
        if "=" not in part:
            raise ValueError(part)
        k, v = part.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def _show(s: Session, tables: list[dict[str, Any]], total: int) -> None:
    """The lobby's table list; ``total``: how many open tables the server has (more than
    ``tables`` when its page is cut)."""
    cat = s.cat
    s.say(cat("lobby.title", host=s.opts.host, port=s.opts.port), style="bold")
    if not tables:
        s.say(cat("lobby.none"))
        return
    grid = Table(box=None, show_header=True, header_style="bold", pad_edge=False)
    for col in ("lobby.col.n", "lobby.col.table", "lobby.col.game", "lobby.col.seats", "lobby.col.state", "lobby.col.options"):
        grid.add_column(cat(col))
    for i, t in enumerate(tables, 1):
        seats = t.get("seats", [])
        names = ", ".join(x.get("name") or "—" for x in seats)
        taken = sum(1 for x in seats if x.get("name"))
        opts = " ".join(f"{k}={v}" for k, v in sorted(t.get("options", {}).items()) if k != "players")
        if t.get("clock"):
            opts = f"clock={clock_text(t['clock'])} {opts}".strip()
        cells = (str(i), t.get("table", ""), t.get("game", ""), f"{taken}/{len(seats)} {names}",
                 cat(f"lobby.state.{t.get('state', '')}"), opts)
        grid.add_row(*(Text(c) for c in cells))  # names are shown as typed, never read as markup
    s.console.print(grid)
    if total > len(tables):
        s.say(cat("lobby.more", shown=len(tables), total=total))


async def _create(s: Session) -> str | None:
    """Ask the game, the seats and the options, each checked as soon as it is typed and asked
    again when wrong (what was already answered is kept); ``q`` at any question goes back to the
    lobby (None). Returns the new table id, or None when cancelled or refused by the server."""
    cat = s.cat
    ids = game_ids()
    while True:
        game = await ask(s, cat("lobby.ask-game", games=", ".join(ids)), "quinze")
        if game.lower() in QUIT_WORDS:
            _cancelled(s)
            return None
        try:
            cls = get_game(game)
            break
        except GameError as err:
            s.say(cat("lobby.bad-game", reason=err.reason), style="red")
    while True:
        seats = await ask(s, cat("lobby.ask-seats", lo=cls.min_players, hi=cls.max_players), str(cls.min_players))
        if seats.lower() in QUIT_WORDS:
            _cancelled(s)
            return None
        try:
            cls.validate_options({"players": seats})
            break
        except GameError as err:
            s.say(cat("lobby.bad-option", field=err.field or "players", reason=err.reason), style="red")
    while True:
        opts_text = await ask(s, cat("lobby.ask-options", names=", ".join(o.name for o in cls.option_specs)), "")
        if opts_text.lower() in QUIT_WORDS:
            _cancelled(s)
            return None
        try:
            options: dict[str, Any] = dict(parse_options(opts_text))
        except ValueError as err:
            s.say(cat("lobby.bad-option-entry", entry=str(err)), style="red")
            continue
        options["players"] = seats
        try:
            options = cls.validate_options(options, text=True)
            break
        except GameError as err:
            s.say(cat("lobby.bad-option", field=err.field or "", reason=err.reason), style="red")
    msg = await ask_server(s, {"type": "create-table", "game": game, "options": options, "seed": None, "games": 1,
                               "clock": s.opts.clock})
    if msg.get("type") == "error":
        s.failed = cat("lobby.create-refused", reason=plain_reason(msg.get("reason", "")), code=msg.get("code", ""))
        s.say(s.failed, style="red")
        return None
    table = msg["table"]["table"]
    s.say(cat("lobby.created", table=table))
    return table


def _cancelled(s: Session) -> None:
    s.say(s.cat("lobby.create-cancelled"))


async def lobby(s: Session) -> None:
    """The lobby loop: returns when the person quits (raises :class:`Quit`)."""
    cat = s.cat
    while True:
        try:
            msg = await ask_server(s, {"type": "list-tables"})
            tables = [t for t in msg.get("tables", []) if t.get("state") != "closed"]  # never pickable
            total = msg.get("total", 0)
            total = total if isinstance(total, int) and total >= len(tables) else len(tables)
            _show(s, tables, total)
            s.say(cat("lobby.help"), style="dim")
            s.reader.set_words(["create", "watch", "quit", "help"] + [t.get("table", "") for t in tables])
            line = await ask(s, cat("lobby.prompt"))
            s.failed = None  # a new command
            words = line.split()
            if not words:
                continue
            head = words[0].lower()
            if head in QUIT_WORDS:
                raise Quit("quit")
            if head in HELP_WORDS:
                s.say(cat("lobby.help"))
                continue
            if head in CREATE_WORDS:
                table = await _create(s)
                if table is not None:
                    await join_table(s, table)
                continue
            watch = head in WATCH_WORDS
            ref = words[1] if watch and len(words) > 1 else words[0]
            table = _pick(tables, ref, cut=total > len(tables))
            if table is None:
                if total > len(tables):
                    s.failed = cat("lobby.no-table-shown", ref=ref, shown=len(tables), total=total)
                else:
                    s.failed = cat("lobby.no-table", ref=ref)
                s.say(s.failed, style="red")
                continue
            if watch:
                await spectate_table(s, table)
            else:  # a free seat, unless a kept token is for our own seat, now disconnected
                await join_table(s, table, info=next((t for t in tables if t.get("table") == table), None))
        except TableGone as err:
            s.failed = str(err)
            s.say(s.failed, style="red")


def _pick(tables: list[dict[str, Any]], ref: str, *, cut: bool = False) -> str | None:
    """The table id ``ref`` names: a number in the list, or a listed table id; with ``cut`` (the
    list is one page of more tables) any other id too, for the server to find or refuse."""
    if ref.isdecimal() and 1 <= int(ref) <= len(tables):
        return tables[int(ref) - 1].get("table")
    for t in tables:
        if t.get("table") == ref:
            return ref
    return ref if cut and not ref.isdecimal() else None
