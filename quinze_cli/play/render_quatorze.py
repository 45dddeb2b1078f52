"""Le 14 (``quatorze``, quinze_cli/rules/quatorze.md) in ``quinze play``: the board, the events in words, the
actions in words.

The public state is the picture of :class:`~quinze_protocol.games.quatorze_observer.QuatorzeObserver`,
kept from the events of :mod:`quinze_protocol.games.quatorze` (``setup``,
``draw``, ``no-draw``, ``reshuffle``, ``combine``, ``substitute``, ``discard``, ``take-up``,
``game-end``) so the screen stays right between our turns and for a spectator; a seated
player's own hand comes from the private parts (``setup`` hand, stock ``draw``
card, ``take-up`` cards), and each action-request's view (quinze_cli/rules/quatorze.md "What each player sees")
replaces the tracked state, as does the ``view`` message a client gets when it arrives mid-game
(PROTOCOL.md, `view`; until then counts show as ``?``, never negative); its legal list is
listed in a friendlier order (:func:`_order`), and entries that differ only by suit are listed
once (:func:`merge_by_rank`: suits never matter in Le 14); typed input is matched against the
whole list (``state.public["all_legal"]``). The table's combinations are numbered from 0 as the engine numbers
them: substitutions name them by that index.

A substitution event names its kind of substitution in ``substitution`` (``hand-for-two``,
``two-for-one``, ``between``); events whose ``kind`` is one of those are read as ``substitute`` too.

Events are told in words by :mod:`quinze_cli.narrate.quatorze` (the wording of ``quinze replay``),
from the catalogue of the player's language (``quatorze.ev.*``).
Typed input is read by :mod:`quinze_cli.play.input_quatorze`.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from quinze_protocol.cards import card_text, parse_card, rank
from quinze_protocol.game import GameError
from quinze_cli.play import input_quatorze
from quinze_cli.play.cards_ui import sort_cards
from quinze_cli.play.events_ui import tell
from quinze_cli.play.registry import GameUI, TableState

__all__ = ["SUBSTITUTION_KINDS", "QuatorzeUI", "merge_by_rank"]

SUBSTITUTION_KINDS = ("hand-for-two", "two-for-one", "between")
TABLE_WIDTH = 78
"""Columns of the table's combinations before a new line (the screen is sized for 80)."""


def _remove(pile: list[str], cards: list[Any]) -> None:
    """Take ``cards`` (as events give them: a missing one is None) out of ``pile`` where present."""
    for c in cards:
        if c in pile:
            pile.remove(c)


def _sorted(cards: list[str]) -> list[str]:
    return [card_text(c) for c in sort_cards(cards)]


def _rank_key(action: dict[str, Any]) -> tuple:
    """``action`` with every card replaced by its rank (suits never matter in Le 14,
    quinze_cli/rules/quatorze.md "Material"): two actions with one key are the same move."""

    def ranks(value: Any) -> Any:
        if isinstance(value, str):
            try:
                return rank(parse_card(value))
            except (ValueError, GameError):
                return value
        if isinstance(value, list):
            return tuple(sorted(ranks(v) for v in value))
        return value

    return tuple(sorted((k, ranks(v)) for k, v in action.items()))


def _same_move_key(action: dict[str, Any], table: list[list[str]] | None) -> tuple:
    """:func:`_rank_key` with each combination number replaced by the ranks of that combination
    (when ``table`` is given): combinations belong to nobody (quinze_cli/rules/quatorze.md
    "Combinations"), so the same swap with two combinations of the same ranks is the same move."""
    if not table:
        return _rank_key(action)
    out = dict(action)
    for field in ("combination", "other"):
        n = action.get(field)
        if isinstance(n, int) and 0 <= n < len(table):
            out[field] = list(table[n])
    return _rank_key(out)


