"""The table screen of ``quinze play`` after what a newcomer hit by hand (issue 14), in a real
terminal (pexpect; 80x24 and 120x40, English and French): ``help`` and ``rules`` give the board
back (the clock notice says whether the clock runs while reading), long event lines wrap instead
of being cut with "…", and a deal's or coup's summary is followed by the Enter prompt alone (no
"Waiting for …" above it), the classique board under it showing the coup as over.

No duration is asserted: waits are pexpect timeouts.
"""

from __future__ import annotations

import re

import pexpect
import pytest
from playkit import CLOSED, ENTER, PROMPT, last_screen, plain, quit_game, spawn_local as local

SIZES = [(24, 80), (40, 120)]
TITLE = {"quinze": "Le Quinze — ", "quatorze": "Le 14 — ", "quinze-classique": "Le Quinze classique — "}


def text_of(child: pexpect.spawn) -> str:
    return plain(child.before or "").replace("\r\n", "\n")


def board_in_view(text: str, game: str, height: int, width: int) -> list[str]:
    """The rows a terminal of ``height`` shows at the end of ``text``; asserts the whole board
    (its header) and the turn are among them, and that no row is wider than ``width``."""
    rows = text.split("\n")
    assert all(len(r) <= width for r in rows), [r for r in rows if len(r) > width]
    view = rows[-height:]
    assert any(r.startswith(TITLE[game]) for r in view), "\n".join(view)
    assert any(r.startswith(("Your turn", "À vous")) for r in view), "\n".join(view)
    return view


# ---------------------------------------------------------------- help and rules give the board back


@pytest.mark.parametrize(("game", "size", "lang"), [
    ("quinze", (24, 80), None), ("quinze", (40, 120), "fr"),
    ("quatorze", (24, 80), "fr"), ("quinze-classique", (40, 120), None),
])
def test_help_and_rules_are_followed_by_the_board(env, game, size, lang):
    fr = lang == "fr"
    child = local(env, game, "--seed", "4", size=size, lang=lang)
    child.expect(PROMPT)
    child.sendline("aide" if fr else "help")
    child.expect(PROMPT)
    after_help = text_of(child)
    view = board_in_view(after_help, game, *size)
    assert ("Pas de pendule à cette table" if fr else "No clock at this table") in after_help
    assert ("Commandes :" if fr else "Commands:") in after_help
    if size[0] >= 40:  # room enough: the help in its panel, the board on the same screen
        assert any(r.startswith(("aide ─", "help ─")) for r in view)
        assert any(r.startswith(("Commandes :", "Commands:")) for r in view), "\n".join(view)
    child.sendline("regles" if fr else "rules")
    child.expect(PROMPT)
    after_rules = text_of(child)
    assert ("Commun aux trois jeux" if fr else "Common to the three games") in after_rules
    assert after_rules.index("Commun aux trois jeux" if fr else "Common to the three games") < after_rules.rindex(TITLE[game])
    view = board_in_view(after_rules, game, *size)
    assert any(("remontez pour les lire" if fr else "scroll up to read them") in r for r in view), "\n".join(view)
    child.sendline("1")  # the game goes on: the help panel is gone from the next screen
    child.expect([PROMPT, ENTER])
    assert not any(r.startswith(("aide ─", "help ─", "règles ─", "rules ─")) for r in last_screen(child).split("\n"))
    quit_game(child, fr)


@pytest.mark.parametrize(("clock", "lang", "pattern"), [
    ("bank:300+5", None, r"Your time bank runs while you read: \d:\d\d left\."),
    ("bank:300+5", "fr", r"Votre réserve de temps s'écoule pendant la lecture : \d:\d\d\."),
    ("move:600", None, r"Your clock runs while you read: \d+:\d\d left for this move\."),
    ("move:600", "fr", r"Votre pendule tourne pendant la lecture : \d+:\d\d pour ce coup\."),
])
def test_the_clock_notice_says_the_clock_runs_while_reading(env, clock, lang, pattern):
    fr = lang == "fr"
    child = local(env, "quinze", "--seed", "4", "--clock", clock, size=(40, 120), lang=lang)
    child.expect(PROMPT)
    child.sendline("aide" if fr else "help")
    child.expect(PROMPT)
    text = text_of(child)
    assert re.search(pattern, text), text
    board_in_view(text, "quinze", 40, 120)
    quit_game(child, fr)


# ---------------------------------------------------------------- events wrap, never cut


