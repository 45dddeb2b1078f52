"""The per-game part of ``quinze play``: a :class:`GameUI` (renderer + input reader) per game id.

The rest of the client (lobby, connection, screen, prompt) is game-agnostic: it only calls the
methods below. A game plugs in with a :class:`GameUI` subclass named in its
:class:`~quinze_cli.gameside.GameSide` (the one registry of game CLI sides). Only a game this
program does not know at all (a server of a newer version) gets the generic :class:`GameUI`
itself: its view as ``key: value`` lines and its legal actions as data, picked by number.
"""

from __future__ import annotations

import copy
import json
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from quinze_cli.play.cards_ui import CardStyle, sort_cards
from quinze_cli.i18n import Catalogue

__all__ = ["GameUI", "InputError", "TableState", "get_ui"]

LOG_LINES = 200


class InputError(Exception):
    """A typed entry that is not a legal action now; ``str(err)`` explains why, in the user's language."""


@dataclass
class TableState:
    """What the client knows about the table it sits at (or watches).

    - ``seat``: our seat, None for a spectator; ``players``: names by seat.
    - ``view``/``legal``/``request``: the last action-request (view as the game gives it, legal
      actions as data, request id); ``legal`` is emptied once answered. A ``view`` message
      also sets ``view`` (with no legal actions).
    - ``deadline_at``: ``time.monotonic()`` seconds when the pending request expires, or None
      (also None at a table without a clock).
    - ``clock``: the last clock state from the server (PROTOCOL.md "Clocks": ``kind``, ``left``
      per seat), received at ``clock_at`` (``time.monotonic()``) while ``clock_seat`` was to act.
    - ``public``: the game's own tracked state (filled by its :class:`GameUI` from events and views):
      the public picture of ``observer`` (the game's :class:`~quinze_protocol.observer.Observer`),
      plus what only our seat knows (our hand).
    - ``log``: recent events in words, oldest first (added by :meth:`add_log`; ``logged`` counts
      every line ever added, ``mine`` is ``(number, text)`` of the last line telling our own
      action, kept on screen even when newer lines push it out of the recent panel).
    - ``summary``: the end of a deal or coup in words (who went out or burnt, points or chips),
      set by the game's :meth:`GameUI.on_event`; the table loop shows it until Enter (local
      table) or for a few seconds (networked).
    """

    table: str
    game: str = ""
    seat: int | None = None
    players: list[str] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)
    number: int = 0
    view: dict[str, Any] | None = None
    legal: list[dict[str, Any]] = field(default_factory=list)
    request: int | None = None
    deadline_at: float | None = None
    clock: dict[str, Any] | None = None
    clock_at: float | None = None
    clock_seat: int | None = None
    to_act: int | None = None
    public: dict[str, Any] = field(default_factory=dict)
    observer: Any = None
    log: deque[str] = field(default_factory=lambda: deque(maxlen=LOG_LINES))
    logged: int = 0
    mine: tuple[int, str] | None = None
    summary: list[str] | None = None
    result: dict[str, Any] | None = None

    def add_log(self, lines: list[str], mine: bool = False) -> None:
        """Add lines to ``log``; ``mine``: they tell our own action (the last one is kept as ``mine``)."""
        for line in lines:
            self.log.append(line)
            if mine:
                self.mine = (self.logged, line)
            self.logged += 1

    def name(self, seat: int | None) -> str:
        """The name at ``seat`` (``"seat 3"`` when unknown)."""
        if seat is not None and 0 <= seat < len(self.players):
            return self.players[seat]
        return f"#{seat}"


