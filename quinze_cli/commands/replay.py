"""``quinze replay LOG``: a logged game told turn by turn, checked, or printed as JSON.

    quinze replay logs/match-20261129T170756Z.jsonl              # every game, the whole table
    quinze replay match.jsonl --game 3 --seat 1                   # game 3 as seat 1 saw it
    quinze replay logs/t1.jsonl --seat Ana                        # as the player Ana saw it
    quinze replay match.jsonl --verify                            # re-simulate every game
    quinze replay match.jsonl --game 2 --json                     # game 2 as JSON
    quinze replay match.jsonl --game 2 --lang fr                  # told in French

The log format is PROTOCOL.md "Replay log" (read a game at a time with :func:`quinze_protocol.replaylog.iter_log`).
Games are numbered by their order in the file, from 1 (``--game``). Told for the whole table,
every private part of every event is shown; with ``--seat S`` (a number or a player's name) only the public parts and seat S's
own private parts (:meth:`quinze_protocol.game.Event.for_seat`), so it shows what S knew.

``--verify`` re-simulates each game from its seed and actions (:func:`quinze_protocol.replaysim.verify`):
a line per game ``game N: verified (commitment ok, K actions)``, or the first divergence (line of
the file, what differs, expected and found), or ``CUT SHORT``, ``DAMAGED``, ``INCOMPLETE``, then a
summary line ``N/M verified`` (N: the whole games that re-simulate; then the games that
diverge, are damaged, cut short, incomplete or aborted); exit 1 unless every game verifies.
A game cut short (a record that is not JSON), damaged or incomplete is checked up to the cut
but never counted as verified, and its line says what was found (:func:`unfinished`: where the
log ends, after move N of game G, or that the next game's header follows) and the likely causes; one aborted (the server stopped during it) is whole, checked up
to the abort, and counts. The title of a told game names the server run, the table
and the game number at that table.

The game told in words and the ``--step`` viewer are in the language of ``--lang`` (else the
environment's, as for ``quinze play``: :func:`quinze_cli.i18n.choose_language`), worded from
``replay.*``, ``viewer.*`` and each game's narration texts in ``quinze_cli/locale/*.json``;
``--verify``, ``--json``, ``--position`` and the warnings are for programs and stay as they are.

A damaged log is read leniently: a truncated last record (a crash while writing) and other
problems are warnings on stderr, and the intact games still print and verify; a game cut short
is shown as far as it goes, marked incomplete. A missing file, or a file with no game in it:
``error: ...``, exit 1.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import stat
import sys
import threading
from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import Annotated, Any, BinaryIO, Optional

import typer
from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from quinze_protocol.game import GameError, get_game
from quinze_protocol.replaylog import FORMAT, LoggedGame, iter_log
from quinze_protocol.replaysim import verify
from quinze_cli.app import help_of
from quinze_cli.errors import EXIT_INTERRUPTED, EXIT_USAGE, fail, stderr
from quinze_cli.i18n import Catalogue, choose_language
from quinze_cli.options import STDIO
from quinze_cli.stdio import line_console
from quinze_cli.narrate import Names, narrate_event, result_lines, seat_event, start_lines

MAX_WARNINGS = 10
"""Problems of a damaged log shown one by one; the rest are counted."""
MAX_SHOWN = 300
"""Characters of an expected/found value shown for a divergence."""


def open_log(path: Path) -> BinaryIO:
    """The log at ``path`` (``-``: standard input) open for reading in bytes. Fails (exit 1) when
    it cannot be opened."""
    if str(path) == STDIO:
        return sys.stdin.buffer
    try:
        if path.is_dir():
            fail(f"{path}: is a directory, not a replay log")
        return path.open("rb")
    except FileNotFoundError:
        fail(f"{path}: no such file")
    except OSError as err:
        fail(f"{path}: cannot read it ({err.strerror or err})")


def stream(path: Path, source: BinaryIO) -> Iterator[tuple[int, LoggedGame]]:
    """``(number from 1, game)`` of each game of the log (complete and cut short, in file order),
    each as soon as it is read (:func:`iter_log`: only that game is held). The log's problems go
    to stderr as ``warning:`` lines as they are found (at most :data:`MAX_WARNINGS`, then a count
    at the end). Fails (exit 1) when the file cannot be read or, at its end, held no game."""
    problems: list[str] = []
    said = 0
    number = 0
    try:
        for number, game in enumerate(iter_log(source, problems), 1):
            said = warn_problems(problems, said)
            yield number, game
    except OSError as err:
        fail(f"{path}: cannot read it ({err.strerror or err})")
    if not number:
        why = problems[0] if problems else "the file is empty"
        fail(f"{path}: not a replay log (no game found; {why})")
    warn_problems(problems, said)
    if len(problems) > MAX_WARNINGS:
        stderr.print(Text.assemble(("warning: ", "bold yellow"), f"... and {len(problems) - MAX_WARNINGS} more problems"))


def warn_problems(problems: list[str], said: int) -> int:
    """Each problem of ``problems[said:]`` as a ``warning:`` line on stderr, up to the first
    :data:`MAX_WARNINGS` of the log; returns how many problems are now said or passed over."""
    for problem in problems[said:MAX_WARNINGS]:
        stderr.print(Text.assemble(("warning: ", "bold yellow"), problem))
    return len(problems)


HEADER_MARKS = (b'"record":"header"', b'"record": "header"')
"""How a header record reads in a log (:func:`dumps_records`, or JSON with spaces): counted by
:func:`games_in` without parsing."""


def games_in(source: BinaryIO) -> int | None:
    """How many game headers the file ``source`` holds, counted from its start by
    :data:`HEADER_MARKS` in 1 MiB reads (fast: no record is parsed), when it is a regular file;
    None for a pipe or a terminal, which is not read further."""
    try:
        if not stat.S_ISREG(os.fstat(source.fileno()).st_mode):
            return None
        source.seek(0)
        count, tail = 0, b""
        while chunk := source.read(1 << 20):
            data = tail + chunk
            count += sum(data.count(mark) for mark in HEADER_MARKS)
            tail = data[-(len(HEADER_MARKS[1]) - 1):]
            count -= sum(tail.count(mark) for mark in HEADER_MARKS)  # counted again with the next read
        return count + sum(tail.count(mark) for mark in HEADER_MARKS)
    except (OSError, ValueError):
        return None


def seat_count(game: LoggedGame) -> int | None:
    """Number of seats of a logged game (from its header), None if the header does not say."""
    players = game.header.get("players")
    if isinstance(players, list):
        return len(players)
    options = game.header.get("options")
    n = options.get("players") if isinstance(options, dict) else None
    return n if isinstance(n, int) else None


def seat_of(text: str, number: int, game: LoggedGame) -> int:
    """The seat ``--seat`` names in game ``number`` (:func:`find_seat`). Exits (1) with the
    reason, naming the seats, when it names none."""
    seat = find_seat(text, number, game)
    if isinstance(seat, str):
        fail(seat)
    return seat


def find_seat(text: str, number: int, game: LoggedGame) -> int | str:
    """The seat ``--seat`` names in game ``number``: a number, a player's name (as in the
    header's ``players``), or for a name in several seats ``NAME#N`` (N its seat: how the
    narration names them, :class:`quinze_cli.narrate.Names`); else why not, naming the seats and
    the forms (``"--seat: game 2 has no player ..."``)."""
    players = game.header.get("players")
    names = [str(p) for p in players] if isinstance(players, list) else []
    n = seat_count(game)
    if text.strip().isdecimal():
        seat = int(text)
        if n is not None and not 0 <= seat < n:
            return f"--seat: game {number} has seats 0..{n - 1}, got {seat}"
        return seat
    if names.count(text) == 1:
        return names.index(text)
    named = re.fullmatch(r"(.*)#(\d+)", text)
    if named and int(named[2]) < len(names) and names[int(named[2])] == named[1] and names.count(named[1]) > 1:
        return int(named[2])
    labels = Names(names).names
    known = ", ".join(f"{i} {name}" for i, name in enumerate(labels)) or "none named"
    forms = ": give a seat number, a name, or NAME#N for a name in several seats" if len(set(names)) < len(names) else ""
    if names.count(text) > 1:
        return (f"--seat: {text!r} sits in several seats of game {number} ({known}): give "
                + " or ".join(f"{text}#{i}" for i, name in enumerate(names) if name == text) + " (or the seat number)")
    return f"--seat: game {number} has no player {text!r} (seats: {known}){forms}"


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


def verify_games(selected: Iterable[tuple[int, LoggedGame]], as_json: bool, out: Console,
                 rest: BinaryIO | None = None) -> int:
    """Re-simulate each game as it is read; print a line per game as it is checked (or JSON at
    the end), then the summary. Returns the exit code: 1 if any game diverges, is cut short or has
    no result record (a log cut by a crash is never "all verified"), else 0 (a game aborted by a
    server stop, so recorded, counts as checked); Ctrl-C stops it with the summary of the games
    checked so far, which says it was interrupted (``"591/591 verified (interrupted: 591 of 3180
    games checked)"``; ``as_json``: the list ends with ``{"interrupted": true, "checked": 591,
    "games": 3180}``), and a line on stderr saying how many of how many (the games of ``rest``,
    the log being read, counted by :func:`games_in`; None when unknown), exit 130. Only the counts of the reports
    are kept, so memory holds one game (two with ``as_json``: the reports, not the games)."""
    tally = Tally()
    reports: list[dict[str, Any]] = []
    interrupted = False
    try:
        for number, game in selected:
            divergence = None if game.other_format is not None else verify(game)
            with _sigint_held():
                tally.add(game, divergence)
                if as_json:
                    reports.append(_report_json(number, game, divergence))
                else:
                    _print_report(out, number, game, divergence)
    except KeyboardInterrupt:
        interrupted = True
    total = games_in(rest) if interrupted and rest is not None else None
    of = f" of {total}" if total is not None else ""
    if as_json:
        if interrupted:  # a list that ends so is not taken for the whole log's
            reports.append({"interrupted": True, "checked": tally.total, "games": total})
        typer.echo(json.dumps(reports, ensure_ascii=False, default=str))
    else:
        out.print(tally.line() + (f" (interrupted: {tally.total}{of} games checked)" if interrupted else ""))
    if interrupted:
        stderr.print(f"interrupted after {tally.total}{of} game(s) checked; the rest were not verified",
                     soft_wrap=True, highlight=False)
        return EXIT_INTERRUPTED
    return 0 if tally.ok == tally.total else 1


@contextlib.contextmanager
def _sigint_held() -> Iterator[None]:
    """SIGINT blocked inside (in the main thread): a Ctrl-C arriving meanwhile raises
    ``KeyboardInterrupt`` as the block ends, so a game is counted and its line printed, or
    neither. Arriving inside rich's write it left the line in rich's buffer, which the summary
    then printed again (``game 1: verified`` three times, seen with a real SIGINT)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _report_json(number: int, game: LoggedGame, divergence: Any) -> dict[str, Any]:
    return {
        "game": number,
        "verified": _verified(game, divergence),
        "complete": game.complete,
        "aborted": game.aborted,
        "cut": game.cut,
        "damaged": game.damaged,
        "other_format": game.other_format,
        "actions": len(game.actions),
        "divergence": None if divergence is None else {
            "line": divergence.line, "index": divergence.index, "what": divergence.what,
            "reason": divergence.reason, "expected": divergence.expected, "found": divergence.found,
        },
    }


