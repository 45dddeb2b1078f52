"""Events a person can read in ``quinze play``, in a real terminal (pexpect; 80x24 and 120x40,
English and French; issue 14 §2): the recent events take the terminal's height, our own last
action never scrolls away (our burn in classique included), each deal or coup ends with a
summary that waits for Enter at a local table and stays a few seconds at a networked one, the
others hear when a player drops and comes back, a seat taken back does not hear "Game 1 starts"
again, and our own actions are told "You ..." in all three games.

No duration is asserted: waits are pexpect timeouts, generous where something must come.
"""

from __future__ import annotations

import re
import signal

import pexpect
import pytest
from playkit import CLOSED, ENTER, PROMPT, last_screen as screen, plain, quit_game, spawn_local as local, spawn_play as spawn

SIZES = [(24, 80), (40, 120)]
OLD_STYLE = re.compile(r"Ana \((you|vous)\) (draws|makes|made|places|placed|discards|lays|passes|stands|raises|calls|"
                       r"checks|folds|is burnt|pioche|fait|pose|passe|relance|tient|se brûle)|Ana (made|placed)|: swap ")


def panel(text: str, title: str = "recent") -> list[str]:
    """The lines of the panel titled ``title`` on a screen (up to the next rule)."""
    lines = text.split("\n")
    start = next((i for i, ln in enumerate(lines) if ln.startswith(title + " ─")), None)
    if start is None:
        return []
    out = []
    for ln in lines[start + 1:]:
        if ln.startswith("─") or re.match(r"^\w+ ─", ln):
            break
        out.append(ln)
    return out


def play_on(child: pexpect.spawn, until, answer=lambda text: "1", limit: int = 400) -> list[str]:
    """Answer prompts (``answer(screen)``; Enter at summaries) until ``until(kind, screen)``;
    returns every screen seen. ``kind`` is "move", "summary" or "closed"."""
    seen = []
    for _ in range(limit):
        k = child.expect([PROMPT, ENTER, CLOSED])
        text = screen(child)
        seen.append(text)
        kind = ("move", "summary", "closed")[k]
        if until(kind, text):
            return seen
        if kind == "closed":
            raise AssertionError("the table closed first:\n" + text)
        child.sendline("" if kind == "summary" else answer(text))
    raise AssertionError("never reached")


# ---------------------------------------------------------------- the recent events


@pytest.mark.parametrize("size", SIZES)
def test_recent_events_use_the_height_and_keep_our_own_last_action(env, size):
    child = local(env, "quinze", "--seed", "4", size=size)
    seen: list[str] = []
    for _ in range(8):  # eight of our turns (summaries answered with Enter)
        k = child.expect([PROMPT, ENTER])
        text = screen(child)
        if k == 1:
            child.sendline("")
            continue
        seen.append(text)
        lines = text.split("\n")
        assert len([ln for ln in lines if ln.strip()]) <= size[0] and all(len(ln) <= size[1] for ln in lines), text
        recent = panel(text)
        if len(seen) > 1:  # after our first move, our last action is always on screen
            assert any(ln.startswith("  You ") for ln in recent), text
        child.sendline("1")
    longest = max(len(panel(t)) for t in seen)
    if size[0] == 40:
        assert longest > 5, seen[-1]  # not 5 lines on a 40-line terminal
    else:
        assert longest >= 2
    quit_game(child)


def test_our_burn_in_classique_is_on_screen(env):
    child = local(env, "quinze-classique", "--opponents", "builtin:threshold", "--seed", "2", "--option", "cave=6",
                  size=(24, 80))

    def hit_always(text: str) -> str:
        for word in ("open and ask for cards", "draw a card face up"):
            m = re.search(r"(\d+)\) " + word, text)
            if m:
                return m.group(1)
        return "1"

    seen = play_on(child, lambda kind, text: "You are burnt with" in text or kind == "closed", answer=hit_always)
    assert "You are burnt with" in seen[-1]
    burnt = seen[-1]
    if "summary ─" in burnt:
        assert any("You are burnt with" in ln for ln in panel(burnt, "summary"))
    child.close(force=True)


