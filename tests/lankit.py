"""Two "machines" for the LAN discovery tests (tests/test_lan*.py): real processes that find each
other by real multicast DNS, never a mock of zeroconf.

:func:`lan` gives the best place this machine allows, tried in this order:

1. ``netns``: two network namespaces joined by a veth pair (``ip netns``, root only), the
   server in one, the client in the other, each with its own address (10.79.N.1 and .2) and
   loopback: multicast crosses a real link, and both sides use their default interfaces, as on
   a LAN. Nothing reaches the machine's own network: the namespaces have no other link.
2. ``loopback``: both processes on this machine's loopback, restricted to 127.0.0.1 by
   ``QUINZE_LAN_INTERFACES`` (multicast on ``lo`` works on Linux without the MULTICAST flag:
   :func:`loopback_multicast` checks it first with a datagram of its own).

``QUINZE_TEST_LAN=loopback`` in the environment skips the namespaces (to run these tests the way a
machine without root would).

When neither works (no root for namespaces and a kernel that drops loopback multicast) the tests
skip, saying what was tried.
"""

from __future__ import annotations

import os
import shutil
import socket
import struct
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

QUINZE = str(Path(sys.executable).with_name("quinze"))
INTERFACES_ENV = "QUINZE_LAN_INTERFACES"


@dataclass
class Lan:
    """Where the server and the client run: ``server_prefix``/``client_prefix`` go before their
    command (``ip netns exec NAME``, or nothing); ``server_host`` is where ``quinze serve``
    listens and ``server_address`` the address a client is expected to find it at;
    ``env`` is the environment for both."""

    kind: str
    server_prefix: list[str]
    client_prefix: list[str]
    server_host: str
    server_address: str
    env: dict[str, str] = field(default_factory=dict)

    def server(self, *args: str) -> list[str]:
        return [*self.server_prefix, QUINZE, *args]

    def client(self, *args: str) -> list[str]:
        return [*self.client_prefix, QUINZE, *args]


def _run(*cmd: str) -> subprocess.CompletedProcess:
    return subprocess.run(list(cmd), capture_output=True, text=True, timeout=30)


@contextmanager
def netns_pair() -> Iterator[tuple[str, str, str, str]]:
    """Two fresh network namespaces joined by a veth pair: yields ``(ns_a, ns_b, addr_a, addr_b)``;
    both are deleted on exit (their processes must be stopped first). Raises ``OSError`` with
    the command's own words when this machine does not allow it."""
    if os.geteuid() != 0 or shutil.which("ip") is None:
        raise OSError("network namespaces need root and iproute2's ip")
    tag = uuid.uuid4().hex[:8]
    a, b = f"qz-{tag}-a", f"qz-{tag}-b"
    n = int(tag[:2], 16)
    addr_a, addr_b = f"10.79.{n}.1", f"10.79.{n}.2"
    made: list[str] = []
    try:
        for ns in (a, b):
            r = _run("ip", "netns", "add", ns)
            if r.returncode:
                raise OSError(f"ip netns add: {r.stderr.strip()}")
            made.append(ns)
        steps = [
            ("ip", "link", "add", "qza", "netns", a, "type", "veth", "peer", "name", "qzb", "netns", b),
            ("ip", "-n", a, "addr", "add", f"{addr_a}/24", "dev", "qza"),
            ("ip", "-n", b, "addr", "add", f"{addr_b}/24", "dev", "qzb"),
        ]
        for ns, dev in ((a, "qza"), (b, "qzb")):
            steps += [("ip", "-n", ns, "link", "set", "lo", "up"), ("ip", "-n", ns, "link", "set", dev, "up")]
        for step in steps:
            r = _run(*step)
            if r.returncode:
                raise OSError(f"{' '.join(step[:4])}: {r.stderr.strip()}")
        yield a, b, addr_a, addr_b
    finally:
        for ns in made:
            _run("ip", "netns", "del", ns)


def loopback_multicast() -> str | None:
    """None when a multicast datagram sent on 127.0.0.1 comes back on this machine's loopback,
    else why not (the group 239.255.79.15 and a free port, so no mDNS traffic)."""
    group = "239.255.79.15"
    try:
        rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    except OSError as err:
        return f"no UDP socket: {err}"
    try:
        rx.bind(("0.0.0.0", 0))
        port = rx.getsockname()[1]
        rx.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, socket.inet_aton(group) + socket.inet_aton("127.0.0.1"))
        rx.settimeout(3)
        tx.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton("127.0.0.1"))
        tx.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, struct.pack("b", 1))
        tx.sendto(b"quinze-probe", (group, port))
        data = rx.recv(64)
        return None if data == b"quinze-probe" else f"an unexpected datagram {data!r}"
    except OSError as err:
        return f"multicast on loopback: {err}"
    finally:
        rx.close()
        tx.close()


@contextmanager
def lan(prefer: str = "netns") -> Iterator[Lan]:
    """The best :class:`Lan` this machine allows (module docstring); ``prefer="loopback"`` asks for
    the loopback one. Calls ``pytest.skip`` with every reason when none works."""
    import pytest

    try:
        import zeroconf  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            raise
        pytest.skip("zeroconf is not installed in this virtual environment: pip install -e '.[test]' again")
    env = dict(os.environ)
    tried = []
    if prefer == "netns" and os.environ.get("QUINZE_TEST_LAN") != "loopback":
        stack = ExitStack()
        try:
            a, b, addr_a, _addr_b = stack.enter_context(netns_pair())
        except OSError as err:
            tried.append(f"network namespaces: {err}")
        else:
            with stack:
                env.pop(INTERFACES_ENV, None)  # default interfaces, as on a LAN
                yield Lan("netns", ["ip", "netns", "exec", a], ["ip", "netns", "exec", b], "0.0.0.0", addr_a, env)
            return
    why = loopback_multicast()
    if why is None:
        env[INTERFACES_ENV] = "127.0.0.1"
        yield Lan("loopback", [], [], "127.0.0.1", "127.0.0.1", env)
        return
    tried.append(why)
    pytest.skip("no multicast between two processes here: " + "; ".join(tried))
