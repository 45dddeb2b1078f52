"""``quinze replay LOG``: a logged game told turn by turn, checked, or printed as JSON.

    quinze replay logs/match-20261129T170756Z.jsonl              # every game, the whole table
    quinze replay match.jsonl --game 3 --seat 1                   # game 3 as seat 1 saw it
    quinze replay logs/t1.jsonl --seat Ana                        # as the player Ana saw it
    quinze replay match.jsonl --verify                            # re-simulate every game
    quinze replay match.jsonl --game 2 --json                     # game 2 as JSON

The log format is PROTOCOL.md "Replay log" (read with :func:`quinze_protocol.replaylog.read_log`).
Games are numbered by their order in the file, from 1 (``--game``). Told for the whole table,
every private part of every event is shown; with ``--seat S`` (a number or a player's name) only the public parts and seat S's
own private parts (:meth:`quinze_protocol.game.Event.for_seat`), so it shows what S knew.

``--verify`` re-simulates each game from its seed and actions (:func:`quinze_protocol.replaysim.verify`):
a line per game ``game N: verified (commitment ok, K actions)``, or the first divergence (line of
the file, what differs, expected and found), or ``CUT SHORT``, ``DAMAGED``, ``INCOMPLETE``, then a
summary line ``N/M verified`` (N: the whole games that re-simulate; then the games that
diverge, are damaged, cut short, incomplete or aborted); exit 1 unless every game verifies.
A game cut short (a record that is not JSON), damaged or incomplete is checked up to the cut
but never counted as verified; one aborted (the server stopped during it) is whole, checked up
to the abort, and counts. The title of a told game names the server run, the table
and the game number at that table.

A damaged log is read leniently: a truncated last record (a crash while writing) and other
problems are warnings on stderr, and the intact games still print and verify; a game cut short
is shown as far as it goes, marked incomplete. A missing file, or a file with no game in it:
``error: ...``, exit 1.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from quinze_protocol.game import GameError, get_game
from quinze_protocol.replaylog import LoggedGame, LogReadResult, read_log
from quinze_protocol.replaysim import verify
from quinze_cli.errors import EXIT_INTERRUPTED, fail, stderr
from quinze_cli.options import STDIO
from quinze_cli.narrate import Names, narrate_event, result_lines, seat_event

MAX_WARNINGS = 10
"""Problems of a damaged log shown one by one; the rest are counted."""
MAX_SHOWN = 300
"""Characters of an expected/found value shown for a divergence."""


def load(path: Path) -> tuple[list[LoggedGame], LogReadResult]:
    """Every game of the log at ``path`` (complete and cut short, in file order) and what
    :func:`read_log` found. Fails (exit 1) when the file cannot be read or holds no game."""
    try:
        data = sys.stdin.buffer.read() if str(path) == STDIO else path.read_bytes()
    except FileNotFoundError:
        fail(f"{path}: no such file")
    except IsADirectoryError:
        fail(f"{path}: is a directory, not a replay log")
    except OSError as err:
        fail(f"{path}: cannot read it ({err.strerror or err})")
    found = read_log(data)
    games = sorted(found.games + found.partial, key=lambda g: g.lines[0] if g.lines else 0)
    if not games:
        why = found.problems[0] if found.problems else "the file is empty"
        fail(f"{path}: not a replay log (no game found; {why})")
    return games, found


def warn_problems(found: LogReadResult) -> None:
    """Each problem of the log as a ``warning:`` line on stderr (at most :data:`MAX_WARNINGS`)."""
    for problem in found.problems[:MAX_WARNINGS]:
        stderr.print(Text.assemble(("warning: ", "bold yellow"), problem))
    if len(found.problems) > MAX_WARNINGS:
        stderr.print(Text.assemble(("warning: ", "bold yellow"), f"... and {len(found.problems) - MAX_WARNINGS} more problems"))


def seat_count(game: LoggedGame) -> int | None:
    """Number of seats of a logged game (from its header), None if the header does not say."""
    players = game.header.get("players")
    if isinstance(players, list):
        return len(players)
    options = game.header.get("options")
    n = options.get("players") if isinstance(options, dict) else None
    return n if isinstance(n, int) else None


def seat_of(text: str, number: int, game: LoggedGame) -> int:
    """The seat ``--seat`` names in game ``number``: a number, or a player's name (as in the
    header's ``players``). Exits with a usage error naming the seats when it names none."""
    players = game.header.get("players")
    names = [str(p) for p in players] if isinstance(players, list) else []
    n = seat_count(game)
    if text.strip().isdigit():
        seat = int(text)
        if n is not None and not 0 <= seat < n:
            fail(f"--seat: game {number} has seats 0..{n - 1}, got {seat}")
        return seat
    if names.count(text) == 1:
        return names.index(text)
    known = ", ".join(f"{i} {name}" for i, name in enumerate(names)) or "none named"
    if names.count(text) > 1:
        fail(f"--seat: {text!r} sits in several seats of game {number} ({known}): give the number")
    fail(f"--seat: game {number} has no player {text!r} (seats: {known})")