# ---------------------------------------------------------------- summaries


@pytest.mark.parametrize(("size", "lang"), [((24, 80), None), ((40, 120), "fr")])
def test_a_deal_summary_waits_for_enter_at_a_local_table(env, size, lang):
    fr = lang == "fr"
    child = local(env, "quinze", "--opponents", "builtin:greedy", "--seed", "6", size=size, lang=lang)
    seen = play_on(child, lambda kind, text: kind == "summary")
    text = seen[-1]
    summary = panel(text, "bilan" if fr else "summary")
    assert summary and ("Fin de la donne 1" if fr else "Deal 1 over") in summary[0], text
    assert any(("Points : " if fr else "Scores: ") in ln for ln in summary)
    assert all(len(ln) <= size[1] for ln in text.split("\n"))
    with pytest.raises(pexpect.TIMEOUT):  # nothing moves on until Enter
        child.expect([PROMPT, ENTER, CLOSED], timeout=2)
    child.sendline("")
    child.expect([PROMPT, ENTER])
    assert ("Donne 2" if fr else "Deal 2") in plain(child.before)
    quit_game(child, fr=fr)


def test_a_coup_summary_in_french(env):
    child = local(env, "quinze-classique", "--opponents", "builtin:threshold", "--seed", "5", "--option", "cave=5",
                  size=(40, 120), lang="fr")
    seen = play_on(child, lambda kind, text: kind == "summary")
    summary = panel(seen[-1], "bilan")
    assert summary and any("Fin du coup 1" in ln or "Tout le monde passe" in ln for ln in summary), seen[-1]
    assert any("remporte le pot" in ln or "Remportez" in ln or "remportez" in ln for ln in summary) or \
        any("Tout le monde passe" in ln for ln in summary)
    child.sendline("")
    quit_game(child, fr=True)


def test_a_networked_summary_shows_and_the_game_goes_on(host, env):
    port, table = host(3, "greedy")  # target=1: the first deal ends the game
    child = spawn(env, "--server", f"127.0.0.1:{port}", "--name", "Ana", "--table", table)
    out = []
    for _ in range(400):
        k = child.expect([PROMPT, ENTER, CLOSED])
        out.append(plain(child.before))
        assert k != 1, "a networked table never waits for Enter"
        if k == 2:
            break
        child.sendline("1")
    text = "\n".join(out)
    assert "summary ─" in text and "Deal 1 over" in text and "Scores: " in text
    child.expect(pexpect.EOF)
    child.close()


# ---------------------------------------------------------------- people at a networked table


def _create_table(env, port: int) -> tuple[pexpect.spawn, str]:
    ana = spawn(env, "--server", f"127.0.0.1:{port}", "--name", "Ana", size=(40, 120))
    ana.expect("lobby> ")
    ana.sendline("c")
    ana.expect(r"Game \(")
    ana.sendline("")
    ana.expect(r"Seats \(2-8\)")
    ana.sendline("2")
    ana.expect("Options as KEY=VALUE")
    ana.sendline("target=200")
    ana.expect(r"Table ([a-z2-9]{4}-t\d+) created.")
    return ana, ana.match.group(1)


def test_others_hear_a_drop_and_a_return_and_the_returning_seat_is_not_told_game_1_starts(host, env, tmp_path):
    port, _ = host(3)
    ana, table = _create_table(env, port)
    bea_env = dict(env, XDG_CACHE_HOME=str(tmp_path / "bea"))
    bea = spawn(bea_env, "--server", f"127.0.0.1:{port}", "--name", "Bea", "--table", table, size=(24, 80))
    bea.expect("Game 1 starts: Ana, Bea.")
    ana.expect("Game 1 starts: Ana, Bea.")
    bea.kill(signal.SIGKILL)  # the terminal is gone: no goodbye
    bea.close(force=True)
    ana.expect("Bea lost the connection; the seat is kept for a return.")
    back = spawn(bea_env, "--server", f"127.0.0.1:{port}", "--name", "Bea", "--table", table, size=(24, 80))
    back.expect(f"You are back at table {table}")
    back.expect("Game 1 goes on: Ana, Bea.")
    ana.expect("Bea is back.")
    back.expect([PROMPT, r"Waiting for Ana"])
    assert "Game 1 starts" not in plain(back.before)
    quit_game(ana)
    back.expect(CLOSED)
    back.expect(pexpect.EOF)
    back.close()


