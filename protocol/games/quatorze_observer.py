"""Le 14's public picture, kept from its events (:class:`quinze_protocol.observer.Observer`).

The events are those of :mod:`quinze_protocol.games.quatorze` (``setup``, ``no-draw``,
``reshuffle``, ``draw``, ``combine``, ``substitute``, ``discard``, ``take-up``, ``game-end``); the
picture has the keys of ``QuatorzeGame.view(None)``, every one exact after every event. A
substitution is carried out on the table as the engine does it
(:func:`quinze_protocol.games.quatorze_legal.apply_substitute`), so the combinations keep the
engine's order and numbering.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from quinze_protocol.cards import card_text, cards_text, parse_card
from quinze_protocol.observer import Observer

__all__ = ["QuatorzeObserver"]


class QuatorzeObserver(Observer):
    """The picture of a game of Le 14 (quinze_cli/rules/quatorze.md "What each player sees")."""

    game = "quatorze"

    def blank(self) -> dict[str, Any]:
        n = self.players
        return {**self.common(), "to_act": None, "phase": "draw", "no_draw": None, "turns": 0, "substitutions": 0,
                "max_turns": self.options.get("max_turns"), "hand_sizes": [0] * n, "packets": [[] for _ in range(n)],
                "cards_left": [0] * n, "table": [], "discard": [], "stock": 0}

    def apply(self, event: Mapping[str, Any]) -> None:
        super().apply(event)
        p = self.picture
        p["cards_left"] = [h + sum(ps) for h, ps in zip(p["hand_sizes"], p["packets"])]

    def _size(self, seat: int, delta: int) -> None:
        sizes = self.picture["hand_sizes"]
        sizes[seat] = max(0, sizes[seat] + delta)

    def _start_turn(self, seat: int) -> None:
        self.picture.update(to_act=seat, phase="draw", substitutions=0, no_draw=None)

    def _end_turn(self, seat: int) -> None:
        """``seat``'s turn is over (a discard, or a hand laid whole and a packet taken up)."""
        p = self.picture
        p["turns"] += 1
        if p["max_turns"] is None or p["turns"] < p["max_turns"]:
            self._start_turn((seat + 1) % len(p["hand_sizes"]))

    def on_setup(self, e: Mapping[str, Any]) -> None:
        from quinze_protocol.games.quatorze import PACKET_SIZES

        n = e["players"]
        self.picture.update(hand_sizes=[PACKET_SIZES[0]] * n, packets=[list(ps) for ps in e["packets"]], table=[],
                            discard=[e["discard"]], stock=e["stock"], turns=0)
        self._start_turn(e["first"])

    def on_no_draw(self, e: Mapping[str, Any]) -> None:
        self.picture.update(to_act=e["seat"], phase="combine", no_draw=e["reason"])

    def on_reshuffle(self, e: Mapping[str, Any]) -> None:
        self.picture.update(stock=e["stock"], discard=[e["discard"]])

    def on_draw(self, e: Mapping[str, Any]) -> None:
        p = self.picture
        if e["from"] == "discard":
            p["discard"].pop()
        self._size(e["seat"], 1)
        p.update(stock=e["stock"], phase="combine")

    def on_combine(self, e: Mapping[str, Any]) -> None:
        p = self.picture
        p["table"].append(list(e["cards"]))
        self._size(e["seat"], -len(e["cards"]))

    def on_substitute(self, e: Mapping[str, Any]) -> None:
        from quinze_protocol.games.quatorze_actions import parse_action
        from quinze_protocol.games.quatorze_legal import apply_substitute

        p = self.picture
        data = {k: v for k, v in e.items() if k not in ("kind", "seat", "substitution")}
        sub = parse_action({**data, "type": "substitute", "kind": e["substitution"]})
        table = [[parse_card(c) for c in comb] for comb in p["table"]]
        hand = list(getattr(sub, "hand", ()))
        apply_substitute(hand, table, sub)  # type: ignore[arg-type]
        p["table"] = [cards_text(comb) for comb in table]
        self._size(e["seat"], {"hand-for-two": 1, "two-for-one": -1}.get(e["substitution"], 0))
        p["phase"] = "substitute"
        p["substitutions"] += 1

    def on_discard(self, e: Mapping[str, Any]) -> None:
        p = self.picture
        seat = e["seat"]
        p["discard"].append(card_text(parse_card(e["card"])))
        self._size(seat, -1)
        if p["hand_sizes"][seat]:
            self._end_turn(seat)  # an emptied hand is taken up (take-up) or wins (game-end) first

    def on_take_up(self, e: Mapping[str, Any]) -> None:
        p = self.picture
        seat = e["seat"]
        if p["packets"][seat]:
            p["packets"][seat].pop(0)
        p["hand_sizes"][seat] = e["size"]
        self._end_turn(seat)

    def on_game_end(self, e: Mapping[str, Any]) -> None:
        super().on_game_end(e)
        self.picture.update(no_draw=None, substitutions=0)