@pytest.mark.parametrize(("size", "lang"), [((24, 80), None), ((24, 80), "fr"), ((40, 120), "fr")])
def test_long_event_lines_wrap_instead_of_being_cut(env, size, lang):
    # classique's deck-change line ("... freshly shuffled (a coup was played).") is longer than 80
    child = local(env, "quinze-classique", "--opponents", "builtin:threshold", "--seed", "5", "--option", "cave=5",
                  size=size, lang=lang)
    wrapped = False
    for _ in range(60):
        k = child.expect([PROMPT, ENTER, CLOSED])
        screen = last_screen(child)
        rows = screen.split("\n")
        assert all(len(r) <= size[1] for r in rows)
        assert not any(r.rstrip().endswith("…") and not r.startswith(("On attend", "Waiting")) for r in rows), screen
        wrapped = wrapped or any(re.match(r"^    \S", r) for r in rows)  # a continuation row of an event
        if k == 2 or (wrapped and k == 0):
            break
        child.sendline("" if k == 1 else "1")
    assert wrapped, "no long event line came up"
    child.close(force=True)


# ---------------------------------------------------------------- summaries


@pytest.mark.parametrize(("game", "args", "size", "lang"), [
    ("quinze", ("--opponents", "builtin:greedy", "--seed", "6"), (24, 80), None),
    ("quinze", ("--opponents", "builtin:greedy", "--seed", "6"), (40, 120), "fr"),
    ("quinze-classique", ("--opponents", "builtin:threshold", "--seed", "5", "--option", "cave=5"), (24, 80), "fr"),
    ("quinze-classique", ("--opponents", "builtin:threshold", "--seed", "5", "--option", "cave=5"), (40, 120), None),
])
def test_a_summary_ends_with_the_enter_prompt_alone(env, game, args, size, lang):
    fr = lang == "fr"
    child = local(env, game, *args, size=size, lang=lang)
    for _ in range(400):
        k = child.expect([PROMPT, ENTER])
        if k == 1:
            break
        child.sendline("1")
    else:
        raise AssertionError("no summary came")
    screen = last_screen(child)
    rows = [r for r in screen.split("\n") if r.strip()]
    assert rows[-1].startswith("─"), rows[-3:]  # the rule, then the Enter prompt: nothing between
    assert not any(r.startswith(("Waiting for", "On attend")) for r in rows), screen
    assert any(r.startswith(("bilan ─", "summary ─")) for r in rows)
    if game == "quinze-classique":
        header = next(r for r in rows if r.startswith(("Coup ", "Coup")))
        assert header.endswith("coup terminé" if fr else "coup over"), header  # not the last round of the coup
        assert not any(r.startswith("▶") for r in rows), screen  # nobody is to act in a coup that is over
    child.sendline("")
    child.expect([PROMPT, ENTER])
    child.close(force=True)


# ---------------------------------------------------------------- a resized terminal


@pytest.mark.parametrize(("size", "new", "lang"), [((24, 80), (40, 120), None), ((40, 120), (24, 80), "fr")])
def test_the_board_is_drawn_again_at_the_new_size_when_the_terminal_is_resized(env, size, new, lang):
    fr = lang == "fr"
    child = local(env, "quinze", "--seed", "4", size=size, lang=lang)
    child.expect(PROMPT)
    before = last_screen(child)
    assert max(len(r) for r in before.split("\n")) <= size[1]
    child.setwinsize(*new)  # the kernel sends SIGWINCH to the client
    child.expect(PROMPT)
    after = last_screen(child)
    rows = after.split("\n")
    assert any(r.startswith(TITLE["quinze"]) for r in rows), after
    assert all(len(r) <= new[1] for r in rows), after
    assert max(len(r) for r in rows) == new[1], after  # the rules span the new width
    assert len([r for r in rows if r.strip()]) <= new[0]
    quit_game(child, fr)


def test_a_dumb_terminal_is_drawn_at_its_width(env: dict[str, str]) -> None:
    """TERM=dumb in a 40-column terminal, LINES unset (as in an Emacs shell or tmux): every line
    of the screen fits in 40 columns, wrapped by us at word boundaries (rich alone takes a dumb
    terminal for 80 × 25 unless both COLUMNS and LINES are set, so the terminal cut the words)."""
    import forkkit
    from playkit import QUINZE, TIMEOUT

    bare = {k: v for k, v in env.items() if k not in ("LINES", "COLUMNS")}
    child = forkkit.spawn(QUINZE, ["play", "--local", "--no-log", "--name", "Ana", "--game", "quinze", "--seed", "3",
                                   "--opponents", "builtin:greedy"], env=dict(bare, TERM="dumb"), encoding="utf-8",
                          timeout=TIMEOUT, dimensions=(24, 40))
    child.expect(PROMPT)
    lines = plain(child.before or "").replace("\r\n", "\n").split("\n")
    assert "Your hand" in "\n".join(lines) and max(len(line.rstrip()) for line in lines) <= 40, lines
    quit_game(child)