def _print_report(out: Console, number: int, game: LoggedGame, divergence: Any) -> None:
    """The line (or lines, at a divergence) of one checked game."""
    if game.other_format is not None:
        out.print(Text.assemble((f"game {number}: ", "bold"), ("not verified", "bold yellow"),
                                f": its header says log format {game.other_format!r}, and this program reads format "
                                f"{FORMAT} (another version of quinze wrote it); its records were not re-simulated"))
    elif divergence is None and game.damaged is not None:
        out.print(Text.assemble((f"game {number}: ", "bold"), ("DAMAGED", "bold red"),
                                f" at line {game.damaged}: that record is not JSON and more of the game's "
                                "records follow it (the log was changed or corrupted, not cut by a crash); "
                                f"the {len(game.actions)} actions before it verify"))
    elif divergence is None and game.cut is not None:
        out.print(Text.assemble((f"game {number}: ", "bold"), ("CUT SHORT", "bold yellow"),
                                f" at line {game.cut}: {unfinished(number, game)}; "
                                f"the {len(game.actions)} actions before it verify"))
    elif divergence is None and not game.complete:
        out.print(Text.assemble((f"game {number}: ", "bold"), ("INCOMPLETE", "bold yellow"),
                                f": {unfinished(number, game)}; its {len(game.actions)} actions verify"))
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


