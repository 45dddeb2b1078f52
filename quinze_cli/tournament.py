"""``quinze tournament``: the event's settings (command line and TOML), its bots with their own
options, and its statistics (standings, crosstable). The games are played by
:class:`quinze_cli.matchrun.MatchRunner`, the one code path of ``quinze match``; the schedule is
:mod:`quinze_cli.schedule`, the journal :mod:`quinze_cli.journal`.

**A bot** is given as in ``quinze match`` (``builtin:NAME`` or a quoted command line) or, with its
own options, cutechess-style as ``KEY=VALUE`` words: ``"name=deep cmd='python3 bot.py'
args='--depth 3' movetime=2"``; keys ``name`` (unique), ``cmd`` (required), ``args`` (extra
arguments of a program), ``movetime`` (seconds per decision of this bot), ``seed`` (a built-in's
own seed). In a TOML file each ``[[bots]]`` table has the same keys (``args`` a string or a list).

**The TOML file** (``--config``) describes the whole event: ``game``, ``format``, ``bots``,
``games_per_pairing`` or ``rounds``, ``seats``, ``duplicate``, ``concurrency``, ``seed``,
``move_time``, ``log_dir``, ``options`` (a table of table options), ``max_restarts``, ``wire``,
``positions`` (a file of positions, as ``--positions``).
Options given on the command line win over the file's; bots on the command line come after the
file's.
"""

from __future__ import annotations

import math
import shlex
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from quinze_protocol.fields import blank_problem, name_problem, plain_text_problem

from quinze_cli.matchrun import BotSpec, parse_bot_spec
from quinze_cli.options import read_text_file
from quinze_cli.stats import MatchStats
from quinze_cli.stats.ratings import Ratings, rank_bots

__all__ = ["CONFIG_KEYS", "ENTRY_KEYS", "TournamentStats", "load_config", "make_bots", "parse_entry"]

ENTRY_KEYS = ("name", "cmd", "args", "movetime", "seed")
CONFIG_KEYS = ("game", "format", "bots", "games_per_pairing", "rounds", "seats", "duplicate", "concurrency",
               "seed", "move_time", "log_dir", "options", "max_restarts", "wire", "positions")

_TEXT, _INT, _SECONDS = "text", "an integer", "a number of seconds"
CONFIG_TYPES = {"game": _TEXT, "format": _TEXT, "bots": "a list of tables ([[bots]] with cmd = ...)",
                "games_per_pairing": _INT, "rounds": _INT, "seats": _INT, "duplicate": "true or false",
                "concurrency": _INT, "seed": _INT, "move_time": _SECONDS, "log_dir": _TEXT,
                "options": "a table (options = { target = 50 })", "max_restarts": _INT, "wire": _TEXT, "positions": _TEXT}
"""What each key of an event file holds, in words (the check is :func:`_is_a`)."""
ENTRY_TYPES = {"name": _TEXT, "cmd": "text (cmd=builtin:NAME or cmd='python3 bot.py')", "args": "text or a list of text",
               "movetime": _SECONDS, "seed": _INT}
"""What each key of a bot entry holds (a TOML value; text, as the command line gives them all, is
read later: ``movetime='2'`` as seconds)."""


def _is_a(value: Any, kind: str) -> bool:
    """True when ``value`` (read from TOML, or the command line's text) is of ``kind`` (a value of
    :data:`CONFIG_TYPES` or :data:`ENTRY_TYPES`); booleans are never numbers."""
    if kind.startswith(_TEXT):
        return isinstance(value, str) or (kind.startswith("text or") and isinstance(value, list)
                                          and all(isinstance(v, str) for v in value))
    if isinstance(value, bool):
        return kind == "true or false"
    if kind == _INT:
        return isinstance(value, int)
    if kind == _SECONDS:
        return isinstance(value, (int, float))
    if kind.startswith("a list"):
        return isinstance(value, list) and all(isinstance(b, dict) for b in value)
    return isinstance(value, dict) if kind.startswith("a table") else False


