"""The journal of a tournament: what was asked and which games are finished, so that ``--resume``
after a crash, ``kill -9`` or Ctrl-C plays only the games still missing.

``journal.jsonl`` sits beside the event's game log (``games.jsonl``) in the event directory. Its
first line is ``{"journal": 1, "kind": "tournament", "settings": {...}}`` (everything that decides
the games: see :class:`quinze_cli.tournament.EventSettings`); then one line per finished game, in
the order they finished: ``{"index", "seed", "seat_bots", "points", "scores", "forfeits",
"think", "failures"}``. Each line is written whole, flushed and fsynced right after the game's
records are in the log, so after any stop the journal names exactly the games that count.

On resume (:func:`resume_games`) the log is cut back to the games the journal names that it holds
complete and verified: a game that reached the log but not the journal (stopped between the two
writes), a game cut anywhere by a crash (in its header, mid-record, before its result), a whole one
that does not verify or a duplicate is dropped from the log (a log changed in its middle, a damaged
line with more of its game after it, is refused instead: :class:`LogDamaged`, nothing changed); the journal is then cut back to the games the log kept, and
every other game is played again; the resumed event's log then holds each game of the schedule
exactly once, as an uninterrupted run's does. An incomplete last journal
line (stopped mid-write) is ignored and cut off.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from quinze_protocol.jsontext import loads_json

__all__ = ["JOURNAL", "Journal", "JournalError", "LogDamaged", "differences", "player_names", "reconcile_log"]

JOURNAL = 1
"""The journal format version."""


class JournalError(Exception):
    """The journal cannot be used (missing, unreadable, another format or kind)."""


class LogDamaged(JournalError):
    """The game log has a damaged line that is not a cut tail (:func:`reconcile_log`): ``line``
    (1-based) and why, in words; the log was changed or corrupted there, not cut by a crash, so
    resuming would silently drop games it holds: the log and the journal are left as they were."""

    def __init__(self, log: Path, line: int, why: str) -> None:
        self.log, self.line = log, line
        super().__init__(f"DAMAGED at line {line} of {log}: {why} (the log was changed or corrupted there, not cut by "
                         f"a crash); nothing was changed: see quinze replay {log} --verify, mend or remove that "
                         "line, then resume again")


def _fsync_append(fh: TextIO, text: str) -> None:
    fh.write(text)
    fh.flush()
    os.fsync(fh.fileno())


class Journal:
    """An open journal (append only). Make one with :meth:`create` or :meth:`resume`."""

    def __init__(self, path: Path, settings: dict[str, Any], entries: list[dict[str, Any]], fh: TextIO,
                 kind: str, good: int | None = None) -> None:
        self.path = path
        self._good = good
        """On resume: the length of the journal's good part, cut to on the first change (a line cut
        mid-write is dropped then, not while the resume may still be refused)."""
        self.kind = kind
        self.settings = settings
        self.entries = entries
        """The finished games read back on resume (empty for a new journal)."""
        self._fh = fh

    @classmethod
    def create(cls, path: Path, kind: str, settings: Mapping[str, Any]) -> "Journal":
        """A new journal at ``path`` (which must not exist: ``FileExistsError``)."""
        fh = open(path, "x", encoding="utf-8")
        _fsync_append(fh, json.dumps({"journal": JOURNAL, "kind": kind, "settings": settings}) + "\n")
        return cls(path, dict(settings), [], fh, kind)

    @classmethod
    def resume(cls, path: Path, kind: str) -> "Journal":
        """Read an existing journal and open it for more games. Raises :class:`JournalError`."""
        settings, entries, good = read_journal(path, kind)
        fh = open(path, "a", encoding="utf-8")
        return cls(path, settings, entries, fh, kind, good)

    def _mend(self) -> None:
        """Drop a last line cut mid-write (once, before the first change)."""
        if self._good is not None:
            self._fh.flush()
            os.truncate(self.path, self._good)
            self._good = None

    def keep(self, indices: set[int]) -> None:
        """Keep only the entries of these games (the others are played again): the journal is
        rewritten atomically (a temporary file, fsynced, renamed) and opened again for more."""
        self._mend()
        if all(e["index"] in indices for e in self.entries):
            return
        self.entries = [e for e in self.entries if e["index"] in indices]
        head = json.dumps({"journal": JOURNAL, "kind": self.kind, "settings": self.settings})
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(head + "\n" + "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in self.entries))
            fh.flush()
            os.fsync(fh.fileno())
        self._fh.close()
        os.replace(tmp, self.path)
        self._fh = open(self.path, "a", encoding="utf-8")

    def append(self, entry: Mapping[str, Any]) -> None:
        """Add one finished game, flushed and fsynced."""
        self._mend()
        _fsync_append(self._fh, json.dumps(entry, separators=(",", ":")) + "\n")

    def close(self) -> None:
        self._fh.close()


HEADER_START = b'{"journal":'
"""How a journal's first line begins (:meth:`Journal.create` writes it): a first line cut before its
newline that still reads like this is a header cut mid-write (the journal is empty); anything else
there is not a journal."""


def read_journal(path: Path, kind: str) -> tuple[dict[str, Any], list[dict[str, Any]], int]:
    """``(settings, entries, length of the good part in bytes)``. Raises :class:`JournalError`."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        hint = "is it the log of a match, or its .journal?" if kind == "match" else f"is it the directory of a {kind}?"
        raise JournalError(f"no journal at {path} ({hint})") from None
    except OSError as err:
        raise JournalError(f"{path}: {err.strerror or err}") from None
    lines = raw.split(b"\n")
    good = 0
    header: dict[str, Any] | None = None
    entries: list[dict[str, Any]] = []
    seen: set[int] = set()
    for i, line in enumerate(lines):
        if i == len(lines) - 1:
            break  # after the last newline: empty, or a line cut mid-write
        try:
            data = loads_json(line)
        except ValueError:
            if header is None:
                raise JournalError(f"{path}: line 1 is not a journal header") from None
            raise JournalError(f"{path}: line {i + 1} is not JSON (the journal was changed by hand?)") from None
        if header is None:
            if not isinstance(data, dict) or data.get("journal") != JOURNAL or data.get("kind") != kind:
                raise JournalError(f"{path}: not a {kind} journal of format {JOURNAL}")
            header = data
        elif isinstance(data, dict) and isinstance(data.get("index"), int):
            if data["index"] not in seen:
                seen.add(data["index"])
                entries.append(data)
        else:
            raise JournalError(f"{path}: line {i + 1} is not a game entry")
        good += len(line) + 1
    if header is None and lines[-1] and not HEADER_START.startswith(lines[-1][: len(HEADER_START)]):
        raise JournalError(f"{path}: line 1 is not a journal header")
    if header is None and lines[-1]:
        raise JournalError(f"{path}: empty journal: its only line, the header written as the {kind} began, is cut "
                           f"short at byte {len(lines[-1])}, so its settings are lost and no game is recorded in it; "
                           f"it cannot be resumed: start the {kind} anew (the games already in its log stay there)")
    if header is None:
        raise JournalError(f"{path}: empty journal (the {kind} stopped before it began: start it anew)")
    return dict(header.get("settings") or {}), entries, good


