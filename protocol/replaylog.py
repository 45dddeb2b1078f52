"""The replay-log format: JSON Lines, one file may hold many games (PROTOCOL.md, "Replay log").

Each game is a run of records, written together when the game ends:

1. ``{"record": "header", "format": 1, "game": id, "rules": int, "number": n, "table": id,
   "options": {...}, "seed": int, "salt": str, "commitment": str, "players": [names],
   "software": str, "started": ISO-8601 UTC}``; ``rules`` is the game's rules version
   (:attr:`quinze_protocol.game.Game.rules_version`; a header without it is of version 1)
2. ``{"record": "event", "event": Event.full()}`` for every event, full information, and
   ``{"record": "action", "seat": int, "action": {data}, "time": float}`` for every action
   (``time``: seconds the seat took, absent in older logs), interleaved in the
   order they happened (the events an action caused follow it);
3. ``{"record": "result", "result": Result.to_data(), "forfeit": {"seat", "kind"} | null,
   "ended": ISO-8601 UTC}``; a game the server stopped before its end (``"aborted": reason``, the
   result :meth:`Result.aborted`).

A header may also name the server ``"run"`` (a short id unique to one run of a server, also the
prefix of its table ids). Readers ignore keys they do not know.

The events are never taken on trust: :func:`game_records` regenerates them by replaying the
actions through the engine (anyone holding a ``game-over`` message can write the log), and
:func:`quinze_protocol.replaysim.verify` re-simulates a logged game and reports the first record
that differs.

Pure: text in, text out. Reading is lenient (:func:`read_log` collects problems instead of
raising) because a log may have been cut short by a crash: a record cut short (not JSON) is named
by its line, its game is kept as far as it goes, and every game after it is read (even one glued
onto the cut record by an older writer that appended without a newline first).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from quinze_protocol import __version__
from quinze_protocol.game import Event, Game, GameError, Result, get_game
from quinze_protocol.jsontext import loads_json
from quinze_protocol.messages import commitment

__all__ = [
    "FORMAT",
    "SOFTWARE",
    "LogError",
    "LogReadResult",
    "LoggedGame",
    "dumps_records",
    "game_records",
    "iso_now",
    "iso_utc",
    "iter_log",
    "read_log",
    "utc_now",
    "utc_stamp",
]

FORMAT = 1
"""Value of ``header.format``."""
SOFTWARE = f"quinze {__version__}"
"""Default ``header.software``."""


class LogError(ValueError):
    """Records that cannot be made or replayed. ``index``: the action index (0-based) at fault,
    or None; ``str()`` says why."""

    def __init__(self, reason: str, index: int | None = None) -> None:
        self.reason = reason
        self.index = index
        super().__init__(f"action {index}: {reason}" if index is not None else reason)


def utc_now() -> datetime:
    """Now, as an aware UTC ``datetime``: the one clock read behind every log time."""
    return datetime.now(timezone.utc)


def iso_now() -> str:
    """Now as ISO-8601 UTC text, e.g. ``2026-11-29T17:02:03.123456+00:00`` (:func:`iso_utc`)."""
    return iso_utc(utc_now())


def utc_stamp(when: datetime | None = None) -> str:
    """``when`` (default now) as a compact UTC stamp for file names: ``20261129T170203123456Z``."""
    return (when or utc_now()).astimezone(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")


def iso_utc(when: datetime | float | str) -> str:
    """A time as ISO-8601 UTC text: an aware ``datetime`` (a naive one is taken as UTC), a UNIX
    time in seconds, or text (returned unchanged)."""
    if isinstance(when, str):
        return when
    if isinstance(when, (int, float)):
        return datetime.fromtimestamp(when, timezone.utc).isoformat()
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return when.astimezone(timezone.utc).isoformat()


def _plain(data: Any) -> Any:
    """``data`` as it reads back from JSON (tuples become lists, int keys become text)."""
    return json.loads(json.dumps(data, ensure_ascii=False))


def _action_items(actions: Iterable[Any]) -> list[tuple[int, dict[str, Any], float | None]]:
    """``(seat, action data, time)`` of each action; ``time`` (seconds the seat took) or None."""
    out = []
    for i, a in enumerate(actions):
        if isinstance(a, Mapping):
            seat, data, used = a.get("seat"), a.get("action"), a.get("time")
        elif hasattr(a, "seat"):  # quinze_protocol.messages.SeatAction
            seat, data, used = a.seat, a.action, getattr(a, "time", None)
        else:  # a (seat, action) pair
            (seat, data), used = a, None
        if not isinstance(seat, int) or isinstance(seat, bool) or not isinstance(data, Mapping):
            raise LogError("an action is {seat: int, action: map}", i)
        if isinstance(used, bool) or not isinstance(used, (int, float)) or not used >= 0:
            used = None  # lenient: a time that is not a number of seconds is left out
        out.append((seat, dict(data), used))
    return out


def _play(game: Game, index: int, seat: object, data: object) -> list[Event]:
    """Apply one logged action (``seat`` and ``data`` as read from the log), checked; LogError if it
    is not the seat's turn, not a map or refused."""
    if game.is_over:
        raise LogError("the game is already over", index)
    if seat != game.to_act:
        raise LogError(f"seat {seat} acted but seat {game.to_act} was to act", index)
    if not isinstance(data, Mapping):
        raise LogError(f"an action is a map, got {type(data).__name__}", index)
    try:
        return game.apply(data)
    except GameError as e:
        raise LogError(f"refused: {e.code}: {e}", index) from None
    except (TypeError, ValueError, KeyError) as e:  # data no engine check expected: still a refusal
        raise LogError(f"refused: unreadable action ({type(e).__name__}: {e})", index) from None


