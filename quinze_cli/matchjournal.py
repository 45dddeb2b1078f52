"""The journal of ``quinze match`` (:mod:`quinze_cli.journal`, kind ``match``) and its resume.

The journal of ``<log-dir>/match-<time>.jsonl`` is ``<log-dir>/match-<time>.journal`` (not
``.jsonl``: no tool takes it for a log), made with the first finished game: the settings that decide the games (game, bots, games, seed, table options, duplicate, move
time, SPRT), then one line per finished game, fsynced after the game's records. ``quinze match
--resume LOG`` (the log or its journal) plays only the missing games of the same schedule and
appends them to the same log; the totals, Elo and ratings are then exactly an uninterrupted
run's (an SPRT goes on until it decides).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from quinze_cli.journal import Journal, JournalError, resume_games
from quinze_cli.matchrun import GameReport, MatchConfig
from quinze_cli.positions import positions_digest
from quinze_cli.stats import MatchStats

__all__ = ["game_entry", "journal_path", "log_path_of", "match_settings", "open_resume", "replay_entries"]

SUFFIX = ".journal"


def journal_path(log: Path) -> Path:
    """``match-X.jsonl`` -> ``match-X.journal``."""
    return log.with_name(log.name[: -len(".jsonl")] + SUFFIX if log.name.endswith(".jsonl") else log.name + SUFFIX)


def log_path_of(path: Path) -> Path:
    """The match log a ``--resume`` path names: the log itself or its journal."""
    if path.name.endswith(SUFFIX):
        return path.with_name(path.name[: -len(SUFFIX)] + ".jsonl")
    return path


def match_settings(config: MatchConfig) -> dict[str, Any]:
    """What decides a match's games, as journal data."""
    return {
        "game": config.game, "bots": [b.spec for b in config.bots], "games": config.games, "seed": config.seed,
        "options": dict(config.options), "duplicate": config.duplicate, "move_time": config.move_time,
        "sprt": config.sprt.text() if config.sprt is not None else None,
        "positions": positions_digest(list(config.positions)) if config.positions else None,
    }


def game_entry(report: GameReport) -> dict[str, Any]:
    """A finished game as a journal line."""
    result = report.game_over.result
    return {
        "index": report.plan.index, "seed": report.plan.seed, "seat_bots": list(report.plan.seat_bots),
        "points": result.get("points", []), "scores": result.get("scores", []), "reason": result.get("reason"),
        "forfeits": [[b, f.kind] for b, f in report.failures if f.forfeit],
        "failures": [{"bot": b, **f.to_data()} for b, f in report.failures],
        "think": [list(t) for t in report.think],
    }


def replay_entries(stats: MatchStats, entries: list[dict[str, Any]]) -> set[int]:
    """Count the journal's games into ``stats`` in schedule order; their indices."""
    done: set[int] = set()
    for e in sorted(entries, key=lambda e: e["index"]):
        stats.add_game(e["seat_bots"], e["points"], [tuple(f) for f in e["forfeits"]], e["scores"],
                       index=e["index"], deal=e["seed"], think=[tuple(t) for t in e.get("think", [])],
                       reason=e.get("reason"))
        done.add(e["index"])
    return done


def open_resume(path: Path) -> tuple[Journal, Path]:
    """The journal of the match named by ``path`` (log or journal) and its log. Raises
    :class:`JournalError`."""
    log = log_path_of(path)
    journal = Journal.resume(journal_path(log), "match")
    return journal, log


def cut_log(log: Path, journal: Journal, names: list[str]) -> int:
    """:func:`quinze_cli.journal.resume_games`: the log and the journal cut back to the games the
    log holds complete and verified; the games dropped from the log."""
    return resume_games(log, journal, names)


__all__ += ["JournalError", "cut_log"]