def differences(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """The settings that differ, in words: ``"seed: 7 in the journal, 8 now"``; bots one by one."""
    out = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        if key == "bots" and isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                def names(xs: list[Any]) -> str:
                    return ", ".join(str(x.get("name", "?")) if isinstance(x, dict) else str(x) for x in xs)
                out.append(f"bots: {len(a)} in the journal ({names(a)}), {len(b)} now ({names(b)})")
                continue
            for n, (x, y) in enumerate(zip(a, b), 1):
                if isinstance(x, dict) and isinstance(y, dict):
                    for k in sorted(set(x) | set(y)):
                        if x.get(k) != y.get(k):
                            out.append(f"bot {n} {k}: {json.dumps(x.get(k))} in the journal, {json.dumps(y.get(k))} now")
                elif x != y:
                    out.append(f"bots: bot {n} is {json.dumps(x)} in the journal, {json.dumps(y)} now")
            continue
        out.append(f"{key}: {json.dumps(a)} in the journal, {json.dumps(b)} now")
    return out


def player_names(names: Sequence[str], seat_bots: Iterable[int]) -> tuple[str, ...]:
    """The player names a game's log header shows for this seating: the bot's name, ``#2``,
    ``#3``... for its second, third program at the table (as :class:`MatchRunner` names them)."""
    counts: dict[int, int] = {}
    out = []
    for b in seat_bots:
        k = counts.get(b, 0)
        counts[b] = k + 1
        out.append(names[b] if k == 0 else f"{names[b]}#{k + 1}")
    return tuple(out)


def reconcile_log(log: Path, keep: Mapping[tuple[Any, tuple[Any, ...]], Any]) -> tuple[set[tuple[Any, tuple[Any, ...]]], int]:
    """Cut the game log back to the games in ``keep`` (``(seed, player names)`` of the journal's
    games, each mapped to the journal's ``points`` for it), each once, complete and verified: read
    leniently and a game at a time (:func:`quinze_protocol.replaylog.iter_log`: memory holds the
    game being read and its lines, not the log), a game cut anywhere (in its header, in a record,
    before its result) is dropped, and so is a whole one that does not re-simulate
    (:func:`quinze_protocol.replaysim.verify`) or whose points differ from the journal's. The
    games kept are written, line for line as they were, to a temporary file, fsynced and renamed
    over the log. Returns ``(the keys of the games kept, games dropped)``; no log: ``(set(), 0)``.

    Only what a crash leaves is dropped: a record cut short at the end of its game (the log's last
    line, or one a later run wrote a newline after before appending), a game without its result.
    A damaged line with more of its game after it, or more than one line outside any game in a
    row, means the log was changed: :class:`LogDamaged` (its line number) is raised and the log is
    left as it was."""
    from quinze_protocol.replaylog import iter_log
    from quinze_protocol.replaysim import verify

    if not log.exists():
        return set(), 0
    seen: set[tuple[Any, tuple[Any, ...]]] = set()
    dropped = 0
    held: dict[int, str] = {}
    """The lines read and not yet given to a game or passed over (the game being read)."""

    def lines(source: BinaryIO) -> Iterator[bytes]:
        for n, raw in enumerate(source, 1):
            held[n] = raw.decode("utf-8", errors="replace").rstrip("\n").rstrip("\r")
            yield raw

    tmp = log.with_name(log.name + ".tmp")
    try:
        with open(log, "rb") as source, open(tmp, "w", encoding="utf-8") as fh:
            for game in iter_log(lines(source), []):
                _refuse_damage(log, game, held)
                key: tuple[Any, tuple[Any, ...]] = (game.header.get("seed"), tuple(game.header.get("players") or ()))
                points = (game.result or {}).get("result", {}).get("points")
                if game.whole and key in keep and key not in seen and points == keep[key] and verify(game) is None:
                    seen.add(key)
                    fh.write("".join(held[n] + "\n" for n in game.lines))
                else:
                    dropped += 1
                last = game.lines[-1] if game.lines else 0
                for n in [n for n in held if n <= last]:  # this game's lines and the strays before it
                    del held[n]
            _refuse_strays(log, held, None)  # the tail after the last game
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        tmp.unlink(missing_ok=True)  # refused (or stopped): the log stays as it was
        raise
    os.replace(tmp, log)
    return seen, dropped


def _refuse_damage(log: Path, game: Any, held: Mapping[int, str]) -> None:
    """Raise :class:`LogDamaged` when ``game`` (a :class:`quinze_protocol.replaylog.LoggedGame`)
    shows a change of the log, not a crash's cut: a damaged record with more of its records after
    it (what ``quinze replay`` calls DAMAGED), a line inside it that is not one of its records, or
    more than one line before its header that belongs to no game (a crash cuts one line)."""
    if game.damaged is not None:
        raise LogDamaged(log, game.damaged, f"a record of the game at line {game.lines[0]} is not JSON and more of "
                                            "that game's records follow it")
    if not game.lines:
        return
    first, last, own = game.lines[0], game.lines[-1], set(game.lines)
    inside = [n for n in held if first < n < last and n not in own and held[n].strip()]
    if inside:
        raise LogDamaged(log, inside[0], f"that line is not a record of the game at line {first}, and more of "
                                         "that game's records follow it")
    _refuse_strays(log, held, first)


def _refuse_strays(log: Path, held: Mapping[int, str], before: int | None) -> None:
    """The lines held before line ``before`` (None: all) belong to no game: one is what a crash
    leaves (a record cut short, e.g. in a header); more, the log was changed."""
    stray = [n for n in held if (before is None or n < before) and held[n].strip()]
    if len(stray) > 1:
        raise LogDamaged(log, stray[0], f"that line belongs to no game and {len(stray) - 1} more such line(s) "
                                        f"follow it (up to line {stray[-1]})")


def resume_games(log: Path, journal: "Journal", names: Sequence[str]) -> int:
    """On resume: cut the log back to the journal's games it holds complete and verified
    (:func:`reconcile_log`), then the journal back to those games (:meth:`Journal.keep`), so that
    ``journal.entries`` names exactly the games done and every other game of the schedule is played
    again. Returns the number of games dropped from the log."""
    keys = {(e["seed"], player_names(names, e["seat_bots"])): e for e in journal.entries}
    kept, dropped = reconcile_log(log, {k: e.get("points") for k, e in keys.items()})
    journal.keep({keys[k]["index"] for k in kept})
    return dropped


__all__ += ["resume_games"]
