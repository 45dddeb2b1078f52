"""Le 14 in ``quinze play``, in a real terminal (pexpect, 80x24 and 120x40, English and French;
issue 14 §4): actions that differ only by suit are listed once, values are accepted as input
(``5+9``), and the help wraps between words at the terminal's width.
"""

from __future__ import annotations

import re

import pexpect
import pytest
from playkit import QUINZE, TIMEOUT, plain
import forkkit

PROMPT = r"(Your move|Votre coup)(?: \(\d+ s\))?> "
CLOSED = r"(Table|La table) [a-z2-9]{4}-t\d+ (is closed|est fermée)"
CARD = re.compile(r"\b(10|[2-9AJQKVDR])[SHDCPTK]\b")
RANKS = {"A": 1, "J": 11, "Q": 12, "K": 13, "V": 11, "D": 12, "R": 13}
VALUE = {1: "a", 11: "j", 12: "q", 13: "k"}


def spawn(env, size, lang=None) -> pexpect.spawn:
    env = dict(env, LINES=str(size[0]), COLUMNS=str(size[1]))
    args = ["play", "--local", "--no-log", "--name", "Ana", "--game", "quatorze", "--seed", "8",
            "--opponents", "builtin:greedy"] + (["--lang", lang] if lang else [])
    return forkkit.spawn(QUINZE, args, env=env, encoding="utf-8", timeout=TIMEOUT, dimensions=size)


def rank(card: str) -> int:
    r = card[:-1]
    return RANKS.get(r) or int(r)


def listed(text: str) -> list[str]:
    """The numbered actions on the last screen."""
    last = text.rsplit("\x1b[2J", 1)[-1]
    return re.findall(r"^\s+\d+\) (.+?)\s*$", plain(last).replace("\r\n", "\n"), re.M)


def panel_lines(text: str, title: str) -> list[str]:
    lines = text.split("\n")
    start = next(i for i, ln in enumerate(lines) if ln.startswith(title + " ─"))
    out = []
    for ln in lines[start + 1:]:
        if ln.startswith("─"):
            break
        out.append(ln)
    return [ln for ln in out if ln.strip()]


def by_rank(entry: str) -> str:
    return CARD.sub(lambda m: str(rank(m.group(0))), entry)


@pytest.mark.parametrize(("size", "lang"), [((24, 80), None), ((40, 120), None), ((24, 80), "fr")])
def test_suits_are_listed_once_values_are_typed_and_help_wraps(env, size, lang):
    fr = lang == "fr"
    child = spawn(env, size, lang)
    child.expect(PROMPT)
    child.sendline("aide" if fr else "help")
    child.expect(PROMPT)
    help_text = plain(child.before).replace("\r\n", "\n")
    assert all(len(ln) <= size[1] for ln in help_text.split("\n"))
    header = help_text.rfind("Le 14 — ")
    assert header >= 0, help_text  # the board is drawn again after the help
    above = help_text[:header]
    if "Commands:" in above or "Commandes" in above:  # printed above the board (80x24)
        lines = [ln for ln in above.split("\n") if ln.strip()]
    else:  # in its panel beside the board
        lines = panel_lines(help_text, "aide" if fr else "help")
        assert any(ln.startswith(("Commands:", "Commandes")) for ln in lines), help_text
    starts = {ln.split()[0] for ln in lines if not ln.startswith(" ")}
    assert starts <= {"aide", "help", "Commandes", "No", "Pas",  "Commands:", "Une", "Cards", "Tab", "Le"}, starts  # each entry, never a cut line
    laid = False
    for _ in range(60):
        entries = listed(child.before)
        keys = [by_rank(e) for e in entries]
        assert len(keys) == len(set(keys)), entries  # no two entries differing only by suit
        lays = [e for e in entries if re.match(r"(lay|poser) ", e)]
        if lays and not laid:
            values = "+".join(VALUE.get(rank(m.group(0)), str(rank(m.group(0)))) for m in CARD.finditer(lays[0]))
            child.sendline(values)
            child.expect(r"(You lay|Vous posez) ")
            laid = True
        elif any(re.match(r"(draw from|piocher)", e) for e in entries):
            child.sendline("piocher" if fr else "draw")
        else:
            child.sendline("1")
        k = child.expect([PROMPT, CLOSED])
        if k == 1 or laid:
            break
    assert laid, "no combination came up to lay by its values"
    child.sendline("5+20")
    child.expect(r"(« 20 » n'est pas une valeur|'20' is not a value)")
    child.close(force=True)
