"""Positions out of replay logs: ``quinze replay LOG --game N --position`` (docs/botkit.md).

A moment of a logged game is named by an action (``at``: the position just before action K,
numbered from 1 as ``quinze replay`` numbers them), by the start of a deal (Le Quinze,
``deal``) or of a coup (Le Quinze classique, ``coup``). The game is re-simulated from the log
(:func:`quinze_protocol.replaysim.state_at`) and written in the position format of docs/positions.md,
which ``quinze legal`` reads.

The full position holds everything, the stock order and the generator state included. Seat S's
knowledge (:func:`seat_knowledge`) keeps what S could see and deals the cards S could not see
(the other hands, the stock or talon, Le 14's face-down packets) back into the same places in
a fixed order, with the generator state set to 0: a valid position, with the same legal actions
when S is the seat to act, that tells nothing S did not know.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from quinze_protocol.game import Game
from quinze_protocol.replaylog import LoggedGame, LogError
from quinze_protocol.replaysim import state_at, steps
from quinze_protocol.rng import Rng

__all__ = ["PositionRequestError", "moment", "seat_knowledge"]

KNOWLEDGE_SEED = 15
"""Seed of the fixed order in which unseen cards are dealt back (the same for every position)."""


class PositionRequestError(ValueError):
    """The moment asked for does not exist in this game (the message says what does)."""


def _counter(game: Game, name: str) -> int | None:
    value = game.to_position().get(name)
    return value if isinstance(value, int) else None


def moment(logged: LoggedGame, *, at: int | None = None, deal: int | None = None, coup: int | None = None) -> tuple[Game, int]:
    """The game at the moment asked for and the number of actions played before it.

    ``at`` K (1 .. actions+1): before action K (K = actions+1: after the last one). ``deal`` D /
    ``coup`` C: before the first action of deal D / coup C (for the first deal or coup, the state
    after the opening events). Raises :class:`PositionRequestError` for a moment the game does
    not have, :class:`LogError` when the log's actions cannot be replayed."""
    actions = logged.actions
    n = len(actions)
    if at is not None:
        if not 1 <= at <= n + 1:
            raise PositionRequestError(f"--at: the game has {n} actions, so K must be 1..{n + 1} "
                                       f"(K = {n + 1}: after the last one), got {at}")
        return state_at(logged.header, actions, at - 1), at - 1
    name, wanted = ("deal", deal) if deal is not None else ("coup", coup)
    assert wanted is not None
    first = state_at(logged.header, actions, 0)
    if _counter(first, name) is None:
        raise PositionRequestError(f"--{name}: {logged.header.get('game')} has no {name}s")
    if _counter(first, name) == wanted:
        return first, 0
    seen = {_counter(first, name)}
    for step in steps(logged.header, actions):
        current = _counter(step.game, name)
        seen.add(current)
        if current == wanted:
            return step.game, step.index + 1
    known = sorted(v for v in seen if v is not None)
    raise PositionRequestError(f"--{name}: the game's {name}s are {known[0]}..{known[-1]}, got {wanted}"
                               if known else f"--{name}: no {name} found")


def _deal_back(pool: list[str], sizes: Sequence[int], attempt: int = 0) -> list[list[str]]:
    """``pool`` shuffled in a fixed order (one per ``attempt``), cut into pieces of ``sizes`` (the
    rest is the last piece)."""
    cards = sorted(pool)
    Rng(KNOWLEDGE_SEED + attempt).shuffle(cards)
    out, pos = [], 0
    for size in sizes:
        out.append(cards[pos:pos + size])
        pos += size
    out.append(cards[pos:])
    return out


KNOWLEDGE_ATTEMPTS = 200
"""Orders tried when dealing the unseen cards back gives a position the rules forbid (a Le 14
hand of the seat to act that could be laid whole during a draw, say)."""


def seat_knowledge(position: dict[str, Any], seat: int) -> dict[str, Any]:
    """``position`` (``to_position()`` data) as ``seat`` knows it (see the module docstring): the
    first order of the unseen cards that makes a valid position. Raises ``ValueError`` for a game
    whose hidden parts this function does not know, or when no order is valid."""
    from quinze_protocol.game import GameError, get_game

    last: Exception | None = None
    for attempt in range(KNOWLEDGE_ATTEMPTS):
        data = _knowledge(position, seat, attempt)
        try:
            get_game(str(data.get("game"))).from_position(data)
        except GameError as err:
            last = err
            continue
        return data
    raise ValueError(f"no valid way to deal back the cards seat {seat} could not see ({last})")