def game_title(game_id: Any) -> str:
    """``"Le Quinze (quinze)"``, or the id alone for a game this program does not know."""
    try:
        return f"{get_game(str(game_id)).title} ({game_id})"
    except GameError:
        return str(game_id)


def short(value: Any) -> str:
    """A value as compact JSON, cut at :data:`MAX_SHOWN` characters."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."


# --------------------------------------------------------------------------- the three outputs


def verify_games(selected: list[tuple[int, LoggedGame]], as_json: bool, out: Console) -> int:
    """Re-simulate each game; print a line per game as it is checked (or JSON at the end), then
    the summary. Returns the exit code: 1 if any game diverges, is cut short or has no result
    record (a log cut by a crash is never "all verified"), else 0 (a game aborted by a server stop,
    so recorded, counts as checked); Ctrl-C stops it with the summary of the games checked so
    far and a line on stderr saying how many of how many, exit 130."""
    reports: list[tuple[int, LoggedGame, Any]] = []
    interrupted = False
    try:
        for number, game in selected:
            divergence = verify(game)
            reports.append((number, game, divergence))
            if not as_json:
                _print_report(out, number, game, divergence)
    except KeyboardInterrupt:
        interrupted = True
    if as_json:
        typer.echo(json.dumps([_report_json(*r) for r in reports], ensure_ascii=False, default=str))
    else:
        out.print(summary_line(reports))
    if interrupted:
        stderr.print(f"interrupted after {len(reports)} of {len(selected)} game(s) checked; the rest were not verified",
                     soft_wrap=True, highlight=False)
        return EXIT_INTERRUPTED
    return 0 if all(_verified(g, d) for _, g, d in reports) else 1


def _report_json(number: int, game: LoggedGame, divergence: Any) -> dict[str, Any]:
    return {
        "game": number,
        "verified": _verified(game, divergence),
        "complete": game.complete,
        "aborted": game.aborted,
        "cut": game.cut,
        "damaged": game.damaged,
        "actions": len(game.actions),
        "divergence": None if divergence is None else {
            "line": divergence.line, "index": divergence.index, "what": divergence.what,
            "reason": divergence.reason, "expected": divergence.expected, "found": divergence.found,
        },
    }


def _print_report(out: Console, number: int, game: LoggedGame, divergence: Any) -> None:
    """The line (or lines, at a divergence) of one checked game."""
    if divergence is None and game.damaged is not None:
        out.print(Text.assemble((f"game {number}: ", "bold"), ("DAMAGED", "bold red"),
                                f" at line {game.damaged}: that record is not JSON and more of the game's "
                                "records follow it (the log was changed or corrupted, not cut by a crash); "
                                f"the {len(game.actions)} actions before it verify"))
    elif divergence is None and game.cut is not None:
        out.print(Text.assemble((f"game {number}: ", "bold"), ("CUT SHORT", "bold yellow"),
                                f" at line {game.cut} (that record is not JSON: a crash while writing?); "
                                f"the {len(game.actions)} actions before it verify"))
    elif divergence is None and not game.complete:
        out.print(Text.assemble((f"game {number}: ", "bold"), ("INCOMPLETE", "bold yellow"),
                                f": no result record; its {len(game.actions)} actions verify"))
    elif divergence is None:
        out.print(Text.assemble((f"game {number}: ", "bold"), ("verified", "green"),
                                f" (commitment ok, {len(game.actions)} actions{_how_far(game)})"))
    elif divergence.what == "rules-version":
        out.print(Text.assemble((f"game {number}: ", "bold"), ("not verified", "bold yellow"),
                                f": {divergence.reason}"))
    else:
        out.print(Text.assemble((f"game {number}: ", "bold"), ("DIVERGES", "bold red"), f" at {divergence}"))
        out.print(f"  expected: {short(divergence.expected)}")
        out.print(f"  found:    {short(divergence.found)}")


def _verified(game: LoggedGame, divergence: Any) -> bool:
    """A game counts as verified when it is whole (its result record there, nothing cut or
    damaged: a game aborted by a server stop is whole, recorded up to the abort) and every
    record re-simulates. A cut, damaged or incomplete game whose records so far re-simulate is
    checked, not verified."""
    return divergence is None and game.cut is None and game.damaged is None and game.complete


def _how_far(game: LoggedGame) -> str:
    """What a verified game's line adds: where an aborted game was checked up to."""
    if game.aborted is not None:
        return f"; aborted ({game.aborted}), checked up to the abort"
    return ""


