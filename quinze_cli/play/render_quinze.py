"""Le Quinze in ``quinze play``: the board, the events in words and the actions in words.

The public state is the picture of :class:`~quinze_protocol.games.quinze_observer.QuinzeObserver`,
kept from the events of :mod:`quinze_protocol.games.quinze` (``deal``, ``draw``,
``reshuffle``, ``fifteen``, ``place``, ``end-turn``, ``deal-end``, ``game-end``) so a spectator
sees the table, the discard pile, the stock and every hand size and total;
a seated player's tracked hand comes from the private parts of ``deal`` and ``draw``, and each
action-request's view (quinze_cli/rules/quinze.md "What each player sees") replaces the tracked state, as does
the ``view`` message a client gets when it arrives mid-game (PROTOCOL.md, `view`). Hand sizes
never go below 0; counts not known yet show as ``?``.

Typed input is read by :mod:`quinze_cli.play.input_quinze`.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from quinze_cli.play import input_quinze
from quinze_cli.play.cards_ui import sort_cards
from quinze_cli.play.registry import GameUI, TableState

__all__ = ["QuinzeUI"]


def _remove(pile: list[str], cards: list[str]) -> None:
    for c in cards:
        if c in pile:
            pile.remove(c)


class QuinzeUI(GameUI):
    """Renderer and input reader of Le Quinze (quinze_cli/rules/quinze.md)."""

    # ---------------------------------------------------------------- state
    def start(self, state: TableState) -> None:
        self.observe_start(state, hand=[], partial=True)

    def on_request(self, state: TableState) -> None:
        if state.observer is None:
            self.start(state)
        self.observe(state)
        p, v = state.public, state.view or {}
        p["partial"] = False
        if "hand" in v:
            p["hand"] = list(v["hand"])

    def forced(self, state: TableState) -> tuple[dict[str, Any], str] | None:
        """``end`` when it is the only legal entry: after a fifteen, with no other fifteen to make
        and nothing to place, the turn can only end (quinze_cli/rules/quinze.md "A turn", step 3:
        "If you made at least one fifteen, you end your turn"), so it ends without a question."""
        if [a.get("type") for a in state.legal] == ["end"]:
            return {"type": "end"}, self.cat("quinze.ev.end-forced")
        return None

    def on_event(self, state: TableState, event: dict[str, Any]) -> list[str]:
        """Track the public picture (:class:`~quinze_protocol.games.quinze_observer.QuinzeObserver`)
        and our hand from one event; the event in words.

        Our own draws are logged with the card; other players' draws and ends of turn are
        implied by what follows and not logged.
        """
        cat, st = self.cat, self.style
        if state.observer is None:
            self.start(state)
        self.observe(state, event)
        p = state.public
        kind = event.get("kind")
        seat = event.get("seat")
        me = seat is not None and seat == state.seat

        def say(key: str, subject: Any = seat, **fields: Any) -> str:
            """The text of ``key`` told of ``subject``: ``KEY.you`` when that is our seat."""
            if subject is not None and subject == state.seat and cat.has(key + ".you"):
                return cat(key + ".you", **fields)
            return cat(key, name=self._name(state, subject), **fields)
        if kind == "deal":
            p["hand"] = list(event.get("hand", []))
            p["partial"] = False
            return [say("quinze.ev.deal", p["dealer"], deal=p["deal"], first=self._name(state, state.to_act))]
        if kind == "draw":
            if "card" in event and me:
                p["hand"].append(event["card"])
                return [cat("quinze.ev.draw-own", card=st.text(event["card"]))]
            return []
        if kind == "reshuffle":
            return [cat.plural("quinze.ev.reshuffle", p["stock"], stock=p["stock"])]
        if kind == "fifteen":
            hand, table = list(event.get("hand", [])), list(event.get("table", []))
            if me:
                _remove(p["hand"], hand)
            shown = st.join(sort_cards(hand + table))
            if table:
                return [say("quinze.ev.fifteen-table", cards=shown, table=st.join(table))]
            return [say("quinze.ev.fifteen", cards=shown)]
        if kind == "place":
            cards = list(event.get("cards", []))
            if me:
                _remove(p["hand"], cards)
            return [say("quinze.ev.place", cards=st.join(cards))]
        if kind == "end-turn":
            return []
        if kind == "deal-end":
            scores = event.get("scores", [])
            reason = event.get("reason", "")
            out = event.get("seat")
            key = {"out": "quinze.ev.out", "first-turn": "quinze.ev.first-turn"}.get(reason, "quinze.ev.blocked")
            lines = [
                cat("quinze.ev.kept", name=state.name(s), cards=st.join(sort_cards(h)))
                for s, h in enumerate(event.get("hands", []))
                if s != state.seat and h
            ]
            lines.append(say(key, out, deal=event.get("deal", p["deal"])))
            lines.append(cat("quinze.ev.scores", scores=", ".join(
                f"{self._name(state, s)} {sc:+d}→{p['totals'][s]}" for s, sc in enumerate(scores) if s < len(p["totals"]))))
            state.summary = [lines[-2], lines[-1], *lines[:-2]]  # who went out, the points, what was kept
            return lines
        if kind == "game-end":
            return []
        return super().on_event(state, event)

    def _name(self, state: TableState, seat: Any) -> str:
        """A seat's name in a told event; ours is ``Ana (you)`` (as in the other games)."""
        name = state.name(seat)
        return f"{name} {self.cat('common.you')}" if seat is not None and seat == state.seat else name

    # ---------------------------------------------------------------- drawing
    def board(self, state: TableState) -> RenderableType:
        """The board. While ``partial`` (we arrived mid-deal and have seen neither a deal nor a
        view yet) the counts we cannot know (deal, stock, discard pile, hand sizes, totals, our
        hand) show as ``?`` rather than wrong numbers."""
        cat, st = self.cat, self.style
        p = state.public or {}
        unknown = bool(p.get("partial"))
        discard = p.get("discard", [])
        top = st.rich(discard[-1]) if discard else Text("—")
        line1 = Text.assemble(
            cat("quinze.deal", deal="?" if unknown else p.get("deal", 0)), " · ",
            cat("common.stock", n="?" if unknown else p.get("stock", 0)), " · ",
            cat("common.discard", n="?" if unknown else len(discard)), " ", top,
        )
        table_cards = p.get("table", [])
        line2 = Text(cat("common.table") + " ")
        line2.append_text(st.rich_join(sort_cards(table_cards)) if table_cards else Text(cat("common.empty"), style="dim"))
        players = Table(box=None, show_header=False, padding=(0, 1), pad_edge=False)
        for _ in range(4):
            players.add_column()
        sizes, totals = p.get("hand_sizes", []), p.get("totals", [])
        for s, who in enumerate(state.players):
            mark = "▶" if s == state.to_act and state.result is None else " "
            label = who + (" " + cat("common.you") if s == state.seat else "")
            extra = cat("quinze.dealer") if s == p.get("dealer") else ""
            n = sizes[s] if s < len(sizes) and isinstance(sizes[s], int) and not unknown else "?"
            players.add_row(
                Text(mark), Text(label, style="bold" if s == state.to_act else ""),
                Text(cat.plural("common.cards", max(0, n) if isinstance(n, int) else n)
                     + "  " + cat("quinze.total", n=totals[s] if s < len(totals) and not unknown else "?")),
                Text(extra),
            )
        parts: list[RenderableType] = [line1, line2, players]
        if p.get("partial"):
            parts.insert(0, Text(cat("common.partial"), style="dim"))
        if state.seat is not None:
            parts.append(self.hand_line(p.get("hand", []), unknown))
        return Group(*parts)

    def action_text(self, state: TableState, action: dict[str, Any]) -> Text:
        cat, st = self.cat, self.style
        kind = action.get("type")
        if kind == "fifteen":
            out = Text(cat("quinze.act.fifteen") + " ")
            out.append_text(st.rich_join(sort_cards(action.get("hand", []))))
            if action.get("table"):
                out.append("  " + cat("quinze.act.with-table") + " ")
                out.append_text(st.rich_join(sort_cards(action["table"])))
            return out
        if kind == "place":
            out = Text(cat("quinze.act.place") + " ")
            out.append_text(st.rich_join(sort_cards(action.get("cards", []))))
            return out
        if kind == "end":
            return Text(cat("quinze.act.end"))
        return super().action_text(state, action)

    def result_lines(self, state: TableState, result: dict[str, Any]) -> list[str]:
        scores = result.get("scores", [])
        lines = [self.cat("quinze.final", totals=", ".join(
            f"{state.name(s)} {int(v) if float(v).is_integer() else v}" for s, v in enumerate(scores)))]
        return lines + super().result_lines(state, result)

    # ---------------------------------------------------------------- input
    def parse(self, state: TableState, text: str) -> dict[str, Any]:
        return input_quinze.parse(self.cat, self.style, state, text)

    def completions(self, state: TableState) -> list[str]:
        return input_quinze.completions(self.cat, self.style, state)

    def help_lines(self) -> list[str]:
        return [self.cat(f"quinze.help.{i}") for i in range(1, 6)]
