"""The conversation's transition table (PROTOCOL.md, "Flow" and "Conversation states"):
sender role x state x message type -> next state, for the connection and for each table.
The session objects that follow it are in :mod:`quinze_protocol.session`.

Two levels share the table:

- **the connection**: ``greeting`` (no ``hello`` yet) -> ``welcoming`` (``hello`` sent, no answer
  yet) -> ``ready`` -> ``closed`` (``bye`` either way). What a client message gets where the
  table does not allow it is :data:`REFUSALS` (``not-hello`` before ``hello``, ``bad-field``
  ``hello: already greeted`` after it);
- **each table**, as one client sees it: ``away`` -> ``joining`` -> ``seated`` -> ``playing`` ->
  ``to-act`` (an ``action-request`` is open) -> ``answered`` (the ``action`` is sent) ->
  ``playing`` (``accepted``) ...; ``game-over`` -> ``seated``; ``spectate`` -> ``watch-asked`` ->
  ``watching``; ``leave`` -> ``leaving`` -> ``left`` -> ``away``; ``table-closed`` -> ``away``.
  A client may send any table message in any table state (the server's table answers what is
  wrong with its own codes); the table says which state it leads to.

Refinements of a message type are table keys of their own: ``refused:stale`` is a ``refused``
(or an ``error`` about an ``action``) of the open request whose code is one of
:data:`STALE_CODES` (the request closed before the answer came: the seat may not retry),
``refused:other`` one about another request or game (news), ``error:<ref>`` an ``error``
answering a table message of type ``ref``.
"""

from __future__ import annotations

from collections.abc import Iterable

from quinze_protocol.messages import CLIENT_TYPES, SERVER_TYPES

__all__ = [
    "ANSWERED", "ASKS", "AWAY", "CLIENT", "CLOSED", "GREETING", "IN_GAME", "JOINING", "LEAVING", "PLAYING",
    "READY", "REFUSALS", "SEATED", "SERVER", "STALE_CODES", "TABLE_CLIENT", "TABLE_STATES", "TO_ACT",
    "TRANSITIONS", "WATCHING", "WATCH_ASKED", "WELCOMING",
]

CLIENT = "client"
SERVER = "server"

# connection states
GREETING = "greeting"
WELCOMING = "welcoming"
READY = "ready"
CLOSED = "closed"

# one table, as one client sees it
AWAY = "away"
JOINING = "joining"
WATCH_ASKED = "watch-asked"
SEATED = "seated"
WATCHING = "watching"
PLAYING = "playing"
TO_ACT = "to-act"
ANSWERED = "answered"
LEAVING = "leaving"

TABLE_STATES = (AWAY, JOINING, WATCH_ASKED, SEATED, WATCHING, PLAYING, TO_ACT, ANSWERED, LEAVING)
IN_GAME = (PLAYING, TO_ACT, ANSWERED)
"""The table states while a game runs for the seat."""

TABLE_CLIENT = ("join", "spectate", "leave", "action", "forfeit")
"""The client messages about one table (each moves that table's state)."""

STALE_CODES = frozenset({"game-not-running", "stale-request", "stale-game"})
"""Refusals (``refused`` or ``error``) of an answer to a request that is no longer open, or of a
forfeit of a game that is over: late, never an illegal action (PROTOCOL.md, "Game boundaries")."""

ASKS = {"create-table": "table-created", "list-tables": "tables", "join": "joined", "spectate": "spectating",
        "leave": "left"}
"""The client messages that get exactly one answer, and the type of the good answer (else ``error``
with ``ref`` the question's type)."""



def _client_table(state: str) -> dict[str, str]:
    """What each table message a client sends leads to, from ``state``."""
    return {
        "join": JOINING if state in (AWAY, LEAVING) else state,
        "spectate": WATCH_ASKED if state == AWAY else state,
        "leave": LEAVING,
        "action": ANSWERED if state == TO_ACT else state,
        "forfeit": state,
    }