def summary_line(reports: list[tuple[int, LoggedGame, Any]]) -> str:
    """The closing line of ``--verify``: ``"100/100 verified"`` (only the whole games that
    re-simulate count, see :func:`_verified`), then what diverged, was damaged, cut short, aborted
    or incomplete, e.g. ``"8/10 verified, 1 diverges; 1 cut short (checked up to the cut)"``."""
    total = len(reports)
    ok = sum(1 for _, g, d in reports if _verified(g, d))
    line = f"{ok}/{total} verified"
    diverging = sum(1 for _, _, d in reports if d is not None)
    if diverging:
        line += f", {diverging} diverge{'s' if diverging == 1 else ''}"
    notes = []
    damaged = sum(1 for _, g, d in reports if d is None and g.damaged is not None)
    cut = sum(1 for _, g, d in reports if d is None and g.cut is not None and g.damaged is None)
    aborted = sum(1 for _, g, d in reports if d is None and g.cut is None and g.aborted is not None)
    incomplete = sum(1 for _, g, d in reports if d is None and g.cut is None and not g.complete)
    if damaged:
        notes.append(f"{damaged} damaged (a record inside is not JSON; checked up to it)")
    if cut:
        notes.append(f"{cut} cut short (checked up to the cut)")
    if aborted:
        notes.append(f"{aborted} aborted (checked up to the abort)")
    if incomplete:
        notes.append(f"{incomplete} incomplete (checked as far as they go)")
    return line + ("; " + ", ".join(notes) if notes else "")


def game_json(number: int, game: LoggedGame, seat: int | None) -> dict[str, Any]:
    """One game as JSON data: ``{"game", "complete", "seat", "header", "records", "result"}``;
    ``records`` are the event and action records in order, each event as ``seat`` saw it when a
    seat is given (else in full)."""
    records = []
    for rec in game.records[1:]:
        if rec is game.result:
            continue
        if seat is not None and rec.get("record") == "event" and isinstance(rec.get("event"), dict):
            rec = {"record": "event", "event": seat_event(rec["event"], seat)}
        records.append(rec)
    return {"game": number, "complete": game.complete, "aborted": game.aborted, "cut": game.cut, "seat": seat,
            "header": game.header, "records": records, "result": game.result}


