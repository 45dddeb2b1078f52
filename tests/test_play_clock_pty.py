"""Clocks for people, seen in a real terminal (pexpect): ``--local`` has no clock, ``--clock``
gives a time bank shown for every player with warnings before it runs out, and tables created
from the lobby get a time bank by default. English and French, 80x24 and 120x40.

No duration is asserted (the warnings are waited for, with generous timeouts).
"""

from __future__ import annotations

import pexpect
import pytest
from playkit import plain, quit_game, spawn_play as spawn

SIZES = [(24, 80), (40, 120)]


@pytest.mark.parametrize("size", SIZES)
def test_local_has_no_clock(env, size):
    child = spawn(env, "--local", "--no-log", "--name", "Ana", "--seed", "3", size=size)
    child.expect(r"Your move> ")
    screen = plain(child.before)
    assert "Your turn (no clock)." in screen and " s left" not in screen and "Time bank" not in screen
    assert all(len(line) <= size[1] for line in screen.splitlines())
    quit_game(child)


def test_local_has_no_clock_in_french(env):
    child = spawn(env, "--local", "--no-log", "--name", "Ana", "--seed", "3", "--lang", "fr")
    child.expect(r"Votre coup> ")
    assert "À vous (sans pendule)." in plain(child.before)
    quit_game(child, fr=True)


@pytest.mark.parametrize("size", SIZES)
def test_a_time_bank_is_shown_for_everyone_and_warns_before_it_runs_out(env, size):
    child = spawn(env, "--local", "--no-log", "--name", "Ana", "--seed", "3", "--clock", "bank:7+2", size=size)
    child.expect(r"Your move \(\d s\)> ")
    screen = plain(child.before)
    assert "Time bank (+2 s a move): Ana ▶ 7 s · " in screen
    assert all(len(line) <= size[1] for line in screen.splitlines())
    child.expect(r"⏱ 5 s left in your time bank!")  # the warning, then the prompt again
    child.expect(r"Your move \(\d s\)> ")
    child.expect("You forfeit: the time ran out.")  # nobody answered: the bank ran out; told as our own
    child.expect(pexpect.EOF)
    child.close()


def test_our_own_forfeit_is_told_in_the_second_person_in_french(env):
    # 4 s a move (2 s once): under load the first prompt was once not drawn before a 2 s clock ran
    # out (the table closed with no prompt seen); the bots must answer within it too.
    child = spawn(env, "--local", "--no-log", "--name", "Ana", "--seed", "3", "--clock", "move:4", "--lang", "fr")
    child.expect(r"Votre coup \(\d s\)> ")
    child.expect("Vous déclarez forfait : le temps est écoulé.")
    assert "Ana déclare forfait" not in plain(child.before)
    child.expect(pexpect.EOF)
    child.close()


def test_a_time_bank_in_french(env):
    child = spawn(env, "--local", "--no-log", "--name", "Ana", "--seed", "3", "--clock", "bank:300+5", "--lang", "fr")
    child.expect(r"Votre coup \(\d+ s\)> ")
    assert "Réserve de temps (+5 s par coup) : Ana ▶ 5:00 · " in plain(child.before)
    quit_game(child, fr=True)


@pytest.mark.parametrize(("args", "said"), [
    (["--clock", "sometimes"], "--clock: 'sometimes' is not a clock: write none, move:SECONDS"),
    (["--clock", "move:0"], "--clock: clock 'move:0': must be more than 0"),
    (["--move-time", "-3"], "--move-time must be positive"),
    (["--move-time", "5", "--clock", "none"], "--move-time and --clock: choose one"),
])
def test_bad_clock_options_are_usage_errors(env, args, said):
    child = spawn(env, "--local", "--no-log", "--name", "Ana", *args)
    child.expect(pexpect.EOF)
    child.close()
    assert said in plain(child.before) and "Traceback" not in child.before
    assert child.exitstatus == 2


def test_a_table_created_from_the_lobby_has_a_time_bank(host, env):
    port, _ = host(3)
    child = spawn(env, "--server", f"127.0.0.1:{port}", "--name", "Cy")
    child.expect("lobby> ")
    child.sendline("c")
    child.expect(r"Game \(")
    child.sendline("")
    child.expect(r"Seats \(2-8\)")
    child.sendline("2")
    child.expect("Options as KEY=VALUE")
    child.sendline("")
    child.expect(r"Table [a-z2-9]{4}-t2 created.")
    child.expect("Waiting for the other players")
    # listed while Cy waits there (once Cy, its creator and only player, goes, the table closes)
    lister = spawn(env, "--server", f"127.0.0.1:{port}", "--name", "Di")
    lister.expect("lobby> ")
    assert "clock=bank:300+5" in plain(lister.before)
    lister.sendline("q")
    lister.expect(pexpect.EOF)
    lister.close()
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