def undo_of(sub: dict[str, Any]) -> dict[str, Any] | None:
    """The substitution that puts back what ``sub`` (a substitution just made, as action data)
    changed: the same cards going the other way, on the same combinations; None for another
    action. Making it is legal (quinze_cli/rules/quatorze.md step 3) but gets nowhere."""
    kind = sub.get("kind")
    if sub.get("type") != "substitute":
        return None
    if kind == "hand-for-two":
        return {"type": "substitute", "kind": "two-for-one", "hand": list(sub.get("cards") or []),
                "combination": sub.get("combination"), "card": sub.get("hand")}
    if kind == "two-for-one":
        return {"type": "substitute", "kind": "hand-for-two", "hand": sub.get("card"),
                "combination": sub.get("combination"), "cards": list(sub.get("hand") or [])}
    if kind == "between":
        return {"type": "substitute", "kind": "between", "combination": sub.get("other"),
                "cards": list(sub.get("cards") or []), "other": sub.get("combination"), "card": sub.get("card")}
    return None


def merge_by_rank(legal: list[dict[str, Any]], table: list[list[str]] | None = None,
                  hide: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The legal entries with those that differ only by suit listed once (the first of each),
    in the same order; with the ``table``'s combinations, swaps on two combinations of the same
    ranks too (:func:`_same_move_key`); without the entries of ``hide`` (by ranks: the undoing of
    our last substitution). Every entry kept is one of ``legal``, so a number picked is always
    legal; the hidden ones can still be typed."""
    seen: set[tuple] = {_rank_key(h) for h in hide or []}
    out = []
    for action in legal:
        if _rank_key(action) in seen:
            continue
        key = _same_move_key(action, table)
        if key not in seen:
            seen.add(key)
            out.append(action)
    return out


def _order(action: dict[str, Any]) -> int:
    """Where an action is listed: draws, combinations, substitutions with the hand, discards, then
    exchanges between two combinations (often many, rarely wanted). The list is only reordered."""
    kind = action.get("type")
    if kind == "substitute":
        return 3 if action.get("kind") == "between" else 1
    return {"draw": 0, "combine": 0, "discard": 2}.get(str(kind), 4)


class QuatorzeUI(GameUI):
    """Renderer and input reader of Le 14 (quinze_cli/rules/quatorze.md)."""

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
        p["all_legal"] = sorted(state.legal, key=_order)
        last = p.get("last_sub")
        undo = undo_of(last) if isinstance(last, dict) else None
        state.legal = merge_by_rank(p["all_legal"], p.get("table"), [undo] if undo else None) or \
            merge_by_rank(p["all_legal"])

    def on_event(self, state: TableState, event: dict[str, Any]) -> list[str]:
        """Track the public picture (:class:`~quinze_protocol.games.quatorze_observer.QuatorzeObserver`)
        and our own hand from one event; the event in words."""
        if state.observer is None:
            self.start(state)
        kind = event.get("kind")
        if kind in SUBSTITUTION_KINDS:
            event = {**event, "kind": "substitute", "substitution": event.get("substitution") or kind}
            kind = "substitute"
        self.observe(state, event)
        p = state.public
        seat = event.get("seat")
        me = seat is not None and seat == state.seat
        if kind == "substitute":  # the substitution in the words of the action list, as a verb phrase
            data = {k: v for k, v in event.items() if k not in ("seat", "substitution")}
            data["kind"] = event.get("substitution") or event.get("kind")
            lines = [self._substitution_line(state, seat, data)]
            if me:
                self._own_substitution(p, data)
            # our last action, when a substitution: its undoing is not listed (still typed)
            p["last_sub"] = {"type": "substitute", **data} if me else None
        else:
            p["last_sub"] = None
            lines = tell(self.game_id or "", state, event, None, self.cat("common.you"), kind=kind, style=self.style,
                         cat=self.cat)
        if kind == "setup":
            lines = lines[:1]  # our hand is on the board
            p["hand"] = list(event.get("hand", []))
            p["partial"] = False
        elif kind == "draw" and me and "card" in event:
            p["hand"] = _sorted(p["hand"] + [event["card"]])
        elif kind == "combine" and me:
            _remove(p["hand"], list(event.get("cards", [])))
        elif kind == "discard" and me:
            _remove(p["hand"], [event.get("card")])
        elif kind == "take-up" and me and "cards" in event:
            p["hand"] = list(event["cards"])
        return lines

    @staticmethod
    def _own_substitution(p: dict[str, Any], data: dict[str, Any]) -> None:
        """Our hand after our own substitution: the cards given go to the table, those taken come in
        (hand-for-two: one card for two; two-for-one: two for one; between: the hand is unchanged)."""
        sub = data.get("kind")
        if sub == "hand-for-two":
            given, taken = [data.get("hand")], list(data.get("cards") or [])
        elif sub == "two-for-one":
            given, taken = list(data.get("hand") or []), [data.get("card")]
        else:
            return
        _remove(p["hand"], [c for c in given if isinstance(c, str)])
        p["hand"] = _sorted(p["hand"] + [c for c in taken if isinstance(c, str)])

    # ---------------------------------------------------------------- drawing
    def board(self, state: TableState) -> RenderableType:
        cat, st = self.cat, self.style
        p = state.public or {}
        unknown = bool(p.get("partial"))  # arrived mid-game, no view yet: counts show as "?"
        discard = p.get("discard", [])
        top = st.rich(discard[-1]) if discard else Text("—")
        phase = p.get("phase", "draw")
        line1 = Text.assemble(
            cat("quatorze.turn", n="?" if unknown else p.get("turns", 0) + (0 if phase == "over" else 1),
                max=p.get("max_turns", "?")), " · ",
            cat("common.stock", n="?" if unknown else p.get("stock", 0)), " · ",
            cat("common.discard", n="?" if unknown else len(discard)), " ", top, " · ",
            cat(f"quatorze.phase.{phase}") if cat.has(f"quatorze.phase.{phase}") else phase,
        )
        table = p.get("table", [])
        head = cat("common.table") + " "
        tlines = [Text(head)]
        if not table:
            tlines[0].append(cat("common.empty"), style="dim")
        for i, comb in enumerate(table):  # a combination is never split across lines
            item = Text(f"#{i} ", style="bold cyan" if st.color else "")
            item.append_text(st.rich_join(comb))
            line = tlines[-1]
            if len(line.plain) > len(head) and len(line.plain) + 2 + len(item.plain) > TABLE_WIDTH:
                line = Text(" " * len(head))
                tlines.append(line)
            elif len(line.plain) > len(head):
                line.append("  ")
            line.append_text(item)
        players = Table(box=None, show_header=False, padding=(0, 1), pad_edge=False)
        for _ in range(3):
            players.add_column()
        sizes, packets = p.get("hand_sizes", []), p.get("packets", [])
        for s, who in enumerate(state.players):
            mark = "▶" if s == state.to_act and state.result is None else " "
            label = who + (" " + cat("common.you") if s == state.seat else "")
            n = max(0, sizes[s]) if s < len(sizes) and isinstance(sizes[s], int) else 0
            pk = packets[s] if s < len(packets) else []
            left = n + sum(pk)
            if unknown:
                info = cat("quatorze.in-hand", n="?") + " · " + cat("quatorze.left", n="?")
            else:
                info = cat("quatorze.in-hand", n=n) + " · " + (
                    cat("quatorze.packets", sizes=" ".join(str(x) for x in pk)) if pk else cat("quatorze.no-packet")
                ) + " · " + cat("quatorze.left", n=left)
            players.add_row(Text(mark), Text(label, style="bold" if s == state.to_act else ""), Text(info))
        parts: list[RenderableType] = [line1, *tlines, players]
        if p.get("partial"):
            parts.insert(0, Text(cat("common.partial"), style="dim"))
        if state.seat is not None:
            parts.append(self.hand_line(p.get("hand", []), unknown))
        return Group(*parts)

    def action_text(self, state: TableState, action: dict[str, Any]) -> Text:
        cat, st = self.cat, self.style
        kind = action.get("type")
        if kind == "draw":
            if action.get("from") == "discard":
                discard = (state.public or {}).get("discard", [])
                out = Text(cat("quatorze.act.draw-discard") + " ")
                out.append_text(st.rich(discard[-1]) if discard else Text("?"))
                return out
            return Text(cat("quatorze.act.draw-stock"))
        if kind == "combine":
            out = Text(cat("quatorze.act.lay") + " ")
            out.append_text(st.rich_join(action.get("cards", [])))
            return out
        if kind == "discard":
            out = Text(cat("quatorze.act.discard") + " ")
            out.append_text(st.rich(action.get("card", "?")))
            return out
        if kind == "substitute":
            return self._substitution_text(action)
        return super().action_text(state, action)

    def _substitution_line(self, state: TableState, seat: Any, a: dict[str, Any]) -> str:
        """A substitution told as ``Bea swaps Q♣ for 3♦ 9♥ of #1.`` (``You swap ...`` for ours)."""
        cat, st = self.cat, self.style
        me = seat is not None and seat == state.seat
        fields: dict[str, Any] = {"name": state.name(seat)}
        sub = a.get("kind")
        try:
            if sub in ("hand-for-two", "two-for-one"):
                give, take = (a["hand"], a["cards"]) if sub == "hand-for-two" else (a["hand"], a["card"])
                key = "quatorze.ev.swap"
                fields.update(give=st.join(give if isinstance(give, list) else [give]),
                              take=st.join(take if isinstance(take, list) else [take]), n=a["combination"])
            elif sub == "between":
                key = "quatorze.ev.exchange"
                fields.update(cards=st.join(a["cards"]), n=a["combination"], card=st.join([a["card"]]), other=a["other"])
            else:
                raise KeyError(sub)
        except (KeyError, TypeError, ValueError):
            return self.cat("quatorze.ev.substitute", name=state.name(seat), what=self._substitution_text(a).plain)
        return cat(key + ".you", **fields) if me else cat(key, **fields)

    def _substitution_text(self, a: dict[str, Any]) -> Text:
        cat, st = self.cat, self.style
        sub = a.get("kind")
        try:
            if sub == "hand-for-two":
                return Text.assemble(cat("quatorze.act.swap") + " ", st.rich(a["hand"]), " ",
                                     cat("quatorze.act.for") + " ", st.rich_join(a["cards"]),
                                     " " + cat("quatorze.act.of", n=a["combination"]))
            if sub == "two-for-one":
                return Text.assemble(cat("quatorze.act.swap") + " ", st.rich_join(a["hand"]), " ",
                                     cat("quatorze.act.for") + " ", st.rich(a["card"]),
                                     " " + cat("quatorze.act.of", n=a["combination"]))
            if sub == "between":
                return Text.assemble(cat("quatorze.act.exchange") + " ", st.rich_join(a["cards"]),
                                     " " + cat("quatorze.act.of", n=a["combination"]) + " ⇄ ", st.rich(a["card"]),
                                     " " + cat("quatorze.act.of", n=a["other"]))
        except (KeyError, TypeError, ValueError):
            pass
        return super().action_text(None, a)  # type: ignore[arg-type]  # the generic text reads no table state

    def result_lines(self, state: TableState, result: dict[str, Any]) -> list[str]:
        scores = result.get("scores", [])
        lines = [self.cat("quatorze.final", left=", ".join(
            f"{state.name(s)} {int(v) if float(v).is_integer() else v}" for s, v in enumerate(scores)))]
        return lines + super().result_lines(state, result)

    # ---------------------------------------------------------------- input
    def parse(self, state: TableState, text: str) -> dict[str, Any]:
        return input_quatorze.parse(self.cat, self.style, state, text)

    def completions(self, state: TableState) -> list[str]:
        return input_quatorze.completions(self.cat, self.style, state)

    def help_lines(self) -> list[str]:
        return [self.cat(f"quatorze.help.{i}") for i in range(1, 6)]
