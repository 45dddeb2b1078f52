"""One bot program of a match (:class:`Player`) and its restart policy (docs/match.md, "When a
bot fails"), as cutechess-cli's and fastchess's ``-recover`` do it:

- a program that failed in a game (crash, timeout, broken msgpack framing) loses that game
  (its relay forfeits it) and is restarted before its next one;
- ``max_restarts`` bounds the restarts **in a row**: a game the program plays through without
  failing resets the count, so a program that crashes now and then plays the whole match, and
  one that fails in ``max_restarts + 1`` of its games in a row stops the match
  (:meth:`Player.give_up`: one message, what kept happening);
- a crash before the program answered anything since it was (re)started is a *start-up* crash
  (:attr:`quinze_cli.relay_outcomes.Failure.startup`): a program that keeps crashing at start is
  said so once, in the message that stops the match;
- a failure after the game was decided (another seat's forfeit ended it first:
  :attr:`~quinze_cli.relay_outcomes.Failure.forfeit` False) is no forfeit and lost nothing: the
  program is restarted if it must be, and the count in a row is neither added to nor reset;
- a program that ended between its games (no failure of its own was seen in its last game) is
  not a failure: it is restarted for its next game, and that is said once (:meth:`Player.ended_note`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import trio

from quinze_cli.botproc import describe_exit
from quinze_cli.client import ClientError, ServerProtocolError
from quinze_cli.relay import Failure, SeatRelay

if TYPE_CHECKING:
    from quinze_cli.matchrun import BotSpec

__all__ = ["Player"]


class Player:
    """One bot program (or built-in) of one slot, with its connection and relay, and its record
    since it was last (re)started: answers given, failures in a row."""

    def __init__(self, bot: BotSpec, slot: int, k: int) -> None:
        self.spec = bot
        self.slot = slot
        self.k = k
        self.restarts = 0
        """Restarts over the whole match (a program that ended between games included)."""
        self.failed_in_row: list[Failure] = []
        """Its failures in its last games in a row (emptied by a game played through)."""
        self.answers = 0
        """Answers the program gave since it was (re)started."""
        self.relay: SeatRelay | None = None
        self.endpoint: Any = None
        self.needs_restart = False
        self.ended_between_games = False
        """Set once the program was found ended between games (said once)."""
        self.idle: tuple[trio.CancelScope, trio.Event] | None = None
        """While the player sits out (between its games): the task reading its connection."""

    @property
    def label(self) -> str:
        return self.spec.name if self.k == 0 else f"{self.spec.name}#{self.k + 1}"

    # ------------------------------------------------------------------ its record

    def started(self) -> None:
        """The program was (re)started: nothing answered yet."""
        self.answers = 0
        self.needs_restart = False

    def played(self, moves: int, failure: Failure | None) -> None:
        """Count one game: ``moves`` answers given, ``failure`` (or None). A crash before any
        answer since the start is marked a start-up crash (``failure.startup``). A failure after
        the game was decided (``failure.forfeit`` False) restarts the program if it must, but is
        not one of its failures in a row (it lost no game), nor a game played through."""
        self.answers += moves
        if failure is None:
            self.failed_in_row.clear()
            return
        if failure.kind == "crash" and self.answers == 0:
            failure.startup = True
        if failure.restart:
            self.needs_restart = True
            if failure.forfeit:
                self.failed_in_row.append(failure)

    def repeated_startup_crash(self, failure: Failure) -> bool:
        """True for a start-up crash that follows another one in a row: the per-game line says
        nothing new (the stop message says it once)."""
        row = self.failed_in_row
        return failure.startup and len(row) >= 2 and row[-1] is failure and row[-2].startup

    def give_up(self, max_restarts: int, stderr: str | None) -> str | None:
        """The message that stops the match when the program failed in ``max_restarts + 1`` games
        in a row (None: restart it). ``stderr``: the path of its stderr file, when it wrote there."""
        failed = self.failed_in_row
        if len(failed) <= max_restarts:
            return None
        where = f" (stderr: {stderr})" if stderr else ""
        n = len(failed)
        if all(f.startup for f in failed):
            return (f"bot {self.label} crashes at start-up: its program ended before answering anything in each of "
                    f"its last {n} games, restarted {n - 1} time(s) in a row ({failed[-1].reason}); "
                    f"stopping the match{where}")
        kinds = ", ".join(f.kind + (" at start-up" if f.startup else "") for f in failed)
        return (f"bot {self.label} failed again after {n - 1} restart(s) in a row (in each of its last {n} games: "
                f"{kinds}; the last: {failed[-1].reason}); stopping the match{where}")

    def ended_note(self) -> str | None:
        """Said once per program found ended between its games (not a failure: restarted)."""
        if self.ended_between_games:
            return None
        self.ended_between_games = True
        rc = getattr(self.endpoint, "returncode", None)
        how = f"the program {'was ' if rc is not None and rc < 0 else ''}{describe_exit(rc)}" if rc is not None \
            else "the program ended"
        return (f"bot {self.label}: {how} between its games (no failure of its own was seen in its last game); "
                "it is restarted before each game it needs (said once)")

    # ------------------------------------------------------------------ between games

    async def keep_alive(self, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        """Read the connection while the player has no game, so the server's pings are answered
        (a player of a round robin can sit out for minutes while the others play, longer than the
        three heartbeats after which the server drops a silent client); until :meth:`wake`."""
        done = trio.Event()
        with trio.CancelScope() as scope:
            self.idle = (scope, done)
            task_status.started()
            try:
                assert self.relay is not None
                conn = self.relay.conn
                while True:
                    try:
                        await conn.receive()  # pings answered; nothing else is due now
                    except ServerProtocolError:
                        if conn.closed:
                            return
            except ClientError:
                return  # the connection is lost: the next game reports it
            finally:
                done.set()

    async def wake(self) -> None:
        """Stop :meth:`keep_alive` (the connection is then the relay's again)."""
        if self.idle is not None:
            scope, done = self.idle
            self.idle = None
            scope.cancel()
            await done.wait()