def unfinished(number: int, game: LoggedGame) -> str:
    """What was found where game ``number`` (its place in the file) lacks its result record, and
    the likely causes, in words: the file ends (or is cut mid-record, :attr:`LoggedGame.cut`) after
    its move N, or the next game's header follows move N (:attr:`LoggedGame.followed_by`: another
    run appended to the file)."""
    moves = len(game.actions)
    after = f"after move {moves} of game {number}" if moves else f"after the header of game {number}, before its first move"
    if game.followed_by is not None:
        found = (f"line {game.cut} is a record cut short (not JSON) {after}" if game.cut is not None
                 else f"the game's records stop {after} (line {game.lines[-1]})")
        return (f"{found}, and game {number + 1}'s header follows at line {game.followed_by} without game {number}'s "
                "end record: the run writing it stopped mid-game (a crash, a kill, a full disk) and a later run "
                "appended to the file")
    if game.cut is not None:
        return (f"the log ends there, {after}, without the game's end record: the file is incomplete; likely causes: "
                "the program writing it crashed or was killed while writing, the disk was full, or the file was "
                "cut or copied while being written")
    return (f"the log ends {after} (line {game.lines[-1]}) without the game's end record: the file is incomplete; "
            "likely causes: the program writing it crashed or was killed before the game ended, or the file was "
            "cut or copied while being written")


