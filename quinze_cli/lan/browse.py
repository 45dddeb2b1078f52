"""Finding the Quinze servers announced on the local network (``quinze servers``, ``quinze play``
without ``--server``; the TXT record is described in :mod:`quinze_cli.lan`).

:func:`find_servers` is blocking (python-zeroconf runs in its own threads): from trio, call it
with :func:`trio.to_thread.run_sync`.
"""

from __future__ import annotations

import ipaddress
import threading
from dataclasses import asdict, dataclass
from typing import Any

from quinze_cli.lan import SERVICE_TYPE
from quinze_cli.lan.addresses import env_interfaces

DEFAULT_TIMEOUT = 2.0
"""Seconds ``quinze servers`` and ``quinze play`` listen for answers by default."""


@dataclass(frozen=True)
class FoundServer:
    """One server found: its ``name``, the ``host`` and ``port`` to connect to (``addresses``:
    every IPv4 address announced, ``host`` the first that is not loopback, if any), its Quinze
    ``version`` and ``protocol`` version, its ``games``, its open ``tables`` and those with a
    ``free`` seat (None when the record does not say). ``service`` is the DNS-SD instance name."""

    name: str
    host: str
    port: int
    addresses: tuple[str, ...]
    version: str
    protocol: int | None
    games: tuple[str, ...]
    tables: int | None
    free: int | None
    service: str

    @property
    def address(self) -> str:
        """``HOST:PORT`` as ``--server`` takes it."""
        return f"{self.host}:{self.port}"

    def to_json(self) -> dict[str, Any]:
        """The server as a JSON map (``quinze servers --json``): every field, lists for tuples."""
        data = asdict(self)
        data["addresses"], data["games"], data["address"] = list(self.addresses), list(self.games), self.address
        return data


def _int(text: str | None) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def _found(info: Any) -> FoundServer | None:
    addresses = tuple(info.parsed_addresses())
    if not addresses or not info.port:
        return None
    outside = [a for a in addresses if not ipaddress.ip_address(a).is_loopback]
    props = {k: v for k, v in (info.decoded_properties or {}).items() if v is not None}
    games = tuple(g for g in props.get("games", "").split(",") if g)
    name = props.get("name") or info.name.removesuffix("." + SERVICE_TYPE)
    return FoundServer(name=name, host=(outside or list(addresses))[0], port=info.port, addresses=addresses,
                       version=props.get("version", ""), protocol=_int(props.get("protocol")), games=games,
                       tables=_int(props.get("tables")), free=_int(props.get("free")), service=info.name)


def find_servers(timeout: float = DEFAULT_TIMEOUT, interfaces: list[str] | None = None) -> list[FoundServer]:
    """The servers that answer within ``timeout`` seconds, by name then address. ``interfaces``
    (IPv4 addresses) limits where to ask; None: :data:`~quinze_cli.lan.addresses.INTERFACES_ENV`
    when set, else every interface. Raises ``OSError`` when multicast DNS cannot be used here
    (zeroconf missing included; ``ValueError`` for a bad
    :data:`~quinze_cli.lan.addresses.INTERFACES_ENV`)."""
    try:
        import zeroconf  # noqa: F401
    except ImportError:
        raise OSError("zeroconf is not installed (pip install the project again)") from None
    from zeroconf import InterfaceChoice, IPVersion, ServiceBrowser, ServiceInfo, ServiceStateChange, Zeroconf

    chosen = interfaces if interfaces is not None else env_interfaces()
    zc = Zeroconf(interfaces=chosen if chosen is not None else InterfaceChoice.All, ip_version=IPVersion.V4Only)
    names: dict[str, None] = {}
    lock = threading.Lock()

    def changed(zeroconf: Any, service_type: str, name: str, state_change: Any) -> None:
        with lock:
            if state_change is ServiceStateChange.Removed:
                names.pop(name, None)
            else:
                names[name] = None

    try:
        browser = ServiceBrowser(zc, SERVICE_TYPE, handlers=[changed])
        threading.Event().wait(timeout)
        browser.cancel()
        with lock:
            wanted = list(names)
        found: dict[tuple[str, int], FoundServer] = {}
        for name in wanted:
            info = ServiceInfo(SERVICE_TYPE, name)
            if not info.load_from_cache(zc) and not info.request(zc, 1000):
                continue
            server = _found(info)
            if server is not None:
                found.setdefault((server.host, server.port), server)
        return sorted(found.values(), key=lambda s: (s.name.casefold(), s.host, s.port))
    finally:
        zc.close()
