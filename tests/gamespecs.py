"""What the game-contract suite (tests/test_game_contract.py) needs to know of each registered game:
how to draw its options, which cards a position holds, how to redeal what a seat cannot see, which
actions a legal list stands for, and the game's own scoring invariants. A new game adds one
``Spec`` here and gets every contract test."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from quinze_protocol.cards import card_text
from quinze_protocol.game import Action, Game, Result, get_game
from quinze_protocol.rng import Rng
from toygame import FirstToThree

ALL_CARDS = [card_text(c) for c in range(54)]


@dataclass(frozen=True)
class Spec:
    """One game under contract.

    - ``options``: a strategy of table options (small ones, so random games end);
    - ``cards``: the multiset of cards of a position, constant over a game (None: no cards);
    - ``hide``: the position with everything ``seat`` (None: a spectator) may not see redealt,
      for the same view; the seat to act keeps its hand where it decides the phase;
    - ``listed``: True when ``action`` is one of ``legal`` or stands for one (equivalent cards,
      an amount in a listed range);
    - ``result_ok``: the game's own scoring invariants, asserted on the final game;
    - ``concrete``: a legal entry made playable (a listed raise range gets an amount).
    """

    cls: type[Game]
    options: st.SearchStrategy
    cards: Callable[[Mapping[str, Any]], Counter] | None = None
    hide: Callable[[dict[str, Any], int | None, Rng], dict[str, Any]] | None = None
    listed: Callable[[Action, list[Action]], bool] = lambda a, legal: a in legal
    result_ok: Callable[[Game, Result], None] = lambda g, r: None
    concrete: Callable[[Action, Rng], list[Action]] = field(default=lambda a, rng: [a])

    @property
    def id(self) -> str:
        return self.cls.id


def _redeal(pools: list[list[str]], rng: Rng) -> list[list[str]]:
    """The same sizes, the cards of all of ``pools`` shuffled among them."""
    every = [c for p in pools for c in p]
    rng.shuffle(every)
    out, k = [], 0
    for p in pools:
        out.append(every[k:k + len(p)])
        k += len(p)
    return out


# --------------------------------------------------------------------------- Le Quinze


def _quinze_cards(pos: Mapping[str, Any]) -> Counter:
    c = Counter(x for h in pos["hands"] for x in h)
    for k in ("table", "discard", "stock"):
        c.update(pos[k])
    return c


def _quinze_hide(pos: dict[str, Any], seat: int | None, rng: Rng) -> dict[str, Any]:
    keep = {seat, pos["to_act"]}
    others = [s for s in range(len(pos["hands"])) if s not in keep]
    pools = _redeal([pos["stock"]] + [pos["hands"][s] for s in others], rng)
    new = dict(pos, stock=pools[0], hands=list(pos["hands"]))
    for s, cards in zip(others, pools[1:]):
        new["hands"][s] = cards
    return new


def _quinze_listed(a: Action, legal: list[Action]) -> bool:
    from quinze_protocol.games.quinze_legal import CARD_RANK

    def sig(x: Any) -> Any:
        if x[0] == "fifteen":
            return ("fifteen", tuple(sorted(CARD_RANK[c] for c in x.hand)), tuple(sorted(CARD_RANK[c] for c in x.table)))
        if x[0] == "place":
            return ("place", tuple(sorted(CARD_RANK[c] for c in x[1])))
        return ("end",)

    return sig(a) in {sig(b) for b in legal}


def _quinze_result(g: Game, r: Result) -> None:
    totals = g.to_position()["totals"]
    assert list(r.scores) == totals and max(totals) >= g.options["target"]
    assert set(r.winners) == {s for s, t in enumerate(totals) if t == min(totals)} and r.reason == "target"


# --------------------------------------------------------------------------- Le 14


def _quatorze_cards(pos: Mapping[str, Any]) -> Counter:
    c = Counter(x for h in pos["hands"] for x in h)
    c.update(x for ps in pos["packets"] for p in ps for x in p)
    c.update(x for comb in pos["table"] for x in comb)
    c.update(pos["discard"])
    c.update(pos["stock"])
    return c


def _quatorze_hide(pos: dict[str, Any], seat: int | None, rng: Rng) -> dict[str, Any]:
    keep = {seat, pos["to_act"]}
    n = len(pos["hands"])
    others = [s for s in range(n) if s not in keep]
    packets = [p for ps in pos["packets"] for p in ps]
    pools = _redeal([pos["stock"]] + packets + [pos["hands"][s] for s in others], rng)
    new = dict(pos, stock=pools[0], hands=list(pos["hands"]))
    k = 1
    new["packets"] = []
    for ps in pos["packets"]:
        new["packets"].append(pools[k:k + len(ps)])
        k += len(ps)
    for s in others:
        new["hands"][s] = pools[k]
        k += 1
    return new


def _quatorze_result(g: Game, r: Result) -> None:
    left = g.view(None)["cards_left"]
    assert list(r.scores) == left
    if r.reason == "out":
        assert len(r.winners) == 1 and left[r.winners[0]] == 0
    else:
        assert r.reason == "max-turns" and set(r.winners) == {s for s, x in enumerate(left) if x == min(left)}


# --------------------------------------------------------------------------- Le Quinze classique


def _classique_cards(pos: Mapping[str, Any]) -> Counter:
    c = Counter(pos["talon"])
    c.update(pos["discards"])
    c.update(x for x in pos["hidden"] if x is not None)
    c.update(x for cs in pos["face_up"] for x in cs)
    return c


def _classique_hide(pos: dict[str, Any], seat: int | None, rng: Rng) -> dict[str, Any]:
    # the talon's order and the hidden cards of others not shown (not burnt) are what nobody sees;
    # the cards of finished coups are public in events but not in views: they may move too
    shown = {s for s, st_ in enumerate(pos["status"]) if st_ == "burnt"} | {seat}
    others = [s for s, h in enumerate(pos["hidden"]) if h is not None and s not in shown]
    pools = _redeal([pos["talon"], pos["discards"]] + [[pos["hidden"][s]] for s in others], rng)
    new = dict(pos, talon=pools[0], discards=pools[1], hidden=list(pos["hidden"]))
    for s, (card,) in zip(others, pools[2:]):
        new["hidden"][s] = card
    return new


def _classique_listed(a: Action, legal: list[Action]) -> bool:
    from quinze_protocol.games.classique_actions import Raise

    if isinstance(a, Raise):
        return a.amount is not None and any(isinstance(b, Raise) and b.min <= a.amount <= b.max for b in legal)
    return a in legal


def _classique_result(g: Game, r: Result) -> None:
    v = g.view(None)
    scores = [c - k for c, k in zip(v["chips"], v["caves"])]
    assert list(r.scores) == scores and sum(scores) == 0 and v["pot"] == 0
    assert set(r.winners) == {s for s, x in enumerate(scores) if x == max(scores)}


def _classique_concrete(a: Action, rng: Rng) -> list[Action]:
    from quinze_protocol.games.classique_actions import Raise

    if isinstance(a, Raise) and a.amount is None:
        return [Raise(amount=a.min), Raise(amount=a.max), Raise(amount=a.min + rng.below(a.max - a.min + 1))]
    return [a]


# --------------------------------------------------------------------------- the toy game


def _toy_hide(pos: dict[str, Any], seat: int | None, rng: Rng) -> dict[str, Any]:
    secrets = [s if k == seat else 1 + rng.below(pos["options"]["secret_max"]) for k, s in enumerate(pos["secrets"])]
    return dict(pos, secrets=secrets)


def _toy_result(g: Game, r: Result) -> None:
    assert r.reason == "said-three" and len(r.winners) == 1


SPECS = [
    Spec(get_game("quinze"),
         st.fixed_dictionaries({"players": st.integers(2, 8), "quick_place": st.booleans(), "target": st.integers(5, 40)}),
         cards=_quinze_cards, hide=_quinze_hide, listed=_quinze_listed, result_ok=_quinze_result),
    Spec(get_game("quatorze"),
         st.fixed_dictionaries({"players": st.integers(2, 4), "max_turns": st.integers(5, 80),
                                "max_substitutions": st.integers(0, 4)}),
         cards=_quatorze_cards, hide=_quatorze_hide, result_ok=_quatorze_result),
    Spec(get_game("quinze-classique"),
         st.fixed_dictionaries({"players": st.integers(2, 6), "cave": st.integers(1, 25), "ante": st.integers(1, 3),
                                "tours": st.integers(1, 2)}),
         cards=_classique_cards, hide=_classique_hide, listed=_classique_listed, result_ok=_classique_result,
         concrete=_classique_concrete),
    Spec(FirstToThree, st.fixed_dictionaries({"secret_max": st.integers(1, 50)}), hide=_toy_hide, result_ok=_toy_result),
]
