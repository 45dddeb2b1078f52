"""The command line as a person meets it, in a real terminal (pexpect, 80x24 and 120x40):
``quinze rules --lang fr`` (and LANG/LC_ALL) in French, shell completion, ``--help`` naming
values in words (KEY=VALUE, N, SECONDS, FILE; never ``<int>``, ``<list[str]>``, ``<bool>``),
usage errors as one ``error:`` line like every other error (never a box)."""

from __future__ import annotations

import re

import pexpect
import pytest
from clikit import quinze
from playkit import QUINZE, TIMEOUT, plain
import forkkit

SIZES = [(24, 80), (40, 120)]
COMMANDS = ["rules", "legal", "selfplay", "bench", "serve", "bot", "match", "tournament", "play", "replay", "check-bot"]


def run(env, *args: str, size=(24, 80), **extra: str) -> tuple[str, int]:
    env = dict(env, LINES=str(size[0]), COLUMNS=str(size[1]), **extra)
    child = forkkit.spawn(QUINZE, list(args), env=env, encoding="utf-8", timeout=TIMEOUT, dimensions=size)
    child.expect(pexpect.EOF)
    child.close()
    return plain(child.before).replace("\r\n", "\n"), child.exitstatus


@pytest.mark.parametrize("size", SIZES)
def test_rules_in_french_by_flag(env, size):
    out, rc = run(env, "rules", "quinze", "--lang", "fr", size=size)
    assert rc == 0
    assert "débarrassez-vous" in out and "faisant des quinzes" in out.replace("\n", " ").replace("  ", " ")
    assert all(len(line) <= size[1] for line in out.splitlines())


@pytest.mark.parametrize("var", ["LANG", "LC_ALL"])
def test_rules_in_french_from_the_environment(env, var):
    out, rc = run(env, "rules", "quatorze", **{var: "fr_FR.UTF-8"})
    assert rc == 0 and "Le 14 (quatorze)" in out and "débarrassez-vous" in out


def test_rules_in_english_by_default_and_a_bad_language_is_a_usage_error(env):
    out, rc = run(env, "rules", "quinze-classique")
    assert rc == 0 and "Le Quinze classique" in out and "débarrassez" not in out
    out, rc = run(env, "rules", "quinze", "--lang", "de")
    assert rc == 2 and "error: --lang: unknown language 'de' (known: en, fr)" in out


def test_completion_script_is_produced_and_completes_a_command(env, tmp_path):
    out, rc = run(env, "--show-completion", "bash")
    assert rc == 0 and "_QUINZE_COMPLETE=complete_bash" in out and "complete -o default -F _quinze_completion quinze" in out
    # what bash runs on Tab, as the script above does it
    out, rc = run(env, _QUINZE_COMPLETE="complete_bash", COMP_WORDS="quinze re", COMP_CWORD="1")
    assert rc == 0 and out.split() == ["replay"]
    out, rc = run(env, _QUINZE_COMPLETE="complete_bash", COMP_WORDS="quinze match --ga", COMP_CWORD="2")
    assert sorted(out.split()) == ["--game", "--games"]
    out, rc = run(env, "--install-completion", "bash", HOME=str(tmp_path))
    assert rc == 0 and "completion installed" in out
    assert "quinze" in (tmp_path / ".bashrc").read_text()


@pytest.mark.parametrize(("shell", "mark"), [("bash", "complete -o default -F _quinze_completion quinze"),
                                            ("zsh", "#compdef quinze"), ("fish", "complete --command quinze")])
def test_the_shell_named_is_the_one_completed_whatever_runs_quinze(tmp_path, shell, mark):
    """``--show-completion SHELL`` and ``--install-completion SHELL`` use the shell named; Typer's
    options look for a shell among the process's parents, and where none is one (a suite started
    by a program, not typed at a shell) the test above failed with exit 1."""
    done = quinze("--show-completion", shell)
    assert done.returncode == 0 and mark in done.stdout, done
    done = quinze("--install-completion", shell, env={"HOME": str(tmp_path)})
    assert done.returncode == 0 and f"{shell} completion installed in {tmp_path}" in done.stdout, done


@pytest.mark.parametrize(("size", "commands"), [((24, 80), COMMANDS), ((40, 120), ["match", "play"])])
def test_help_names_values_in_words_and_fits_the_terminal(env, size, commands):
    seen = ""
    for command in ["", *commands]:
        out, rc = run(env, *([command] if command else []), "--help", size=size)
        assert rc == 0, out
        assert not re.search(r"<(int|str|bool|float|path|list\[str\]|int range)>", out), (command, out)
        assert "╭" not in out and "{" not in out.split("\n", 1)[0], out  # no boxes, no {position}
        assert all(len(line) <= size[1] for line in out.splitlines()), (command, out)
        seen += out
    words = ["--option KEY=VALUE", "--games N", "--move-time SECONDS", "--json FILE", "--server HOST:PORT",
             "Usage: quinze match [OPTIONS] [BOT...]", "--install-completion"]
    if "legal" in commands:
        words.append("Usage: quinze legal [OPTIONS] POSITION")
    for word in words:
        assert word in seen, word
    assert re.search(r"--local +With --local: game id|--local +Play on an embedded", seen)  # a flag: no value named


@pytest.mark.parametrize(("args", "said"), [
    (["match", "--games", "x", "builtin:random", "builtin:greedy"], "error: Invalid value for '--games'"),
    (["nosuch"], "error: No such command 'nosuch' (see 'quinze --help')"),
    (["replay", "--zzz"], "error: No such option: --zzz (see 'quinze replay --help')"),
])
def test_usage_errors_are_one_error_line_like_the_others(env, args, said):
    out, rc = run(env, *args)
    assert rc == 2 and said in out
    assert "╭" not in out and "Traceback" not in out and "Usage:" not in out
    assert len(out.strip().splitlines()) == 1, out


@pytest.mark.parametrize("size", SIZES)
def test_the_match_table_fits_the_terminal_with_the_readme_bots(env, size, tmp_path):
    """README's main command (fewer games): the results are a table, within 80 columns."""
    import sys

    from playkit import ROOT

    bots = [f"{sys.executable} {ROOT / 'examples' / 'bots' / name}" for name in ("random_bot.py", "greedy_bot.py")]
    out, rc = run(env, "match", *bots, "--games", "2", "--seed", "1", "--log-dir", str(tmp_path), size=size)
    assert rc == 0, out
    table = [ln for ln in out.split("\n") if ln[:1] in "┏┃┡│└"]
    assert any("random_bot" in ln for ln in table) and any("greedy_bot" in ln for ln in table), out
    assert all(len(ln) <= min(80, size[1]) for ln in table), table
