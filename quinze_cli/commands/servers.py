"""``quinze servers``: the Quinze servers announced on the local network (DNS-SD over multicast
DNS, :mod:`quinze_cli.lan`).

    quinze servers                 # a table: name, address, games, tables, version
    quinze servers --json          # a JSON list, one map per server (FoundServer.to_json)
    quinze servers --timeout 5     # listen longer on a slow network

Listens :data:`~quinze_cli.lan.browse.DEFAULT_TIMEOUT` seconds by default. Finding none is not an
error (exit 0, ``[]`` with ``--json``); multicast DNS that cannot be used on this machine is
(exit 1, with the way round it: ``quinze play --server HOST:PORT``).
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from quinze_cli.app import help_of
from quinze_cli.errors import EXIT_USAGE, fail
from quinze_cli.lan.browse import DEFAULT_TIMEOUT
from quinze_cli.lan.listing import servers_table
from quinze_cli.options import check_seconds
from quinze_cli.stdio import line_console

NONE_FOUND = ("No Quinze server answered on the local network in {timeout:g} s. Start one with "
              "'quinze serve --host 0.0.0.0', play alone with 'quinze play --local', or, where multicast "
              "is blocked, connect with 'quinze play --server HOST:PORT'.")
"""What ``quinze servers`` and ``quinze play`` say when nothing answered."""
TIMEOUT_MAX = 60.0
"""The longest ``--timeout`` (seconds): a search is a wait for answers, not a watch."""


def check_timeout(value: float) -> None:
    """``--timeout`` must be positive, finite seconds, at most :data:`TIMEOUT_MAX`: else exit 2."""
    check_seconds(value, "--timeout", TIMEOUT_MAX)


def search(timeout: float) -> list:
    """:func:`~quinze_cli.lan.browse.find_servers`, a multicast failure or a bad
    ``QUINZE_LAN_INTERFACES`` reported as a one-line error (exit 1)."""
    from quinze_cli.lan.browse import find_servers

    try:
        return find_servers(timeout)
    except ValueError as err:
        fail(str(err), EXIT_USAGE)
    except OSError as err:
        fail(f"cannot search the local network (multicast DNS: {err.strerror or err}); "
             "connect with 'quinze play --server HOST:PORT'")


def register(app: typer.Typer) -> None:
    @app.command("servers", help=help_of("servers"))
    def servers(
        as_json: Annotated[bool, typer.Option("--json", help="Print a JSON list of the servers found.")] = False,
        timeout: Annotated[float, typer.Option("--timeout", metavar="SECONDS", help="How long to listen for answers.")] = DEFAULT_TIMEOUT,
    ) -> None:
        check_timeout(timeout)
        found = search(timeout)
        console = line_console()
        if as_json:
            print(json.dumps([s.to_json() for s in found], indent=2, ensure_ascii=False))
            return
        if not found:
            console.print(NONE_FOUND.format(timeout=timeout), markup=False)
            return
        console.print(servers_table(found))
        console.print("Join one with: quinze play --server ADDRESS (or quinze play, and pick it by number)", markup=False)
