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
import re
from collections.abc import Callable
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.rule import Rule
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from quinze_protocol.replaylog import LoggedGame
from quinze_cli.narrate import Names, narrate_event, result_lines
from quinze_cli.play.cards_ui import CardStyle, sort_cards
from quinze_cli.i18n import Catalogue, Own
from quinze_cli.play.events_ui import style_cards
from quinze_cli.play.registry import GameUI, TableState, get_ui
from quinze_cli.viewer.timeline import Timeline

KEYS = ("viewer.keys.1", "viewer.keys.2")
"""The key help shown at the bottom: two lines of the catalogue, each under 80 columns."""
KEYS_SHORT = ("viewer.keys.short",)
"""The key help of a terminal narrower than 80 columns or lower than 20 lines: one line under 40."""


class Viewer:
    """The drawing side of the viewer: ``timeline``, ``index`` (the frame shown), ``seat`` (the
    viewpoint: a seat, or None for the full table), ``entry`` (digits typed after ``g``)."""

    def __init__(self, logged: LoggedGame, number: int, *, seat: int | None = None, color: bool = True,
                 lang: str = "en") -> None:
        self.timeline = Timeline(logged)
        self.names = Names(self.timeline.players).names
        """The seats' names as the narration names them: ``bob#0``, ``bob#1`` for a name in two seats."""
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
                           players=list(self.names), options=dict(game.options),
                           number=int(header.get("number") or self.number))
        state.view = game.view(self.seat)
        state.to_act = game.to_act
        self.ui.start(state)
        self.ui.on_request(state)
        if game.is_over:
            result = game.result()
            state.result = result.to_data() if result is not None else {}
        elif (ending := self.ending()) is not None:  # forfeited or aborted here: nobody is to act any more
            raw = ending.get("result")
            state.result = dict(raw) if isinstance(raw, dict) else {}
        return state

    def ending(self) -> dict[str, Any] | None:
        """The log's result record when the frame shown is the game's last, else None."""
        record = self.timeline.logged.result
        return dict(record) if self.index == self.timeline.last and isinstance(record, dict) else None

    def header(self, width: int = 10_000) -> Text:
        """The first line: game, action, deal or coup, viewpoint; without the game's title when
        that is too wide for ``width`` columns, then with the viewpoint without the seat's name, then
        "action N/M" for "before action N/M" (40 columns hold it all)."""
        t = self.timeline
        title = self.cat(f"game.title.{t.game_id}") if self.cat.has(f"game.title.{t.game_id}") else t.game_id
        frame = t.frames[self.index]
        cat = self.cat
        where = cat("viewer.before", n=self.index + 1, last=t.last) if self.index < t.last else cat("viewer.end", last=t.last)
        parts: list[str | tuple[str, str]] = [(cat("viewer.game", title=title, number=self.number), "bold"), f" · {where}"]
        if frame.round is not None:
            parts.append(" · " + cat(f"viewer.round.{t.round_name}", n=frame.round))
        who = (cat("viewer.view-table") if self.seat is None else
               cat("viewer.view-seat", seat=self.seat, name=self.names[self.seat] if self.seat < len(self.names) else "?"))
        parts.append((f" · {who}", "bold cyan"))
        line = Text.assemble(*parts, no_wrap=True, overflow="ellipsis")
        if line.cell_len > width:
            parts[0] = (cat("viewer.game-short", number=self.number), "bold")
            line = Text.assemble(*parts, no_wrap=True, overflow="ellipsis")
        if line.cell_len > width:
            short = cat("viewer.view-table-short") if self.seat is None else cat("viewer.view-seat-short", seat=self.seat)
            parts[-1] = (f" · {short}", "bold cyan")
            line = Text.assemble(*parts, no_wrap=True, overflow="ellipsis")
        if line.cell_len > width and self.index < t.last:
            parts[1] = " · " + cat("viewer.before-short", n=self.index + 1, last=t.last)
            line = Text.assemble(*parts, no_wrap=True, overflow="ellipsis")
        return line

    def hidden_hands(self) -> list[Text]:
        """The full view's extra lines: every seat's hidden cards."""
        pos = self.timeline.frames[self.index].game.to_position()
        names = self.names
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
        marked = _Marked(self.timeline.players, self.seat, self.cat.lang)
        for event in frame.events:
            _, told = narrate_event(self.timeline.game_id, event, marked, self.seat, self.cat.lang)
            lines.extend(Text("  " + marked.restyle(t, self.style), no_wrap=True, overflow="ellipsis") for t in told)
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
        ending = self.ending()
        if game.is_over or game.to_act is None or ending is not None:
            who = Names(t.players, self.seat, self.cat.lang)
            if game.is_over:
                result = game.result()
                winners = ", ".join(who(s) for s in (result.winners if result else []))
                said = self.cat("viewer.game-over", winners=winners or self.cat("viewer.nobody"))
            else:
                said = self.cat("viewer.game-stopped")
            told = result_lines(ending, who, self.cat.lang) if ending is not None else []
            return [Text(said, style="bold", no_wrap=True, overflow="ellipsis"),
                    *(Text(line.strip(), no_wrap=True, overflow="ellipsis") for line in told)]
        seat = game.to_act
        nxt = t.next_action(self.index)
        chosen = nxt["action"] if nxt else None
        name = self.names[seat] if seat < len(self.names) else self.cat("replay.seat", seat=seat)
        legal = game.legal_data()
        if self.seat is not None and self.seat != seat:
            head = Text(self.cat("viewer.to-act-hidden", name=name), no_wrap=True,
                        overflow="ellipsis")
            head.append_text(self._action_text(chosen) if chosen else Text(self.cat("viewer.log-ends")))
            return [head]
        pick = next((i for i, e in enumerate(legal) if chosen is not None and _matches(e, chosen)), None)
        head = Text(self.cat("viewer.to-act", name=name, n=len(legal)), style="bold", no_wrap=True, overflow="ellipsis")
        if pick is not None:
            head.append(self.cat("viewer.chose", n=pick + 1), style="bold green")
        lines = [head]
        width = max(1, room - 1)  # the action lines under the head
        if len(legal) > width:
            width = max(1, width - 1)  # one line says how many more
        start = 0 if pick is None else max(0, min(pick - width // 2, len(legal) - width))
        for i in range(start, min(len(legal), start + width)):
            mark = ">" if i == pick else " "
            line = Text(f"{mark}{i + 1:>4}) ", style="bold green" if i == pick else "", no_wrap=True, overflow="ellipsis")
            line.append_text(self._action_text(legal[i]))
            lines.append(line)
        if len(legal) > width and room > 2:
            lines.append(Text("      " + self.cat("viewer.more", n=len(legal) - width), style="dim"))
        return lines

    # ------------------------------------------------------------------ the whole screen

    def render(self, console: Console) -> RenderableType:
        """The screen for ``console``'s size (at least :data:`MIN_SIZE`, else a line saying the
        terminal is too small): the header on the first line, every other part cut to fit."""
        width, height = console.size
        if width < MIN_SIZE[0] or height < MIN_SIZE[1]:
            return Text(self.cat("viewer.too-small", width=width, height=height, min_width=MIN_SIZE[0],
                                 min_height=MIN_SIZE[1]), style="bold yellow")
        opts = console.options.update(width=width)
        state = self._state()
        board = console.render_lines(self.ui.board(state), opts, pad=False)
        marked = [i for i, line in enumerate(board) if any("▶" in seg.text for seg in line)]
        if self.seat is not None and board:
            marked.append(len(board) - 1)  # the seat's own hand closes the board
        marked.append(0)  # the deal, the stock
        extra = self.hidden_hands() if self.seat is None else []
        narrow = width < 80 or height < 20
        keys = [Text(self.cat(k), style="dim", no_wrap=True, overflow="ellipsis")
                for k in (KEYS_SHORT if narrow else KEYS)]
        status = Text(self.cat("viewer.go-to", entry=self.entry) if self.entry is not None else self.message,
                      style="bold yellow", no_wrap=True, overflow="ellipsis")
        room = height - (1 + 2 + 1 + len(keys))  # header, the two rules, status, keys
        happened = self.happened()
        full_upcoming = len(self.upcoming(10_000))
        want = {"board": len(board), "upcoming": full_upcoming, "hands": len(extra), "happened": len(happened)}
        got = share(room, want, {"board": min(len(board), 2), "upcoming": min(full_upcoming, 2),
                                 "happened": 1, "hands": 0}, first={"hands": min(len(extra), 3)})
        upcoming = self.upcoming(got["upcoming"])[: got["upcoming"]]
        if len(happened) > got["happened"]:
            keep = max(1, got["happened"] - 1)
            happened = happened[:keep] + ([self._more(len(happened) - keep)] if got["happened"] > 1 else [])
        parts: list[RenderableType] = [self.header(width), _Lines(cut_lines(board, got["board"], marked, self._more_line)),
                                       *cut_list(extra, got["hands"], self._more),
                                       Rule(self.cat("viewer.happened"), style="dim", align="left"), *happened,
                                       Rule(self.cat("viewer.next"), style="dim", align="left"), *upcoming]
        used = 1 + got["board"] + got["hands"] + 2 + len(happened) + len(upcoming)
        parts.extend(Text("") for _ in range(max(0, height - used - len(keys) - 1)))
        parts.extend([status, *keys])
        return Group(*parts)

    def _more(self, n: int) -> Text:
        return Text("  " + self.cat("viewer.more", n=n), style="dim", no_wrap=True, overflow="ellipsis")

    def _more_line(self, n: int) -> list[Segment]:
        return [Segment("  " + self.cat("viewer.more", n=n), Style(dim=True))]


MIN_SIZE = (40, 12)
"""The smallest terminal the viewer draws in (columns, lines); below it says so."""


def share(room: int, want: dict[str, int], least: dict[str, int], first: dict[str, int]) -> dict[str, int]:
    """Lines for each part of the screen: ``least`` of each first (in the order of ``want``), then
    one more line to each part in turn while it wants more and ``room`` lasts; a part of ``first``
    gets nothing until it can get that many at once. Returns part -> lines (summing to at most
    ``room`` unless the ``least`` do not fit)."""
    got = {k: min(least.get(k, 0), want[k]) for k in want}
    left = room - sum(got.values())
    while left > 0:
        grew = False
        for k in want:
            if left <= 0 or got[k] >= want[k]:
                continue
            step = first[k] if got[k] == 0 and first.get(k, 0) > 1 else 1
            if step > left:
                continue
            got[k] += step
            left -= step
            grew = True
        if not grew:
            break
    return got


def cut_list(lines: list[Text], room: int, more: Callable[[int], Text]) -> list[Text]:
    """``lines`` (a title line, then items) in ``room`` lines: the last shown says how many more."""
    if len(lines) <= room:
        return lines
    if room <= 1:
        return []
    return lines[: room - 1] + [more(len(lines) - room + 1)]


def cut_lines(lines: list[list[Segment]], room: int, keep: list[int],
              more: Callable[[int], list[Segment]]) -> list[list[Segment]]:
    """Rendered ``lines`` in ``room`` lines: those of ``keep`` (the seat to act, a seat's own hand,
    the first line: first come first kept) and then the first ones, with one line saying how many were left out where they were."""
    if len(lines) <= room:
        return lines
    if room <= 1:
        return lines[:room]
    kept = list(dict.fromkeys(k for k in keep if 0 <= k < len(lines)))[: room - 1]  # in the order of keep
    for i in range(len(lines)):
        if len(kept) >= room - 1:
            break
        if i not in kept:
            kept.append(i)
    kept.sort()
    out: list[list[Segment]] = []
    gap_at = next((n for n, i in enumerate(kept) if i != n), len(kept))
    for n, i in enumerate(kept):
        if n == gap_at:
            out.append(more(len(lines) - len(kept)))
        out.append(lines[i])
    if gap_at == len(kept):
        out.append(more(len(lines) - len(kept)))
    return out


class _Lines:
    """Rendered lines drawn as they are (the board cut to its room)."""

    def __init__(self, lines: list[list[Segment]]) -> None:
        self.lines = lines

    def __rich_console__(self, console: Console, options: Any) -> Any:
        for line in self.lines:
            yield from line
            yield Segment.line()


class _Marked(Names):
    """:class:`Names` giving the narrators placeholders for the names, so that :meth:`restyle`
    can write the narration's canonical cards (``7H``) as the board does (``7♥``, French letters
    in French: ``quinze play`` does the same, :func:`quinze_cli.play.events_ui.style_cards`)
    without touching a name that looks like a card."""

    def __init__(self, players: Any, viewer: int | None = None, lang: str = "en") -> None:
        super().__init__(players, viewer, lang)
        self.said: list[str] = []

    def __call__(self, seat: Any) -> str:
        name = super().__call__(seat)
        self.said.append(str(name))
        mark = f"\x00{len(self.said) - 1}\x00"
        return Own(mark) if isinstance(name, Own) else mark

    def restyle(self, line: str, style: CardStyle) -> str:
        """``line`` with its cards in ``style`` and its names put back."""
        return _MARK.sub(lambda m: self.said[int(m.group(1))], style_cards(line, style))


_MARK = re.compile("\x00(\\d+)\x00")


def _matches(entry: dict[str, Any], action: dict[str, Any]) -> bool:
    """True when ``action`` plays legal ``entry`` (a range entry matches its type with any amount in range)."""
    if "min" in entry and "max" in entry:
        rest = {k: v for k, v in entry.items() if k not in ("min", "max")}
        amount = action.get("amount")
        return ({k: v for k, v in action.items() if k != "amount"} == rest and isinstance(amount, int)
                and entry["min"] <= amount <= entry["max"])
    return entry == action
