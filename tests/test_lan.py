"""Servers found on the local network (issue 14 §3): ``quinze serve`` announces itself by DNS-SD
over multicast DNS, ``quinze servers`` lists what answers. Real processes and real multicast
(tests/lankit.py: two network namespaces joined by a veth pair where the machine allows it, else
this machine's loopback); no mock of zeroconf. No duration is asserted: searches are repeated
within generous bounds, as a slow machine needs.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import time

import pytest
from lankit import lan

from typer.testing import CliRunner

from quinze_cli.app import app
from quinze_cli.lan.announce import txt_record

TIMEOUT = 60


def start_server(net, *args: str) -> tuple[subprocess.Popen, int, str]:
    """``quinze serve`` on a free port (its first lines read, up to the announcement); returns
    the process, the port and what it printed."""
    return started(launch(net, *args))


def launch(net, *args: str) -> subprocess.Popen:
    """Start ``quinze serve`` on a free port (see :func:`started`)."""
    return subprocess.Popen(net.server("serve", "--host", net.server_host, "--port", "0", "--no-log", *args),
                            env=net.env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def started(proc: subprocess.Popen) -> tuple[subprocess.Popen, int, str]:
    """Read a launched server's lines up to the announcement: the process, its port, its lines."""
    seen = ""
    assert proc.stdout is not None
    deadline = time.monotonic() + TIMEOUT
    while "announced on the local network" not in seen and "not announced" not in seen:
        line = proc.stdout.readline()
        assert line and time.monotonic() < deadline, seen
        seen += line
    port = int(re.search(r"listening on \S+:(\d+)", seen).group(1))
    return proc, port, seen


def stop(*procs: subprocess.Popen) -> None:
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
    for p in procs:
        try:
            p.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def servers_json(net, timeout: float = 2) -> list[dict]:
    r = subprocess.run(net.client("servers", "--json", "--timeout", str(timeout)), env=net.env, capture_output=True,
                       text=True, timeout=TIMEOUT)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


SEARCHES = (0.5, 1.0)
"""The listening times (s) of :func:`wait_for`'s first searches, before 2 s each: an announced
server answers a search on loopback or a veth link within a fraction of a second (0.2 s found
it every time on the 2-core machine), so most waits end after the first one; a loaded machine
gets the longer ones."""


def wait_for(net, check, what: str, tries: int = 10) -> tuple[dict, list[dict]]:
    """Search until a server satisfies ``check``: searches of :data:`SEARCHES`, then of 2 s, for
    ``tries`` times 2 s of listening in all at least (``tries + 2`` searches at most); that server
    and every server that search found."""
    seen: list = []
    listened = 0.0
    for n in range(tries + len(SEARCHES)):
        timeout = SEARCHES[n] if n < len(SEARCHES) else 2.0
        seen = servers_json(net, timeout)
        listened += timeout
        for s in seen:
            if check(s):
                return s, seen
        if listened >= 2.0 * tries:
            break
    raise AssertionError(f"no server {what} in {listened:g} s of searches; last: {seen}")


def test_txt_record_counts_open_tables_and_those_with_a_free_seat():
    tables = [
        {"state": "waiting", "seats": [{"name": "ana"}, {"name": None}]},
        {"state": "waiting", "seats": [{"name": "ana"}, {"name": "bea"}]},
        {"state": "playing", "seats": [{"name": "ana"}, {"name": None}]},  # a dropped seat mid-game is not free
        {"state": "closed", "seats": [{"name": None}]},
    ]
    txt = txt_record("Salle", tables)
    assert txt["name"] == "Salle" and txt["tables"] == "3" and txt["free"] == "1"
    assert txt["protocol"] == "1" and txt["games"].split(",") == ["quatorze", "quinze", "quinze-classique"]
    assert all(isinstance(v, str) for v in txt.values())


def test_a_server_is_found_from_another_machine_with_its_tables_kept_up_to_date():
    with lan() as net:
        server, port, said = start_server(net, "--name", "Salle A")
        bot = None
        try:
            if net.kind == "netns":  # the start-up lines give the LAN address, not 0.0.0.0
                assert f"connect to {net.server_address}:{port}" in said
            found, _ = wait_for(net, lambda s: s["port"] == port, f"on port {port}")
            assert found["name"] == "Salle A" and found["host"] == net.server_address
            assert found["address"] == f"{net.server_address}:{port}"
            assert found["games"] == ["quatorze", "quinze", "quinze-classique"]
            assert found["protocol"] == 1 and found["version"]
            assert (found["tables"], found["free"]) == (0, 0)
            # a table waiting for a second player: the announcement follows
            bot = subprocess.Popen(net.client("bot", "--server", found["address"], "--create", "quinze", "--name", "b",
                                              "--", "builtin:greedy"), env=net.env, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
            wait_for(net, lambda s: s["port"] == port and (s["tables"], s["free"]) == (1, 1), "with a free table", tries=20)
        finally:
            stop(*([bot] if bot else []), server)


def test_a_server_started_with_no_announce_is_not_found():
    with lan("loopback") as net:
        procs = [launch(net, "--no-announce"), launch(net, "--name", "shown")]
        try:
            (hidden, hidden_port, said), (shown, shown_port, _) = map(started, procs)
            assert "not announced on the local network (--no-announce)" in said
            _, seen = wait_for(net, lambda s: s["port"] == shown_port, "announced")  # the search works...
            assert hidden_port not in [s["port"] for s in seen]  # ...and does not find the other one
        finally:
            stop(*procs)


def test_servers_says_what_to_do_when_nothing_answers():
    with lan() as net:
        if net.kind != "netns":
            pytest.skip("on a shared loopback other tests' servers answer too")
        r = subprocess.run(net.client("servers", "--timeout", "1"), env=net.env, capture_output=True, text=True,
                           timeout=TIMEOUT)
        assert r.returncode == 0, r.stderr
        out = " ".join(r.stdout.split())
        assert "No Quinze server answered on the local network in 1 s" in out
        assert "quinze serve --host 0.0.0.0" in out and "quinze play --local" in out and "--server HOST:PORT" in out


@pytest.mark.parametrize(("args", "env", "message"), [
    (["--timeout", "0"], {}, "--timeout must be positive, finite seconds, at most 60, got 0"),
    (["--timeout", "61"], {}, "--timeout must be positive, finite seconds, at most 60, got 61"),
    (["--timeout", "nan"], {}, "--timeout must be positive, finite seconds, at most 60, got nan"),
    ([], {"QUINZE_LAN_INTERFACES": "eth0"}, "QUINZE_LAN_INTERFACES: 'eth0' is not an IPv4 address"),
])
def test_servers_usage_errors(args, env, message):
    r = CliRunner().invoke(app, ["servers", *args], env=env)
    assert r.exit_code == 2 and message in " ".join(r.output.split()), r.output


def test_servers_browses_only_on_the_interfaces_of_quinze_lan_interfaces():
    """``quinze servers`` browses where QUINZE_LAN_INTERFACES says, as ``quinze serve`` announces:
    an address no interface of this machine has (TEST-NET-2) cannot be browsed on, and says so."""
    r = CliRunner().invoke(app, ["servers", "--timeout", "1"], env={"QUINZE_LAN_INTERFACES": "198.51.100.77"})
    assert r.exit_code == 1, r.output
    assert "cannot search the local network (multicast DNS:" in " ".join(r.output.split())
