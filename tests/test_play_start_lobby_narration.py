"""``quinze play``: starting (stdin a pipe, an unreachable server, the name asked once the server
is reached, ``--local`` opponents and usage errors), creating a table from the lobby, and the
narration's card style and help. The client runs as a subprocess (or in a pseudo-terminal with
pexpect) against a real server on loopback (``tests/play_host.py``). No duration is asserted;
timeouts are generous.
"""

from __future__ import annotations

import os
import re
import subprocess

import pexpect
import pytest
from playkit import QUINZE, TIMEOUT
import forkkit

def run_with_open_pipe(env, args: list[str], lines: str, after: str = "") -> tuple[int, str, str]:
    """Run ``quinze play ARGS``, wait for ``after`` in its output, then write ``lines`` on a
    standard input pipe that stays open until the client has exited (as ``(echo ...; sleep 5) |
    quinze play`` does); returns (code, out, err)."""
    proc = forkkit.Popen([QUINZE, "play", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    seen = b""
    try:
        while after.encode() not in seen:
            chunk = os.read(proc.stdout.fileno(), 4096)
            assert chunk, seen.decode()
            seen += chunk
        proc.stdin.write(lines.encode())
        proc.stdin.flush()
        code = proc.wait(timeout=TIMEOUT)
    finally:
        proc.kill()
    out, err = seen.decode() + proc.stdout.read().decode(), proc.stderr.read().decode()
    proc.stdin.close()
    return code, out, err


def test_quit_with_stdin_pipe_still_open_exits_cleanly_local(env):
    code, out, err = run_with_open_pipe(env, ["--local", "--no-log", "--seed", "3", "--name", "Ana"], "quit\ny\n", "Your move")
    assert "Fatal Python error" not in err
    assert code == 0, err
    assert "Bye." in out


def test_quit_with_stdin_pipe_still_open_exits_cleanly_spectator(host, env):
    port, table = host(3)
    code, out, err = run_with_open_pipe(env, ["--server", f"127.0.0.1:{port}", "--spectate", table, "--name", "Sam"],
                                         "quit\n", "You are watching")
    assert "Fatal Python error" not in err
    assert code == 0, err
    assert f"You are watching table {table}" in out


def test_unreachable_server_with_stdin_pipe_still_open_exits_without_abort(env):
    code, out, err = run_with_open_pipe(env, ["--server", "127.0.0.1:1"], "Ana\n")
    assert "Fatal Python error" not in err
    assert code == 1, err  # cannot reach the server: exit 1 (quinze_cli/play/main.py)
    assert "Cannot connect" in out and "Traceback" not in out + err


@pytest.mark.parametrize(("game", "best"), [("quinze-classique", "threshold"), ("quatorze", "greedy"), ("quinze", "greedy")])
def test_local_default_opponents_follow_the_game(env, game, best):
    code, out, err = run_with_open_pipe(env, ["--local", "--no-log", "--game", game, "--seed", "3", "--name", "Ana"], "quit\ny\n",
                                        "Your move")
    assert code == 0, out + err
    assert f"Starting a local server with mcts, {best}" in out
    assert "no built-in bot" not in out + err


def test_local_explicit_opponents_still_checked_against_the_game(env):
    proc = forkkit.run([QUINZE, "play", "--local", "--game", "quinze-classique", "--opponents", "builtin:greedy",
                           "--name", "Ana"], stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env,
                          timeout=TIMEOUT)
    assert proc.returncode == 2
    assert "--opponents: 'builtin:greedy': no built-in bot 'greedy' for quinze-classique" in proc.stdout + proc.stderr


def test_unreachable_server_is_reported_before_the_name_is_asked(env):
    proc = forkkit.run([QUINZE, "play", "--server", "127.0.0.1:1"], input="Ana\n", capture_output=True, text=True,
                          env=env, timeout=TIMEOUT)
    assert proc.returncode == 1, proc.stderr
    assert "Cannot connect" in proc.stdout
    assert "Your name" not in proc.stdout  # nothing typed for nothing


def test_name_is_asked_once_the_server_is_reached(host, env):
    port, table = host(3)
    child = forkkit.spawn(QUINZE, ["play", "--server", f"127.0.0.1:{port}", "--table", table], env=env,
                          encoding="utf-8", timeout=TIMEOUT, dimensions=(24, 80))
    child.expect(r"Your name \[")
    child.sendline("Ana")
    child.expect(f"You sit at table {table}, seat 0")
    child.expect(r"Your move(?: \(\d+ s\))?> ")
    child.sendline("quit")
    child.expect(r"forfeit this game\? \[y/N\] ")
    child.sendline("y")
    child.expect("Bye.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_local_and_server_together_is_a_usage_error(env):
    proc = forkkit.run([QUINZE, "play", "--local", "--server", "127.0.0.1:9", "--name", "Ana"],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env, timeout=TIMEOUT)
    assert proc.returncode == 2
    text = proc.stdout + proc.stderr
    assert "--local" in text and "--server" in text and "Traceback" not in text
    assert "Starting a local server" not in text


def test_lobby_create_asks_again_for_a_bad_answer(host, env):
    port, _ = host(3)
    child = forkkit.spawn(QUINZE, ["play", "--server", f"127.0.0.1:{port}", "--name", "Cy"], env=env,
                          encoding="utf-8", timeout=TIMEOUT, dimensions=(24, 80))
    child.expect("lobby> ")
    child.sendline("c")
    child.expect(r"Game \(")
    child.sendline("nope")
    child.expect("Unknown game")
    child.expect(r"Game \(")  # asked again, not back to the lobby
    child.sendline("quinze")
    child.expect(r"Seats \(2-8\) \[2\]: ")
    child.sendline("9")
    child.expect("Option players: must be at most 8, got 9")
    child.expect(r"Seats \(2-8\) \[2\]: ")  # asked again at once, before the options
    child.sendline("3")
    child.expect("Options as KEY=VALUE")
    child.sendline("target=nope")
    child.expect("Option target: expects a whole number")
    child.expect("Options as KEY=VALUE")  # the game and seats already given are kept
    child.sendline("target=5")
    child.expect(r"Table [a-z2-9]{4}-t2 created\.")
    child.expect(r"You sit at table [a-z2-9]{4}-t2, seat 0\.")
    child.expect("Waiting for the other players")
    child.sendline("quit")
    child.expect("Bye.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_lobby_create_can_be_cancelled(host, env):
    port, _ = host(3)
    child = forkkit.spawn(QUINZE, ["play", "--server", f"127.0.0.1:{port}", "--name", "Cy"], env=env,
                          encoding="utf-8", timeout=TIMEOUT, dimensions=(24, 80))
    child.expect("lobby> ")
    child.sendline("c")
    child.expect(r"Game \(")
    child.sendline("quinze")
    child.expect(r"Seats \(")
    child.sendline("q")
    child.expect("No table created.")
    child.expect("lobby> ")
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


CANONICAL_CARD = re.compile(r"(?<![\w♠♥♦♣])(?:10|[2-9AJQK])[SHDC](?!\w)|(?<!\w)[BR]J(?!\w)")


@pytest.mark.parametrize(("game", "options", "bot"), [("quatorze", {"players": 2}, "greedy"),
                                                       ("quinze-classique", {"players": 3, "cave": 9}, "threshold")])
def test_narration_writes_cards_in_the_client_card_style(game, options, bot):
    from test_play_games import Table  # a real seeded game seen from seat 0 through the GameUI

    t = Table(game, options, seed=3, bot=bot, color=True)
    for _ in range(400):
        if t.g.is_over:
            break
        t.play()
    text = "\n".join(t.st.log)
    assert any(sym in text for sym in "♠♥♦♣"), text[-2000:]
    assert not CANONICAL_CARD.findall(text), CANONICAL_CARD.findall(text)[:5]


def test_narration_card_style_keeps_names_and_follows_the_language():
    from quinze_cli.play.cards_ui import CardStyle
    from quinze_cli.play.events_ui import style_cards, tell
    from quinze_cli.play.registry import TableState
    from quinze_protocol.game import get_game

    line = "  hidden card of Ana: KC; 9D 10S; RJ"
    assert style_cards(line, CardStyle("en", True)) == "  hidden card of Ana: K♣; 9♦ 10♠; Jk"
    assert style_cards(line, CardStyle("fr", False)) == "  hidden card of Ana: RT; 9K 10P; JR"
    assert style_cards(line, CardStyle("en", False)) == line
    state = TableState(table="t1", game="quinze-classique", seat=0, players=["KC", "Bob", "Cy"])
    event = {"kind": "deal", "dealer": 1, "talon": 49, "order": [2, 0, 1], "card": "KC"}
    lines = tell("quinze-classique", state, event, get_game("quinze-classique").private_fields, "(you)", style=CardStyle("en", True))
    assert "  hidden card of KC (you): K♣" in lines, lines  # a name that looks like a card is kept


def test_help_mentions_jokers_only_for_le_quinze():
    from quinze_cli.play.cards_ui import CardStyle
    from quinze_cli.i18n import Catalogue
    from quinze_cli.play.registry import get_ui

    for lang in ("en", "fr"):
        cat = Catalogue(lang)
        generic = [cat(f"help.{i}") for i in range(1, 6)]
        for game in ("quinze-classique", "quatorze"):
            text = "\n".join(generic + get_ui(game, cat, CardStyle(lang, False)).help_lines()).lower()
            assert "joker" not in text, (lang, game, text)
        quinze = "\n".join(generic + get_ui("quinze", cat, CardStyle(lang, False)).help_lines()).lower()
        assert "joker" in quinze
