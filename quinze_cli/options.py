"""Options read the same way by every command (match, bot, selfplay, play, replay).

- ``--option KEY=VALUE`` pairs: values stay text here; each game's option specs convert and check
  them (:meth:`quinze_protocol.game.Game.validate_options`);
- ``--seed``: one rule everywhere (:func:`check_seed`): 0 .. 2**63-1, the seeds the server draws,
  the later games' seeds (game i uses seed + i) included;
- ``--move-time``: positive, finite seconds, at most the protocol's limit (:func:`check_move_time`);
  other durations (``serve --thinking-long``): positive, finite seconds (:func:`check_seconds`);
- counts (``--max-restarts``, ``--shard-size``, ``--games-per-pairing``...): at least their least
  value (:func:`check_at_least`); ``--seat``: a seat the protocol carries, 0 .. 255 (:func:`check_seat`);
- a file name ``-`` means standard output (or standard input for a file that is read);
- an output file (``--json FILE``) is checked writable before anything is played (:func:`check_writable`);
- a text file the user gives (``--positions``, ``--config``, ``quinze legal POSITION``) is read by
  :func:`read_text_file`: UTF-8, the file's name in every error.
"""

from __future__ import annotations

import math
import os
import secrets
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from quinze_protocol.fields import MAX_MOVE_TIME, SEAT_MAX
from quinze_protocol.rng import SEED_MAX
from quinze_cli.errors import EXIT_USAGE, fail

__all__ = ["SEED_MAX", "STDIO", "check_at_least", "check_last_seed", "check_move_time", "check_seat", "check_seconds",
           "check_seed", "check_writable", "fresh_seed", "read_text_file", "games_problem", "option_pairs", "parse_option_pairs", "seed_problem"]

FRESH_SEEDS = 2**31
"""A match or tournament given no ``--seed`` draws its first seed below this (short enough to
read back and type, far enough below :data:`SEED_MAX` for any number of games)."""
STDIO = "-"
"""A file name meaning standard output (or standard input for a file that is read)."""


def seed_problem(seed: int, games: int = 1, option: str = "--seed") -> str | None:
    """Why ``seed`` cannot seed ``games`` games (game i uses ``seed + i``), or None when it can."""
    if 0 <= seed and seed + games - 1 <= SEED_MAX:
        return None
    if games - 1 > SEED_MAX:  # the count alone is out of range, whatever the seed
        return games_problem(games)
    later = f", less the {games - 1} later games (game i uses {option} + i)" if games > 1 and seed >= 0 else ""
    return f"{option} must be in 0 .. 2**63-1 ({SEED_MAX}), the seeds the server draws{later}; got {seed}"


def games_problem(games: int) -> str | None:
    """Why ``games`` games cannot all have a seed (game i uses seed + i, seeds 0 .. 2**63-1), or None."""
    if games - 1 <= SEED_MAX:
        return None
    return f"--games must be at most 2**63 ({SEED_MAX + 1}), one seed per game; got {games}"


def fresh_seed() -> int:
    """A first seed for a match or tournament given none: uniform in 0 .. :data:`FRESH_SEEDS` - 1."""
    return secrets.randbelow(FRESH_SEEDS)


def check_seed(seed: int | None, games: int = 1, option: str = "--seed") -> None:
    """:func:`seed_problem` for a command: a seed out of range ends it with exit 2 (None passes)."""
    if seed is not None:
        problem = seed_problem(seed, games, option)
        if problem is not None:
            fail(problem, EXIT_USAGE)


def check_last_seed(seed: int, last: int, games: int, rule: str = "game i uses --seed + i") -> None:
    """Exit 2 when the last seed a schedule of ``games`` games uses (``last``) is past
    :data:`SEED_MAX`; ``rule`` says how the games' seeds follow from ``--seed`` (``match``, and
    ``tournament`` with its deals)."""
    if last > SEED_MAX:
        fail(f"--seed {seed} with {games} games goes past the largest seed 2**63-1 ({SEED_MAX}): {rule}", EXIT_USAGE)


def check_at_least(value: int | None, option: str, least: int) -> None:
    """A count below ``least`` (``--max-restarts -1``, ``--shard-size 0``) ends the command with
    exit 2, ``OPTION must be at least LEAST, got VALUE``, before anything starts (None passes:
    the default)."""
    if value is not None and value < least:
        fail(f"{option} must be at least {least}, got {value}", EXIT_USAGE)


