"""Le Quinze classique (``quinze-classique``, quinze_cli/rules/quinze-classique.md) in ``quinze play``: the board, the
events in words, the actions in words.

The public state is the picture of :class:`~quinze_protocol.games.classique_observer.ClassiqueObserver`,
kept from the events of :mod:`quinze_protocol.games.classique` (``ceremony``,
``deck-change``, ``out``, ``ante``, ``deal``, ``speak``, ``check``/``call``/``raise``/``fold``,
``stand``, ``hit``, ``burnt``, ``showdown``, ``pot-won``, ``coup-end``, ``match-end``) so chips,
stakes, the pot and every face-up card stay right between our turns and for a spectator; our own
hidden card comes from the private part of ``deal``, and each action-request's view (quinze_cli/rules/quinze-classique.md
"What each player sees") replaces the tracked state, as does the ``view`` message a client gets
when it arrives mid-game (PROTOCOL.md, `view`).

A raise is the one parameterised action: the legal list gives it as a range
(``{"type": "raise", "min": m, "max": M}``), which the server does not take as an action. So
that a number picked from the list is always a valid answer, :meth:`ClassiqueUI.on_request`
lists it as ``raise by m`` (and ``raise by M`` when M > m); ``raise N`` typed takes any N in the
range (:mod:`quinze_cli.play.input_classique`). The range as received is kept in
``state.public["raise"]`` and the original list in ``state.public["legal"]`` (for the hint).

Events are told in words by :mod:`quinze_cli.narrate.classique` (the wording of ``quinze replay``),
from the catalogue of the player's language (``classique.ev.*``).
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from quinze_cli.play import input_classique
from quinze_cli.play.events_ui import tell
from quinze_cli.play.registry import GameUI, TableState

__all__ = ["ClassiqueUI"]

SUMMARY_KINDS = ("out", "burnt", "showdown", "pot-won", "coup-end")
"""Events whose lines make up the summary shown at the end of a coup."""


def _value(c: str) -> int:
    from quinze_protocol.cards import parse_card, rank

    return min(rank(parse_card(c)), 10)


class ClassiqueUI(GameUI):
    """Renderer and input reader of Le Quinze classique (quinze_cli/rules/quinze-classique.md)."""

    # ---------------------------------------------------------------- state
    def start(self, state: TableState) -> None:
        self.observe_start(state, own=None, legal=[])
        self._own(state)

    def _own(self, state: TableState) -> None:
        """What only our seat sees, over the public picture: our hidden card (``own``) in
        ``hidden`` and our total in ``total``."""
        p = state.public
        own = p.get("own")
        if state.seat is None or own is None or not 0 <= state.seat < len(p.get("hidden", [])):
            return
        p["hidden"] = list(p["hidden"])
        p["hidden"][state.seat] = own
        ups = p["face_up"][state.seat] if state.seat < len(p.get("face_up", [])) else []
        p["total"] = _value(own) + sum(_value(c) for c in ups)

    def on_request(self, state: TableState) -> None:
        v = state.view or {}
        if state.observer is None:
            self.start(state)
        self.observe(state)
        p = state.public
        hidden = v.get("hidden") or []
        if state.seat is not None and state.seat < len(hidden):
            p["own"] = hidden[state.seat]
        self._own(state)
        p["legal"] = [dict(a) for a in state.legal]
        p["raise"] = None
        listed: list[dict[str, Any]] = []
        for a in state.legal:
            if a.get("type") == "raise" and "amount" not in a:
                lo, hi = a.get("min"), a.get("max")
                p["raise"] = [lo, hi]
                listed.append({"type": "raise", "amount": lo})
                if isinstance(hi, int) and isinstance(lo, int) and hi > lo:
                    listed.append({"type": "raise", "amount": hi})
            else:
                listed.append(a)
        state.legal = listed

    def on_event(self, state: TableState, event: dict[str, Any]) -> list[str]:
        """Track the public picture (:class:`~quinze_protocol.games.classique_observer.ClassiqueObserver`)
        and our own hidden card from one event; the event in words."""
        if state.observer is None:
            self.start(state)
        kept = {k: state.public.get(k) for k in ("raise", "legal")}
        self.observe(state, event)
        p = state.public
        p.update(kept)
        kind = event.get("kind")
        lines = tell(self.game_id or "", state, event, None, self.cat("common.you"), style=self.style, cat=self.cat)
        if kind in SUMMARY_KINDS:  # the coup's summary: who burnt, the showdown, who won the pot, the chips
            p.setdefault("coup_lines", []).extend(lines)
        if kind == "coup-end":
            state.summary, p["coup_lines"] = list(p.get("coup_lines", [])), []
            # the board under the summary shows the coup as it ended, not its last round: the
            # next event (the next coup's ante or deal) brings the observer's picture back
            p["phase"], state.to_act = "done", None
        if kind == "deal" or (kind == "coup-end" and event.get("outcome") == "won"):
            # the hidden card and the chips are on the board: keep the few log lines for the play
            lines = lines[:1] if kind == "deal" else []
        if kind == "deal":
            p["own"] = event.get("card") if state.seat is not None else None
        elif kind in ("coup-end", "match-end"):
            p["own"] = None
        self._own(state)
        return lines

    # ---------------------------------------------------------------- drawing
    def _round(self, p: dict[str, Any]) -> tuple[Any, ...]:
        """``"round 2 of 4 · "`` (bold ``"last round"`` in the last one): how far the match is, as the
        rules count it (quinze_cli/rules/quinze-classique.md "End of the match": ``tours`` rounds of
        the deal); nothing before the first deal."""
        tours, done = p.get("tours"), p.get("rounds")
        if not isinstance(tours, int) or not isinstance(done, int) or not p.get("coup"):
            return ()
        now = min(done + 1, tours)
        text = self.cat("classique.round", n=now, tours=tours)
        if now == tours:
            return (text, " (", (self.cat("classique.last-round"), "bold"), ") · ")
        return (text, " · ")

    def board(self, state: TableState) -> RenderableType:
        cat, st = self.cat, self.style
        p = state.public or {}
        phase = p.get("phase", "speak")
        deck = cat(f"classique.deck.{p.get('deck')}") if cat.has(f"classique.deck.{p.get('deck')}") else p.get("deck")
        line1 = Text.assemble(
            cat("classique.coup", n=p.get("coup", 0)), " · ",
            *self._round(p),
            cat("classique.pot", n=p.get("pot", 0)), " · ",
            cat("classique.ante", n=p.get("ante", 1)), " · ",
            cat("classique.talon", n=p.get("talon", 0), deck=deck), " · ",
            (cat(f"classique.phase.{phase}") if cat.has(f"classique.phase.{phase}") else phase, "bold"),
        )
        parts: list[RenderableType] = [line1]
        awaiting = [s for s in p.get("awaiting", []) if isinstance(s, int)]
        if phase == "raise" and awaiting:
            parts.append(Text(cat("classique.awaiting", names=", ".join(state.name(s) for s in awaiting))))
        seats = Table(box=None, show_header=False, padding=(0, 1), pad_edge=False)
        for _ in range(6):
            seats.add_column()
        chips, stakes, status = p.get("chips", []), p.get("stakes", []), p.get("status", [])
        hidden, face_up = p.get("hidden", []), p.get("face_up", [])
        for s, who in enumerate(state.players):
            mark = "▶" if s == state.to_act and state.result is None and phase != "done" else " "
            label = who + (" " + cat("common.you") if s == state.seat else "")
            if s == p.get("dealer"):
                label += " " + cat("classique.dealer-mark")
            stat = status[s] if s < len(status) else "waiting"
            cards = Text()
            h = hidden[s] if s < len(hidden) else None
            ups = face_up[s] if s < len(face_up) else []
            if h is not None:
                cards.append_text(st.rich(h))
            elif stat in ("stand", "hit", "folded", "passed", "waiting") and p.get("coup") and phase not in ("over", "done"):
                cards.append("▒▒", style="dim")
            if ups:
                cards.append(" + ")
                cards.append_text(st.rich_join(ups))
                shown = sum(_value(c) for c in ups)
                if h is not None:  # the hidden card is known (ours, or turned up): the whole total
                    cards.append(" " + cat("classique.shown-total", n=_value(h) + shown))
                else:
                    cards.append(" " + cat.plural("classique.showing", shown))
            seats.add_row(
                Text(mark), Text(label, style="bold" if s == state.to_act else ""),
                Text(cat.plural("classique.chips", chips[s] if s < len(chips) else "?")),
                Text(cat("classique.stake", n=stakes[s] if s < len(stakes) else 0)),
                Text("" if phase in ("over", "done") and stat not in ("out", "burnt", "folded", "passed") else
                     cat(f"classique.status.{stat}") if cat.has(f"classique.status.{stat}") else stat),
                cards,
            )
        parts.append(seats)
        if state.seat is not None:
            own = hidden[state.seat] if state.seat < len(hidden) else None
            line = Text(cat("classique.hidden") + " ")
            if own is None:
                line.append(cat("common.empty"), style="dim")
            else:
                line.append_text(st.rich(own))
                ups = face_up[state.seat] if state.seat < len(face_up) else []
                total = _value(own) + sum(_value(c) for c in ups)
                line.append("  " + cat("classique.total", n=total))
            parts.append(line)
        return Group(*parts)

    def action_text(self, state: TableState, action: dict[str, Any]) -> Text:
        cat = self.cat
        kind = action.get("type")
        if kind == "raise":
            rr = (state.public or {}).get("raise") if state is not None else None
            if "amount" in action:
                text = cat("classique.act.raise", n=action["amount"])
                if rr and rr[1] != rr[0]:
                    text += "  " + cat("classique.act.raise-range", lo=rr[0], hi=rr[1])
                return Text(text)
            return Text(cat("classique.act.raise-range", lo=action.get("min"), hi=action.get("max")))
        phase = (state.public or {}).get("phase") if state is not None else None
        key = f"classique.act.{kind}"
        if kind in ("stand", "hit") and phase == "speak":
            key += "-open"
        if kind == "call":
            p = state.public or {}
            stakes = p.get("stakes", [])
            high = max(stakes) if stakes else 0
            mine = stakes[state.seat] if state.seat is not None and state.seat < len(stakes) else 0
            return Text(cat.plural(key, high - mine))
        if cat.has(key):
            return Text(cat(key))
        return super().action_text(state, action)

    def result_lines(self, state: TableState, result: dict[str, Any]) -> list[str]:
        scores = result.get("scores", [])
        chips = (state.public or {}).get("chips", [])
        lines = [self.cat("classique.final", chips=", ".join(
            f"{state.name(s)} {chips[s] if s < len(chips) else '?'} ({int(v):+d})" for s, v in enumerate(scores)))]
        return lines + super().result_lines(state, result)

    # ---------------------------------------------------------------- input
    def parse(self, state: TableState, text: str) -> dict[str, Any]:
        return input_classique.parse(self.cat, state, text)

    def completions(self, state: TableState) -> list[str]:
        return input_classique.completions(self.cat, state)

    def confirm(self, state: TableState, action: dict[str, Any], text: str) -> str | None:
        return input_classique.confirm(self.cat, state, action, text)

    def hint_entries(self, state: TableState) -> list[dict[str, Any]]:
        """The legal list as received, raise range included (quinze_cli/rules/quinze-classique.md):
        the search bot reads it, not the list as shown (``raise by m``, ``raise by M``)."""
        return (state.public or {}).get("legal") or state.legal

    def help_lines(self) -> list[str]:
        return [self.cat(f"classique.help.{i}") for i in range(1, 4)]
