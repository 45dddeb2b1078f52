"""Ctrl-C, SIGTERM and SIGHUP, handled once: :func:`run_until_signal` runs a task until it ends or
a signal arrives (``quinze bot``), :func:`run_until_interrupted` does it for a
:class:`~quinze_cli.matchrun.MatchRunner` (``quinze match``, ``quinze tournament``). A command
interrupted this way exits with :data:`quinze_cli.errors.EXIT_INTERRUPTED` (130).

The signals are :func:`stop_signals`: SIGHUP (the terminal was closed, or its ssh connection
dropped) stops a command as SIGTERM does, with the same cleanup and exit status: the default
action would kill it on the spot, with no log written and no ``bye`` said. Under ``nohup`` (SIGHUP
ignored when the command starts) it stays ignored. On SIGHUP, :func:`hung_up` first points stdout
and stderr at ``/dev/null`` when the terminal (or the reader of their pipe) is gone, so that the
cleanup's messages cannot fail it (a hung-up terminal answers every write with ``EIO``)."""

from __future__ import annotations

import signal
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

import trio

if TYPE_CHECKING:
    from quinze_cli.matchrun import MatchRunner

__all__ = ["hung_up", "run_until_interrupted", "run_until_signal", "stop_signals"]

_T = TypeVar("_T")


def stop_signals() -> tuple[int, ...]:
    """The signals that stop a command cleanly: SIGINT (Ctrl-C), SIGTERM, and SIGHUP (the
    terminal closed) unless it is ignored now (the command runs under ``nohup``, which asks that
    a hangup leave it running). Read before a receiver for them is installed."""
    wanted = [signal.SIGINT, signal.SIGTERM]
    if signal.getsignal(signal.SIGHUP) != signal.SIG_IGN:
        wanted.append(signal.SIGHUP)
    return tuple(wanted)


def hung_up(signum: int) -> bool:
    """Whether ``signum`` is SIGHUP; if so, stdout and stderr whose terminal hung up (or whose pipe's
    reader is gone) now write to ``/dev/null`` (:func:`quinze_cli.stdio.drop_lost_streams`), so
    the orderly stop that follows can still print its lines without an error."""
    if signum != signal.SIGHUP:
        return False
    from quinze_cli.stdio import drop_lost_streams

    drop_lost_streams()
    return True


async def run_until_signal(main: Callable[[trio.Nursery], Awaitable[_T]],
                           on_signal: Callable[[], None] | None = None) -> tuple[_T | None, bool]:
    """Run ``main(nursery)`` until it returns or one of :func:`stop_signals` arrives; returns
    (what ``main`` returned, or None when interrupted; interrupted). On a signal ``on_signal()``
    runs first (say so, kill child processes at once), then everything in the nursery is
    cancelled. Exceptions from ``main`` propagate."""
    state: dict[str, Any] = {"value": None, "interrupted": False}
    with trio.open_signal_receiver(*stop_signals()) as signals:
        async with trio.open_nursery() as nursery:

            async def watch() -> None:
                async for signum in signals:
                    hung_up(signum)
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
    """Run ``runner`` until it ends or one of :func:`stop_signals` arrives; returns (the :class:`MatchError`
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
