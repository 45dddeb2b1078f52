"""Choosing a server found on the local network (``quinze play`` without ``--server``, and after
a server stopped): the servers are listed by number (:mod:`quinze_cli.lan`), with ``l`` for a
local game against built-in bots, Enter to look again and ``q`` to quit.
"""

from __future__ import annotations

from typing import Literal

import trio

from quinze_cli.lan.browse import DEFAULT_TIMEOUT, FoundServer, find_servers
from quinze_cli.lan.listing import servers_table
from quinze_cli.play.lobby import ask
from quinze_cli.play.session import Quit, Session

__all__ = ["LOCAL_WORDS", "pick_server"]

LOCAL_WORDS = {"l", "local", "locale"}
QUIT_WORDS = {"q", "quit", "quitter", "exit"}


async def _search(s: Session, timeout: float, exclude: tuple[str, int] | None) -> list[FoundServer]:
    try:
        found = await trio.to_thread.run_sync(find_servers, timeout, abandon_on_cancel=True)
    except (OSError, ValueError) as err:
        s.say(s.cat("lan.cannot", reason=getattr(err, "strerror", None) or str(err)), style="red")
        return []
    if exclude is not None:
        found = [f for f in found if (f.host, f.port) != exclude and exclude not in ((a, f.port) for a in f.addresses)]
    return found


def _show(s: Session, found: list[FoundServer], timeout: float) -> None:
    cat = s.cat
    if not found:
        s.say(cat("lan.none", seconds=f"{timeout:g}"))
        return
    s.say(cat("lan.title"), style="bold")
    headers = [cat(f"lan.col.{c}") for c in ("n", "name", "address", "games", "tables", "version")]
    s.console.print(servers_table(found, headers, free_word=cat("lan.free"), open_word=cat("lan.open")))


async def pick_server(s: Session, *, offer_local: bool = True, exclude: tuple[str, int] | None = None,
                      timeout: float = DEFAULT_TIMEOUT) -> FoundServer | Literal["local"]:
    """List the servers found in ``timeout`` seconds (but ``exclude``, a ``(host, port)`` that
    stopped) and let the person pick one by number, or ``l`` (when ``offer_local``) for a local
    game. Returns the server, or ``"local"``. Raises :class:`Quit` on ``q``, Ctrl-C or end of input."""
    cat = s.cat
    while True:
        s.say(cat("lan.others" if exclude is not None else "lan.searching"), style="dim")
        found = await _search(s, timeout, exclude)
        _show(s, found, timeout)
        s.say(cat("lan.choices" if offer_local else "lan.choices-after-stop"), style="dim")
        while True:
            line = (await ask(s, cat("lan.prompt"))).strip().lower()
            if not line:
                break  # look again
            if line in QUIT_WORDS:
                raise Quit("quit")
            if offer_local and line in LOCAL_WORDS:
                return "local"
            if line.isdecimal() and 1 <= int(line) <= len(found):
                return found[int(line) - 1]
            if not found:
                s.say(cat("lan.bad-pick-empty" if offer_local else "lan.bad-pick-empty-after-stop"), style="red")
            else:
                key = ("lan.bad-pick-local" if offer_local else "lan.bad-pick") + ("-one" if len(found) == 1 else "")
                s.say(cat(key, n=len(found)), style="red")
