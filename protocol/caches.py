"""The caches the games fill as they play, and one way to empty them all.

A game module keeps, at module level, what it computed once for a hand or a table's shape (the
search options of Le Quinze, the combinations of Le 14) so that the next game does not compute it
again: a cache lives as long as the process. A server empties them when no table is open any more
(``quinze_server.collector.Reclaimer``): their entries were made while tables played, are spread
over the memory those tables used, and would keep it from going back to the system (docs/server-rounds-early.md,
"Memory returned"); the next tables fill them again.

Each cache is registered by the module that owns it (:func:`register`), with its name, how to
empty it and how many entries it holds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_CACHES: dict[str, tuple[Callable[[], None], Callable[[], int]]] = {}


def register(name: str, clear: Callable[[], None], size: Callable[[], int]) -> None:
    """Register the cache ``name`` (``"module.variable"``): ``clear()`` empties it, ``size()``
    says how many entries it holds. Registering a name again replaces it."""
    _CACHES[name] = (clear, size)


def register_dict(name: str, cache: dict[Any, Any]) -> None:
    """Register a module-level dict used as a cache."""
    register(name, cache.clear, cache.__len__)


def register_lru(name: str, function: Any) -> None:
    """Register a :func:`functools.lru_cache` function's cache."""
    register(name, function.cache_clear, lambda: function.cache_info().currsize)


def sizes() -> dict[str, int]:
    """Entries of each registered cache now, by name."""
    return {name: size() for name, (_, size) in _CACHES.items()}


def clear_all() -> int:
    """Empty every registered cache; the entries there were before."""
    n = sum(sizes().values())
    for clear, _ in _CACHES.values():
        clear()
    return n