def _news(states: Iterable[str], types: Iterable[str]) -> dict[tuple[str, str], dict[str, str]]:
    return {(SERVER, s): {t: s for t in types} for s in states}


TRANSITIONS: dict[tuple[str, str], dict[str, str]] = {
    # ---- the connection
    (CLIENT, GREETING): {"hello": WELCOMING, "bye": CLOSED},
    (SERVER, GREETING): {"error": GREETING, "bye": CLOSED},
    (CLIENT, WELCOMING): {"bye": CLOSED},
    (SERVER, WELCOMING): {"welcome": READY, "error": GREETING, "bye": CLOSED},
    (CLIENT, READY): {**{t: READY for t in sorted(CLIENT_TYPES - {"hello", "bye"})}, "bye": CLOSED},
    (SERVER, READY): {**{t: READY for t in sorted(SERVER_TYPES - {"welcome", "bye"})}, "bye": CLOSED},
    (CLIENT, CLOSED): {},
    (SERVER, CLOSED): {},
    # ---- one table: what the client sends
    **{(CLIENT, s): _client_table(s) for s in TABLE_STATES},
    # ---- one table: what the server sends (news that leaves the state first, then the moves)
    **_news((AWAY,), ("refused:other",)),
    **_news((JOINING, WATCH_ASKED), ("notice", "refused:other")),
    **_news((SEATED,), ("event", "notice", "view", "refused:other", "refused:stale", "error:forfeit")),
    **_news((WATCHING,), ("game-start", "event", "notice", "view", "game-over")),
    **_news(IN_GAME, ("event", "notice", "view", "refused:other", "error:forfeit")),
    **_news((LEAVING,), ("game-start", "event", "notice", "view", "action-request", "accepted", "refused",
                         "refused:stale", "refused:other", "game-over", "error:action", "error:forfeit")),
}
"""(sender role, state) -> {message type -> next state}; a type missing is not allowed there."""

_MOVES: dict[tuple[str, str], dict[str, str]] = {
    (SERVER, AWAY): {"table-closed": AWAY, "left": AWAY, "error:leave": AWAY},
    (SERVER, JOINING): {"joined": SEATED, "error:join": AWAY, "table-closed": AWAY},
    (SERVER, WATCH_ASKED): {"spectating": WATCHING, "error:spectate": AWAY, "table-closed": AWAY},
    (SERVER, SEATED): {"game-start": PLAYING, "left": AWAY, "table-closed": AWAY},
    (SERVER, WATCHING): {"table-closed": AWAY, "left": AWAY},
    (SERVER, PLAYING): {"action-request": TO_ACT, "game-over": SEATED, "refused:stale": PLAYING,
                        "game-start": PLAYING, "left": AWAY, "table-closed": AWAY},
    (SERVER, TO_ACT): {"action-request": TO_ACT, "game-over": SEATED, "refused": TO_ACT, "refused:stale": PLAYING,
                       "error:action": TO_ACT, "game-start": PLAYING, "left": AWAY, "table-closed": AWAY},
    (SERVER, ANSWERED): {"accepted": PLAYING, "refused": TO_ACT, "refused:stale": PLAYING, "error:action": TO_ACT,
                         "action-request": TO_ACT, "game-over": SEATED, "game-start": PLAYING, "left": AWAY,
                         "table-closed": AWAY},
    (SERVER, LEAVING): {"left": AWAY, "error:leave": AWAY, "table-closed": AWAY},
}
for _key, _moves in _MOVES.items():
    TRANSITIONS.setdefault(_key, {}).update(_moves)
del _key, _moves

REFUSALS = {
    (CLIENT, GREETING): ("not-hello", "the first message must be hello, got {type}"),
    (CLIENT, READY): ("bad-field", "{type}: already greeted"),
    (CLIENT, WELCOMING): ("not-hello", "{type} before the answer to hello"),
    (CLIENT, CLOSED): ("bad-field", "{type}: the connection is closing"),
}
"""What a server answers a client message its connection state does not allow (PROTOCOL.md, "Errors")."""