def _knowledge(position: dict[str, Any], seat: int, attempt: int) -> dict[str, Any]:
    pos = {k: v for k, v in position.items()}
    game = pos.get("game")
    pos["rng"] = 0
    if game == "quinze":
        others = [s for s in range(len(pos["hands"])) if s != seat]
        pieces = _deal_back([c for s in others for c in pos["hands"][s]] + list(pos["stock"]),
                            [len(pos["hands"][s]) for s in others], attempt)
        hands = [list(h) for h in pos["hands"]]
        for s, piece in zip(others, pieces):
            hands[s] = piece
        pos["hands"], pos["stock"] = hands, pieces[-1]
    elif game == "quinze-classique":
        hidden = list(pos["hidden"])
        others = [s for s in range(len(hidden)) if s != seat and hidden[s] is not None]
        pieces = _deal_back([hidden[s] for s in others] + list(pos["talon"]), [1] * len(others), attempt)
        for s, piece in zip(others, pieces):
            hidden[s] = piece[0]
        pos["hidden"], pos["talon"] = hidden, pieces[-1]
    elif game == "quatorze":
        others = [s for s in range(len(pos["hands"])) if s != seat]
        packets = [[list(p) for p in seat_packets] for seat_packets in pos["packets"]]
        slots = [len(pos["hands"][s]) for s in others] + [len(p) for sp in packets for p in sp]
        pool = [c for s in others for c in pos["hands"][s]] + [c for sp in packets for p in sp for c in p] + list(pos["stock"])
        pieces = _deal_back(pool, slots, attempt)
        hands = [list(h) for h in pos["hands"]]
        for s, piece in zip(others, pieces):
            hands[s] = piece
        rest = pieces[len(others):]
        for sp in packets:
            for i in range(len(sp)):
                sp[i] = rest.pop(0)
        pos["hands"], pos["packets"], pos["stock"] = hands, packets, rest[-1]
    else:
        raise ValueError(f"a seat's knowledge of a {game} position is not known to this program")
    return pos


def position_data(logged: LoggedGame, *, at: int | None, deal: int | None, coup: int | None,
                  seat: int | None) -> tuple[dict[str, Any], int]:
    """The position data asked for (full, or ``seat``'s knowledge) and the actions before it.
    Raises :class:`PositionRequestError`, :class:`LogError`."""
    game, played = moment(logged, at=at, deal=deal, coup=coup)
    data = game.to_position()
    if seat is not None:
        data = seat_knowledge(data, seat)
    return data, played


__all__ += ["position_data", "LogError"]


def print_position(selected: list[tuple[int, LoggedGame]], *, at: int | None, deal: int | None, coup: int | None,
                   seat: int | None) -> None:
    """``quinze replay --position``: the position of the one selected game on stdout, as one JSON
    object (the ``quinze legal`` format); a line on stderr says which moment it is. Exits with
    ``error:`` (code 1, 2 for usage) when the moment or the game cannot be had."""
    import json

    import typer

    from quinze_cli.errors import EXIT_USAGE, fail, stderr

    if len(selected) != 1:
        fail("--position needs one game: add --game N", EXIT_USAGE)
    if sum(x is not None for x in (at, deal, coup)) != 1:
        fail("--position needs exactly one of --at K, --deal D and --coup C", EXIT_USAGE)
    number, logged = selected[0]
    try:
        data, played = position_data(logged, at=at, deal=deal, coup=coup, seat=seat)
    except PositionRequestError as err:
        fail(f"game {number}: {err}")
    except (LogError, ValueError) as err:
        fail(f"game {number}: cannot replay it to that moment: {err}")
    who = "the whole table" if seat is None else f"seat {seat}'s knowledge (unseen cards dealt back in a fixed order)"
    stderr.print(f"game {number}, after {played} action(s), to act: seat {data.get('to_act')}; {who}",
                 highlight=False, markup=False)
    typer.echo(json.dumps(data, ensure_ascii=False))
