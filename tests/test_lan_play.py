"""``quinze play`` and the servers found on the local network (issue 14 §3), in a real terminal
(pexpect): without ``--server`` it lists the servers it finds and picks one by number (or a local
game); a server that stops is not retried: the client says so and offers another server found on
the LAN. Real processes and real multicast (tests/lankit.py); no duration is asserted.
"""

from __future__ import annotations

import os
import re
import signal

import pexpect
import pytest
from lankit import QUINZE, lan
from test_lan import launch, started, stop, wait_for

from quinze_cli.errors import plain_reason
import forkkit

TIMEOUT = 60
GAP = r"(?:\s|\x1b\[[0-9;]*m)+"


def spawn(net, tmp_path, *args: str) -> pexpect.spawn:
    env = dict(net.env, NO_COLOR="1", XDG_CACHE_HOME=str(tmp_path / "cache"), TERM="xterm", LANG="C.UTF-8")
    env.pop("LC_ALL", None)
    env.pop("LANGUAGE", None)
    cmd = net.client("play", *args)
    return forkkit.spawn(cmd[0], cmd[1:], env=env, encoding="utf-8", timeout=TIMEOUT, dimensions=(24, 80),
                         cwd=str(tmp_path))


def words(text: str) -> str:
    """A pattern for ``text`` however the terminal wrapped it (whitespace and style escapes
    between words)."""
    return GAP.join(re.escape(w) for w in text.split())


def close(child: pexpect.spawn) -> None:
    if child.isalive():
        child.kill(signal.SIGKILL)
    child.close(force=True)


def look_until_listed(child: pexpect.spawn, searching: str, listed: str, none: str, *after: str,
                      what: str = "the server") -> None:
    """Wait for the search (``searching``), then for ``listed`` or ``none`` (regexes), then for the
    ``after`` texts and the ``server> ``/``serveur> `` prompt; Enter for another look while the
    server is not listed (a slow machine may need one), five looks at most."""
    for _ in range(5):
        child.expect(searching)
        i = child.expect([listed, none])
        for text in after:
            child.expect(text)
        child.expect(r"serv(?:er|eur)> ")
        if i == 0:
            return
        child.sendline("")
    pytest.fail(f"{what} was never listed")


def test_play_without_server_lists_the_servers_found_and_picks_one_by_number(tmp_path):
    with lan() as net:
        server, port, _ = started(launch(net, "--name", "Salle A"))
        child = None
        try:
            wait_for(net, lambda s: s["port"] == port, f"on port {port}")
            child = spawn(net, tmp_path, "--name", "Bea")
            look_until_listed(child, "Looking for Quinze servers on the local network", r"Salle A\s+\S+:\d+",
                              "No Quinze server answered", words("'l' to play on this machine against built-in bots"))
            child.sendline("7")
            child.expect("(?:" + words("Type 1 for the server listed,") + "|" + words("Type a server's number (1 to") + GAP
                         + r"\d+\),)" + GAP + words("'l', Enter or 'q'."))  # one server listed (netns), or several
            child.expect_exact("server> ")
            child.sendline("1")
            child.expect(f"Tables at {net.server_address}:{port}")
            child.expect_exact("lobby> ")
            child.sendline("q")
            child.expect("Bye.")
            child.expect(pexpect.EOF)
        finally:
            if child is not None:
                close(child)
            stop(server)


def test_play_without_server_offers_a_local_game(tmp_path):
    with lan() as net:
        if net.kind != "netns":
            pytest.skip("on a shared loopback other tests' servers answer too")
        child = spawn(net, tmp_path, "--name", "Bea", "--game", "quatorze")
        try:
            child.expect(words("No Quinze server answered on the local network in 2 s."))
            child.expect_exact("server> ")
            child.sendline("3")
            child.expect(words("No server to pick: type 'l', Enter or 'q'."))
            child.sendline("l")
            child.expect("Starting a local server with")
            child.expect("Le 14")
            child.expect(r"Your move(?: \(\d+ s\))?> ")
            child.sendline("quit")
            child.expect(r"\[y/N\] ")
            child.sendline("y")
            child.expect("Bye.")
            child.expect(pexpect.EOF)
        finally:
            close(child)


def test_a_server_that_stops_is_not_retried_and_another_server_is_offered(tmp_path):
    with lan() as net:
        procs = [launch(net, "--name", "Salle A"), launch(net, "--name", "Salle B")]
        child = None
        try:
            (first, port_a, _), (_second, port_b, _) = map(started, procs)
            wait_for(net, lambda s: s["port"] == port_b, f"on port {port_b}")
            child = spawn(net, tmp_path, "--server", f"{net.server_address}:{port_a}", "--name", "Bea")
            child.expect(f"Tables at {net.server_address}:{port_a}")
            child.expect_exact("lobby> ")
            first.send_signal(signal.SIGINT)
            child.expect(words(f"The server at {net.server_address}:{port_a} stopped"))
            assert "Reconnecting" not in child.before
            look_until_listed(child, "Looking for another server on the local network", rf"1\s+Salle B\s+\S+:{port_b}",
                              "No Quinze server answered", what="the other server")
            assert "Salle A" not in child.before and "Reconnecting" not in child.before
            child.sendline("1")
            child.expect(f"Tables at {net.server_address}:{port_b}")
            child.expect_exact("lobby> ")
            child.sendline("q")
            child.expect("Bye.")
            child.expect(pexpect.EOF)
        finally:
            if child is not None:
                close(child)
            stop(*procs)


def test_cannot_connect_suggests_serve_and_local(tmp_path):
    env = dict(os.environ, NO_COLOR="1", XDG_CACHE_HOME=str(tmp_path / "cache"), COLUMNS="200")
    r = forkkit.run([QUINZE, "play", "--server", "127.0.0.1:1"], input="", capture_output=True, text=True, env=env,
                       timeout=TIMEOUT)
    assert r.returncode == 1
    out = " ".join(r.stdout.split())
    assert "Cannot connect: cannot reach 127.0.0.1:1" in out
    assert "Start one with 'quinze serve', or play alone with 'quinze play --local'" in out


def test_a_refused_seat_is_told_without_internal_field_names(host, env):
    port, _table = host(3)
    child = forkkit.spawn(QUINZE, ["play", "--server", f"127.0.0.1:{port}", "--table", "zzzz-t9", "--name", "Ana"],
                          env=env, encoding="utf-8", timeout=TIMEOUT, dimensions=(24, 200))
    try:
        child.expect(pexpect.EOF)
        out = child.before
    finally:
        close(child)
    assert child.exitstatus == 1, out
    assert "Cannot sit at table zzzz-t9: no table 'zzzz-t9' [unknown-table]" in out
    assert "join.table" not in out


@pytest.mark.parametrize(("reason", "plain"), [
    ("join.table: no table 't2'", "no table 't2'"),
    ("create-table.options.target: must be at most 1000", "option target: must be at most 1000"),
    ("hello.name: must be 1..32 characters", "name: must be 1..32 characters"),
    ("table t1 is closed", "table t1 is closed"),
])
def test_plain_reason_drops_message_and_field_paths(reason, plain):
    assert plain_reason(reason) == plain