def _verified(game: LoggedGame, divergence: Any) -> bool:
    """A game counts as verified when it is whole (its result record there, its header of this
    program's log format :data:`FORMAT`, nothing cut or
    damaged: a game aborted by a server stop is whole, recorded up to the abort) and every
    record re-simulates. A cut, damaged or incomplete game whose records so far re-simulate is
    checked, not verified."""
    return divergence is None and game.cut is None and game.damaged is None and game.complete and game.other_format is None


def _how_far(game: LoggedGame) -> str:
    """What a verified game's line adds: where an aborted game was checked up to."""
    if game.aborted is not None:
        return f"; aborted ({game.aborted}), checked up to the abort"
    return ""


class Tally:
    """The counts of ``--verify``'s summary, kept as the games are checked (:meth:`add`)."""

    def __init__(self) -> None:
        self.total = self.ok = self.diverging = self.damaged = self.cut = self.aborted = self.incomplete = 0
        self.unread = 0

    def add(self, game: LoggedGame, divergence: Any) -> None:
        """Count one checked game (see :func:`_verified`)."""
        self.total += 1
        self.ok += _verified(game, divergence)
        if divergence is not None:
            self.diverging += 1
            return
        if game.other_format is not None:
            self.unread += 1
            return
        self.damaged += game.damaged is not None
        self.cut += game.cut is not None and game.damaged is None
        self.aborted += game.cut is None and game.aborted is not None
        self.incomplete += game.cut is None and not game.complete

    def line(self) -> str:
        """The closing line of ``--verify``: ``"100/100 verified"`` (only the whole games that
        re-simulate count, see :func:`_verified`), then what diverged, was damaged, cut short,
        aborted or incomplete, e.g. ``"8/10 verified, 1 diverges; 1 cut short (checked up to the cut)"``."""
        line = f"{self.ok}/{self.total} verified"
        if self.diverging:
            line += f", {self.diverging} diverge{'s' if self.diverging == 1 else ''}"
        notes = []
        if self.damaged:
            notes.append(f"{self.damaged} damaged (a record inside is not JSON; checked up to it)")
        if self.cut:
            notes.append(f"{self.cut} cut short (checked up to the cut)")
        if self.aborted:
            notes.append(f"{self.aborted} aborted (checked up to the abort)")
        if self.incomplete:
            notes.append(f"{self.incomplete} incomplete (checked as far as they go)")
        if self.unread:
            notes.append(f"{self.unread} of another log format (not re-simulated)")
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
    return {"game": number, "complete": game.complete, "aborted": game.aborted, "cut": game.cut, "damaged": game.damaged, "seat": seat,
            "header": game.header, "records": records, "result": game.result}


