"""Le Quinze classique (``quinze-classique``, quinze_cli/rules/quinze-classique.md) in ``quinze play``: the board, the
events in words, the actions in words.

The public state is tracked from the events of :mod:`quinze_protocol.games.classique` (``ceremony``,
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

_VIEW_KEYS = ("phase", "coup", "dealer", "deck", "talon", "ante", "pot", "stakes", "chips", "caves", "in_match",
              "status", "hidden", "face_up", "face_up_totals", "total", "awaiting", "raise", "rounds", "tours")
_STAKE_KINDS = ("check", "call", "raise", "fold")


def _value(c: str) -> int:
    from quinze_protocol.cards import parse_card, rank

    return min(rank(parse_card(c)), 10)


class ClassiqueUI(GameUI):
    """Renderer and input reader of Le Quinze classique (quinze_cli/rules/quinze-classique.md)."""

    # ---------------------------------------------------------------- state
    def start(self, state: TableState) -> None:
        n = len(state.players)
        cave = state.options.get("cave", 100)
        caves = [int(x) for x in str(state.options.get("caves") or "").split(",") if x.strip().isdigit()]
        if len(caves) != n:
            caves = [cave] * n
        state.public = {
            "phase": "speak", "coup": 0, "dealer": None, "deck": "black", "talon": 0,
            "ante": state.options.get("ante", 1), "pot": 0, "stakes": [0] * n, "chips": list(caves),
            "caves": list(caves), "in_match": [True] * n, "status": ["waiting"] * n, "hidden": [None] * n,
            "face_up": [[] for _ in range(n)], "total": None, "awaiting": [], "raise": None, "legal": [],
            "rounds": 0, "tours": state.options.get("tours", 4),
        }

    def on_request(self, state: TableState) -> None:
        v = state.view or {}
        p = state.public
        if not p:
            self.start(state)
            p = state.public
        for key in _VIEW_KEYS:
            if key in v:
                val = v[key]
                p[key] = [list(x) if isinstance(x, list) else x for x in val] if isinstance(val, list) else val
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
        """Track the public state (and our own hidden card) from one event; the event in words."""
        p = state.public
        if not p:
            self.start(state)
            p = state.public
        kind = event.get("kind")
        seat = event.get("seat")
        n = len(p["chips"])
        ok = isinstance(seat, int) and 0 <= seat < n
        lines = tell(self.game_id or "", state, event, None, self.cat("quinze.you"), style=self.style, cat=self.cat)
        if kind == "deal" or (kind == "coup-end" and event.get("outcome") == "won"):
            # the hidden card and the chips are on the board: keep the few log lines for the play
            lines = lines[:1] if kind == "deal" else []
        if kind == "ceremony":
            p["dealer"] = event.get("first_dealer")
        elif kind == "deck-change":
            p.update(dealer=event.get("dealer"), deck=event.get("deck", p["deck"]), talon=event.get("talon", 52))
        elif kind == "out" and ok:
            p["in_match"][seat], p["status"][seat] = False, "out"
        elif kind == "ante":
            amount = event.get("amount", 0)
            p["coup"], p["pot"], p["phase"] = event.get("coup", p["coup"]), event.get("pot", p["pot"]), "speak"
            p["awaiting"], p["total"] = [], None
            for s in range(n):
                p["face_up"][s], p["hidden"][s], p["stakes"][s] = [], None, 0
                if s in event.get("seats", []):
                    p["chips"][s] -= amount
                    p["stakes"][s] = amount
                    p["status"][s] = "waiting"
        elif kind == "deal":
            p["dealer"], p["talon"] = event.get("dealer", p["dealer"]), event.get("talon", p["talon"])
            order = event.get("order") or []
            state.to_act = order[0] if order else None
            if "card" in event and state.seat is not None:
                p["hidden"][state.seat] = event["card"]
                p["total"] = _value(event["card"])
        elif kind == "speak" and ok:
            p["status"][seat] = {"pass": "passed", "stand": "stand", "hit": "hit"}.get(event.get("say"), p["status"][seat])
        elif kind in _STAKE_KINDS and ok:
            stake = event.get("stake", p["stakes"][seat])
            p["chips"][seat] -= stake - p["stakes"][seat]
            p["stakes"][seat], p["pot"] = stake, event.get("pot", p["pot"])
            in_coup = [s for s in range(n) if p["status"][s] in ("stand", "hit")]
            if kind == "fold":
                p["status"][seat] = "folded"
            if kind == "raise":
                p["phase"] = "raise"
                p["awaiting"] = [s for s in in_coup if s != seat]
            else:
                p["awaiting"] = [s for s in p.get("awaiting", []) if s != seat]
        elif kind == "stand" and ok:
            p["status"][seat], p["phase"] = "stand", "draw"
        elif kind == "hit" and ok:
            p["face_up"][seat].append(event.get("card"))
            p["talon"], p["phase"] = event.get("talon", p["talon"]), "draw"
            if seat == state.seat and p.get("total") is not None:
                p["total"] += _value(event.get("card", "AS"))
        elif kind == "burnt" and ok:
            p["status"][seat], p["hidden"][seat] = "burnt", event.get("hidden")
        elif kind == "showdown":
            for h in event.get("hands", []):
                s = h.get("seat")
                if isinstance(s, int) and 0 <= s < n:
                    p["hidden"][s] = h.get("hidden")
        elif kind == "pot-won" and ok:
            p["chips"][seat] += event.get("amount", 0)
            p["pot"] = 0
        elif kind == "coup-end":
            p["chips"], p["pot"] = list(event.get("chips", p["chips"])), event.get("pot", p["pot"])
            p["stakes"], p["awaiting"], p["total"] = [0] * n, [], None
            p["hidden"], p["face_up"] = [None] * n, [[] for _ in range(n)]
            p["status"] = ["waiting" if p["in_match"][s] else "out" for s in range(n)]
        elif kind == "match-end":
            p["chips"], p["pot"], p["phase"] = list(event.get("chips", p["chips"])), 0, "over"
            state.to_act = None
        return lines

    # ---------------------------------------------------------------- drawing
    def board(self, state: TableState) -> RenderableType:
        cat, st = self.cat, self.style
        p = state.public or {}
        phase = p.get("phase", "speak")
        deck = cat(f"classique.deck.{p.get('deck')}") if cat.has(f"classique.deck.{p.get('deck')}") else p.get("deck")
        line1 = Text.assemble(
            cat("classique.coup", n=p.get("coup", 0)), " · ",
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
            mark = "▶" if s == state.to_act and state.result is None else " "
            label = who + (" " + cat("quinze.you") if s == state.seat else "")
            if s == p.get("dealer"):
                label += " " + cat("classique.dealer-mark")
            stat = status[s] if s < len(status) else "waiting"
            cards = Text()
            h = hidden[s] if s < len(hidden) else None
            ups = face_up[s] if s < len(face_up) else []
            if h is not None:
                cards.append_text(st.rich(h))
            elif stat in ("stand", "hit", "folded", "passed", "waiting") and p.get("coup") and phase != "over":
                cards.append("▒▒", style="dim")
            if ups:
                cards.append(" + ")
                cards.append_text(st.rich_join(ups))
                cards.append(" " + cat("classique.showing", n=sum(_value(c) for c in ups)))
            seats.add_row(
                Text(mark), Text(label, style="bold" if s == state.to_act else ""),
                Text(cat("classique.chip" if s < len(chips) and chips[s] == 1 else "classique.chips",
                         n=chips[s] if s < len(chips) else "?")),
                Text(cat("classique.stake", n=stakes[s] if s < len(stakes) else 0)),
                Text("" if phase == "over" and stat != "out" else
                     cat(f"classique.status.{stat}") if cat.has(f"classique.status.{stat}") else stat),
                cards,
            )
        parts.append(seats)
        if state.seat is not None:
            own = hidden[state.seat] if state.seat < len(hidden) else None
            line = Text(cat("classique.hidden") + " ")
            if own is None:
                line.append(cat("quinze.empty"), style="dim")
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
            return Text(cat(key, n=high - mine))
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

    def hint_entries(self, state: TableState) -> list[dict[str, Any]]:
        """The legal list as received, raise range included (quinze_cli/rules/quinze-classique.md):
        the search bot reads it, not the list as shown (``raise by m``, ``raise by M``)."""
        return (state.public or {}).get("legal") or state.legal

    def help_lines(self) -> list[str]:
        return [self.cat(f"classique.help.{i}") for i in range(1, 4)]