# ---------------------------------------------------------------- one way of telling


@pytest.mark.parametrize(("game", "args", "lang"), [
    ("quinze", ["--seed", "4"], None),
    ("quinze", ["--seed", "4"], "fr"),
    ("quatorze", ["--seed", "3", "--opponents", "builtin:greedy,builtin:random"], None),
    ("quatorze", ["--seed", "3", "--opponents", "builtin:greedy,builtin:random"], "fr"),
    ("quinze-classique", ["--seed", "5", "--opponents", "builtin:threshold,builtin:random"], None),
    ("quinze-classique", ["--seed", "5", "--opponents", "builtin:threshold,builtin:random"], "fr"),
])
def test_our_own_actions_are_told_you_in_every_game(env, game, args, lang):
    fr = lang == "fr"
    child = local(env, game, *args, size=(40, 120), lang=lang)
    seen = []
    turns = 0
    for _ in range(60):
        k = child.expect([PROMPT, ENTER, CLOSED])
        seen.append(screen(child))
        if k == 2:
            break
        if k == 1:
            child.sendline("")
            continue
        turns += 1
        if turns > 12:
            break
        child.sendline("1")
    text = "\n".join(seen)
    assert re.search(r"^  (Vous|You) ", text, re.M), text[-3000:]
    assert not OLD_STYLE.search(text), OLD_STYLE.search(text)
    if k != 2:
        quit_game(child, fr=fr)
    else:
        child.close(force=True)


# ---------------------------------------------------------------- the lobby and Le Quinze's list


@pytest.mark.parametrize("size", SIZES)
def test_the_lobby_hides_a_closed_table(host, env, size):
    port, table = host(3, "greedy")  # target=1: one deal, then the table closes
    ana = spawn(env, "--server", f"127.0.0.1:{port}", "--name", "Ana", "--table", table, size=size)
    for _ in range(400):
        k = ana.expect([PROMPT, CLOSED])
        if k == 1:
            break
        ana.sendline("1")
    ana.expect(pexpect.EOF)
    ana.close()
    di = spawn(env, "--server", f"127.0.0.1:{port}", "--name", "Di", size=size)
    di.expect("lobby> ")
    text = plain(di.before)
    assert table not in text and "closed" not in text and "No table yet." in text
    di.sendline("q")
    di.expect(pexpect.EOF)
    di.close()


def test_le_quinze_lists_each_fifteen_once_by_rank(env):
    """Equal cards are interchangeable (quinze_cli/rules/quinze.md "Material"): no two listed
    fifteens take the same ranks from the hand and from the table."""
    child = local(env, "quinze", "--seed", "9", "--opponents", "builtin:greedy", size=(40, 120))
    card = re.compile(r"\b(10|[2-9AJQK])[SHDC]\b|\b[BR]J\b|\bJk\b")
    checked = 0
    for _ in range(30):
        k = child.expect([PROMPT, ENTER])
        if k == 1:
            child.sendline("")
            continue
        entries = re.findall(r"^\s+\d+\) (make 15: .+?)\s*$", screen(child), re.M)
        keys = []
        for e in entries:
            hand, _, table = e.partition("+ table")
            def ranks(part: str) -> list[str]:
                return sorted("joker" if m.group(0) in ("BJ", "RJ", "Jk") else m.group(0)[:-1] for m in card.finditer(part))

            keys.append((ranks(hand), ranks(table)))
        assert len(keys) == len({repr(k) for k in keys}), entries
        checked += len(entries)
        child.sendline("1")
    assert checked > 0
    quit_game(child)