def game_records(
    game_id: str,
    options: Mapping[str, Any],
    seed: int,
    salt: str,
    players: Sequence[str],
    actions: Iterable[Any],
    *,
    number: int = 1,
    table: str | None = None,
    started: datetime | float | str,
    ended: datetime | float | str,
    forfeit: Mapping[str, Any] | None = None,
    software: str = SOFTWARE,
    result: Mapping[str, Any] | None = None,
    aborted: str | None = None,
    run: str | None = None,
    position: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """The log records of one game (header, events and actions interleaved, result), the events
    regenerated by replaying ``actions`` through the engine (``get_game(game_id).new(options,
    seed)``, its ``opening_events``, then ``apply`` of each action; ``Event.full()``).

    - ``actions``: ``[{"seat": int, "action": map}]`` in order (``game-over.actions``; SeatAction
      values and ``(seat, action)`` pairs are accepted too);
    - ``forfeit``: ``{"seat": int, "kind": str}`` when the game ended by a forfeit (the result is
      then :meth:`Result.forfeit` unless ``result`` is given); otherwise the actions must end the game;
    - ``result``: the result as announced (``game-over.result``); for a game not forfeited it must
      equal the engine's;
    - ``aborted``: why the game was stopped before its end (e.g. ``"shutdown"``): the result is
      :meth:`Result.aborted`, the actions need not end the game, ``forfeit`` must be None;
    - ``run``: the server run, written in the header when given;
    - ``position``: the position the game started from (``create-table.position``), written in
      the header when given (:func:`start_game`);
    - ``started``/``ended``: see :func:`iso_utc`.

    Raises :class:`LogError` (an action refused or out of turn, a game not over, a result that
    differs) or the game's errors for bad options (``OptionError``, ``UnknownGame``).
    """
    game = start_game(game_id, options, seed, position)
    if len(players) != game.players:
        raise LogError(f"{len(players)} player names for {game.players} seats")
    records: list[dict[str, Any]] = [
        {
            "record": "header",
            "format": FORMAT,
            "game": game_id,
            "rules": type(game).rules_version,
            "number": number,
            "table": table,
            "options": _plain(game.options),
            "seed": seed,
            "salt": salt,
            "commitment": commitment(seed, salt, position),
            "players": list(players),
            "software": software,
            "started": iso_utc(started),
        }
    ]
    if run is not None:
        records[0]["run"] = run
    if position is not None:
        records[0]["position"] = _plain(position)
    records += [{"record": "event", "event": _plain(e.full())} for e in game.opening_events]
    for i, (seat, data, used) in enumerate(_action_items(actions)):
        events = _play(game, i, seat, data)
        rec: dict[str, Any] = {"record": "action", "seat": seat, "action": _plain(data)}
        if used is not None:
            rec["time"] = used
        records.append(rec)
        records += [{"record": "event", "event": _plain(e.full())} for e in events]
    if aborted is not None:
        if forfeit is not None:
            raise LogError("a game is either aborted or forfeited, not both")
        if game.is_over:
            raise LogError("the actions end the game: it was not aborted")
        res = Result.aborted(game.players).to_data()
        records.append({"record": "result", "result": _plain(res), "forfeit": None, "aborted": str(aborted),
                        "ended": iso_utc(ended)})
        return records
    if forfeit is not None:
        fseat = forfeit.get("seat")
        if not isinstance(fseat, int) or not 0 <= fseat < game.players:
            raise LogError(f"forfeit.seat must be a seat 0..{game.players - 1}, got {fseat!r}")
        res = dict(result) if result is not None else Result.forfeit(game.players, fseat).to_data()
        forfeit = {"seat": fseat, "kind": str(forfeit.get("kind", ""))}
    else:
        engine = game.result()
        if engine is None:
            raise LogError("the actions do not end the game and there is no forfeit")
        res = engine.to_data()
        if result is not None and _plain(result) != _plain(res):
            raise LogError(f"the result given {dict(result)} differs from the engine's {res}")
    records.append({"record": "result", "result": _plain(res), "forfeit": forfeit, "ended": iso_utc(ended)})
    return records


def dumps_records(records: Iterable[Mapping[str, Any]]) -> str:
    """Records as JSON Lines: compact UTF-8 JSON, one ``\\n`` after each record."""
    return "".join(json.dumps(r, separators=(",", ":"), ensure_ascii=False, allow_nan=False) + "\n" for r in records)


# --------------------------------------------------------------------------- reading


@dataclass
class LoggedGame:
    """One game read from a log.

    - ``header`` (dict): the header record; ``events`` ([dict]): the ``event`` maps;
      ``actions`` ([{"seat", "action"}]); ``result`` (the result record, or None if missing);
    - ``records`` ([dict]): every record of the game in order, header first (indexes used by
      :class:`Divergence`); ``lines`` ([int]): the 1-based line number of each record;
    - ``cut`` (int | None): the line of a record of this game cut short (not JSON, e.g. a crash
      while writing): the game is known only up to it.
    - ``damaged`` (int | None): that line again when more records of the same game follow it: a
      crash cuts a game's last record, never one in its middle, so the log was changed or
      corrupted there (PROTOCOL.md, "Replay log").
    """

    header: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)
    actions: list[dict[str, Any]] = field(default_factory=list)
    times: list[float | None] = field(default_factory=list)
    """Seconds each seat took for each action (the records' ``time``), None where not logged."""
    result: dict[str, Any] | None = None
    records: list[dict[str, Any]] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    cut: int | None = None
    damaged: int | None = None
    followed_by: int | None = None
    """The line of the next game's header when that header, not this game's result record, ended
    it (the run writing this game stopped mid-game and another appended to the file); None when
    the game ends with its result record or the file ends (or is cut) inside it."""
    flawed: bool = False
    """True when a record of the game was not read as one (cut short, not a record, a bad record,
    a header of another format or lacking fields): :func:`read_log` lists it in ``partial``."""
    other_format: Any = None
    """The header's ``format`` when it is not :data:`FORMAT` (None when it is): the game was
    written in a log format this module does not read, so its records are not re-simulated and it
    is never verified (PROTOCOL.md, "Replay log")."""

    @property
    def whole(self) -> bool:
        """Complete and read without a flaw: what :func:`read_log` lists in ``games``."""
        return self.complete and not self.flawed

    @property
    def break_note(self) -> str | None:
        """The one-line diagnosis of a game known only up to a line (None when it is whole as
        read): a damaged record (:attr:`damaged`: the log was changed or corrupted there) or a log
        cut short (:attr:`cut`: a crash while writing). Every reader of logs says this one
        (PROTOCOL.md, "Replay log")."""
        if self.other_format is not None:
            return (f"The game's header says log format {self.other_format!r}; this program reads format {FORMAT}: "
                    "what follows is read as that format and may be wrong.")
        if self.damaged is not None:
            return (f"The log has a damaged record at line {self.damaged}, inside the game (more of its records "
                    "follow): it was changed or corrupted there; the game is told up to there.")
        if self.cut is not None:
            return f"The log is cut short at line {self.cut}: the game is told up to there."
        return None

    @property
    def complete(self) -> bool:
        """True when the game has its result record."""
        return self.result is not None

    @property
    def aborted(self) -> str | None:
        """Why the game was stopped before its end (``result.aborted``, e.g. ``"shutdown"``), else None."""
        if self.result is None:
            return None
        why = self.result.get("aborted")
        return str(why) if why is not None else None

    def state_at(self, index: int) -> Game:
        """The game after its first ``index`` actions (see :func:`quinze_protocol.replaysim.state_at`)."""
        from quinze_protocol.replaysim import state_at  # replaysim reads this module's records

        return state_at(self.header, self.actions, index)


