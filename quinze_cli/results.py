"""The results tables of ``quinze match`` and ``quinze tournament`` (rich), from
:class:`quinze_cli.stats.MatchStats`.

The per-bot table leaves out the columns that would only repeat another: Wins and Win rate when
every bot's wins equal its points (no shared point: always so with two seats), since Win rate
then equals Score. A caption says what the game's own score column means and which way is better.
Numbers are never cut: see :func:`print_table`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table

from quinze_protocol.game import GameError, get_game
from quinze_cli.stats import BotTotals, MatchStats

__all__ = ["elo_line", "game_score_text", "lower_is_better", "score_label", "print_results", "print_table", "ratings_table",
           "results_table"]

def _score(game: str) -> tuple[str, str, str, bool | None]:
    """``(label, "sum" | "mean", meaning, lower_is_better)`` of ``game``'s own score, from the game
    class (``Game.score_label``, ``score_aggregate``, ``score_meaning``, ``lower_is_better``); the
    interface's defaults for a game this program does not know."""
    try:
        cls = get_game(game)
    except GameError:
        from quinze_protocol.game import Game as cls
    return cls.score_label, cls.score_aggregate, cls.score_meaning, cls.lower_is_better


def lower_is_better(game: str) -> bool | None:
    """Whether a lower game score is better in ``game`` (None: neither, or an unknown game)."""
    return _score(game)[3]


def score_label(game: str) -> str:
    """The header of ``game``'s own score column (``"Mean total"``, ``"Chips"``...)."""
    return _score(game)[0]


def game_score_text(game: str, total: float | None, mean: float | None, scored: int | None = None,
                    games: int | None = None) -> str:
    """A bot's game score as the game aggregates it: the sum (``+12``) or the mean (``47.5``),
    over its ``scored`` games (those ended without a forfeit, :class:`quinze_cli.stats.BotTotals`);
    when that is fewer than its ``games``, it says so: ``47.5 (3 of 4)``; over no game it is
    no figure: ``- (0 of 4)``, ``- (0 of 0)`` before any game (``total``/``mean`` None there)."""
    if scored == 0 or total is None or mean is None:
        return f"- (0 of {games or 0})"
    text = f"{total:+g}" if _score(game)[1] == "sum" else f"{mean:.1f}"
    if scored is not None and games is not None and scored < games:
        text += f" ({scored} of {games})"
    return text


def _game_score(game: str, b: BotTotals) -> str:
    return game_score_text(game, b.game_score, b.game_score_mean, b.scored_games, b.games)


def score_caption(game: str) -> str:
    """``"Score: points per game, higher is better. Mean total: the mean match total per game,
    lower is better."``"""
    label, _, meaning, lower = _score(game)
    sense = "" if lower is None else (", lower is better" if lower else ", higher is better")
    return (f"Score: points per game, higher is better. {label}: {meaning}{sense}, over the games that "
            "ended without a forfeit (\"2 of 6\": 2 of the bot's 6 games did).")


def _figure(value: float | None, form: str) -> str:
    """``value`` in ``form``; ``-`` for no figure (a rate over no game)."""
    return "-" if value is None else form.format(value)


def _repeats_wins(stats: MatchStats) -> bool:
    return all(abs(b.wins - b.points) < 1e-9 for b in stats.bots)


def _rows(stats: MatchStats, game: str) -> tuple[list[str], list[tuple[str, ...]]]:
    label = score_label(game)
    drop = _repeats_wins(stats)
    cols = ["Bot", "Games"] + ([] if drop else ["Wins"]) + ["Points"] + ([] if drop else ["Win rate"]) + \
        ["Score", label, "Forfeits"]
    rows = []
    for b in stats.bots:
        forfeits = ", ".join(f"{k} {n}" for k, n in sorted(b.forfeits.items())) or "-"
        cells = {"Bot": b.name, "Games": str(b.games), "Wins": str(b.wins), "Points": f"{b.points:g}",
                 "Win rate": _figure(b.win_rate, "{:.1%}"), "Score": _figure(b.score, "{:.3f}"), label: _game_score(game, b),
                 "Forfeits": forfeits}
        rows.append(tuple(cells[c] for c in cols))
    return cols, rows


