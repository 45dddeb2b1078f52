"""One screen of the step-through viewer: a frame of a :class:`~quinze_cli.viewer.timeline.Timeline`
drawn for one viewpoint (a seat, or the full table), fitted to the terminal (80x24 at least).

Top to bottom: a header (game, action number, deal or coup, viewpoint); the board exactly as
``quinze play`` draws it (the game's :class:`~quinze_cli.play.registry.GameUI`, fed the
viewpoint's view); in the full view every hidden hand; what happened (the action that led here and
its events in words, :func:`quinze_cli.narrate.narrate_event`); what comes next (the seat to act,
its legal actions with the one it chose marked ``>``, shown when the viewpoint may know them:
the full view, or the seat to act itself); and the keys.
"""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.rule import Rule
from rich.text import Text

from quinze_protocol.replaylog import LoggedGame
from quinze_cli.narrate import Names, narrate_event
from quinze_cli.play.cards_ui import CardStyle, sort_cards
from quinze_cli.i18n import Catalogue
from quinze_cli.play.registry import GameUI, TableState, get_ui
from quinze_cli.viewer.timeline import Timeline

KEYS = ("viewer.keys.1", "viewer.keys.2")
"""The key help shown at the bottom: two lines of the catalogue, each under 80 columns."""


class Viewer:
    """The drawing side of the viewer: ``timeline``, ``index`` (the frame shown), ``seat`` (the
    viewpoint: a seat, or None for the full table), ``entry`` (digits typed after ``g``)."""

    def __init__(self, logged: LoggedGame, number: int, *, seat: int | None = None, color: bool = True,
                 lang: str = "en") -> None:
        self.timeline = Timeline(logged)
        self.number = number
        self.index = 0
        self.seat = seat
        self.entry: str | None = None
        self.message = ""
        self.cat = Catalogue(lang)
        self.style = CardStyle(lang, color)
        self.ui: GameUI = get_ui(self.timeline.game_id, self.cat, self.style)

    # ------------------------------------------------------------------ pieces

    def _state(self) -> TableState:
        frame = self.timeline.frames[self.index]
        game = frame.game
        header = self.timeline.header
        state = TableState(table=str(header.get("table") or "-"), game=self.timeline.game_id, seat=self.seat,
                           players=list(self.timeline.players), options=dict(game.options),
                           number=int(header.get("number") or self.number))
        state.view = game.view(self.seat)
        state.to_act = game.to_act
        self.ui.start(state)
        self.ui.on_request(state)
        if game.is_over:
            result = game.result()
            state.result = result.to_data() if result is not None else {}
        return state

    def header(self) -> Text:
        t = self.timeline
        title = self.cat(f"game.title.{t.game_id}") if self.cat.has(f"game.title.{t.game_id}") else t.game_id
        frame = t.frames[self.index]
        cat = self.cat
        where = cat("viewer.before", n=self.index + 1, last=t.last) if self.index < t.last else cat("viewer.end", last=t.last)
        parts: list[str | tuple[str, str]] = [(cat("viewer.game", title=title, number=self.number), "bold"), f" · {where}"]
        if frame.round is not None:
            parts.append(" · " + cat(f"viewer.round.{t.round_name}", n=frame.round))
        who = (cat("viewer.view-table") if self.seat is None else
               cat("viewer.view-seat", seat=self.seat, name=t.players[self.seat] if self.seat < len(t.players) else "?"))
        parts.append((f" · {who}", "bold cyan"))
        return Text.assemble(*parts, no_wrap=True, overflow="ellipsis")

    def hidden_hands(self) -> list[Text]:
        """The full view's extra lines: every seat's hidden cards."""
        pos = self.timeline.frames[self.index].game.to_position()
        names = self.timeline.players
        lines = []
        hands = pos.get("hands") if isinstance(pos.get("hands"), list) else None
        hidden = pos.get("hidden") if isinstance(pos.get("hidden"), list) else None
        for s in range(len(names)):
            line = Text(f"  {names[s]}: ", no_wrap=True, overflow="ellipsis")
            if hands is not None and s < len(hands):
                line.append_text(self.style.rich_join(sort_cards(hands[s])) if hands[s] else Text("-"))
            elif hidden is not None and s < len(hidden):
                line.append_text(self.style.rich(hidden[s]) if hidden[s] else Text("-"))
            else:
                continue
            lines.append(line)
        return [Text(self.cat("viewer.hands"), style="dim")] + lines if lines else []

    def happened(self) -> list[Text]:
        """The action that led to this frame and its events, in words."""
        frame = self.timeline.frames[self.index]
        who = Names(self.timeline.players, self.seat, self.cat.lang)
        lines: list[Text] = []
        if frame.action is not None:
            seat = frame.action["seat"]
            line = Text(f"#{self.index} {who(seat)}: ", style="bold", no_wrap=True, overflow="ellipsis")
            line.append_text(self._action_text(frame.action["action"]))
            lines.append(line)
        for event in frame.events:
            _, told = narrate_event(self.timeline.game_id, event, who, self.seat, self.cat.lang)
            lines.extend(Text("  " + t, no_wrap=True, overflow="ellipsis") for t in told)
        return lines or [Text("  " + self.cat("viewer.nothing-yet"), style="dim")]

    def _action_text(self, action: dict[str, Any]) -> Text:
        try:
            return self.ui.action_text(self._state(), action)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            return Text(json.dumps(action, ensure_ascii=False, separators=(",", ":")))

    def upcoming(self, room: int) -> list[Text]:
        """The seat to act, its legal actions (chosen one marked) when the viewpoint may see them."""
        t = self.timeline
        game = t.frames[self.index].game
        if game.is_over or game.to_act is None:
            result = game.result()
            winners = ", ".join(t.players[s] for s in (result.winners if result else []) if s < len(t.players))
            return [Text(self.cat("viewer.game-over", winners=winners or self.cat("viewer.nobody")), style="bold")]
        seat = game.to_act
        nxt = t.next_action(self.index)
        chosen = nxt["action"] if nxt else None
        name = t.players[seat] if seat < len(t.players) else self.cat("replay.seat", seat=seat)
        legal = game.legal_data()
        if self.seat is not None and self.seat != seat:
            head = Text(self.cat("viewer.to-act-hidden", name=name), no_wrap=True,
                        overflow="ellipsis")
            head.append_text(self._action_text(chosen) if chosen else Text(self.cat("viewer.log-ends")))
            return [head]
        pick = next((i for i, e in enumerate(legal) if chosen is not None and _matches(e, chosen)), None)
        head = Text(self.cat("viewer.to-act", name=name, n=len(legal)), style="bold")
        if pick is not None:
            head.append(f"; chose #{pick + 1}", style="bold green")
        lines = [head]
        shown = max(1, room - 1)
        start = 0 if pick is None or pick < shown else max(0, pick - shown // 2)
        for i in range(start, min(len(legal), start + shown)):
            mark = ">" if i == pick else " "
            line = Text(f"{mark}{i + 1:>4}) ", style="bold green" if i == pick else "", no_wrap=True, overflow="ellipsis")
            line.append_text(self._action_text(legal[i]))
            lines.append(line)
        if len(legal) > shown:
            lines[-1] = Text("      " + self.cat("viewer.more", n=len(legal) - shown), style="dim")
            if pick is not None and not start <= pick < start + shown - 1:
                lines.insert(1, Text(f">{pick + 1:>4}) ", style="bold green").append_text(self._action_text(legal[pick])))
        return lines

    # ------------------------------------------------------------------ the whole screen

    def render(self, console: Console) -> RenderableType:
        """The screen for ``console``'s size: every part cut to fit its height."""
        width, height = console.size
        opts = console.options.update(width=width)
        state = self._state()
        board = self.ui.board(state)
        board_lines = len(console.render_lines(board, opts, pad=False))
        extra = self.hidden_hands() if self.seat is None else []
        keys = [Text(self.cat(k), style="dim", no_wrap=True, overflow="ellipsis") for k in KEYS]
        status = Text(self.cat("viewer.go-to", entry=self.entry) if self.entry is not None else self.message,
                      style="bold yellow", no_wrap=True, overflow="ellipsis")
        fixed = 1 + board_lines + len(extra) + 2 + len(keys) + 1  # header, board, hands, 2 rules, keys, status
        room = max(2, height - fixed)
        happened = self.happened()
        upcoming_room = max(2, room - min(len(happened), max(1, room // 2)))
        upcoming = self.upcoming(upcoming_room)
        happened_room = max(1, room - len(upcoming))
        if len(happened) > happened_room:
            happened = happened[: happened_room - 1] + [Text("  " + self.cat("viewer.more", n=len(happened) - happened_room + 1), style="dim")] \
                if happened_room > 1 else happened[:1]
        parts: list[RenderableType] = [self.header(), board, *extra,
                                       Rule(self.cat("viewer.happened"), style="dim", align="left"), *happened,
                                       Rule(self.cat("viewer.next"), style="dim", align="left"), *upcoming]
        used = 1 + board_lines + len(extra) + 2 + len(happened) + len(upcoming)
        parts.extend(Text("") for _ in range(max(0, height - used - len(keys) - 1)))
        parts.extend([status, *keys])
        return Group(*parts)


def _matches(entry: dict[str, Any], action: dict[str, Any]) -> bool:
    """True when ``action`` plays legal ``entry`` (a range entry matches its type with any amount in range)."""
    if "min" in entry and "max" in entry:
        rest = {k: v for k, v in entry.items() if k not in ("min", "max")}
        amount = action.get("amount")
        return ({k: v for k, v in action.items() if k != "amount"} == rest and isinstance(amount, int)
                and entry["min"] <= amount <= entry["max"])
    return entry == action