@dataclass
class LogReadResult:
    """What :func:`read_log` found.

    - ``games``: the complete, undamaged games in file order;
    - ``partial``: games cut short (no result record) or with a damaged record inside;
    - ``problems``: one line each, ``"line N: ..."``;
    - ``truncated``: True when the last line of the text was cut (no final newline).
    """

    games: list[LoggedGame] = field(default_factory=list)
    partial: list[LoggedGame] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    truncated: bool = False


def _split_lines(source: str | bytes | Iterable[str]) -> tuple[list[str], bool]:
    """The lines and whether the last one lacked its newline."""
    if isinstance(source, bytes):
        source = source.decode("utf-8", errors="replace")
    if isinstance(source, str):
        if not source:
            return [], False
        lines = source.split("\n")
        if lines[-1] == "":
            return lines[:-1], False
        return lines, True
    items = list(source)
    if not items:
        return [], False
    cut = not items[-1].endswith("\n")
    return [s[:-1] if s.endswith("\n") else s for s in items], cut


RECORD_START = '{"record":'
"""How every record written by :func:`dumps_records` begins (used to find a record glued onto a cut one)."""


def _parse(text: str) -> tuple[Any, str | None, Any]:
    """``(record, cut_part, error)``: the line as JSON; else, when a whole record was glued onto
    a cut one (an append with no newline first), that record and the cut text before it; else
    ``(None, None, the JSON error)``."""
    try:
        return loads_json(text), None, None
    except ValueError as e:
        err = e
    start = text.find(RECORD_START, 1)
    while start > 0:
        try:
            return loads_json(text[start:]), text[:start], None
        except ValueError:
            start = text.find(RECORD_START, start + 1)
    return None, None, err


