"""Which modules a ``quinze`` start loads (quinze_cli/app.py): ``quinze NAME`` imports the module of
command NAME alone, each command module its heavy parts where it runs, Typer's options no Pydantic,
and ``quinze --version`` no Typer at all. The suite starts ``quinze`` hundreds of times, and a user each time: what a start
imports is its cost. Checked by the modules a real start leaves in ``sys.modules``, not by a time."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Optional

import pytest
import typer

ROOT = Path(__file__).resolve().parents[1]

START = """
import atexit, json, sys
out, sys.argv = sys.argv[1], ["quinze", *sys.argv[2:]]
atexit.register(lambda: open(out, "w").write(json.dumps(sorted(sys.modules))))
from quinze_cli.app import main
main()
"""
"""The console script's start (``quinze_cli.app:main``) with ``sys.modules`` written to a file at exit."""

HEAVY = ("dask", "distributed", "psutil", "zeroconf", "rich.markdown", "markdown_it", "pygments", "hypothesis",
         "quinze_cli.bench.cluster", "quinze_cli.cluster.driver")
"""What no start loads unless its command needs it: Dask and its chain, mDNS, rich's Markdown
(markdown-it, pygments), hypothesis, the cluster parts of the CLI."""


def loaded(tmp_path: Path, *args: str) -> tuple[set[str], subprocess.CompletedProcess[str]]:
    """The top modules and submodules imported by ``quinze ARGS``, and its completed process."""
    out = tmp_path / "modules.json"
    done = subprocess.run([sys.executable, "-c", START, str(out), *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=60)
    return set(json.loads(out.read_text())), done


def heavy(modules: set[str], names: tuple[str, ...] = HEAVY) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


def test_version_imports_neither_typer_nor_any_command(tmp_path: Path) -> None:
    modules, done = loaded(tmp_path, "--version")
    assert done.returncode == 0 and done.stdout.startswith("quinze "), done
    assert heavy(modules, (*HEAVY, "typer", "click", "pydantic", "rich", "trio", "quinze_cli.commands")) == []


@pytest.mark.parametrize("args", [["legal", "examples/positions/quinze-table.json"], ["replay", "--help"],
                                  ["play", "--help"], ["selfplay", "--games", "1"], ["legal", "--help"]])
def test_a_light_command_loads_no_trio_nor_any_other_command(tmp_path: Path, args: list[str]) -> None:
    modules, done = loaded(tmp_path, *args)
    assert done.returncode == 0, done.stderr
    assert heavy(modules, (*HEAVY, "trio", "quinze_server", "quinze_cli.matchrun", "pydantic")) == []
    others = {m.split(".")[2] for m in modules if m.startswith("quinze_cli.commands.")}
    assert others == {args[0]}


def test_rules_loads_the_markdown_it_prints_but_nothing_of_the_other_commands(tmp_path: Path) -> None:
    modules, done = loaded(tmp_path, "rules", "quinze")
    assert done.returncode == 0 and "Le Quinze" in done.stdout, done.stderr
    assert "rich.markdown" in modules
    assert heavy(modules, ("dask", "distributed", "psutil", "zeroconf", "hypothesis", "trio", "quinze_server")) == []


@pytest.mark.parametrize("args", [["--help"], ["bench", "--help"], ["match", "--help"], ["servers", "--help"]])
def test_listing_the_commands_loads_none_of_their_heavy_parts(tmp_path: Path, args: list[str]) -> None:
    modules, done = loaded(tmp_path, *args)
    assert done.returncode == 0 and "Usage:" in done.stdout, done.stderr
    assert heavy(modules, (*HEAVY, "pydantic")) == []


@pytest.mark.parametrize("args, code", [(["match", "--help"], 0), (["tournament", "--help"], 0), (["serve", "--help"], 0),
                                        (["bot", "--help"], 0), (["match", "builtin:random"], 2),
                                        (["bot", "builtin:random"], 2)])
def test_the_help_and_usage_errors_of_a_command_that_plays_load_neither_trio_nor_the_server(
        tmp_path: Path, args: list[str], code: int) -> None:
    """``match``, ``tournament``, ``serve`` and ``bot`` import trio, the match runner and the server
    where they run: their help, and the first usage errors of a match (one bot here) or of a bot
    (neither --table nor --create), need none."""
    modules, done = loaded(tmp_path, *args)
    assert done.returncode == code and ("Usage:" in done.stdout if code == 0 else "error:" in done.stderr), done
    assert heavy(modules, (*HEAVY, "trio", "quinze_server.server", "quinze_server.app", "quinze_cli.matchrun",
                           "pydantic")) == []
    assert {m.split(".")[2] for m in modules if m.startswith("quinze_cli.commands.")} == {args[0]}


def test_a_match_parses_its_options_without_pydantic(tmp_path: Path) -> None:
    """Typer's own coercion builds a Pydantic adapter per parameter; plain words, numbers and paths
    are converted without it (quinze_cli.helptext.plain_coercion), here for a whole real match."""
    modules, done = loaded(tmp_path, "match", "builtin:random", "builtin:greedy", "--games", "2", "--seed", "3",
                           "--move-time", "5", "--option", "target=30", "--log-dir", str(tmp_path / "logs"))
    assert done.returncode == 0, done.stderr
    assert "trio" in modules and heavy(modules, (*HEAVY, "pydantic")) == []
    assert len(list((tmp_path / "logs").glob("*.jsonl"))) == 1


@pytest.mark.parametrize("value", ["5", "-3", "007", " 5", "1_0", "1.5", "-0.25", "1e3", "nan", "inf", "x", "", "0x10",
                                   "9" * 40, 7, 2.5, True, None, "/tmp", ".", ("a", "b"), ["1", "2"]])
def test_the_plain_coercion_gives_what_typers_own_gives(value: object) -> None:
    """Every kind of parameter the plain coercion takes over, given words, numbers and paths: the
    same value back, or the same error, as Typer's own (Pydantic) coercion."""
    import typer.main
    from typer._coercion import build_runtime_param

    from quinze_cli.helptext import plain_coercion

    cli = typer.Typer()

    @cli.command()
    def cmd(a: Annotated[Optional[str], typer.Option()] = None, b: Annotated[Optional[int], typer.Option()] = None,
            c: Annotated[Optional[float], typer.Option()] = None, d: Annotated[Optional[Path], typer.Option()] = None,
            e: Annotated[int, typer.Option(min=1)] = 1, f: Annotated[Optional[list[str]], typer.Option()] = None,
            g: Annotated[Optional[list[int]], typer.Option()] = None) -> None:
        pass

    click_cmd = typer.main.get_command(cli)
    plain_coercion(click_cmd)
    ctx = click_cmd.make_context("cmd", [], resilient_parsing=True)
    for param in click_cmd.params:
        def outcome(runtime: object) -> tuple[str, object]:
            try:
                return "value", runtime.coerce(value, param=param, ctx=ctx)  # type: ignore[attr-defined]
            except Exception as err:  # noqa: BLE001 - the error itself is compared
                return type(err).__name__, str(err)

        mine, typers = outcome(param._runtime_param), outcome(build_runtime_param(param.type_descriptor))
        assert repr(mine) == repr(typers) and type(mine[1]) is type(typers[1]), (param.name, value)  # repr: nan


@pytest.mark.parametrize("args", [["--help"], [], ["--bogus"], ["rules", "--help"], ["rules", "quinze"]])
def test_the_listing_and_rules_load_no_trio_nor_the_server(tmp_path: Path, args: list[str]) -> None:
    """``quinze --help`` (and a bare ``quinze``, a usage error) lists the commands from
    quinze_cli.app.COMMANDS without importing any command module; ``rules`` imports its own alone."""
    modules, done = loaded(tmp_path, *args)
    assert done.returncode == (0 if args[:1] in (["--help"], ["rules"]) else 2), done.stderr
    assert heavy(modules, ("trio", "quinze_server", "rich.progress", "quinze_cli.matchrun", "pydantic")) == []
    commands = {m.split(".")[2] for m in modules if m.startswith("quinze_cli.commands.")}
    assert commands == set(args[:1]) & {"rules"}


def test_the_table_of_commands_is_what_each_module_registers() -> None:
    """quinze_cli.app.COMMANDS (name, module, help) is what each command module declares: the whole
    CLI's commands in that order, each module registering its command alone, with that help; and
    the listing of ``quinze --help`` (no module imported) prints the whole CLI's help, byte for byte."""
    from quinze_cli.app import COMMANDS, build, command, listing

    whole = command()
    assert list(whole.commands) == list(COMMANDS)
    for name, entry in COMMANDS.items():
        assert list(command(build([entry.module])).commands) == [name]
        assert whole.commands[name].help == entry.help, name
    listed = listing()
    assert list(listed.commands) == list(COMMANDS)
    for width in (60, 100, 200):
        helps = []
        for group in (whole, listed):
            ctx = group.make_context("quinze", [], resilient_parsing=True, max_content_width=width,
                                     terminal_width=width)
            helps.append(group.get_help(ctx))
        assert helps[0] == helps[1] and "check-bot" in helps[0], width