def tell_game(number: int, game: LoggedGame, seat: int | None, out: Console, lang: str = "en") -> None:
    """Print one game in words, in ``lang``: header, every event (prefixed by the number of the
    action that caused it), the result."""
    t = Catalogue(lang, strict=True)
    h = game.header
    who = Names(h.get("players"), seat, lang)
    game_id = str(h.get("game"))
    run = t("replay.run", run=h["run"]) if h.get("run") is not None else ""
    title = t("replay.title", number=number, title=game_title(game_id), run=run, table=h.get("table"), game=h.get("number"))
    out.print(Rule(Text(title, style="bold")))
    raw_players, raw_options = h.get("players"), h.get("options")
    players: list[Any] = raw_players if isinstance(raw_players, list) else []
    out.print(Text(t("replay.players", players=", ".join(f"{s} {p}" for s, p in enumerate(players)))))
    options: dict[str, Any] = raw_options if isinstance(raw_options, dict) else {}
    out.print(Text(t("replay.options", options=", ".join(f"{k}={v}" for k, v in options.items()))))
    out.print(Text(t("replay.origin", seed=h.get("seed"), started=h.get("started"), software=h.get("software")), style="dim"))
    if seat is None:
        out.print(Text(t("replay.seen-by-table"), style="italic"))
    else:
        out.print(Text(t("replay.seen-by-seat", seat=seat, name=who(seat)), style="italic"))
    start = start_lines(h.get("position"), who, seat, lang)
    if start:  # a game started from a position: no deal event tells its cards
        out.print()
        for i, line in enumerate(start):
            out.print(Text.assemble(("      ", "dim"), (line, "bold" if i == 0 else "")))
    action, fresh = 0, False
    for rec in game.records[1:]:
        kind = rec.get("record")
        if kind == "action":
            action, fresh = action + 1, True
            continue
        if kind != "event" or not isinstance(rec.get("event"), dict):
            continue
        section, lines = narrate_event(game_id, rec["event"], who, seat, lang)
        if section:
            out.print()
        for i, line in enumerate(lines):
            # the number of the action goes on the first line it caused; automatic steps follow
            prefix = f"#{action:<4} " if fresh and i == 0 else "      "
            out.print(Text.assemble((prefix, "dim"), (line, "bold" if section and i == 0 else "")))
        fresh = False
    out.print()
    if game.break_note is not None:
        out.print(Text(game.break_note, style="bold yellow"))
    for i, line in enumerate(result_lines(game.result, who, lang)):
        out.print(Text(line, style="bold" if i == 0 else ""))
    out.print()


# --------------------------------------------------------------------------- the command