def make_table(title: str, cols: Sequence[str], rows: Sequence[Sequence[str]], *, left: Sequence[str] = (),
               caption: str | None = None) -> Table:
    """A table whose number columns are at least as wide as their widest cell (never "0.…");
    on a narrow screen the headers and the ``left`` (text) columns fold instead."""
    table = Table(title=title, caption=caption, caption_justify="left")
    for i, col in enumerate(cols):
        if col in left:
            table.add_column(col, justify="left", overflow="fold", min_width=4)
        else:
            widest = max((len(r[i]) for r in rows), default=1)
            table.add_column(col, justify="right", overflow="fold", min_width=widest)
    for row in rows:
        table.add_row(*row)
    return table


def results_table(stats: MatchStats, game: str = "quinze") -> Table:
    """The per-bot table printed at the end of a match (see the module docstring)."""
    cols, rows = _rows(stats, game)
    return make_table("Match results", cols, rows, left=("Bot", "Forfeits"), caption=score_caption(game))


def print_table(out: Console, table: Table, lines: Sequence[str] = ()) -> None:
    """Print ``table`` whole, never a number cut: as it is when it fits; not to a terminal (a
    pipe, a file) at its natural width, however narrow ``COLUMNS`` says the screen is; to a
    terminal too narrow for it, ``lines`` instead (one per row, wrapped between words)."""
    natural = Measurement.get(out, out.options.update_width(10_000), table).maximum
    if natural <= out.width or (out.is_terminal and not lines):
        out.print(table)
    elif not out.is_terminal:
        width = out.width
        out.width = natural
        try:
            out.print(table)
        finally:
            out.width = width
    else:
        if table.title:
            out.print(str(table.title), style="italic")
        for line in lines:
            out.print(line, highlight=False)
        if table.caption:
            out.print(str(table.caption), highlight=False)


def print_results(out: Console, stats: MatchStats, game: str = "quinze") -> None:
    """Print the per-bot results (:func:`results_table`, through :func:`print_table`; on a
    narrow terminal one line per bot)."""
    cols, rows = _rows(stats, game)
    lines = [f"{row[0]}: " + ", ".join(f"{c.lower()} {v if v != '-' else 'none'}" for c, v in zip(cols[1:], row[1:]))
             for row in rows]
    print_table(out, results_table(stats, game), lines)


def elo_line(stats: MatchStats) -> str | None:
    """``"Elo: a - b = +35.2 (95%: -10.0 .. +80.1) over 40 games, score 0.550"`` (pairs:
    ``over 20 pairs (40 games)``, with the pentanomial counts), or None (not two bots)."""
    elo = stats.elo()
    if elo is None:
        return None
    if elo["units"] == 0:
        return f"Elo: {elo['bot']} - {elo['versus']}: no complete {elo['unit']} played"
    over = f"over {elo['games']} games" if elo["unit"] == "game" else \
        f"over {elo['units']} {elo['unit']}s ({elo['games']} games)"
    text = (f"Elo: {elo['bot']} - {elo['versus']} = {elo['difference']:+.1f} "
            f"(95%: {elo['low']:+.1f} .. {elo['high']:+.1f}) {over}, score {elo['score']:.3f}")
    if elo.get("pentanomial"):
        text += " [LL, LD, DD+WL, WD, WW] " + str(elo["pentanomial"]).replace(" ", "")
    return text


def ratings_table(ratings: Sequence[dict[str, Any]], *, title: str = "Ratings (Plackett–Luce)") -> Table:
    """Per bot: rating ``mu ± sigma``, ordinal ``mu - 3 sigma``, Elo difference to the reference
    bot with its 95% interval (:mod:`quinze_cli.stats.ratings`), sorted by ordinal."""
    ordered = sorted(ratings, key=lambda r: -r["ordinal"])
    ref = ratings[0]["reference"] if ratings else ""
    rows = [(r["name"], f"{r['mu']:.2f} ± {r['sigma']:.2f}", f"{r['ordinal']:.2f}",
             "0 (reference)" if r["name"] == ref else f"{r['elo']:+.0f} ({r['elo_low']:+.0f} .. {r['elo_high']:+.0f})")
            for r in ordered]
    return make_table(title, ["Bot", "Rating", "Ordinal", f"Elo vs {ref}"], rows, left=("Bot",),
                      caption="Ordinal = rating - 3 × uncertainty (higher is better); Elo with a 95% interval.")