def _shown(value: Any) -> str:
    """A TOML value as the user wrote it, roughly (``5``, ``true``, ``'x'``, ``[1, 2]``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)[:60]


def parse_entry(text: str) -> dict[str, Any]:
    """One BOT argument as an entry ``{"cmd", ...}``: ``KEY=VALUE`` words when the first word is
    one of :data:`ENTRY_KEYS` followed by ``=``, else the whole text is the command. Raises
    ``ValueError`` (bad quoting, a word without ``=``, an unknown key: named)."""
    head = text.lstrip().split("=", 1)[0]
    if "=" not in text or head not in ENTRY_KEYS:
        return {"cmd": text}
    try:
        words = shlex.split(text)
    except ValueError as err:
        raise ValueError(f"cannot read {text!r}: {err}") from None
    entry: dict[str, Any] = {}
    for word in words:
        key, sep, value = word.partition("=")
        if not sep:
            raise ValueError(f"{word!r} is not KEY=VALUE (keys: {', '.join(ENTRY_KEYS)})")
        if key not in ENTRY_KEYS:
            raise ValueError(f"unknown key {key!r} (keys: {', '.join(ENTRY_KEYS)})")
        entry[key] = value
    return entry


def make_bots(entries: Sequence[Mapping[str, Any]], game: str) -> tuple[list[BotSpec], list[float | None]]:
    """The bots of an event and each one's own move time (None: the event's). Raises
    ``ValueError`` naming the bot and what is wrong (no ``cmd``, unknown key, ``args`` or
    ``seed`` where they do not apply, a name taken, a move time not positive)."""
    specs: list[BotSpec] = []
    times: list[float | None] = []
    for n, entry in enumerate(entries, 1):
        name = entry.get("name")
        shown = isinstance(name, str) and name and plain_text_problem(name) is None and blank_problem(name) is None
        where = f"bot {n}" + (f" ({name})" if shown else "")
        unknown = [k for k in entry if k not in ENTRY_KEYS]
        if unknown:
            raise ValueError(f"{where}: unknown key {unknown[0]!r} (keys: {', '.join(ENTRY_KEYS)})")
        for key, kind in ENTRY_TYPES.items():  # text is read later (a number as a number, args split)
            if key in entry and not isinstance(entry[key], str) and not _is_a(entry[key], kind):
                raise ValueError(f"{where}: {key} must be {kind}, got {_shown(entry[key])}")
        cmd = entry.get("cmd")
        if cmd is None:
            raise ValueError(f"{where}: cmd is missing (cmd=builtin:NAME or cmd='python3 bot.py')")
        if not cmd.strip():
            raise ValueError(f"{where}: cmd is empty (cmd=builtin:NAME or cmd='python3 bot.py')")
        try:
            spec = parse_bot_spec(cmd, game, [] if name else [s.name for s in specs])
        except ValueError as err:
            raise ValueError(f"{where}: {err}") from None
        args = entry.get("args")
        if args:
            if spec.builtin is not None:
                raise ValueError(f"{where}: a built-in bot takes no args (it has seed=N)")
            extra = shlex.split(args) if isinstance(args, str) else list(args)
            spec = replace(spec, argv=spec.argv + tuple(extra), spec=shlex.join([*spec.argv, *extra]))
        seed = entry.get("seed")
        if seed is not None:
            if spec.builtin is None:
                raise ValueError(f"{where}: seed=N is for built-in bots (give a program its seed in args)")
            try:
                seed_n = int(seed)
            except (TypeError, ValueError):
                raise ValueError(f"{where}: seed must be an integer, got {seed!r}") from None
            spec = replace(spec, seed=seed_n, spec=f"{spec.spec} seed={seed_n}")
        if name is not None:
            if not 0 < len(name) <= 28 or any(c.isspace() or c == "#" for c in name):
                raise ValueError(f"{where}: a name is 1 to 28 characters, no spaces or '#', got {name!r}")
            if (why := name_problem(name)) is not None:  # plain, and shows a character (hello.name's rule)
                raise ValueError(f"{where}: the name {ascii(name) if blank_problem(name) else repr(name)} {why}")
            if name in [s.name for s in specs]:
                raise ValueError(f"{where}: the name {name!r} is taken by another bot")
            spec = replace(spec, name=name)
        elif spec.name in [s.name for s in specs]:
            raise ValueError(f"{where}: the name {spec.name!r} is taken")
        move = entry.get("movetime")
        if move is not None:
            try:
                move_f = float(move)
            except (TypeError, ValueError):
                raise ValueError(f"{where}: movetime must be seconds, got {move!r}") from None
            if not (move_f > 0 and math.isfinite(move_f)):
                raise ValueError(f"{where}: movetime must be positive seconds, got {move}")
            move = move_f
        specs.append(spec)
        times.append(move)
    return specs, times


def load_config(path: Path) -> dict[str, Any]:
    """The event described by a TOML file (see the module docstring). Raises ``ValueError``
    (unreadable, not UTF-8 text, not TOML, an unknown key, ``bots`` not a list of tables: named)."""
    text = read_text_file(path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ValueError(f"{path}: not valid TOML: {err}") from None
    unknown = [k for k in data if k not in CONFIG_KEYS]
    if unknown:
        raise ValueError(f"{path}: unknown key {unknown[0]!r} (keys: {', '.join(CONFIG_KEYS)})")
    for key, kind in CONFIG_TYPES.items():
        if key in data and not _is_a(data[key], kind):
            raise ValueError(f"{path}: {key} must be {kind}, got {_shown(data[key])}")
    return data


@dataclass
class Cross:
    """Head to head of two bots: games at one table, and the first one's score (ranked before
    the other 1, the same rank 1/2)."""

    games: int = 0
    score: float = 0.0


class TournamentStats(MatchStats):
    """:class:`MatchStats` plus what an event shows: the crosstable (every pair's head-to-head
    record at shared tables) and live Plackett–Luce ratings (in the order games finish; the
    final ones, :meth:`ratings`, follow the schedule)."""

    def __init__(self, bots: Sequence[tuple[str, str]], *, seats: int, group: int = 1,
                 lower_is_better: bool | None = None) -> None:
        super().__init__(bots, group=group, seats=seats, lower_is_better=lower_is_better)
        n = len(self.bots)
        self.cross = [[Cross() for _ in range(n)] for _ in range(n)]
        self.live = Ratings([b.name for b in self.bots])

    @property
    def wants_ratings(self) -> bool:
        return True

    def add_game(self, seat_bots: Sequence[int], points: Sequence[float], forfeits: Sequence[tuple[int, str]],
                 scores: Sequence[float] = (), **kw: Any) -> None:
        super().add_game(seat_bots, points, forfeits, scores, **kw)
        bots, ranks = rank_bots(seat_bots, points, scores, self.lower_is_better)
        for i, a in enumerate(bots):
            for j, b in enumerate(bots):
                if a != b:
                    c = self.cross[a][b]
                    c.games += 1
                    c.score += 1.0 if ranks[i] < ranks[j] else 0.5 if ranks[i] == ranks[j] else 0.0
        self.live.add(seat_bots, points, scores, self.lower_is_better)

    def standings(self, final: bool = True) -> list[dict[str, Any]]:
        """Per bot, best first (by ordinal): its totals (:meth:`BotTotals.to_data`) and rating
        (``mu``, ``sigma``, ``ordinal``, ``elo``... of :mod:`quinze_cli.stats.ratings`); ``final``
        False uses the live ratings (cheap, for the display)."""
        ratings = (self.ratings() if final else self.live.to_data()) or []
        rows = []
        for b, r in zip(self.bots, ratings):
            rows.append({**b.to_data(), "rating": {k: v for k, v in r.items() if k != "name"}})
        return sorted(rows, key=lambda row: -row["rating"]["ordinal"])

    def crosstable(self) -> list[dict[str, Any]]:
        """Per bot: ``{"name", "against": {other: {"games", "score"}}}`` (score: points per
        head-to-head game, 0..1), only the pairs that shared a table."""
        out = []
        for i, b in enumerate(self.bots):
            against = {self.bots[j].name: {"games": c.games, "score": round(c.score / c.games, 6)}
                       for j, c in enumerate(self.cross[i]) if j != i and c.games}
            out.append({"name": b.name, "against": against})
        return out


@dataclass
class EventSettings:
    """What decides an event's games (the journal keeps it; a resume must match it)."""

    game: str
    format: str
    bots: list[dict[str, Any]]
    seats: int
    options: dict[str, Any]
    duplicate: bool
    seed: int
    per_pairing: int | None
    rounds: int | None
    move_time: float | None
    games: int
    extra: dict[str, Any] = field(default_factory=dict)

    def to_data(self) -> dict[str, Any]:
        return {"game": self.game, "format": self.format, "bots": self.bots, "seats": self.seats,
                "options": self.options, "duplicate": self.duplicate, "seed": self.seed,
                "games_per_pairing": self.per_pairing, "rounds": self.rounds, "move_time": self.move_time,
                "games": self.games, **self.extra}


def bot_settings(specs: Sequence[BotSpec], times: Sequence[float | None]) -> list[dict[str, Any]]:
    """The bots as journal data: name, command, own move time."""
    return [{"name": s.name, "cmd": s.spec, "movetime": t} for s, t in zip(specs, times)]
