"""``quinze serve`` announces itself on the local network (DNS-SD over multicast DNS; the TXT
record is described in :mod:`quinze_cli.lan`).

python-zeroconf runs its own asyncio loop in its own thread; its blocking calls (register,
update, unregister, close) are made from trio worker threads (:func:`trio.to_thread.run_sync`),
so the server's trio loop never waits on multicast. The lobby is read, never changed: every
:data:`CHECK_EVERY` seconds the TXT record is worked out from the tables' TableInfo
(:func:`txt_record`), and announced again when it changed, at most once every
:data:`MIN_UPDATE` seconds (multicast DNS asks responders not to flood the link, RFC 6762 §8.4).
When the server stops, the service is withdrawn (a goodbye: TTL 0) before the sockets close.

An announcement that cannot be made (no multicast, the mDNS port refused) is logged as a
warning and the server goes on serving: clients still connect with ``--server HOST:PORT``.
"""

from __future__ import annotations

import functools
import logging
import re
import socket
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import trio

from quinze_cli.lan import SERVICE_TYPE
from quinze_cli.lan.addresses import announced

if TYPE_CHECKING:
    from quinze_server.server import Server

log = logging.getLogger("quinze.server")

CHECK_EVERY = 1.0
"""Seconds between two looks at the lobby."""

MIN_UPDATE = 5.0
"""Seconds at least between two announcements of a changed TXT record."""

UNREGISTER_WITHIN = 3.0
"""Seconds given to the goodbye and the closing of the sockets when the server stops."""


def default_name() -> str:
    """The name announced when ``quinze serve --name`` is not given: the machine's host name."""
    return (socket.gethostname().split(".")[0] or "quinze")[:40]


def txt_record(name: str, tables: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """The TXT record of a server called ``name`` whose lobby holds ``tables`` (TableInfo maps,
    PROTOCOL.md; closed ones are not counted). Keys and values as in :mod:`quinze_cli.lan`."""
    from quinze_protocol import __version__
    from quinze_protocol.game import game_ids
    from quinze_protocol.messages import PROTOCOL_VERSION

    open_tables = [t for t in tables if t.get("state") != "closed"]
    free = [t for t in open_tables if t.get("state") == "waiting" and any(s.get("name") is None for s in t.get("seats", ()))]
    return {
        "name": name,
        "version": __version__,
        "protocol": str(PROTOCOL_VERSION),
        "games": ",".join(game_ids()),
        "tables": str(len(open_tables)),
        "free": str(len(free)),
    }


def _label(text: str) -> str:
    """``text`` as a DNS host label (letters, digits and hyphens)."""
    return re.sub(r"[^a-z0-9-]+", "-", text.lower()).strip("-") or "quinze"


def service_info(name: str, port: int, addresses: list[str], txt: dict[str, str], instance: str | None = None) -> Any:
    """The zeroconf ``ServiceInfo`` of a server: instance ``"NAME (PORT)"`` (or ``instance``, a
    full service name already registered), host ``quinze-PORT-HOST.local.``."""
    from zeroconf import ServiceInfo

    label = f"{name} ({port})".encode()[:63].decode(errors="ignore")
    host = f"quinze-{port}-{_label(socket.gethostname())}"[:63]
    return ServiceInfo(
        SERVICE_TYPE,
        instance or f"{label}.{SERVICE_TYPE}",
        addresses=[socket.inet_aton(a) for a in addresses],
        port=port,
        properties=txt,
        server=f"{host}.local.",
    )


def _tables(server: Server) -> list[dict[str, Any]]:
    return [t.info() for t in list(server.lobby.tables.values()) if t.state != "closed"]


async def announce_server(server: Server, host: str, port: int, name: str,
                          said: Callable[[str, list[str]], None] | None = None) -> None:
    """Announce ``server`` (listening on ``host``:``port``) until cancelled, then withdraw it.
    ``said(instance, addresses)`` is called once it is announced. Never raises for multicast
    trouble: it is logged and the task ends (the server keeps serving)."""
    try:
        addresses, interfaces = announced(host)
    except ValueError as err:
        log.warning("not announced on the local network: %s", err)
        return
    try:
        from zeroconf import InterfaceChoice, IPVersion, Zeroconf
    except ImportError:
        log.warning("not announced on the local network: zeroconf is not installed (pip install the project again)")
        return
    txt = txt_record(name, _tables(server))
    try:
        zc = await trio.to_thread.run_sync(functools.partial(
            Zeroconf, interfaces=interfaces if interfaces is not None else InterfaceChoice.All, ip_version=IPVersion.V4Only))
    except Exception as err:  # noqa: BLE001 - no multicast here: serve anyway
        log.warning("not announced on the local network (multicast DNS unavailable: %s)", err)
        return
    info = service_info(name, port, addresses, txt)
    registered = False
    try:
        try:
            await trio.to_thread.run_sync(functools.partial(zc.register_service, info, allow_name_change=True))
        except Exception as err:  # noqa: BLE001 - as above
            log.warning("not announced on the local network: %s: %s", type(err).__name__, err)
            return
        registered = True
        log.info("announced on the local network as %r (%s at %s)", info.name, SERVICE_TYPE, ", ".join(addresses))
        if said is not None:
            said(info.name, addresses)
        last = trio.current_time()
        while True:
            await trio.sleep(CHECK_EVERY)
            now_txt = txt_record(name, _tables(server))
            if now_txt == txt or trio.current_time() - last < MIN_UPDATE:
                continue
            txt = now_txt
            info = service_info(name, port, addresses, txt, instance=info.name)
            last = trio.current_time()
            try:
                await trio.to_thread.run_sync(zc.update_service, info)
            except Exception as err:  # noqa: BLE001 - a failed update: the next change tries again
                log.warning("the LAN announcement could not be updated: %s", err)
    finally:
        with trio.move_on_after(UNREGISTER_WITHIN) as scope:
            scope.shield = True
            await trio.to_thread.run_sync(functools.partial(_withdraw, zc, info if registered else None),
                                          abandon_on_cancel=True)


def _withdraw(zc: Any, info: Any) -> None:
    """Send the goodbye for ``info`` (if registered) and close ``zc``; never raises."""
    try:
        if info is not None:
            zc.unregister_service(info)
    except Exception:  # noqa: BLE001 - closing anyway
        log.debug("unregistering the LAN announcement failed", exc_info=True)
    finally:
        try:
            zc.close()
        except Exception:  # noqa: BLE001
            log.debug("closing multicast DNS failed", exc_info=True)
