"""Ctrl-C and SIGTERM, handled once: :func:`run_until_signal` runs a task until it ends or a
signal arrives (``quinze bot``), :func:`run_until_interrupted` does it for a
:class:`~quinze_cli.matchrun.MatchRunner` (``quinze match``, ``quinze tournament``). A command
interrupted this way exits with :data:`quinze_cli.errors.EXIT_INTERRUPTED` (130)."""

from __future__ import annotations

import signal
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

import trio

if TYPE_CHECKING:
    from quinze_cli.matchrun import MatchRunner

__all__ = ["run_until_interrupted", "run_until_signal"]

_T = TypeVar("_T")


async def run_until_signal(main: Callable[[trio.Nursery], Awaitable[_T]],
                           on_signal: Callable[[], None] | None = None) -> tuple[_T | None, bool]:
    """Run ``main(nursery)`` until it returns or SIGINT/SIGTERM arrives; returns (what ``main``
    returned, or None when interrupted; interrupted). On a signal ``on_signal()`` runs first (say
    so, kill child processes at once), then everything in the nursery is cancelled. Exceptions
    from ``main`` propagate."""
    state: dict[str, Any] = {"value": None, "interrupted": False}
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:

            async def watch() -> None:
                async for _ in signals:
                    state["interrupted"] = True
                    if on_signal is not None:
                        on_signal()
                    nursery.cancel_scope.cancel()
                    return

            async def run() -> None:
                try:
                    state["value"] = await main(nursery)
                finally:
                    nursery.cancel_scope.cancel()

            nursery.start_soon(watch)
            nursery.start_soon(run)
    return state["value"], state["interrupted"]


async def run_until_interrupted(runner: MatchRunner) -> tuple[str | None, bool]:
    """Run ``runner`` until it ends or SIGINT/SIGTERM arrives; returns (the :class:`MatchError`
    message or None, interrupted). On a signal the bot programs are killed at once (``fast_stop``)
    and the run is cancelled; finished games are already on disk. Shared by ``quinze match`` and
    ``quinze tournament``."""
    from quinze_cli.matchrun import MatchError

    def stop() -> None:
        runner.fast_stop = True
        runner.kill_all()

    async def main(_: trio.Nursery) -> str | None:
        try:
            await runner.run()
        except MatchError as e:
            return str(e)
        return None

    error, interrupted = await run_until_signal(main, stop)
    return error, interrupted