class GameUI:
    """Renderer and input reader for one game (this base class is the generic fallback).

    ``cat`` gives the user's language, ``style`` how to write cards.
    """

    game_id: str | None = None

    def __init__(self, cat: Catalogue, style: CardStyle) -> None:
        self.cat = cat
        self.style = style

    # ---- state
    def hand_line(self, hand: list[str], unknown: bool = False) -> Text:
        """``Your hand: 7♥ 8♣ …`` in the card style, sorted; ``?`` while the hand is not known yet,
        ``(empty)`` for an empty hand."""
        line = Text(self.cat("common.hand") + " ")
        if unknown:
            line.append("?", style="dim")
        elif hand:
            line.append_text(self.style.rich_join(sort_cards(hand)))
        else:
            line.append(self.cat("common.empty"), style="dim")
        return line

    def start(self, state: TableState) -> None:
        """A game starts at the table (``game-start``): reset ``state.public``."""
        state.public = {}

    # ---- the public picture (for the subclasses: quinze_protocol.observer)
    def observe_start(self, state: TableState, **own: Any) -> None:
        """A new :class:`~quinze_protocol.observer.Observer` of the game for ``state`` (its
        options, one seat per player); ``state.public`` is its picture plus ``own`` (what only our
        seat knows, e.g. ``hand=[]``)."""
        from quinze_protocol.game import get_game

        obs = get_game(state.game or self.game_id or "").observer({**state.options, "players": len(state.players)})
        state.observer = obs
        state.public = {**obs.picture, **own}

    def observe(self, state: TableState, event: dict[str, Any] | None = None) -> None:
        """``event`` applied to the observer of ``state`` (or, with no event, the observer synced
        with ``state.view``), and its picture copied into ``state.public`` (our own keys kept)."""
        if state.observer is None:
            self.start(state)
        obs = state.observer
        if event is None:
            obs.sync(state.view or {})
        else:
            obs.apply(event)
        state.public.update(copy.deepcopy(obs.picture))  # our own overlays never write into the picture
        state.to_act = obs.picture.get("to_act", state.to_act)

    def on_event(self, state: TableState, event: dict[str, Any]) -> list[str]:
        """Update ``state`` from one event (as this seat sees it); return lines for the log."""
        kind = event.get("kind", "?")
        rest = {k: v for k, v in event.items() if k != "kind"}
        return [f"{kind}: {json.dumps(rest, ensure_ascii=False, separators=(',', ':'))}"[:120]]

    def on_request(self, state: TableState) -> None:
        """An action-request arrived (``state.view`` and ``state.legal`` are set): sync ``public``."""

    def on_view(self, state: TableState) -> None:
        """A ``view`` message arrived (PROTOCOL.md, `view`: we joined mid-game as a spectator or
        took our seat back): ``state.view`` is set, ``state.legal`` empty. Rebuilds ``public``
        from the view by the same path as an action-request's view (:meth:`on_request`)."""
        if not state.public:
            self.start(state)
        self.on_request(state)

    # ---- drawing
    def board(self, state: TableState) -> RenderableType:
        """The game's part of the screen (everything but header, log, turn and actions)."""
        view = state.view or state.public
        lines = [
            Text(f"{k}: {json.dumps(v, ensure_ascii=False)}", no_wrap=True, overflow="ellipsis")
            for k, v in sorted(view.items())
            if k not in ("game", "seat", "options")
        ]
        return Group(*lines)

    def action_text(self, state: TableState, action: dict[str, Any]) -> Text:
        """One legal action in words, for the numbered list."""
        return Text(json.dumps(action, ensure_ascii=False, separators=(",", ":")), no_wrap=True, overflow="ellipsis")

    def result_lines(self, state: TableState, result: dict[str, Any]) -> list[str]:
        """The end of a game in words."""
        winners = ", ".join(state.name(s) for s in result.get("winners", []))
        return [self.cat("game.winners", names=winners or "-")]

    # ---- input
    def parse(self, state: TableState, text: str) -> dict[str, Any]:
        """A typed entry (not a number, not a command) as one of ``state.legal``.

        Raises :class:`InputError` explaining why not. The generic reader only takes numbers.
        """
        raise InputError(self.cat("input.number-only-one" if len(state.legal) == 1 else "input.number-only", n=len(state.legal)))

    def completions(self, state: TableState) -> list[str]:
        """Words worth completing with Tab now (cards in hand, keywords)."""
        return []

    def confirm(self, state: TableState, action: dict[str, Any], text: str) -> str | None:
        """A yes/no question to ask before sending ``action`` (picked by number or typed as
        ``text``), or None (the default) to send it at once."""
        return None

    def forced(self, state: TableState) -> tuple[dict[str, Any], str] | None:
        """The one answer to the pending request when the rules leave nothing else to choose
        (e.g. Le Quinze's ``end`` alone), with a line for the log saying so; the table loop then
        sends it without asking. None (the default): the player chooses."""
        return None

    def hint(self, state: TableState) -> dict[str, Any] | None:
        """What the search bot would play now (:func:`search_hint`, falling back on the game's
        ``hint_bot``), as action data, read from :meth:`hint_entries`; None when the game has no
        built-in bot or nothing is to be played."""
        from quinze_protocol.game import GameError, get_game

        raw = self.hint_entries(state)
        if not state.legal or not raw:
            return None
        try:
            fallback = get_game(state.game).hint_bot or "greedy"
        except GameError:
            return None
        return search_hint(state.game, state.options, state.view, raw, fallback=fallback)

    def hint_entries(self, state: TableState) -> list[dict[str, Any]]:
        """The legal entries the hint bot reads: ``state.legal`` as received (a game that lists
        its entries otherwise than it received them gives the received ones)."""
        return state.legal

    def help_lines(self) -> list[str]:
        """How to type this game's actions (after the common commands)."""
        return []

    def rules_text(self) -> str:
        """The rules in the user's language (English when no translation exists)."""
        from quinze_cli.rulestext import rules_text

        gid = self.game_id or ""
        try:
            return rules_text(gid, self.cat.lang)
        except FileNotFoundError:
            return self.cat("rules.none", game=gid)


def get_ui(game_id: str, cat: Catalogue, style: CardStyle) -> GameUI:
    """The :class:`GameUI` of ``game_id`` from its :class:`~quinze_cli.gameside.GameSide` (the
    generic one for a game this program does not know)."""
    from quinze_cli.gameside import find_side

    side = find_side(game_id)
    ui = (side.ui if side is not None else GameUI)(cat, style)
    ui.game_id = game_id
    return ui


HINT_BOT = "mcts@150"
"""The bot behind ``hint``: the search bot with 150 iterations (a fraction of a second)."""


def search_hint(game: str, options: Any, view: Any, raw_legal: Any, fallback: str = "greedy") -> dict[str, Any] | None:
    """What :data:`HINT_BOT` would play from ``view`` and the legal entries ``raw_legal`` (as
    received), as action data. It sees what the seat sees: the view alone (no event history;
    the determinization then trusts the view only). When the view cannot be dealt (a partial
    view), the game's ``fallback`` bot (else its first built-in bot) answers instead; None when
    the game has no built-in bot. The legal entries are read by the game class
    (``Game.parse_action``)."""
    from quinze_protocol.game import GameError, bot_names, get_bot, get_game

    try:
        names = bot_names(game)
        if not names:
            return None
        parser = get_game(game)  # parse_action is a class method: no game is made
        legal = [parser.parse_action(a) for a in raw_legal]
        try:
            return get_bot(game, HINT_BOT, 0).choose(view or {}, legal).to_data()
        except (GameError, KeyError, TypeError, ValueError, IndexError):
            bot = get_bot(game, fallback if fallback in names else names[0], 0)
            return bot.choose(view or {}, legal).to_data()
    except (GameError, KeyError, TypeError, ValueError):
        return None
