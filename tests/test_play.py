"""``quinze play`` driven for real: the client in a pseudo-terminal (pexpect) against a real
server on loopback (``tests/play_host.py``: the server and built-in bots, as ``--local`` uses).

Games are short (``target=1``: the match ends after the first scored deal) and seeded. The seat
token is kept in ``$XDG_CACHE_HOME/quinze/seats.json``; each test has its own cache directory.
No duration is asserted; timeouts are generous.
"""

from __future__ import annotations

import json
import re
import subprocess

import pexpect
import pytest
from playkit import QUINZE, TIMEOUT, plain
import forkkit

PROMPT_EN = r"Your move(?: \(\d+ s\))?> "
PROMPT_FR = r"Votre coup(?: \(\d+ s\))?> "


def spawn(env, *args: str, log: list | None = None) -> pexpect.spawn:
    child = forkkit.spawn(QUINZE, ["play", *args], env=env, encoding="utf-8", timeout=TIMEOUT, dimensions=(24, 80))
    return child


def typed_move(screen: str) -> str:
    """The first legal action of the screen retyped as text (cards, not its number)."""
    text = plain(screen)
    m = re.search(r"^\s*1\) (.*)$", text, re.M)
    assert m, text[-800:]
    line = m.group(1).strip()
    if line.startswith("make 15:"):
        return " ".join(c.lower() for c in line[len("make 15:"):].replace("+ table", " ").split())
    if line.startswith("place "):
        return "place " + line[len("place "):].lower()
    assert line == "end the turn", line
    return "end"


ENTER = r"(Press Enter to go on|Appuyez sur Entrée pour continuer)> "


def play_to_end(child, *, prompt=PROMPT_EN, closed=r"Table [a-z2-9]{4}-t1 is closed", typed_every: int = 0) -> tuple[str, int]:
    """Answer every prompt (by number, or every ``typed_every``-th time by typed cards) until
    the table closes; returns (all output, moves made)."""
    out = []
    moves = 0
    while True:
        k = child.expect([prompt, closed, ENTER])
        out.append(child.before + child.after)
        if k == 1:
            break
        if k == 2:  # a deal's summary at a local table: Enter goes on
            child.sendline("")
            continue
        moves += 1
        if typed_every and moves % typed_every == 0:
            child.sendline(typed_move(child.before))
        else:
            child.sendline("1")
        assert moves < 300
    child.expect(pexpect.EOF)
    out.append(child.before)
    child.close()
    return "".join(out), moves


def test_join_by_name_play_a_whole_deal_typed_and_numbered(host, env):
    port, table = host(3)
    child = spawn(env, "--server", f"127.0.0.1:{port}", "--table", table)
    child.expect("Your name")
    child.sendline("Ana")
    child.expect(f"You sit at table {table}, seat 0")
    child.expect(PROMPT_EN)
    screen = plain(child.before)
    assert "Your hand:" in screen and "you: Ana (seat 0)" in screen and "greedy-1" in screen
    child.sendline("zz")  # an invalid entry: explained, the prompt comes back, nothing sent
    child.expect("'zz' is not a card")
    child.expect(PROMPT_EN)
    child.sendline("99")
    child.expect("Pick a number from 1 to")
    child.expect(PROMPT_EN)
    child.sendline(typed_move(screen))  # typed cards of the first legal action
    out, moves = play_to_end(child, typed_every=2)
    out = plain(out)
    assert "Game over." in out and "Final totals (lowest wins)" in out and "Winner(s):" in out
    assert "Deal 1 over" in out
    assert "Traceback" not in out
    assert child.exitstatus == 0