def register(app: typer.Typer) -> None:
    @app.command("replay", help=help_of("replay"))
    def replay(
        log: Annotated[Path, typer.Argument(help="A replay log (JSON Lines, as written by quinze serve or quinze match); - for standard input.", show_default=False)],
        game: Annotated[Optional[int], typer.Option("--game", help="Only game N of the file (1 = the first).")] = None,
        seat_arg: Annotated[Optional[str], typer.Option("--seat", metavar="N|NAME", help="Tell the game as seat N (or the player NAME) saw it (its own private cards only; its own actions 'You ...').")] = None,
        check: Annotated[bool, typer.Option("--verify", help="Re-simulate each game from its seed and actions; exit 1 at a divergence.")] = False,
        as_json: Annotated[bool, typer.Option("--json", help="Print the game(s) (or with --verify the checks) as JSON.")] = False,
        position: Annotated[bool, typer.Option("--position", help="Print the position (quinze legal format) at --at K, --deal D or --coup C.")] = False,
        at: Annotated[Optional[int], typer.Option("--at", help="With --position or --step: before action K (from 1).")] = None,
        deal: Annotated[Optional[int], typer.Option("--deal", help="With --position or --step: at the start of deal D (Le Quinze).")] = None,
        coup: Annotated[Optional[int], typer.Option("--coup", help="With --position or --step: at the start of coup C (Le Quinze classique).")] = None,
        step: Annotated[bool, typer.Option("--step", help="Step through one game full screen (keys on screen); with --seat, start in that seat's view.")] = False,
        lang: Annotated[Optional[str], typer.Option("--lang", metavar="LANG", help="Language of the game told in words and of --step: en or fr (default: the locale's, LC_ALL, LC_MESSAGES or LANG; C: en).")] = None,
    ) -> None:
        try:
            language = choose_language(lang)
        except ValueError as err:
            fail(str(err), EXIT_USAGE)
        if check:
            apart = [flag for flag, given in (("--seat", seat_arg is not None), ("--position", position), ("--step", step),
                                              ("--at", at is not None), ("--deal", deal is not None),
                                              ("--coup", coup is not None)) if given]
            if apart:
                fail(f"--verify re-simulates whole games at the whole table: it does not go with {', '.join(apart)}",
                     EXIT_USAGE)
        source = open_log(log)
        games = stream(log, source)
        try:
            if game is not None:
                games = iter([pick(games, game)])
            if position or step or at is not None or deal is not None or coup is not None:
                from quinze_cli.replay_tools import position_or_step

                selected = [(number, g) for number, g in islice(games, 2)]  # one game is needed: two say there are more
                seat = seat_of(seat_arg, *selected[0]) if seat_arg is not None else None
                raise typer.Exit(position_or_step(selected, position=position, step=step, at=at, deal=deal, coup=coup,
                                                  seat=seat, lang=language))
            out = line_console()
            if check:
                raise typer.Exit(verify_games(games, as_json, out, source))
            if as_json:
                print_json(games, seat_arg)
                return
            raise typer.Exit(tell_games(games, seat_arg, out, language))
        except KeyboardInterrupt:
            stderr.print(f"interrupted while reading {log}: no game {'verified' if check else 'shown'}",
                         soft_wrap=True, highlight=False)
            raise typer.Exit(EXIT_INTERRUPTED) from None


def tell_games(games: Iterable[tuple[int, LoggedGame]], seat_arg: str | None, out: Console, lang: str = "en") -> int:
    """Tell each game as it is read (:func:`tell_game`, in ``lang``); the exit code. With ``--seat``, the first
    game must have that seat, checked before anything is printed (exit 1 naming the seats); a
    later game where it names no seat (the log streams: its header is read only then) is said
    in one line in its place and on stderr, the others are told, and the exit code is 1."""
    missed = told = 0
    for number, g in games:
        seat = find_seat(seat_arg, number, g) if seat_arg is not None else None
        if isinstance(seat, str):
            if not told + missed:  # the first game read (game 1, or the one --game picked)
                fail(seat)
            missed += 1
            out.print(Text(Catalogue(lang, strict=True)("replay.not-told", number=number, why=seat.removeprefix("--seat: "))))
            stderr.print(Text.assemble(("warning: ", "bold yellow"), seat))
            continue
        tell_game(number, g, seat, out, lang)
        told += 1
    return 1 if missed else 0


def pick(games: Iterator[tuple[int, LoggedGame]], wanted: int) -> tuple[int, LoggedGame]:
    """Game number ``wanted`` of the log (the log is read up to it, or to its end to say how many
    games it holds). Fails (exit 1) when there is no such game."""
    count = 0
    for count, g in games:
        if count == wanted:
            return count, g
    fail(f"--game: the log holds {count} game(s), so N must be 1..{count}, got {wanted}")


def print_json(games: Iterator[tuple[int, LoggedGame]], seat_arg: str | None) -> None:
    """``--json``: the games as one JSON array (:func:`game_json`), each written as it is read;
    with ``--seat NAME`` every game is told from the seat NAME has in the first (checked before
    anything is written), and a game where NAME sits elsewhere or not at all ends the array
    there (the output stays whole JSON) and fails (exit 1)."""
    seat: int | None = None
    sep = "["
    for number, g in games:
        here = find_seat(seat_arg, number, g) if seat_arg is not None else None
        if sep == "[" and isinstance(here, str):
            fail(here)
        if sep == "[":  # the first game
            seat = here if isinstance(here, int) else None
        elif here != seat:
            typer.echo("]")  # the array stays whole JSON, of the games before this one
            fail(here if isinstance(here, str) else
                 f"--seat: {seat_arg!r} sits in different seats in these games: give --game N")
        typer.echo(sep + json.dumps(game_json(number, g, seat), ensure_ascii=False), nl=False)
        sep = ", "
    typer.echo("]")
