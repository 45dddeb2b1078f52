"""This machine's IPv4 addresses and the interfaces multicast DNS uses (see :mod:`quinze_cli.lan`)."""

from __future__ import annotations

import ipaddress
import os
import socket

INTERFACES_ENV = "QUINZE_LAN_INTERFACES"
"""Environment variable: IPv4 addresses of the interfaces to announce and browse on,
comma-separated (unset or empty: chosen from the listening address, every interface for a client)."""

WILDCARDS = ("0.0.0.0", "::", "")


def lan_addresses() -> list[str]:
    """The machine's IPv4 addresses other than loopback (``127.0.0.0/8``), in interface order,
    each once. Link-local ``169.254.x.x`` addresses come last. Empty when it has none. (Without
    ifaddr, a dependency of zeroconf, the addresses the host name resolves to.)"""
    try:
        import ifaddr
    except ImportError:  # an install older than the LAN discovery
        candidates = [info[4][0] for info in _resolve(socket.gethostname())]
    else:
        candidates = [ip.ip for adapter in ifaddr.get_adapters() for ip in adapter.ips
                      if isinstance(ip.ip, str)]  # IPv6 ones are (address, flowinfo, scope) tuples
    found: list[str] = []
    for text in candidates:
        addr = ipaddress.IPv4Address(text)
        if not addr.is_loopback and str(addr) not in found:
            found.append(str(addr))
    return sorted(found, key=lambda a: ipaddress.IPv4Address(a).is_link_local)


def _resolve(name: str) -> list:
    try:
        return socket.getaddrinfo(name, None, socket.AF_INET)
    except OSError:
        return []


def env_interfaces() -> list[str] | None:
    """The interfaces named by :data:`INTERFACES_ENV`, None when it is unset or empty.
    Raises ``ValueError`` naming an entry that is not an IPv4 address."""
    text = os.environ.get(INTERFACES_ENV, "").strip()
    if not text:
        return None
    chosen = []
    for entry in text.split(","):
        entry = entry.strip()
        try:
            chosen.append(str(ipaddress.IPv4Address(entry)))
        except ValueError:
            raise ValueError(f"{INTERFACES_ENV}: {entry!r} is not an IPv4 address") from None
    return chosen


def announced(host: str) -> tuple[list[str], list[str] | None]:
    """For a server listening on ``host``: ``(addresses, interfaces)``, the IPv4 addresses put in
    its announcement and the interfaces it is announced on (None: every interface).

    - ``0.0.0.0`` or ``::`` (every interface): the LAN addresses (:func:`lan_addresses`), or
      127.0.0.1 on a machine without any, on every interface;
    - a loopback address or ``localhost``: that address, on loopback only (no other machine
      could connect anyway);
    - any other address: that address, on its own interface.

    :data:`INTERFACES_ENV` replaces the interfaces. Raises ``ValueError`` when ``host`` is not
    an IPv4 address nor resolves to one (nothing to announce)."""
    if host in WILDCARDS:
        addresses = lan_addresses() or ["127.0.0.1"]
        interfaces: list[str] | None = None
    else:
        try:
            addr = str(ipaddress.IPv4Address(host))
        except ValueError:
            try:
                addr = socket.gethostbyname(host)
            except OSError:
                raise ValueError(f"{host!r} is not an IPv4 address this machine can announce") from None
        addresses, interfaces = [addr], [addr]
    from_env = env_interfaces()
    return addresses, from_env if from_env is not None else interfaces