def tell_game(number: int, game: LoggedGame, seat: int | None, out: Console) -> None:
    """Print one game in words: header, every event (prefixed by the number of the action that
    caused it), the result."""
    h = game.header
    who = Names(h.get("players"), seat)
    game_id = str(h.get("game"))
    run = f"server run {h['run']}, " if h.get("run") is not None else ""
    title = f"Game {number}: {game_title(game_id)}, {run}table {h.get('table')} game {h.get('number')}"
    out.print(Rule(Text(title, style="bold")))
    raw_players, raw_options = h.get("players"), h.get("options")
    players: list[Any] = raw_players if isinstance(raw_players, list) else []
    out.print(Text("players: " + ", ".join(f"{s} {p}" for s, p in enumerate(players))))
    options: dict[str, Any] = raw_options if isinstance(raw_options, dict) else {}
    out.print(Text("options: " + ", ".join(f"{k}={v}" for k, v in options.items())))
    out.print(Text(f"seed {h.get('seed')}, started {h.get('started')}, {h.get('software')}", style="dim"))
    if seat is None:
        out.print(Text("seen by: the whole table (every hand)", style="italic"))
    else:
        out.print(Text(f"seen by: seat {seat}, {who(seat)}: its own cards only", style="italic"))
    action, fresh = 0, False
    for rec in game.records[1:]:
        kind = rec.get("record")
        if kind == "action":
            action, fresh = action + 1, True
            continue
        if kind != "event" or not isinstance(rec.get("event"), dict):
            continue
        section, lines = narrate_event(game_id, rec["event"], who, seat)
        if section:
            out.print()
        for i, line in enumerate(lines):
            # the number of the action goes on the first line it caused; automatic steps follow
            prefix = f"#{action:<4} " if fresh and i == 0 else "      "
            out.print(Text.assemble((prefix, "dim"), (line, "bold" if section and i == 0 else "")))
        fresh = False
    out.print()
    if game.cut is not None:
        out.print(Text(f"The log is cut short at line {game.cut}: the game is told up to there.", style="bold yellow"))
    for i, line in enumerate(result_lines(game.result, who)):
        out.print(Text(line, style="bold" if i == 0 else ""))
    out.print()


# --------------------------------------------------------------------------- the command


def register(app: typer.Typer) -> None:
    @app.command("replay")
    def replay(
        log: Annotated[Path, typer.Argument(help="A replay log (JSON Lines, as written by quinze serve or quinze match); - for standard input.", show_default=False)],
        game: Annotated[Optional[int], typer.Option("--game", help="Only game N of the file (1 = the first).")] = None,
        seat_arg: Annotated[Optional[str], typer.Option("--seat", metavar="N|NAME", help="Tell the game as seat N (or the player NAME) saw it (its own private cards only; its own actions 'You ...').")] = None,
        check: Annotated[bool, typer.Option("--verify", help="Re-simulate each game from its seed and actions; exit 1 at a divergence.")] = False,
        as_json: Annotated[bool, typer.Option("--json", help="Print the game(s) (or with --verify the checks) as JSON.")] = False,
        position: Annotated[bool, typer.Option("--position", help="Print the position (quinze legal format) at --at K, --deal D or --coup C.")] = False,
        at: Annotated[Optional[int], typer.Option("--at", help="With --position: before action K (from 1).")] = None,
        deal: Annotated[Optional[int], typer.Option("--deal", help="With --position: at the start of deal D (Le Quinze).")] = None,
        coup: Annotated[Optional[int], typer.Option("--coup", help="With --position: at the start of coup C (Le Quinze classique).")] = None,
        step: Annotated[bool, typer.Option("--step", help="Step through one game full screen (keys on screen); with --seat, start in that seat's view.")] = False,
    ) -> None:
        """Tell the games of a replay log turn by turn (whole table or one seat), verify them, or print them as JSON."""
        try:
            games, found = load(log)
        except KeyboardInterrupt:
            stderr.print(f"interrupted while reading {log}: no game {'verified' if check else 'shown'}",
                         soft_wrap=True, highlight=False)
            raise typer.Exit(EXIT_INTERRUPTED) from None
        warn_problems(found)
        selected = list(enumerate(games, 1))
        if game is not None:
            if not 1 <= game <= len(games):
                fail(f"--game: the log holds {len(games)} game(s), so N must be 1..{len(games)}, got {game}")
            selected = [selected[game - 1]]
        seats = {number: seat_of(seat_arg, number, g) for number, g in selected} if seat_arg is not None else {}
        seat = next(iter(seats.values()), None)
        if len(set(seats.values())) > 1:  # NAME sits in different seats: each game told from its own
            if position or step or as_json:
                fail(f"--seat: {seat_arg!r} sits in different seats in these games: give --game N")
        if position or step or at is not None or deal is not None or coup is not None:
            from quinze_cli.replay_tools import position_or_step

            raise typer.Exit(position_or_step(selected, position=position, step=step, at=at, deal=deal, coup=coup, seat=seat))
        out = Console(highlight=False, soft_wrap=True)
        if check:
            raise typer.Exit(verify_games(selected, as_json, out))
        if as_json:
            typer.echo(json.dumps([game_json(number, g, seat) for number, g in selected], ensure_ascii=False))
            return
        for number, g in selected:
            tell_game(number, g, seats.get(number), out)
