"""How a table's game ends: its result settled, the ``game-over`` message's head, the log line and
the job for :func:`quinze_server.logs.write_game` (PROTOCOL.md "game-over"; the rules texts'
scoring via :meth:`quinze_protocol.game.Game.result`). Pure functions of a table's state, called
once per game by :meth:`quinze_server.table.Table._announce`; no I/O here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from quinze_protocol.game import Game, Result

if TYPE_CHECKING:
    from quinze_server.table import Table

__all__ = ["game_over_head", "how_it_ended", "log_job", "settle"]


def settle(game: Game, seats: int, aborted: str | None,
           forfeited: tuple[int, str] | None) -> tuple[Result, dict[str, Any] | None]:
    """The result of a game that ended and its ``forfeit`` field (``{"seat", "kind"}`` or None):
    the aborted result when the server stopped it (``aborted``: why), the forfeit result when
    ``forfeited`` = (seat, kind) lost it (0 to that seat, the others share), else the game's own
    :meth:`~quinze_protocol.game.Game.result` (the game must be over then)."""
    if aborted is not None:
        return Result.aborted(seats), None
    if forfeited is not None:
        return Result.forfeit(seats, forfeited[0]), {"seat": forfeited[0], "kind": forfeited[1]}
    done = game.result()
    assert done is not None
    return done, None


def game_over_head(table: Table, result: Result, forfeit: dict[str, Any] | None) -> dict[str, Any]:
    """The ``game-over`` message of ``table``'s current game without its ``actions`` (joined in
    last, as they were encoded)."""
    return {
        "type": "game-over",
        "table": table.id,
        "number": table.number,
        "result": result.to_data(),
        "forfeit": forfeit,
        "seed": table.seed,
        "salt": table.salt,
    }


def how_it_ended(result: Result, forfeit: dict[str, Any] | None, aborted: str | None,
                 players: Sequence[str | None]) -> str:
    """The server log's words for the end: ``aborted (why)``, ``seat N (name) forfeits (kind)``
    or the result's reason."""
    if aborted is not None:
        return f"aborted ({aborted})"
    if forfeit is not None:
        return f"seat {forfeit['seat']} ({players[forfeit['seat']] or '?'}) forfeits ({forfeit['kind']})"
    return str(result.reason)


def log_job(table: Table, result: Result, forfeit: dict[str, Any] | None) -> dict[str, Any] | None:
    """The keyword arguments of :func:`quinze_server.logs.write_game` for ``table``'s current game,
    or None when the server keeps no logs."""
    log_dir = table.lobby.config.log_dir
    if log_dir is None:
        return None
    return dict(
        log_dir=log_dir,
        table=table.id,
        game_id=table.game_cls.id,
        number=table.number,
        options=table.options,
        seed=table.seed,
        salt=table.salt,
        players=table.players,
        actions=table.records.data(),
        result=result.to_data(),
        forfeit=forfeit,
        started=table.started,
        run=table.lobby.run,
        aborted=table.aborted,
        position=table.position,
    )
