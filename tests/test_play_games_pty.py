"""``quinze play --local`` driven for real in a pseudo-terminal (pexpect) for Le 14 and Le Quinze
classique: the real client, the embedded real server and built-in bots, played by hand to the end.

Games are short (Le 14: ``max_turns``; classique: a small ``cave``) and seeded. No duration is
asserted; timeouts are generous.
"""

from __future__ import annotations


import pexpect
from playkit import QUINZE, TIMEOUT, plain
import forkkit

PROMPT = r"Your move(?: \(\d+ s\))?> "
CLOSED = r"Table [a-z2-9]{4}-t1 is closed"
ENTER = r"Press Enter to go on> "
"""The end of each coup stays on screen until Enter at a local table."""


def spawn(env, *args: str) -> pexpect.spawn:
    return forkkit.spawn(QUINZE, ["play", "--local", "--no-log", "--name", "Ana", *args], env=env, encoding="utf-8",
                         timeout=TIMEOUT, dimensions=(24, 80))


def test_quatorze_by_hand_to_the_end(env):
    child = spawn(env, "--game", "quatorze", "--opponents", "builtin:greedy", "--seed", "3",
                  "--option", "max_turns=10", "--option", "max_substitutions=1")
    child.expect(PROMPT)
    first = plain(child.before)
    assert "Le 14" in first and "Your hand: " in first and "packets 4 3 2" in first
    assert "draw from the stock" in first
    assert all(len(line) <= 80 for line in first.splitlines())
    child.sendline("help")
    child.expect("'lay 9h 5c'")
    child.sendline("rules")
    child.expect("Your turn, in four steps")
    child.sendline("hint")
    child.expect(r"Hint \(what the search bot would play\): (draw from the stock|take from the discard pile)")
    child.sendline("discard ks")
    child.expect("Draw first")
    child.expect(PROMPT)
    child.sendline("draw")  # typed: from the stock
    child.expect(r"You draw \w+ from the stock")
    moves, out = 1, []
    while True:
        k = child.expect([PROMPT, CLOSED])
        out.append(plain(child.before))
        if k == 1:
            break
        moves += 1
        child.sendline("1")
        assert moves < 300
    child.expect(pexpect.EOF)
    child.close()
    text = "\n".join(out)
    assert "Cards left (fewest wins): Ana " in text and "Winner(s): " in text
    assert "The game ends (the turn limit is reached)" in text
    assert child.exitstatus == 0


def test_classique_by_hand_to_the_end(env):
    child = spawn(env, "--game", "quinze-classique", "--opponents", "builtin:threshold", "--seed", "5",
                  "--option", "cave=5")
    child.expect(PROMPT)
    first = plain(child.before)
    assert "Le Quinze classique" in first and "Your hidden card: " in first and "speaking round" in first
    assert "(black deck)" in first and "pot 2" in first and "(dealer)" in first
    assert all(len(line) <= 80 for line in first.splitlines())
    child.sendline("help")
    child.expect("'raise 5'")
    child.sendline("hint")
    child.expect(r"Hint \(what the search bot would play\): ")
    child.sendline("call")
    child.expect("You cannot call now; now: pass, stand, hit")
    moves, out, raised, tried_range = 0, [first], False, False
    child.sendline("hit")  # open and ask for cards
    summaries = 0
    while True:
        k = child.expect([PROMPT, CLOSED, ENTER])
        screen = plain(child.before)
        out.append(screen)
        if k == 1:
            break
        if k == 2:
            summaries += 1
            assert "summary ─" in screen and "Coup " in screen.rsplit("summary ─", 1)[1]
            child.sendline("")
            continue
        moves += 1
        assert moves < 300
        if "raise by" in screen and not tried_range:
            tried_range = True
            child.sendline("raise 999")
            child.expect("A raise of 999 is out of range: from 1")
            child.expect(PROMPT)
            child.sendline("raise 1")
            raised = True
        elif "open and ask for cards" in screen:
            child.sendline("hit")
        else:
            child.sendline("1")
    child.expect(pexpect.EOF)
    child.close()
    text = "\n".join(out)
    assert tried_range and raised and summaries >= 1
    assert "You raise 1" in text
    assert "Final chips (won or lost): Ana " in text and "The match ends" in text
    assert child.exitstatus == 0


def test_a_move_typed_at_a_summary_is_not_said_to_wait_for_a_bot(env):
    # "1" typed at "Press Enter to go on>" after a deal (the last one too, the game then over): the
    # deal is over and no move is owed, not "It is not your turn (waiting for greedy-1)" (or for Ana).
    child = spawn(env, "--game", "quinze", "--opponents", "builtin:greedy", "--seed", "1", "--option", "target=30")
    summaries, out = 0, []
    while True:
        k = child.expect([PROMPT, CLOSED, ENTER])
        out.append(plain(child.before))
        if k == 1:
            break
        if k == 2:
            summaries += 1
            child.sendline("1")
            said = child.expect([r"No move to make now\.", r"It is not your turn[^\r\n]*"])
            assert said == 0, child.after
            continue
        child.sendline("1")
        assert len(out) < 600
    child.expect(pexpect.EOF)
    child.close()
    text = "\n".join(out)
    assert summaries >= 1 and "Winner(s): " in text
    assert "It is not your turn" not in text
    assert child.exitstatus == 0
