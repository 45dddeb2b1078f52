"""Re-simulation of logged games (PROTOCOL.md, "Replay log"): :func:`verify` replays a logged
game through the engine and reports the first record that differs (:class:`Divergence`);
:func:`steps` and :func:`state_at` step through a logged game for the replay viewer and
``quinze replay --position``. The log format itself, reading and writing, is
:mod:`quinze_protocol.replaylog`.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from quinze_protocol.game import Game, GameError, Result, get_game
from quinze_protocol.messages import commitment
from quinze_protocol.replaylog import LogError, LoggedGame, _action_items, _plain, _play, start_game

__all__ = ["Divergence", "Step", "rules_needed", "state_at", "steps", "verify"]


@dataclass(frozen=True)
class Divergence:
    """The first place where a log differs from the re-simulation.

    - ``index``: record index within :attr:`LoggedGame.records` (0 = header);
    - ``line``: its line number in the file (None if unknown);
    - ``what``: ``"commitment"``, ``"rules-version"`` (the log was made under another rules
      version of its game: ``found`` is the log's, ``expected`` this software's; re-simulating
      it here would prove nothing), ``"header"``, ``"event"``, ``"action"``, ``"result"``;
    - ``expected`` / ``found``: the re-simulated value and the logged one (None when absent); for a
      refused ``"action"``, ``expected`` is ``{"seat", "legal"}``: the seat to act and its legal
      actions as data (None when the game was over), ``found`` the logged record;
    - ``reason``: in words.
    """

    index: int
    line: int | None
    what: str
    expected: Any
    found: Any
    reason: str

    def __str__(self) -> str:
        where = f"line {self.line}" if self.line is not None else f"record {self.index}"
        return f"{where}: {self.what}: {self.reason}"


def _new_game(header: Mapping[str, Any]) -> Game:
    """The game a log's header starts. Raises :class:`LogError` ("header: cannot start the game:
    ..."), naming the game's own error, for a header this software cannot start (an unknown game,
    options or a position the game refuses, a missing or mistyped field), so that every reader of
    logs (``replay --verify``, ``--position``, ``--step``) reports it the same way."""
    try:
        return start_game(header["game"], header["options"], header["seed"], header.get("position"))
    except (GameError, KeyError, TypeError, AttributeError, ValueError) as e:  # a field missing or of another shape
        why = f"the header has no {e} field" if isinstance(e, KeyError) else str(e)
        raise LogError(f"header: cannot start the game: {why}") from e


def rules_needed(header: Mapping[str, Any]) -> tuple[Any, int] | None:
    """``(logged, current)`` rules versions when ``header`` records a rules version of its game
    other than the one this software plays (``header.rules``, 1 when absent), else None (also for
    an unknown game: :func:`verify` reports that)."""
    try:
        cls = get_game(header.get("game", ""))
    except GameError:
        return None
    logged = header.get("rules", 1)
    return None if logged == cls.rules_version else (logged, cls.rules_version)


def verify(logged: LoggedGame) -> Divergence | None:
    """Re-simulate ``logged`` from its header's game, options and seed and its actions, and
    return the FIRST divergence, or None if every record matches (a partial game is checked
    as far as it goes). Checked in order: the commitment (``sha256(f"{seed}:{salt}")``), the
    header (game, options, seed, players), then each record: every event equal to the engine's
    ``Event.full()``, every action played by the seat to act and accepted, no event missing or
    extra, and the result equal to the engine's (for a forfeit: the points, winners and reason
    of :meth:`Result.forfeit`; for an aborted game: the game not over and :meth:`Result.aborted`).
    A log made under another rules version of its game (see :func:`rules_needed`) is not
    re-simulated: the divergence, ``what == "rules-version"``, says which version it needs.
    """
    h = logged.header
    recs = logged.records or [h]

    def div(i: int, what: str, expected: Any, found: Any, reason: str) -> Divergence:
        line = logged.lines[i] if i < len(logged.lines) else None
        return Divergence(i, line, what, expected, found, reason)

    seed, salt = h.get("seed"), h.get("salt")
    if not isinstance(seed, int) or isinstance(seed, bool) or not isinstance(salt, str) or not salt.isascii():
        return div(0, "header", None, {"seed": seed, "salt": salt}, "seed must be an integer and salt ASCII text")
    position = h.get("position")
    if position is not None and not isinstance(position, dict):
        return div(0, "header", None, position, "position must be a map")
    expected_c = commitment(seed, salt, position)
    if h.get("commitment") != expected_c:
        return div(0, "commitment", expected_c, h.get("commitment"),
                   "the commitment is not sha256(seed:salt)" + (":position" if position is not None else ""))
    need = rules_needed(h)
    if need is not None:
        return div(0, "rules-version", need[1], need[0],
                   f"made under {h.get('game')} rules version {need[0]}, this software plays version {need[1]} "
                   f"(verify it with a release that plays version {need[0]})")
    try:
        game = _new_game(h)
    except LogError as e:
        return div(0, "header", None, {k: h.get(k) for k in ("game", "options", "seed")},
                   str(e).removeprefix("header: "))
    players = h.get("players")
    if not isinstance(players, list) or len(players) != game.players:
        return div(0, "header", game.players, players, "the player names do not match the number of seats")
    pending = [_plain(e.full()) for e in game.opening_events]
    k = 0  # index of the next action
    for i in range(1, len(recs)):
        rec = recs[i]
        kind = rec.get("record")
        if kind == "event":
            if not pending:
                return div(i, "event", None, rec.get("event"), "an event the game did not produce")
            exp = pending.pop(0)
            if rec.get("event") != exp:
                return div(i, "event", exp, rec.get("event"), "the event differs from the re-simulation")
            continue
        if pending:
            return div(i, "event", pending[0], rec, f"missing event {pending[0].get('kind')!r} before this {kind} record")
        if kind == "action":
            try:
                events = _play(game, k, rec.get("seat"), rec.get("action"))
            except LogError as e:
                return div(i, "action", _due(game), rec, e.reason)
            pending = [_plain(e.full()) for e in events]
            k += 1
        elif kind == "result":
            return _check_result(game, rec, lambda what, exp, found, why: div(i, what, exp, found, why))
        else:
            return div(i, "header", None, rec, f"unexpected record {kind!r}")
    return None  # no result record: a partial game, right as far as it goes


def _due(game: Game) -> dict[str, Any] | None:
    """What the re-simulation expected where a logged action was refused: ``{"seat": the seat to
    act, "legal": [its legal actions as data]}``, None once the game is over."""
    if game.is_over:
        return None
    return {"seat": game.to_act, "legal": game.legal_data()}


def _check_result(game: Game, rec: Mapping[str, Any], div: Any) -> Divergence | None:
    found = rec.get("result")
    forfeit = rec.get("forfeit")
    if rec.get("aborted") is not None:
        if forfeit is not None:
            return div("result", None, forfeit, "a game cannot be both aborted and forfeited")
        if (over := game.result()) is not None:
            return div("result", over.to_data(), found, "aborted after the game was over")
        exp = Result.aborted(game.players).to_data()
        if _plain(found) != _plain(exp):
            return div("result", exp, found, "the aborted result differs (no winner, all points and scores 0)")
        return None
    if forfeit is not None:
        seat = forfeit.get("seat") if isinstance(forfeit, dict) else None
        if not isinstance(seat, int) or not 0 <= seat < game.players:
            return div("result", None, forfeit, "forfeit.seat is not a seat")
        if (over := game.result()) is not None:
            return div("result", over.to_data(), found, "a forfeit after the game was over")
        exp = Result.forfeit(game.players, seat).to_data()
        keys = ("points", "winners", "reason")
        if not isinstance(found, dict) or any(_plain(found.get(k)) != _plain(exp[k]) for k in keys):
            return div("result", exp, found, "the forfeit result differs (points, winners or reason)")
        return None
    engine = game.result()
    if engine is None:
        return div("result", None, found, "the game is not over after the logged actions")
    exp = _plain(engine.to_data())
    if found != exp:
        return div("result", exp, found, "the result differs from the re-simulation")
    return None


@dataclass
class Step:
    """One action of a replay: ``index`` (0-based action index), ``seat``, ``action`` (data),
    ``events`` (the game's Event values it produced), ``game`` (the live game AFTER the action:
    read it before the next step, it keeps changing)."""

    index: int
    seat: int
    action: dict[str, Any]
    events: list
    game: Game


def steps(header: Mapping[str, Any], actions: Iterable[Any]) -> Iterator[Step]:
    """Replay a game step by step from its header (``game``, ``options``, ``seed``) and actions
    (``[{"seat", "action"}]``, e.g. ``LoggedGame.actions``). Raises :class:`LogError` when an
    action is refused or out of turn, or the header cannot start a game."""
    game = _new_game(header)
    for i, (seat, data, _used) in enumerate(_action_items(actions)):
        events = _play(game, i, seat, data)
        yield Step(i, seat, data, events, game)


def state_at(header: Mapping[str, Any], actions: Sequence[Any], index: int) -> Game:
    """The game after the first ``index`` actions (0: the state after the opening events;
    ``len(actions)``: the final state). ``game.to_position()`` then gives the position at that
    moment. Raises :class:`LogError` (``index`` out of range, an action refused, a header that
    cannot start a game)."""
    if not 0 <= index <= len(actions):
        raise LogError(f"index must be 0..{len(actions)}, got {index}")
    if index == 0:
        return _new_game(header)
    for step in steps(header, list(actions)[:index]):
        last = step
    return last.game
