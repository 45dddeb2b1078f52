"""The bot author's options of ``quinze replay`` (docs/botkit.md), kept out of replay.py:

    quinze replay LOG --game 3 --at 41 --position            # the position before action 41
    quinze replay LOG --game 3 --deal 2 --position --seat 1  # start of deal 2, as seat 1 knew it
    quinze replay LOG --game 3 --step                        # the step-through viewer

``--position`` prints one JSON object in the ``quinze legal`` format (docs/positions.md) on
stdout (:mod:`quinze_cli.logpos`); ``--step`` opens the full-screen viewer
(:mod:`quinze_cli.viewer`). Both need one game (``--game N``, or a log of one game).
"""

from __future__ import annotations

from quinze_protocol.replaylog import LoggedGame, LogError
from quinze_cli.errors import EXIT_USAGE, fail
from quinze_cli.logpos import print_position
from quinze_cli.stdio import colour_wanted, fit_dumb_terminal


def position_or_step(selected: list[tuple[int, LoggedGame]], *, position: bool, step: bool, at: int | None,
                     deal: int | None, coup: int | None, seat: int | None, lang: str = "en") -> int:
    """Run ``--position`` or ``--step`` (its screen in ``lang``) on the selected game; the exit code."""
    if position and step:
        fail("give --position or --step, not both", EXIT_USAGE)
    if not position and not step:
        fail("--at goes with --position or --step, --deal and --coup with --position", EXIT_USAGE)
    if position:
        print_position(selected, at=at, deal=deal, coup=coup, seat=seat)
        return 0
    if len(selected) != 1:
        fail("--step needs one game: add --game N", EXIT_USAGE)
    from rich.console import Console

    from quinze_cli.viewer.app import run
    from quinze_cli.viewer.screen import Viewer

    number, logged = selected[0]
    console = fit_dumb_terminal(Console(highlight=False))
    color = colour_wanted(console)
    try:
        view = Viewer(logged, number, seat=seat, color=color, lang=lang)
    except LogError as err:
        fail(f"game {number}: cannot replay it: {err} (quinze replay --verify says more)")
    if at is not None:
        view.index = max(0, min(view.timeline.last, at - 1))
    return run(view, console)