def check_seat(seat: int | None, option: str = "--seat") -> None:
    """A seat number must be one the protocol carries, 0 .. :data:`SEAT_MAX` (255: a ``join``'s
    ``seat``, PROTOCOL.md), else exit 2 before any connection (None passes: the first free seat).
    A seat the table does not have is the server's to refuse."""
    if seat is not None and not 0 <= seat <= SEAT_MAX:
        fail(f"{option} must be in 0 .. {SEAT_MAX} (the seat numbers of the protocol), got {seat}", EXIT_USAGE)


def check_move_time(value: float | None, option: str = "--move-time") -> None:
    """A time per decision must be positive, finite seconds, at most the protocol's
    ``MAX_MOVE_TIME`` (86400: PROTOCOL.md, "Clocks"), which a server refuses beyond: else exit 2
    naming ``option``, before any server or bot is started (None passes: the server's default)."""
    if value is not None:
        check_seconds(value, option, MAX_MOVE_TIME)


def check_seconds(value: float, option: str, most: float | None = None) -> None:
    """A duration must be positive, finite seconds (at most ``most`` when given): else exit 2
    naming ``option`` (``--thinking-long 0``, ``servers --timeout 61``), before anything starts."""
    if not (value > 0 and math.isfinite(value) and (most is None or value <= most)):
        bound = "" if most is None else f", at most {most:g}"
        fail(f"{option} must be positive, finite seconds{bound}, got {value:g}", EXIT_USAGE)


def parse_option_pairs(pairs: Sequence[str]) -> dict[str, str]:
    """``["target=50", "quick_place=true"]`` as ``{"target": "50", "quick_place": "true"}``.

    Raises ``ValueError`` naming the pair without ``=`` or with an empty key, or a key given twice.
    """
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ValueError(f"--option {pair!r}: expected KEY=VALUE")
        if key in out:
            raise ValueError(f"--option {key} given twice")
        out[key] = value.strip()
    return out


def option_pairs(pairs: Sequence[str] | None) -> dict[str, str]:
    """:func:`parse_option_pairs` for a command: a bad pair ends the command with exit 2."""
    try:
        return parse_option_pairs(pairs or [])
    except ValueError as err:
        fail(str(err), EXIT_USAGE)


def check_writable(path: Path, option: str) -> None:
    """Exit 1 (before any game) unless ``path`` can be written: an existing directory to hold
    it, and the file itself writable when it exists. Nothing is created."""
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        fail(f"{option} {path}: is a directory")
    if not parent.is_dir():
        fail(f"{option} {path}: no such directory {parent}")
    if not os.access(parent, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        fail(f"{option} {path}: not writable")


def read_text_file(path: Path) -> str:
    """The text of ``path``, a file the user named (``-``: standard input), as UTF-8. Raises
    ``ValueError`` naming the file: "cannot read FILE: REASON" (missing, a directory, no access)
    or "FILE is not UTF-8 text" (a binary file, another encoding); ``<stdin>`` for ``-``."""
    if str(path) == STDIO:
        try:
            return sys.stdin.buffer.read().decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("<stdin> is not UTF-8 text") from None
    try:
        return path.read_text(encoding="utf-8")
    except OSError as err:
        raise ValueError(f"cannot read {path}: {err.strerror or err}") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not UTF-8 text") from None


def check_log_dir(path: Path, option: str = "--log-dir") -> None:
    """Exit 2 (a usage error, before any game) unless ``path`` is a directory that files can be
    written in, or one that can be made. Probed for real (root passes every access test): a
    temporary file in it, the missing directories made and removed again, so nothing is left."""
    made: list[Path] = []
    try:
        if path.exists() and not path.is_dir():
            fail(f"{option} {path}: not a directory", EXIT_USAGE)
        missing = [p for p in (path, *path.parents) if not p.exists()]
        for p in reversed(missing):
            p.mkdir()
            made.append(p)
        fd, probe = tempfile.mkstemp(dir=path, prefix=".quinze-probe-")
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        fail(f"{option} {path}: cannot write there ({e.strerror or e})", EXIT_USAGE)
    finally:
        for p in reversed(made):
            try:
                p.rmdir()
            except OSError:
                pass
