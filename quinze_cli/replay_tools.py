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
from quinze_cli.logpos import PositionRequestError, moment, print_position
from quinze_cli.stdio import colour_wanted, fit_dumb_terminal, line_console


def position_or_step(selected: list[tuple[int, LoggedGame]], *, position: bool, step: bool, at: int | None,
                     deal: int | None, coup: int | None, seat: int | None, lang: str = "en") -> int:
    """Run ``--position`` or ``--step`` (its screen in ``lang``) on the selected game; the exit code.
    ``--step`` starts before action ``at``, or at the start of deal ``deal`` / coup ``coup``
    (:func:`quinze_cli.logpos.moment`: the same moments as ``--position``, refused the same way),
    else at the first action."""
    if position and step:
        fail("give --position or --step, not both", EXIT_USAGE)
    if not position and not step:
        fail("--at, --deal and --coup go with --position or --step", EXIT_USAGE)
    if position:
        print_position(selected, at=at, deal=deal, coup=coup, seat=seat)
        return 0
    if len(selected) != 1:
        fail("--step needs one game: add --game N", EXIT_USAGE)

    from quinze_cli.viewer.app import run
    from quinze_cli.viewer.screen import Viewer

    number, logged = selected[0]
    start = 0
    if sum(x is not None for x in (at, deal, coup)) > 1:
        fail("--step starts at one of --at K, --deal D and --coup C, not several", EXIT_USAGE)
    if at is not None or deal is not None or coup is not None:
        try:
            start = moment(logged, at=at, deal=deal, coup=coup)[1]
        except PositionRequestError as err:
            fail(f"game {number}: {err}")
        except LogError as err:
            fail(f"game {number}: cannot replay it: {err} (quinze replay --verify says more)")
    console = fit_dumb_terminal(line_console())
    color = colour_wanted(console)
    try:
        view = Viewer(logged, number, seat=seat, color=color, lang=lang)
    except LogError as err:
        fail(f"game {number}: cannot replay it: {err} (quinze replay --verify says more)")
    view.index = min(view.timeline.last, start)
    return run(view, console)