def read_log(source: str | bytes | Iterable[str]) -> LogReadResult:
    """Every game in a log (text, bytes, or an iterable of lines such as an open file), leniently:
    problems are collected in ``LogReadResult.problems``, never raised.

    A line that is not JSON is a record cut short (a crash, a full disk): it is named by its
    line, its game goes to ``partial`` with ``cut`` set (known up to there; later records of that
    game are skipped, said in one problem) and the games after it are read as usual. When more
    records of that game follow the line, ``damaged`` is set too: a crash cuts only a game's last
    record, so the log was changed or corrupted there. A whole record glued after the
    cut part on the same line (a writer that appended without a newline first) is recovered.
    A last line without newline is reported as truncated. Records outside a game, unknown
    record kinds and other formats are reported. The whole log is held: :func:`iter_log` gives
    the games one at a time.
    """
    out = LogReadResult()
    for _ in iter_log(source, out.problems, out):
        pass
    return out


def _numbered(source: str | bytes | Iterable[str] | Iterable[bytes]) -> Iterator[tuple[int, str, bool]]:
    """``(line number from 1, text without its newline, True when it lacked the newline)`` of each
    line of ``source``, one at a time (an open file is read line by line, bytes decoded as UTF-8
    with replacement); only a last line is cut (a line without newline is given once the next is
    read)."""
    if isinstance(source, (str, bytes)):
        lines, cut = _split_lines(source)
        for n, text in enumerate(lines, 1):
            yield n, text, cut and n == len(lines)
        return
    held: str | None = None
    """A line without its newline, given once the next is read: only a last one is cut."""
    for n, raw in enumerate(source, 1):
        text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else str(raw)
        if held is not None:
            yield n - 1, held, False
            held = None
        if text.endswith("\n"):
            yield n, text[:-1], False  # at once: a log still being written is read as it grows
        else:
            held = text
    if held is not None:
        yield n, held, True


