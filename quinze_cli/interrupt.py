"""Running a match or tournament until it ends or the user interrupts it (``quinze match``,
``quinze tournament``): one place for Ctrl-C / SIGTERM handling of a :class:`MatchRunner`."""

from __future__ import annotations

import signal
from typing import Any

import trio

from quinze_cli.matchrun import MatchError, MatchRunner

__all__ = ["run_until_interrupted"]


async def run_until_interrupted(runner: MatchRunner) -> tuple[str | None, bool]:
    """Run ``runner`` until it ends or SIGINT/SIGTERM arrives; returns (the :class:`MatchError`
    message or None, interrupted). On a signal the bot programs are killed at once (``fast_stop``)
    and the run is cancelled; finished games are already on disk. Shared by ``quinze match`` and
    ``quinze tournament``."""
    state: dict[str, Any] = {"error": None, "interrupted": False}
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:

            async def watch() -> None:
                async for _ in signals:
                    state["interrupted"] = True
                    runner.fast_stop = True
                    runner.kill_all()
                    nursery.cancel_scope.cancel()
                    return

            async def main() -> None:
                try:
                    await runner.run()
                except MatchError as e:
                    state["error"] = str(e)
                finally:
                    nursery.cancel_scope.cancel()

            nursery.start_soon(watch)
            nursery.start_soon(main)
    return state["error"], state["interrupted"]