def test_lobby_lists_tables_and_quit_leaves_cleanly(host, env):
    port, table = host(5)
    child = spawn(env, "--server", f"127.0.0.1:{port}", "--name", "Bo")
    child.expect("Tables at 127.0.0.1")
    child.expect(table)
    child.expect("lobby> ")
    child.sendline("1")
    child.expect(f"You sit at table {table}, seat 0")
    child.expect(PROMPT_EN)
    child.sendline("help")
    child.expect("hint: what the search bot would play")
    child.sendline("hint")
    child.expect(r"Hint \(what the search bot would play\):")
    child.sendline("quit")
    child.expect(r"Leave the table and forfeit this game\? \[y/N\] ")
    child.sendline("y")
    child.expect("Bye.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "Traceback" not in child.before


def test_dropped_client_takes_its_seat_back_with_the_kept_token(host, env, tmp_path):
    port, table = host(3)
    args = ("--server", f"127.0.0.1:{port}", "--table", table, "--name", "Ana")
    first = spawn(env, *args)
    first.expect(PROMPT_EN)
    kept = json.loads((tmp_path / "cache" / "quinze" / "seats.json").read_text())
    entry = kept[f"127.0.0.1:{port}/{table}/Ana"]  # keyed by server, table and name
    assert entry["seat"] == 0 and len(entry["token"]) >= 16
    first.kill(9)  # the connection drops without leave or bye
    first.close()
    second = spawn(env, *args)
    second.expect(f"You are back at table {table}, seat 0")
    second.expect(PROMPT_EN)  # the pending request comes again, with the view
    assert "Your hand:" in plain(second.before)
    second.sendline("1")
    out, moves = play_to_end(second)
    assert "Game over." in plain(out)
    assert second.exitstatus == 0
    assert f"/{table}/Ana" not in (tmp_path / "cache" / "quinze" / "seats.json").read_text()  # forgotten once closed


def test_spectator_never_sees_a_hand(host, env):
    port, table = host(3)
    watcher = spawn(env, "--server", f"127.0.0.1:{port}", "--spectate", table, "--name", "Sam")
    watcher.expect(f"You are watching table {table}")
    player = spawn(env, "--server", f"127.0.0.1:{port}", "--table", table, "--name", "Ana")
    play_to_end(player)
    watcher.expect(f"Table {table} is closed")
    seen = plain(watcher.before)
    watcher.expect(pexpect.EOF)
    watcher.close()
    assert "spectator" in seen and "Game over." in seen
    assert "makes 15" in seen or "places" in seen
    assert "Your hand" not in seen and "You draw" not in seen and "Your move" not in seen
    assert watcher.exitstatus == 0


def test_end_of_input_exits_cleanly(host, env):
    port, table = host(3)
    child = spawn(env, "--server", f"127.0.0.1:{port}", "--table", table, "--name", "Ana")
    child.expect(PROMPT_EN)
    child.sendeof()
    child.expect("Input closed: leaving the table.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "Traceback" not in child.before


def test_end_of_input_without_a_terminal(host, env):
    port, table = host(3)
    proc = forkkit.run(
        [QUINZE, "play", "--server", f"127.0.0.1:{port}", "--table", table, "--name", "Ana"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env, timeout=TIMEOUT,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Input closed" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "\x1b[" not in proc.stdout  # not a terminal: no colours, no screen clearing


def test_ctrl_c_leaves_the_table(host, env):
    port, table = host(3)
    child = spawn(env, "--server", f"127.0.0.1:{port}", "--table", table, "--name", "Ana")
    child.expect(PROMPT_EN)
    child.sendintr()
    child.expect("Interrupted: leaving the table.")
    child.expect(pexpect.EOF)
    child.close()
    assert "Traceback" not in child.before
    assert child.exitstatus == 130  # after leaving the table (docs/play.md "Exit codes")


def test_local_game_in_french(env):
    child = spawn(env, "--local", "--no-log", "--lang", "fr", "--name", "Ana", "--option", "target=1", "--seed", "3")
    child.expect(PROMPT_FR)
    assert "Votre main :" in plain(child.before)
    child.sendline("aide")
    child.expect("Commandes")
    child.sendline("zz")
    child.expect("n'est pas une carte")
    child.sendline("regles")
    child.expect("Un quinze")
    out, _ = play_to_end(child, prompt=PROMPT_FR, closed=r"La table [a-z2-9]{4}-t1 est fermée")
    out = plain(out)
    assert "Partie terminée." in out and "Totaux finaux" in out
    assert child.exitstatus == 0


def test_local_game_in_english_from_lang_hint(env):
    env["LANG"] = "fr_FR.UTF-8"
    child = spawn(env, "--local", "--no-log", "--lang", "en", "--name", "Ana", "--option", "target=1", "--seed", "4",
                  "--opponents", "builtin:random")
    out, moves = play_to_end(child)
    assert "Game over." in plain(out) and moves >= 1
    assert child.exitstatus == 0


class CuttableProxy:
    """A TCP relay on loopback whose open connections can be cut at once (``cut()``), to drop
    the client's connection while both the client and the server keep running."""

    def __init__(self, upstream_port: int) -> None:
        import socket
        import threading

        self.upstream = upstream_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.socks: list = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        import socket
        import threading

        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self.upstream))
            with self.lock:
                self.socks += [client, server]
            threading.Thread(target=self._pipe, args=(client, server), daemon=True).start()
            threading.Thread(target=self._pipe, args=(server, client), daemon=True).start()

    @staticmethod
    def _pipe(src, dst) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.close()
            except OSError:
                pass

    def cut(self) -> None:
        import socket

        with self.lock:
            socks, self.socks = self.socks, []
        for s in socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self) -> None:
        self.cut()
        self.listener.close()


def test_lost_connection_is_retried_and_the_seat_resumed(host, env):
    port, table = host(3)
    proxy = CuttableProxy(port)
    try:
        child = spawn(env, "--server", f"127.0.0.1:{proxy.port}", "--table", table, "--name", "Ana")
        child.expect(PROMPT_EN)
        proxy.cut()
        child.expect("Connection lost")
        child.expect("Reconnecting in")
        child.expect("Connected again.")
        child.expect(f"You are back at table {table}, seat 0")
        child.expect(PROMPT_EN)
        child.sendline("1")
        out, _ = play_to_end(child)
        assert "Game over." in plain(out)
        assert child.exitstatus == 0
    finally:
        proxy.close()


def test_lobby_creates_a_table_and_tab_completes(host, env):
    port, _ = host(3)
    child = spawn(env, "--server", f"127.0.0.1:{port}", "--name", "Cy")
    child.expect("lobby> ")
    child.sendline("c")
    child.expect(r"Game \(")
    child.sendline("")  # quinze by default
    child.expect(r"Seats \(2-8\)")
    child.sendline("3")
    child.expect("Options as KEY=VALUE")
    child.sendline("target=nope")
    child.expect("Option target: expects a whole number")  # explained, nothing created
    child.expect("Options as KEY=VALUE")  # asked again; the game and seats are kept
    child.sendline("target=5")
    child.expect(r"Table [a-z2-9]{4}-t2 created\.")
    child.expect(r"You sit at table [a-z2-9]{4}-t2, seat 0\.")
    child.expect("Waiting for the other players")
    child.send("hel\t")  # readline completes "help"
    child.send("\r")
    child.expect("hint: what the search bot would play")
    child.sendline("quit")
    child.expect("Bye.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_token_option_takes_the_seat_back_from_another_machine(host, env, tmp_path):
    port, table = host(3)
    args = ("--server", f"127.0.0.1:{port}", "--table", table, "--name", "Ana")
    first = spawn(env, *args)
    first.expect(PROMPT_EN)
    token = json.loads((tmp_path / "cache" / "quinze" / "seats.json").read_text())[f"127.0.0.1:{port}/{table}/Ana"]["token"]
    first.kill(9)
    first.close()
    other = dict(env, XDG_CACHE_HOME=str(tmp_path / "elsewhere"))  # no kept token there
    second = spawn(other, *args, "--token", token)
    second.expect(f"You are back at table {table}, seat 0")
    second.expect(PROMPT_EN)
    second.sendline("1")
    out, _ = play_to_end(second)
    assert "Game over." in plain(out) and second.exitstatus == 0


def test_lobby_watch_and_colour_symbols(host, env):
    port, table = host(3)
    env = dict(env)
    env.pop("NO_COLOR")  # a terminal without NO_COLOR: suit symbols in colour
    watcher = spawn(env, "--server", f"127.0.0.1:{port}", "--name", "Sam")
    watcher.expect("lobby> ")
    watcher.sendline("w 1")
    watcher.expect(f"You are watching table {table}")
    player = spawn(env, "--server", f"127.0.0.1:{port}", "--table", table, "--name", "Ana")
    player.expect(PROMPT_EN)
    screen = player.before
    assert any(sym in screen for sym in "♠♥♦♣") and "\x1b[" in screen
    player.sendline("quit")
    player.expect(r"forfeit this game\? \[y/N\] ")
    player.sendline("y")
    player.expect(pexpect.EOF)
    watcher.expect("Ana forfeits")  # leaving mid-game forfeits the seat (PROTOCOL.md "leave")
    watcher.sendline("quit")
    watcher.expect(pexpect.EOF)


def test_a_game_without_its_own_renderer_is_played_by_number():
    """The generic GameUI (a game id with no renderer module) takes numbers only and says so."""
    from quinze_cli.play.cards_ui import CardStyle
    from quinze_cli.i18n import Catalogue
    from quinze_cli.play.registry import GameUI, InputError, TableState, get_ui

    ui = get_ui("no-such-renderer", Catalogue("en"), CardStyle("en", False))
    assert type(ui) is GameUI
    state = TableState(table="t1", game="no-such-renderer", seat=0, players=["Ana", "Bob"])
    state.legal = [{"type": "draw", "from": "stock"}, {"type": "draw", "from": "discard"}]
    with pytest.raises(InputError) as err:
        ui.parse(state, "draw")
    assert "1 to 2" in str(err.value)