def iter_log(source: str | bytes | Iterable[str] | Iterable[bytes], problems: list[str],
             read: LogReadResult | None = None) -> Iterator[LoggedGame]:
    """Every game in a log, each as soon as its last record is read, in file order, leniently
    (the rules of :func:`read_log`, which collects this): ``source`` is text, bytes, or an
    iterable of lines (an open file, text or binary: read a line at a time, so only the game
    being read is held); each problem is appended to ``problems`` when it is found (``"line N:
    ..."``). ``read.truncated`` is set when given and the last line lacks its newline. A game is
    complete when it has its result record (``complete``), else cut short, damaged or
    incomplete (``cut``, ``damaged``); ``whole`` when complete and read without a flaw (the games
    :func:`read_log` lists in ``games``, the others in ``partial``)."""
    out = read if read is not None else LogReadResult()
    out.problems = problems
    ready: list[LoggedGame] = []
    current: LoggedGame | None = None
    damaged = False
    headers = 0
    """Game headers read so far."""
    skipped: list[int] = []
    """Lines of the current game's records skipped after its cut (said once, at its close)."""
    stray: list[tuple[int, str]] = []
    """Records outside a game since the last header (said once, e.g. after a damaged header)."""

    def say_stray() -> None:
        if len(stray) == 1:
            out.problems.append(f"line {stray[0][0]}: {stray[0][1]} record outside a game (no header before it)")
        elif stray:
            out.problems.append(f"lines {stray[0][0]}-{stray[-1][0]}: {len(stray)} records outside a game "
                                "(no header before them): skipped")
        stray.clear()

    def close(reason: str | None) -> None:
        nonlocal current, damaged
        if current is not None:
            if skipped:
                out.problems.append(f"lines {skipped[0]}-{skipped[-1]}: {len(skipped)} record(s) of the game at line "
                                    f"{current.lines[0]} after its damaged line {current.cut}: skipped")
                skipped.clear()
            if reason:
                out.problems.append(reason)
            current.flawed = damaged
            if read is not None:  # read_log keeps every game; alone, only the one being read is held
                (read.games if current.whole else read.partial).append(current)
            ready.append(current)
        current, damaged = None, False

    def cut_here(n: int, why: str) -> None:
        nonlocal damaged
        if current is not None:
            if current.cut is None:
                current.cut = n
            out.problems.append(f"line {n}: {why}: a record cut short; the game at line {current.lines[0]} "
                                f"is known up to line {n - 1}")
        elif headers:
            out.problems.append(f"line {n}: {why}: a record cut short, outside a game")
        else:  # nothing of a log before it: a file that is not a replay log says only what it is
            out.problems.append(f"line {n}: {why}")
        damaged = True

    def take(n: int, raw: str, cut: bool) -> None:
        """Read line ``n`` (``cut``: it lacks its newline) into the game being read."""
        nonlocal current, damaged, headers
        text = raw.rstrip("\r")
        if not text.strip():
            return
        rec, glued, err = _parse(text)
        if err is not None:
            if cut:
                out.truncated = True
                cut_here(n, f"truncated last record (cut short: {err.msg})")
            else:
                cut_here(n, f"not JSON ({err.msg})")
            return
        if glued is not None:
            cut_here(n, f"not JSON ({len(glued)} characters, then a whole record glued on the same line, read)")
        if cut:
            out.truncated = True
            out.problems.append(f"line {n}: last record has no newline (the file may have been cut short)")
        if not isinstance(rec, dict) or not isinstance(rec.get("record"), str):
            out.problems.append(f"line {n}: not a record (a map with a \"record\" kind)")
            damaged = True
            return
        kind = rec["record"]
        if kind == "header":
            say_stray()
            if current is not None:
                if current.result is None:
                    current.followed_by = n
                close(None if current.cut is not None else
                      f"line {n}: new game starts before the previous one (line {current.lines[0]}) has its result")
            if rec.get("format") != FORMAT:
                out.problems.append(f"line {n}: header format {rec.get('format')!r} is not {FORMAT}: the game cannot be "
                                    f"verified, and what is shown of it is read as format {FORMAT}")
                headers += 1
                current = LoggedGame(header=rec, records=[rec], lines=[n], other_format=rec.get("format"))
                damaged = True
                return
            missing = [k for k in ("game", "options", "seed", "salt", "commitment", "players") if k not in rec]
            if missing:
                out.problems.append(f"line {n}: header lacks {', '.join(missing)}")
            headers += 1
            current, damaged = LoggedGame(header=rec, records=[rec], lines=[n]), bool(missing)
            return
        if current is None:
            stray.append((n, kind))
            return
        if current.cut is not None:
            if current.damaged is None:  # a crash cuts a game's last record, not one with more after it
                current.damaged = current.cut
                out.problems.append(f"line {current.cut}: a damaged record inside the game at line {current.lines[0]}: "
                                    f"more of its records follow it (line {n} on), so the log was changed or "
                                    "corrupted there, not cut by a crash")
            skipped.append(n)
            return
        current.records.append(rec)
        current.lines.append(n)
        if kind == "event" and isinstance(rec.get("event"), dict):
            current.events.append(rec["event"])
        elif kind == "action" and isinstance(rec.get("seat"), int) and isinstance(rec.get("action"), dict):
            current.actions.append({"seat": rec["seat"], "action": rec["action"]})
            used = rec.get("time")
            current.times.append(used if isinstance(used, (int, float)) and not isinstance(used, bool) else None)
        elif kind == "result" and isinstance(rec.get("result"), dict):
            current.result = rec
            close(None)
        else:
            out.problems.append(f"line {n}: bad {kind} record")
            damaged = True
    for n, raw, cut in _numbered(source):
        take(n, raw, cut)
        yield from ready
        ready.clear()
    say_stray()
    if current is not None:
        close(None if current.cut is not None else
              f"line {current.lines[-1]}: the game starting at line {current.lines[0]} has no result record")
    yield from ready


def start_game(game_id: str, options: Mapping[str, Any], seed: int, position: Mapping[str, Any] | None = None) -> Game:
    """The game a table plays: ``new(options, seed)``, or, from a ``position``
    (``create-table.position``), that position with its generator state replaced by ``seed``
    (``Rng(seed)``: the randomness of the rest of the game); it then has no opening events.
    Raises the game's errors (``OptionError``, ``PositionError``, ``UnknownGame``)."""
    cls = get_game(game_id)
    if position is None:
        return cls.new(options, seed)
    game = cls.from_position({**position, "rng": seed % (1 << 64)})
    game.opening_events = []
    return game
