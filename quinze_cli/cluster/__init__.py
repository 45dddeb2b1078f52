"""Matches on a Dask cluster (``quinze match … --cluster tcp://HOST:8786``).

The games of a match are cut into *shards* (``--shard-size`` games each, in schedule order). A
Dask task plays one shard on a worker (:mod:`quinze_cli.cluster.worker`): its own embedded server
and its own bot processes, the same :class:`~quinze_cli.matchrun.MatchRunner` as a local match,
with the shard's games only. Each finished game goes back to the driver through a Dask queue as
``(game index, replay records, game report)``. The driver (:mod:`quinze_cli.cluster.driver`, the
machine that runs ``quinze``) is the one place of truth: it writes the log (fsynced per game),
keeps the statistics and the live display, and counts each game index once, however often a
shard was retried (a worker lost mid-shard makes Dask run the shard again elsewhere, with the
same seeds and seats; built-in bots choose from the deal, so the games are the same).

Dask is an optional extra (``pip install '.[cluster]'`` in the Quinze folder, as README says): :func:`load_distributed` says how
to get it when it is missing. docs/scale.md gives the figures and the limits.
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from quinze_cli.matchrun import MatchConfig, MatchRunner

__all__ = ["ClusterUnavailable", "INSTALL_HINT", "check_cluster", "load_distributed", "make_runner"]

INSTALL_HINT = "pip install '.[cluster]' in the Quinze folder (Dask distributed) on this machine and on every worker"


class ClusterUnavailable(Exception):
    """Dask distributed is not installed, or the scheduler cannot be reached."""


def load_distributed() -> ModuleType:
    """The ``distributed`` module. Raises :class:`ClusterUnavailable` (naming the install
    command) when it is not installed."""
    try:
        import distributed
    except ImportError:
        raise ClusterUnavailable(f"--cluster needs Dask distributed, which is not installed: {INSTALL_HINT}") from None
    return distributed


def check_cluster(cluster: str, server: str | None) -> None:
    """Exit 2 for ``--cluster`` with ``--server`` (``--shard-size`` is checked by every command
    that takes it, :func:`quinze_cli.options.check_at_least`); exit 1, before any
    game, when Dask distributed is not installed (the message says how to get it)."""
    from quinze_cli.errors import EXIT_USAGE, fail

    if server is not None:
        fail("--cluster and --server do not go together: the workers start their own servers", EXIT_USAGE)
    if not cluster.startswith(("tcp://", "tls://")):
        fail(f"--cluster {cluster!r}: give the scheduler's address as tcp://HOST:PORT", EXIT_USAGE)
    try:
        load_distributed()
    except ClusterUnavailable as err:
        fail(str(err))


def make_runner(config: "MatchConfig", cluster: str | None, shard_size: int, **callbacks: Any) -> "MatchRunner":
    """A local :class:`MatchRunner` (``callbacks``: its keyword arguments), or with ``cluster`` (``tcp://HOST:PORT``) the Dask driver
    :class:`quinze_cli.cluster.driver.ClusterRunner` (same face, same log and statistics)."""
    from quinze_cli.matchrun import MatchRunner

    if cluster is None:
        return MatchRunner(config, **callbacks)
    from quinze_cli.cluster.driver import ClusterRunner

    return ClusterRunner(config, cluster, shard_size=shard_size, **callbacks)
