"""README: "a line written to a file or a pipe is never cut at a width (rich's 80 columns there),
so ``grep`` on a saved log finds it whole". Every command's lines, tables and rules text through a
real pipe or file with ``COLUMNS=40`` set (a pipe ignores it): no line is cut, a table row is one
line, and no line ends in spaces (rich padded them to 80 columns). Real processes; real multicast
for ``quinze servers`` (tests/lankit.py)."""

from __future__ import annotations

import os
import re
import subprocess

from lankit import lan
from playkit import QUINZE, TIMEOUT
from test_lan import start_server, stop, wait_for
from test_play_aborted import _serve

from quinze_cli.rulestext import one_line_paragraphs, rules_text

NARROW = dict(os.environ, COLUMNS="40", NO_COLOR="1")


def _unpadded(out: str) -> None:
    padded = [line for line in out.splitlines() if line != line.rstrip()]
    assert not padded, padded[:3]


def test_rules_to_a_pipe_are_the_markdown_source_one_paragraph_a_line() -> None:
    r = subprocess.run([QUINZE, "rules", "quinze-classique"], capture_output=True, text=True, env=NARROW, timeout=TIMEOUT)
    assert r.returncode == 0, r.stderr
    _unpadded(r.stdout)
    lines = [line for line in r.stdout.splitlines() if "black deck" in line]
    assert lines[0] == ("- 2 to 6 players. Two 52-card decks are sorted into a **black deck** (all spades and clubs "
                        "of both, 52 cards) and a **red deck** (all hearts and diamonds of both, 52 cards).")
    assert r.stdout == one_line_paragraphs(rules_text("quinze-classique", "en"))


def test_all_rules_in_french_to_a_file_have_no_sentence_cut(tmp_path) -> None:
    out = tmp_path / "rules.txt"
    with out.open("w") as f:
        r = subprocess.run([QUINZE, "rules", "--lang", "fr"], stdout=f, stderr=subprocess.PIPE, text=True, env=NARROW,
                           timeout=TIMEOUT)
    assert r.returncode == 0, r.stderr
    text = out.read_text(encoding="utf-8")
    _unpadded(text)
    lines = text.splitlines()
    for line, after in zip(lines, [*lines[1:], ""]):  # a line ends a paragraph, a heading, a list item
        indent = len(line) - len(line.lstrip())
        opens_a_list = re.match(rf" {{{indent + 1},}}- ", after)  # "chacun dit" then its nested items
        assert not line or line.startswith("#") or opens_a_list or re.search(r"[.:;)\]*`!?»]$", line), line
    assert text.count("\n# ") == 2 and text.startswith("# ")


def test_one_line_paragraphs_joins_continuations_and_keeps_blocks() -> None:
    text = "# Title\nA paragraph\ngoes on.\n\n- item one\n  continued\n   - nested\n     more\n1. first\n```\nkept\nas is\n```\n"
    assert one_line_paragraphs(text) == ("# Title\nA paragraph goes on.\n\n- item one continued\n   - nested more\n"
                                         "1. first\n```\nkept\nas is\n```\n")


def test_selfplay_stats_line_to_a_pipe_is_whole() -> None:
    r = subprocess.run([QUINZE, "selfplay", "--games", "50"], capture_output=True, text=True, env=NARROW, timeout=TIMEOUT)
    assert r.returncode == 0, r.stderr
    _unpadded(r.stdout)
    assert re.search(r"^stats: blocked deals .*; first turn outs \d+ \([\d.]+/game\); turns \d+ \([\d.]+/game\)$",
                     r.stdout, re.M), r.stdout
    assert re.search(r"^│ +0 │ random │ +\d+ │ +[\d.]+ │ +[\d.]+ │$", r.stdout, re.M), r.stdout  # the table, unwrapped


def test_the_lobby_table_list_to_a_pipe_has_one_line_a_table(tmp_path) -> None:
    server, port = _serve(tmp_path)
    bot = None
    try:
        bot = subprocess.Popen([QUINZE, "bot", "--server", f"127.0.0.1:{port}", "--create", "quinze", "--name", "bob",
                                "--option", "max_turns=1000", "--option", "target=100", "--", "builtin:greedy"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert bot.stdout is not None
        table = bot.stdout.readline().strip()
        r = subprocess.run([QUINZE, "play", "--server", f"127.0.0.1:{port}", "--name", "ana"], input="", capture_output=True,
                           text=True, env=NARROW, timeout=TIMEOUT)
        assert r.returncode == 0, r.stdout + r.stderr
        _unpadded(r.stdout)
        assert re.search(rf"^1 +{table} +quinze +1/2 bob, — +waiting +clock=\S+ max_turns=1000 quick_place=False "
                         r"target=100$", r.stdout, re.M), r.stdout
    finally:
        for p in (*([bot] if bot else []), server):
            p.kill()
            p.wait(timeout=TIMEOUT)


def test_servers_to_a_pipe_has_each_server_on_one_line() -> None:
    with lan() as net:
        server, port, _ = start_server(net, "--name", "Salle B")
        try:
            wait_for(net, lambda s: s["port"] == port, f"on port {port}")
            for _ in range(5):  # a search may miss the answer on a loaded machine: the next one finds it
                r = subprocess.run(net.client("servers", "--timeout", "2"), env=dict(net.env, COLUMNS="40"),
                                   capture_output=True, text=True, timeout=TIMEOUT)
                assert r.returncode == 0, r.stderr
                if f":{port}" in r.stdout:
                    break
            _unpadded(r.stdout)
            assert re.search(rf"^\d+ +Salle B +\S+:{port} +quatorze, quinze, quinze-classique +0 open, 0 with free seats "
                             r"+\S+$", r.stdout, re.M), r.stdout
            assert "Join one with: quinze play --server ADDRESS (or quinze play, and pick it by number)\n" in r.stdout
        finally:
            stop(server)
