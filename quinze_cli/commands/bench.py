"""``quinze bench``: speed figures of the engines (:mod:`quinze_cli.bench.engine`), the server
(:mod:`quinze_cli.bench.server`) and matches of bot programs (:mod:`quinze_cli.bench.match`).

``--only SECTION`` (repeatable) limits the run to some of ``engine``, ``server``, ``match``, ``load``;
without it the first three run. ``load`` (:mod:`quinze_cli.bench.load`: many tables and
connections against a server process) runs only when asked, as it takes minutes: ``--load-sizes``
and ``--load-duration`` shape it, ``--load-rounds`` cuts each size's window into chunks taken in turns
with the other sizes', ``--load-tree`` measures the server of another checkout (or folder of
installed packages),
``--load-stock-gc`` leaves that server's collector untuned, ``--load-no-reference`` skips the bare
reference servers timed after the sizes, ``--load-pin`` pins the generator and the server to two
processors. ``--quick`` shrinks every budget
(seconds instead of minutes); ``--json`` prints the figures as one JSON object
``{"engine": {...}, "server": {...}, "match": {...}, "load": {...}}``. Figures are measured on
this machine and never asserted; each target is shown with whether it is met (a "met" column
yes/no in the tables, ``"met": true/false`` next to each target in the JSON). Engine targets are
ratios only: ``--anchor CMD`` runs a reference engine program first (such as the shared
engine-anchor: RLCard UNO and OpenSpiel crazy_eights on this machine) and gives each game's µs
per decision as a ratio to it, target at most 1.0x RLCard UNO; without it no engine target is
shown. A note on stderr
says how long the run takes, and on a terminal a spinner shows the section being measured.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console

from quinze_cli.stdio import line_console
from rich.table import Table

from quinze_cli.app import help_of
from quinze_cli.errors import EXIT_USAGE, fail

# The sections' modules (trio, the match runner, the cluster's) are imported when the command runs,
# not when `quinze --help` lists it.

SECTIONS = ("engine", "server", "match", "load", "cluster")
DEFAULT_SECTIONS = ("engine", "server", "match")
"""What runs without ``--only``: the load bench takes minutes and the cluster one starts Dask
processes, so they run only on request."""

MET = {"yes": "[green]yes[/]", "no": "[bold red]no[/]", "": ""}
"""The "met" cell of a table, styled."""


def _met(met: bool | None) -> str:
    return "" if met is None else MET["yes" if met else "no"]


SECTION_LIMIT = {"quick": 120.0, "full": 600.0, "load": 3600.0}
"""Seconds a section may take (``--quick``, a full run, the load section): past that the section
is reported as not finished and the others go on, so ``quinze bench`` always ends."""


LOAD_DURATION_MAX = 300.0
"""The longest ``--load-duration`` (seconds per load size): the four default sizes, each timed
again against the reference server, then fit in the load section's limit
(``SECTION_LIMIT["load"]``, an hour); beyond it the section could never finish (1e23 ran the
load generator's engine for as long as the hour allowed)."""


LOAD_ROUNDS_MAX = 50
"""The most rounds ``--load-rounds`` may cut a load size's window into (each chunk is preceded by
half a second of untimed play: 50 rounds of the four default sizes add 200 s)."""


LIMIT_ENV = "QUINZE_BENCH_SECTION_LIMIT"
"""Environment variable overriding every section's limit, in seconds (tests use a tiny one)."""


def _limit(name: str, quick: bool) -> float:
    if os.environ.get(LIMIT_ENV):
        return float(os.environ[LIMIT_ENV])
    return SECTION_LIMIT["quick"] if quick else SECTION_LIMIT["load" if name == "load" else "full"]


def _measure(err: Console, name: str, run: Callable[..., Any], quick: bool) -> Any:
    """``run(quick=quick)`` under a spinner naming the section (only on a terminal), bounded by
    :data:`SECTION_LIMIT`: a section that fails or does not finish in time gives
    ``{"error": "..."}`` (said on stderr) instead of its figures; one still running is left
    behind (see :data:`_stuck`)."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["figures"] = run(quick=quick)
        except Exception as e:  # noqa: BLE001 - one section failing must not hide the others
            box["error"] = f"failed: {type(e).__name__}: {e}"

    limit = _limit(name, quick)
    worker = threading.Thread(target=target, name=f"bench {name}", daemon=True)
    status = err.status(f"bench: measuring the {name}...") if err.is_terminal else contextlib.nullcontext()
    began = time.monotonic()
    with status:
        worker.start()
        worker.join(limit)
    if not worker.is_alive() and "error" not in box:
        err.print(f"bench: the {name} section took {time.monotonic() - began:.1f} s")
    if worker.is_alive():
        _stuck.append(name)
        box["error"] = f"did not finish within {limit:g} s: stopped"
    if "error" in box:
        err.print(f"bench: the {name} section {box['error']}")
        return {"error": box["error"]}
    return box["figures"]


def _listed(sections: list[str]) -> str:
    """``"the engine, server and match sections"``: what the run measures, in its order."""
    words = [n for n in ("engine", "server", "match", "load", "cluster") if n in sections]
    names = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
    return f"the {names} section{'s' if len(words) > 1 else ''}"


_stuck: list[str] = []
"""Sections left running past their limit: the command then ends with ``os._exit`` (a thread
cannot be stopped; bot programs die with the process)."""


def register(app: typer.Typer) -> None:
    @app.command("bench", help=help_of("bench"))
    def bench(
        as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
        quick: Annotated[bool, typer.Option("--quick", help="Small budgets: a smoke run in seconds.")] = False,
        only: Annotated[
            Optional[list[str]], typer.Option("--only", help="Run only this section: engine, server, match, load or cluster (repeatable; load and cluster run only when named).")
        ] = None,
        load_sizes: Annotated[
            Optional[str], typer.Option("--load-sizes", help="Load sizes TABLES/CONNECTIONS[@THINK_MS], comma-separated "
                                        "(default 10/20,250/1000,500/2000,250/1000@50).")
        ] = None,
        load_duration: Annotated[
            Optional[float], typer.Option("--load-duration", help=f"Seconds measured per load size (default 10; --quick 1; at most {LOAD_DURATION_MAX:g}).")
        ] = None,
        load_rounds: Annotated[
            Optional[int], typer.Option("--load-rounds", help=f"Rounds each load size's measured seconds are cut into, the sizes "
                                        f"taking turns round by round (default 4; --quick 2; at most {LOAD_ROUNDS_MAX}).")
        ] = None,
        load_tree: Annotated[
            Optional[Path], typer.Option("--load-tree", help="Measure the server of this tree: another source "
                                        "checkout, or a folder of installed packages (site-packages).")
        ] = None,
        load_stock_gc: Annotated[
            bool, typer.Option("--load-stock-gc", help="Leave the measured server's garbage collector untuned.")
        ] = False,
        load_reference: Annotated[
            bool, typer.Option("--load-reference/--load-no-reference",
                               help="After each load size, run it against a bare reference server too (default on).")
        ] = True,
        load_pin: Annotated[
            bool, typer.Option("--load-pin", help="Pin the load generator and the server to two different processors.")
        ] = False,
        anchor: Annotated[
            Optional[str], typer.Option("--anchor", help="A reference engine program to run first (e.g. "
                                        "../shared/anchors/engine-anchor): each game's µs per decision is then "
                                        "given as a ratio to its RLCard UNO and OpenSpiel figures, timed in the same run.")
        ] = None,
    ) -> None:
        from quinze_cli.bench.cluster import run_cluster_bench
        from quinze_cli.bench.engine import run_engine_bench
        from quinze_cli.bench.load import parse_sizes, run_load_bench
        from quinze_cli.bench.load_server import tree_layout
        from quinze_cli.bench.match import run_match_bench
        from quinze_cli.bench.server import run_server_bench

        sections = only or list(DEFAULT_SECTIONS)
        for name in sections:
            if name not in SECTIONS:
                fail(f"--only: no section {name!r} (known: {', '.join(SECTIONS)})", EXIT_USAGE)
        try:
            sizes = parse_sizes(load_sizes) if load_sizes else None
        except ValueError as e:
            fail(f"--load-sizes: {e}", EXIT_USAGE)
        if load_duration is not None and not 0 < load_duration <= LOAD_DURATION_MAX:
            fail(f"--load-duration must be positive seconds, at most {LOAD_DURATION_MAX:g} (per load size), "
                 f"got {load_duration:g}", EXIT_USAGE)
        if load_rounds is not None and not 1 <= load_rounds <= LOAD_ROUNDS_MAX:
            fail(f"--load-rounds must be 1 to {LOAD_ROUNDS_MAX}, got {load_rounds}", EXIT_USAGE)
        if load_tree is not None and tree_layout(load_tree) is None:
            fail(f"--load-tree: {load_tree} holds neither server/app.py (a source checkout) nor "
                 "quinze_server/app.py (installed packages)", EXIT_USAGE)
        run_load = functools.partial(run_load_bench, duration=load_duration, sizes=sizes,
                                     tree=load_tree.resolve() if load_tree else None, stock_gc=load_stock_gc,
                                     reference=load_reference, pin=load_pin, rounds=load_rounds)
        err = line_console(stderr=True)
        err.print(f"quinze bench: {_listed(sections)} "
                  + ("(--quick: smaller budgets, rough figures)" if quick else
                     "(--quick gives rough figures in a fraction of the time)")
                  + "; each section's time follows it here")
        figures: dict = {}
        engine_run: Callable[..., Any] = run_engine_bench
        if anchor is not None and "engine" in sections:
            try:
                reference = run_anchor(anchor, quick)
            except ValueError as e:
                fail(f"--anchor: {e}", EXIT_USAGE)
            engine_run = functools.partial(run_engine_bench, anchor=reference)
        for name, run in (("engine", engine_run), ("server", run_server_bench), ("match", run_match_bench),
                          ("load", run_load), ("cluster", run_cluster_bench)):
            if name in sections:
                figures[name] = _measure(err, name, run, quick)
        try:
            _report(figures, as_json)
        finally:
            if _stuck:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(1)
        if any("error" in f for f in figures.values() if isinstance(f, dict)):
            raise typer.Exit(1)


def _report(figures: dict[str, Any], as_json: bool) -> None:
    """The figures as JSON or as tables (a section that did not finish: one line saying so)."""
    from quinze_cli.bench.cluster import table_rows as cluster_rows
    from quinze_cli.bench.match import table_rows as match_rows
    from quinze_cli.bench.server import table_rows as server_rows

    if as_json:
        typer.echo(json.dumps(figures, sort_keys=True))
        return
    console = line_console()
    for name, fig in figures.items():
        if isinstance(fig, dict) and "error" in fig:
            console.print(f"{name}: no figures ({fig['error']})", highlight=False)
    figures = {k: v for k, v in figures.items() if not (isinstance(v, dict) and "error" in v)}
    if "engine" in figures:
        show(figures["engine"])
    for name, rows in (("server", server_rows), ("match", match_rows), ("cluster", cluster_rows)):
        if name in figures:
            t = Table(title=name)
            t.add_column("figure")
            t.add_column("value", justify="right")
            t.add_column("target", justify="right")
            t.add_column("met", justify="center")
            for figure, value, target, met in rows(figures[name]):
                t.add_row(figure, value, target, MET[met])
            console.print(t)
    if "load" in figures:
        show_load(figures["load"], console)


def run_anchor(command: str, quick: bool) -> dict[str, Any]:
    """Run the reference engine program ``command`` (split like a shell line; ``--json`` and, with
    ``quick``, a 1-second budget are added) and read its figures: a JSON object, or
    ``key: value`` lines, with ``rlcard_uno_us_per_decision`` and
    ``openspiel_crazy_eights_us_per_decision`` (None when missing). Raises ValueError saying what
    failed (not found, exit status, no figure)."""
    import shlex
    import subprocess

    try:
        argv = shlex.split(command)
    except ValueError as err:
        raise ValueError(f"cannot read the command {command!r}: {err}") from None
    if not argv:
        raise ValueError("an empty command")
    from quinze_cli.progcheck import program_problem

    problem = program_problem(argv)  # a missing, non-executable or folder path, a missing #! interpreter
    if problem is not None:
        raise ValueError(problem)
    argv = [*argv, "--json"] + (["1"] if quick else [])
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=1800)
    except OSError as e:  # what the check above cannot see (a file gone since, a wrong binary format)
        raise ValueError(f"{argv[0]!r} is not a program that can be run: {e.strerror or e}") from None
    except subprocess.TimeoutExpired:
        raise ValueError(f"{argv[0]!r} did not finish within 30 minutes") from None
    if proc.returncode != 0:
        raise ValueError(f"{argv[0]!r} exited with status {proc.returncode}: {proc.stderr.strip()[-300:]}")
    data: dict[str, Any] = {}
    text = proc.stdout.strip()
    try:
        data = json.loads(text.splitlines()[-1]) if text else {}
    except ValueError:
        for line in text.splitlines():
            key, _, value = line.partition(":")
            try:
                data[key.strip()] = None if value.strip() == "None" else float(value)
            except ValueError:
                continue
    keys = ("rlcard_uno_us_per_decision", "openspiel_crazy_eights_us_per_decision")
    out = {k: data.get(k) for k in keys}
    if not any(isinstance(v, (int, float)) and v > 0 for v in out.values()):
        raise ValueError(f"{argv[0]!r} printed no reference figure ({', '.join(keys)})")
    return out


def show_load(fig: dict[str, Any], console: Console) -> None:
    """Print the load figures: one row per size, then the goals."""
    from quinze_cli.bench.load import goal_rows as load_goal_rows
    from quinze_cli.bench.load import table_rows as load_rows

    head, rows = load_rows(fig)
    load = ", ".join(f"{x:g}" for x in fig.get("loadavg", []))
    first = fig["sizes"][0]
    order = first.get("order", "trio's")
    pinned = fig.get("pinned")
    pins = f"; generator on CPU {pinned['generator']}, server on CPU {pinned['server']}" if pinned else ""
    rounds = f" in {fig['rounds']} chunks taken in turns" if fig.get("rounds") else ""
    t = Table(title=f"load ({fig['duration_s']:g} s per size{rounds}; server collector {first['collector']}, ready tasks in "
                    f"{order} order; {fig['cpus']} CPUs, load average {load}{pins})")
    for i, h in enumerate(head):
        t.add_column(h, justify="left" if i == 0 else "right")
    for row in rows:
        t.add_row(*row)
    console.print(t)
    g = Table(title="load goals")
    g.add_column("goal")
    g.add_column("value", justify="right")
    g.add_column("target", justify="right")
    g.add_column("met", justify="center")
    for goal, value, target, met in load_goal_rows(fig):
        g.add_row(goal, value, target, MET[met])
    console.print(g)


def show(fig: dict) -> None:
    """Print the engine figures as a rich table."""
    console = line_console()
    t = Table(title="engine")
    t.add_column("figure")
    t.add_column("value", justify="right")
    t.add_column("target", justify="right")
    t.add_column("met", justify="center")
    an = fig.get("anchor")
    if an:
        t.add_row("reference (--anchor): RLCard UNO / OpenSpiel crazy_eights µs per decision",
                  f"{an.get('rlcard_uno_us_per_decision')} / {an.get('openspiel_crazy_eights_us_per_decision')}", "", "")
    for d in fig["decision"]:
        if "error" in d:
            t.add_row(f"{d['game']}: µs per decision", d["error"], "", "")
            continue
        how = "a random pick by index, the list not made" if d.get("by_index") else "the legal list + the bot's choice"
        t.add_row(f"{d['game']}: µs per decision ({how}), wall mean / CPU mean / best chunk "
                  f"({d['players']} players, {d['decisions']} decisions)",
                  f"{d['us_per_decision']} / {d['cpu_us_per_decision']} / {d['best_chunk_us']}", "", "")
        if "warmup_us_per_decision" in d:
            t.add_row(f"{d['game']}: µs per decision of the untimed warm-up ({d['warmup_games']} first games, wall mean)",
                      f"{d['warmup_us_per_decision']}", "", "")
        if "uno_ratio" in d or "openspiel_ratio" in d:
            t.add_row(f"{d['game']}: µs per decision as x RLCard UNO / x OpenSpiel crazy_eights",
                      f"{d.get('uno_ratio')} / {d.get('openspiel_ratio')}",
                      f"<= {d['target_uno_ratio']} x UNO" if "target_uno_ratio" in d else "", _met(d.get("met")))
        if "listing_us_per_decision" in d:
            t.add_row(f"{d['game']}: µs per decision with the whole legal list made, wall / CPU mean (x RLCard UNO)",
                      f"{d['listing_us_per_decision']} / {d['listing_cpu_us_per_decision']} ({d.get('listing_uno_ratio')})", "", "")
        if "quiet_us_per_decision" in d:
            t.add_row(f"{d['game']}: µs per decision without events (as search playouts), wall / CPU mean",
                      f"{d['quiet_us_per_decision']} / {d['quiet_cpu_us_per_decision']}", "", "")
        if "quiet_uno_ratio" in d:
            t.add_row(f"{d['game']}: µs per decision without events as x RLCard UNO", f"{d['quiet_uno_ratio']}",
                      f"<= {d['target_uno_ratio']} x UNO", _met(d.get("quiet_met")))
        if "copy_us" in d:
            t.add_row(f"{d['game']}: µs per copy() / as a share of one decision",
                      f"{d['copy_us']} / {d['copy_per_decision']}", "", "")
    if "legal_p99" in fig:
        lp = fig["legal_p99"]
        t.add_row(f"quinze: legal generation p50 / p99 / max µs ({lp['positions']} positions, "
                  f"{'/'.join(map(str, lp['players']))} players)",
                  f"{lp['p50_us']} / {lp['p99_us']} / {lp['max_us']}", "", "")
        ad = fig["adversarial"]
        t.add_row(f"quinze: adversarial ({ad['hand']} in hand, {ad['table']} on table): legal actions, µs",
                  f"{ad['legal']}, {ad['us']}", "", "")
        ll = fig["largest_legal"]
        t.add_row(f"quinze: largest legal list in {ll['games']} self-play games", f"{ll['largest']}", "", "")
    for p in fig.get("playouts", []):
        t.add_row(f"{p['game']}: copy() + random playout to the end of the deal: playouts/s "
                  f"({p['decisions_per_playout']} decisions each)", f"{p['playouts_per_s']}", "", "")
        if "quiet_playouts_per_s" in p:
            t.add_row(f"{p['game']}: the same without events: playouts/s", f"{p['quiet_playouts_per_s']}", "", "")
    for m in fig.get("mcts", []):
        t.add_row(f"{m['game']}: mcts iterations/s ({m['decisions']} decisions)", f"{m['iterations_per_s']}", "", "")
    console.print(t)
