"""Le Quinze classique's public picture, kept from its events (:class:`quinze_protocol.observer.Observer`).

The events are those of :mod:`quinze_protocol.games.classique_coup` (``ceremony``, ``deck-change``,
``out``, ``ante``, ``deal``, ``speak``, ``check``, ``call``, ``raise``, ``fold``, ``stand``, ``hit``,
``burnt``, ``showdown``, ``pot-won``, ``coup-end``, ``match-end``, ``game-end``); the picture has
the keys of ``ClassiqueGame.view(None)``, every one exact after every event. The seat to act
follows the rules of the coup (quinze_cli/rules/quinze-classique.md "A coup"), all of which are
public: who speaks, answers or draws next depends on statuses, stakes and the opener, never on a
hidden card (a burn and a showdown are events). The orders themselves (speaking order, seats
still in the coup) are read from the engine's own :class:`~quinze_protocol.games.classique_coup.CoupFlow`
over a public :class:`~quinze_protocol.games.classique_coup.ClassiqueState` (its hidden cards
unknown, its talon a count).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from quinze_protocol.cards import parse_card
from quinze_protocol.games.classique_coup import ClassiqueState, CoupFlow, value
from quinze_protocol.observer import Observer

__all__ = ["ClassiqueObserver"]


class ClassiqueObserver(Observer):
    """The picture of a match of Le Quinze classique (quinze_cli/rules/quinze-classique.md "What each player sees")."""

    game = "quinze-classique"
    own_keys = ()

    def __init__(self, options: Mapping[str, Any]) -> None:
        n = int(options.get("players") or 0)
        cave = int(options.get("cave") or 0)
        caves = [int(x) for x in str(options.get("caves") or "").split(",") if x.strip().lstrip("-").isdecimal()]
        self.state = ClassiqueState(caves if len(caves) == n else [cave] * n)
        self.talon = 0
        super().__init__(options)
        self.flow = CoupFlow({**self.options, "players": n}, self.state)

    def blank(self) -> dict[str, Any]:
        return self._from_state()

    def _from_state(self) -> dict[str, Any]:
        st = self.state
        phase = st.phase
        flow = getattr(self, "flow", None)
        awaiting: list[int] = []
        if phase == "raise" and flow is not None:
            in_coup = flow.in_coup()
            awaiting = [p for p in flow.order_from(st.turn or 0) if p in in_coup and p not in st.acted]
        return {
            **self.common(), "phase": phase, "to_act": None if phase == "over" else st.turn, "coup": st.coup, "dealer": st.dealer,
            "first_dealer": st.first_dealer, "rounds": st.rounds, "tours": self.options.get("tours"),
            "deck": st.deck, "talon": self.talon, "ante": self.options.get("ante"), "pot": st.pot,
            "stakes": list(st.stakes), "chips": list(st.chips), "caves": list(st.caves), "in_match": list(st.in_match),
            "status": list(st.status),
            "hidden": [h if st.status[p] == "burnt" else None for p, h in enumerate(st.hidden)],
            "face_up": [list(f) for f in st.face_up],
            "face_up_totals": [sum(value(parse_card(cast(str, c))) for c in f) for f in st.face_up],  # the picture keeps card texts
            "total": None, "opener": st.opener, "high": st.high, "raised": st.raised, "awaiting": awaiting,
            "drawer": st.turn if phase == "draw" else None, "raise": None,
        }

    def apply(self, event: Mapping[str, Any]) -> None:
        super().apply(event)
        result = self.picture.get("result")
        self.picture.update(self._from_state())
        self.picture["result"] = result

    def public_part(self, view: Mapping[str, Any]) -> dict[str, Any]:
        """A seat's view as a spectator's: its own hidden card, total and raise range unknown."""
        v = super().public_part(view)
        v["hidden"] = [h if s == "burnt" else None for h, s in zip(v["hidden"], v["status"])]
        v["total"] = v["raise"] = None
        return v

    def sync(self, view: Mapping[str, Any]) -> None:
        super().sync(view)
        p, st = self.picture, self.state
        for key in ("phase", "coup", "dealer", "first_dealer", "rounds", "deck", "pot", "opener", "high", "raised"):
            setattr(st, key, p[key])
        st.turn = p["to_act"]
        st.stakes, st.chips, st.caves = list(p["stakes"]), list(p["chips"]), list(p["caves"])
        st.in_match, st.status = list(p["in_match"]), list(p["status"])
        st.hidden = list(p["hidden"])
        st.face_up = [list(f) for f in p["face_up"]]
        in_coup = self.flow.in_coup()
        st.acted = [s for s in in_coup if s not in p["awaiting"]] if p["phase"] == "raise" else []
        self.talon = p["talon"]

    # ---------------------------------------------------------------- the course of a coup

    def _continue_round(self, seat: int) -> None:
        """After an answer of the raising round: the next seat to answer, else the next drawer."""
        st = self.state
        players = self.flow.in_coup()
        if len(players) == 1:
            return  # pot-won follows
        waiting = [p for p in self.flow.order_from(seat + 1) if p in players and p not in st.acted]
        if waiting:
            st.turn = waiting[0]
            return
        st.acted, st.raised = [], False
        self._resume_draw()

    def _resume_draw(self) -> None:
        """The next drawing turn in order from the opener; none left: the showdown (an event) follows.
        An empty talon makes every drawer stand (``stand`` events with ``forced`` follow)."""
        st = self.state
        st.round_of = "drawing"
        assert st.opener is not None  # the drawing round follows an opening
        drawers = [p for p in self.flow.order_from(st.opener) if st.in_match[p] and st.status[p] == "hit"]
        if drawers and not self.talon:
            for p in drawers:
                st.status[p] = "stand"
            drawers = []
        if drawers:
            st.phase, st.turn = "draw", drawers[0]

    # ---------------------------------------------------------------- events

    def on_ceremony(self, e: Mapping[str, Any]) -> None:
        self.state.first_dealer = self.state.dealer = e["first_dealer"]

    def on_deck_change(self, e: Mapping[str, Any]) -> None:
        st, n = self.state, len(self.state.caves)
        if e["reason"] != "first":
            steps = (e["dealer"] - st.dealer) % n or n
            if any((st.dealer + k) % n == st.first_dealer for k in range(1, steps + 1)):
                st.rounds += 1
        st.dealer, st.deck, self.talon = e["dealer"], e["deck"], e["talon"]

    def on_out(self, e: Mapping[str, Any]) -> None:
        self.state.in_match[e["seat"]] = False
        self.state.status[e["seat"]] = "out"

    def on_ante(self, e: Mapping[str, Any]) -> None:
        st = self.state
        st.coup, st.pot = e["coup"], e["pot"]
        for s in e["seats"]:
            st.chips[s] -= e["amount"]
            st.stakes[s] = e["amount"]
            st.status[s] = "waiting"

    def on_deal(self, e: Mapping[str, Any]) -> None:
        st = self.state
        st.dealer, self.talon = e["dealer"], e["talon"]
        st.phase, st.turn = "speak", e["order"][0]
        st.opener, st.high, st.raised, st.acted, st.round_of = None, self.options.get("ante", 1), False, [], "opening"

    def on_speak(self, e: Mapping[str, Any]) -> None:
        st, s, say = self.state, e["seat"], e["say"]
        st.status[s] = {"pass": "passed", "stand": "stand", "hit": "hit"}[say]
        if say != "pass" and st.opener is None:
            st.opener = s
        rest = [p for p in self.flow.speaking_order() if st.status[p] == "waiting"]
        if rest:
            st.turn = rest[0]
        elif len(self.flow.in_coup()) > 1:
            st.phase, st.turn, st.round_of, st.raised, st.acted = "raise", st.opener, "opening", False, []

    def _staked(self, e: Mapping[str, Any]) -> None:
        st, s = self.state, e["seat"]
        st.chips[s] -= e["stake"] - st.stakes[s]
        st.stakes[s], st.pot = e["stake"], e["pot"]

    def on_raise(self, e: Mapping[str, Any]) -> None:
        st = self.state
        self._staked(e)
        st.high += e["amount"]
        st.raised, st.acted, st.phase = True, [e["seat"]], "raise"
        self._continue_round(e["seat"])

    def on_fold(self, e: Mapping[str, Any]) -> None:
        self._staked(e)
        self.state.status[e["seat"]] = "folded"
        self._continue_round(e["seat"])

    def on_check(self, e: Mapping[str, Any]) -> None:
        self._staked(e)
        self.state.acted.append(e["seat"])
        self._continue_round(e["seat"])

    on_call = on_check

    def on_stand(self, e: Mapping[str, Any]) -> None:
        self.state.status[e["seat"]] = "stand"
        if not e.get("forced"):
            self._resume_draw()

    def on_hit(self, e: Mapping[str, Any]) -> None:
        self.state.face_up[e["seat"]].append(e["card"])
        self.talon = e["talon"]
        self._resume_draw()

    def on_burnt(self, e: Mapping[str, Any]) -> None:
        st = self.state
        st.status[e["seat"]], st.hidden[e["seat"]] = "burnt", e["hidden"]
        if len(self.flow.in_coup()) > 1:
            self._resume_draw()

    def on_pot_won(self, e: Mapping[str, Any]) -> None:
        self.state.chips[e["seat"]] += e["amount"]
        self.state.pot = 0

    def on_coup_end(self, e: Mapping[str, Any]) -> None:
        st = self.state
        n = len(st.caves)
        st.chips, st.pot = list(e["chips"]), e["pot"]
        st.hidden, st.face_up, st.stakes = [None] * n, [[] for _ in range(n)], [0] * n
        st.status = ["waiting" if st.in_match[s] else "out" for s in range(n)]
        st.opener, st.acted, st.raised = None, [], False

    def on_match_end(self, e: Mapping[str, Any]) -> None:
        st = self.state
        st.chips, st.pot, st.rounds = list(e["chips"]), 0, e["rounds"]
        st.phase, st.turn, st.end_reason = "over", None, e["reason"]

    def on_game_end(self, e: Mapping[str, Any]) -> None:
        super().on_game_end(e)
        self.state.phase, self.state.turn = "over", None
