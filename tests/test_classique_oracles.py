"""Properties of Le Quinze classique (quinze_cli/rules/quinze-classique.md) over random games of 2–6 players.
The properties every game shares (same seed same game, views, positions, copies, results) are in
tests/test_game_contract.py; these are this game's own (oracles, chips, what a seat may see)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from quinze_protocol.cards import card_text
from quinze_protocol.game import ActionError, IllegalAction
from quinze_protocol.games.classique import ClassiqueGame
from quinze_protocol.games.classique_actions import Raise

MAX_STEPS = 3000

games = st.fixed_dictionaries(
    {
        "players": st.integers(2, 6),
        "seed": st.integers(0, 2**32),
        "cave": st.integers(1, 25),
        "ante": st.integers(1, 3),
        "tours": st.integers(1, 2),
        "picks": st.lists(st.integers(0, 2**16), min_size=1, max_size=64),
    }
)


def start(p) -> ClassiqueGame:
    return ClassiqueGame.new({"players": p["players"], "cave": p["cave"], "ante": p["ante"], "tours": p["tours"]},
                             p["seed"])


def pick(g: ClassiqueGame, picks: list[int], i: int):
    """A legal action chosen by ``picks`` (cycled); a raise gets an amount in its range."""
    legal = g.legal_actions()
    x = picks[i % len(picks)] + i
    a = legal[x % len(legal)]
    if isinstance(a, Raise):
        a = Raise(amount=a.min + (x // 7) % (a.max - a.min + 1))
    return a


def run(p, each=None):
    """Play a whole game; ``each(game, events)`` after every action. Returns (game, actions, events)."""
    g = start(p)
    actions, events = [], [e.full() for e in g.opening_events]
    if each:
        each(g, g.opening_events)
    i = 0
    while not g.is_over:
        assert i < MAX_STEPS
        a = pick(g, p["picks"], i)
        actions.append(a.to_data())
        ev = g.apply(a.to_data())
        events.extend(e.full() for e in ev)
        if each:
            each(g, ev)
        i += 1
    return g, actions, events


@settings(max_examples=60, deadline=None)
@given(games)
def test_chips_conserved_and_every_game_ends(p):
    total = p["cave"] * p["players"]

    def each(g, ev):
        assert sum(g.chips) + g.pot == total
        assert min(g.chips) >= 0 and g.pot >= sum(g.stakes)

    g, _, _ = run(p, each)
    r = g.result()
    assert g.is_over and g.to_act is None and g.legal_actions() == [] and r is not None
    assert g.pot == 0 and sum(r.scores) == 0 and abs(sum(r.points) - 1) < 1e-9
    assert r.scores == tuple(c - total // p["players"] for c in g.chips)
    assert set(r.winners) == {s for s, c in enumerate(g.chips) if c == max(g.chips)}


@settings(max_examples=50, deadline=None)
@given(games)
def test_views_and_events_never_leak_hidden_cards(p):
    folded: set[int] = set()

    def each(g, ev):
        for e in ev:
            if e.kind == "coup-end":
                folded.clear()
            if e.kind == "fold":
                folded.add(e.public["seat"])
            if e.kind == "burnt":
                assert e.public["seat"] not in folded
            if e.kind == "showdown":
                assert not folded & {h["seat"] for h in e.public["hands"]}
            # a hidden card is only ever in the private part of its own seat
            for part in e.private.values():
                assert e.kind == "deal" and set(part) == {"card"}
            assert "card" not in e.public or e.kind == "hit"
        for seat in [None, *range(g.players)]:
            v = g.view(seat)
            for q in range(g.players):
                shown = v["hidden"][q]
                if q == seat:
                    assert shown == (card_text(g.hidden[q]) if g.hidden[q] is not None else None)
                elif g.status[q] == "burnt":
                    assert shown == card_text(g.hidden[q])
                else:
                    assert shown is None
            assert "talon_cards" not in v and isinstance(v["talon"], int)
        if g.to_act is not None:
            assert g.view(g.to_act)["total"] == g.total(g.to_act)

    run(p, each)


ALL_DATA = [{"type": t} for t in ("pass", "stand", "hit", "check", "call", "fold")]


@settings(max_examples=40, deadline=None)
@given(games)
def test_every_legal_action_applies_and_illegal_ones_are_refused(p):
    def each(g, ev):
        if g.is_over:
            return
        legal = g.legal_actions()
        legal_data = [a.to_data() for a in legal]
        assert len(legal_data) == len({str(d) for d in legal_data})  # each once
        pos = g.to_position()
        rr = next((a for a in legal if isinstance(a, Raise)), None)
        tries = ALL_DATA + [{"type": "raise", "amount": k} for k in (1, 2, 3, 50, 10_000)]
        for data in tries:
            ok = data in legal_data or (data["type"] == "raise" and rr is not None and rr.min <= data["amount"] <= rr.max)
            if ok:
                probe = ClassiqueGame.from_position(pos)
                probe.apply(data)  # checked: must be accepted
                assert sum(probe.chips) + probe.pot == sum(g.caves)
            else:
                try:
                    g.apply(data)
                except IllegalAction as err:
                    assert err.code and err.reason
                else:
                    raise AssertionError(f"{data} accepted but not legal: {legal_data}")
                assert g.to_position() == pos
        try:
            g.apply({"type": "raise"})
        except ActionError as err:
            assert err.field == "amount"
        assert g.to_position() == pos

    p = {**p, "cave": min(p["cave"], 8)}
    run(p, each)
