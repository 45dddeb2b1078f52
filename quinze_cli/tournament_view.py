"""What ``quinze tournament`` shows: the live and final standings, the crosstable, forfeits and
time per bot, and the same as JSON (:func:`event_data`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from quinze_protocol.fields import FORFEIT_KINDS
from quinze_cli.results import game_score_text, make_table, print_table, score_label
from quinze_cli.schedule import Schedule, evenness
from quinze_cli.tournament import EventSettings, TournamentStats

__all__ = ["event_data", "print_summary", "standings_table"]


def _game_score(game: str, row: dict[str, Any]) -> str:
    return game_score_text(game, row["game_score"], row["game_score_mean"], row.get("scored_games"), row["games"])


def standings_table(stats: TournamentStats, *, final: bool = True, top: int | None = None,
                    game: str = "quinze") -> Table:
    """Standings, best first by ordinal: rank, bot, games, points, score, the game's own score,
    rating ± uncertainty, ordinal, Elo difference to the reference bot with its 95% interval.
    ``final`` False: the live ratings (games rated as they finished); ``top``: that many rows."""
    rows = stats.standings(final=final)
    shown = rows[:top] if top else rows
    label = score_label(game)
    ref = rows[0]["rating"]["reference"] if rows else ""
    cells = []
    for i, r in enumerate(shown, 1):
        rt = r["rating"]
        elo = "0 (ref.)" if r["name"] == ref else f"{rt['elo']:+.0f} ({rt['elo_low']:+.0f}..{rt['elo_high']:+.0f})"
        cells.append((str(i), r["name"], str(r["games"]), f"{r['points']:g}", "-" if r["score"] is None else f"{r['score']:.3f}",
                      _game_score(game, r), f"{rt['mu']:.1f} ± {rt['sigma']:.1f}", f"{rt['ordinal']:.1f}", elo))
    title = "Standings" if final else f"Standings after {stats.games} games"
    if top and len(rows) > top:
        title += f" (top {top} of {len(rows)})"
    return make_table(title, ["#", "Bot", "Games", "Points", "Score", label, "Rating", "Ordinal", f"Elo vs {ref}"],
                      cells, left=("Bot",))


def crosstable(stats: TournamentStats) -> Table:
    """Each bot's score against each other at shared tables (ranked before 1, same rank 1/2),
    with the games: ``0.625/16``; ``-`` for pairs that never met."""
    names = [b.name for b in stats.bots]
    short = [n[:8] for n in names]
    rows = []
    for i, n in enumerate(names):
        row = [n]
        for j in range(len(names)):
            c = stats.cross[i][j]
            row.append("" if i == j else "-" if not c.games else f"{c.score / c.games:.2f}/{c.games}")
        rows.append(row)
    return make_table("Crosstable", ["Bot", *short], rows, left=("Bot",),
                      caption="score/games of the row's bot against the column's at shared tables")


def forfeits_and_time(stats: TournamentStats) -> Table:
    rows = []
    for b in stats.bots:
        d = b.to_data()
        t = d["time"]
        rows.append((b.name, *(str(b.forfeits.get(k, 0)) for k in FORFEIT_KINDS), str(t["moves"]),
                     f"{t['seconds']:.2f}", "-" if t["mean"] is None else f"{t['mean'] * 1000:.2f}",
                     f"{t['max'] * 1000:.1f}"))
    return make_table("Forfeits and time per bot", ["Bot", *FORFEIT_KINDS, "Moves", "Seconds", "Mean ms", "Max ms"],
                      rows, left=("Bot",))


def print_summary(out: Console, stats: TournamentStats, game: str, doc: dict[str, Any]) -> None:
    """The end of an event: standings, crosstable, forfeits and time, schedule evenness, log."""
    print_table(out, standings_table(stats, game=game))
    out.print("Rating: Plackett–Luce mu ± sigma; Ordinal = mu - 3 sigma (higher is better); "
              "Elo with a 95% interval.", highlight=False, soft_wrap=True)
    print_table(out, crosstable(stats))
    print_table(out, forfeits_and_time(stats))
    ev = doc["schedule"]
    out.print(f"schedule: games per bot {ev['games_per_bot'][0]}..{ev['games_per_bot'][1]}, per bot and seat "
              f"{ev['games_per_seat'][0]}..{ev['games_per_seat'][1]}, games shared by each pair "
              f"{ev['meetings_per_pair'][0]}..{ev['meetings_per_pair'][1]}", highlight=False, soft_wrap=True)
    out.print(f"log: {doc['log']}" if doc["log"] else "log: none (no game finished)", soft_wrap=True)


def event_data(settings: EventSettings, schedule: Schedule, stats: TournamentStats, event_dir: Path,
               failures: list[dict[str, Any]], log_problems: list[str], error: str | None,
               interrupted: bool) -> dict[str, Any]:
    """The ``--json`` document: the settings, the schedule's evenness, standings (totals, rating,
    forfeits, time), crosstable, failures, the directory and log. Every figure but ``time`` (wall
    clock) and the failures' table ids is the same for a resumed event as for an uninterrupted one."""
    log = event_dir / "games.jsonl"
    return {
        **settings.to_data(),
        "played": stats.games,
        "complete": stats.games == schedule.games and error is None and not interrupted,
        "interrupted": interrupted,
        "error": error,
        "schedule": {"tables": schedule.tables, "games_per_table": schedule.per_table,
                     **evenness(schedule, len(stats.bots))},
        "standings": stats.standings(final=True) if stats.games else [],
        "crosstable": stats.crosstable(),
        "failures": failures,
        "log_problems": log_problems,
        "dir": str(event_dir),
        "log": str(log) if log.exists() else None,
    }
