"""Le Quinze's public picture, kept from its events (:class:`quinze_protocol.observer.Observer`).

The events are those of :mod:`quinze_protocol.games.quinze` (``deal``, ``reshuffle``, ``draw``,
``fifteen``, ``place``, ``end-turn``, ``deal-end``, ``game-end``); the picture has the keys of
``QuinzeGame.view(None)``. The table is kept in display order (the engine's ``VIEW_SORT``), the discard pile in the
order cards went on it. After a draw the phase is ``fifteen`` when the drawer can make fifteen and
``place`` otherwise, which only the drawer knows: :attr:`QuinzeObserver.unknown` (None until a view
or the drawer's next action says).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from quinze_protocol.cards import parse_card
from quinze_protocol.observer import Observer

__all__ = ["QuinzeObserver"]


def _size(p: dict[str, Any], seat: int, delta: int) -> None:
    p["hand_sizes"][seat] = max(0, p["hand_sizes"][seat] + delta)


class QuinzeObserver(Observer):
    """The picture of a Le Quinze match (quinze_cli/rules/quinze.md "What each player sees")."""

    game = "quinze"
    unknown = ("phase",)

    def blank(self) -> dict[str, Any]:
        n = self.players
        return {**self.common(), "table": [], "discard": [], "stock": 0, "hand_sizes": [0] * n, "totals": [0] * n,
                "dealer": None, "to_act": None, "phase": None,
                "turn": {"fifteens": 0, "used_table": False, "actions": []}, "deal": 0, "turns": 0}

    def on_deal(self, e: Mapping[str, Any]) -> None:
        p = self.picture
        p.update(deal=e["deal"], dealer=e["dealer"], to_act=e["first"], hand_sizes=list(e["hand_sizes"]),
                 stock=e["stock"], table=[], discard=[], turns=0)

    def on_reshuffle(self, e: Mapping[str, Any]) -> None:
        self.picture.update(stock=e["stock"], discard=[])

    def on_draw(self, e: Mapping[str, Any]) -> None:
        p = self.picture
        seat = e["seat"]
        _size(p, seat, 1)
        p.update(stock=e["stock"], to_act=seat, phase=None, turns=p["turns"] + 1,
                 turn={"fifteens": 0, "used_table": False, "actions": []})

    def on_fifteen(self, e: Mapping[str, Any]) -> None:
        p = self.picture
        hand, table = list(e["hand"]), list(e["table"])
        _size(p, e["seat"], -len(hand))
        for c in table:
            if c in p["table"]:
                p["table"].remove(c)
        p["discard"].extend(hand + table)
        turn = p["turn"]
        turn["fifteens"] += 1
        turn["used_table"] = turn["used_table"] or bool(table)
        turn["actions"].append({"type": "fifteen", "hand": hand, "table": table})
        p["phase"] = "more"

    def on_place(self, e: Mapping[str, Any]) -> None:
        from quinze_protocol.games.quinze import VIEW_SORT

        p = self.picture
        cards = list(e["cards"])
        _size(p, e["seat"], -len(cards))
        p["table"] = sorted(p["table"] + cards, key=lambda c: VIEW_SORT[parse_card(c)])
        p["turn"]["actions"].append({"type": "place", "cards": cards})
        if e.get("quick"):
            p["phase"] = "placed"

    def on_end_turn(self, e: Mapping[str, Any]) -> None:
        self.picture["turn"]["actions"].append({"type": "end"})

    def on_deal_end(self, e: Mapping[str, Any]) -> None:
        p = self.picture
        p["totals"] = list(e["totals"])
        p["hand_sizes"] = [len(h) for h in e["hands"]]
