"""The game contract (protocol/game.py ``Game``), one suite for every registered game and the toy
game of tests/toygame.py (hypothesis, random games): cards conserved; the same seed and actions
give the same game; views never show what the seat cannot see and events keep private parts
private; every legal action applies, and anything else is refused with the state unchanged;
``load(dump(g))`` equals ``g`` after every action; ``copy()`` is independent of its source;
``legal_count()`` and ``legal_action(i)`` agree with ``legal_actions()`` (a clear IndexError out of
range), and a bot that picks by index plays as it chooses; and results obey the game's own scoring invariants (tests/gamespecs.py). A new game adds one ``Spec``."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gamespecs import ALL_CARDS, SPECS, Spec
from quinze_protocol.game import Action, ActionError, Game, GameError, IllegalAction, bot_names, game_ids, get_bot
from quinze_protocol.rng import Rng

SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
STEPS = 120
ids = [s.id for s in SPECS]


def _plain(x: Any) -> Any:
    return json.loads(json.dumps(x))


def start(spec: Spec, data: st.DataObject) -> tuple[Game, Rng]:
    options = data.draw(spec.options, label="options")
    seed = data.draw(st.integers(-(2**63), 2**64), label="seed")
    return spec.cls.new(options, seed), Rng(seed ^ 0x5EED)


def choose(spec: Spec, g: Game, rng: Rng) -> Action:
    legal = g.legal_actions()
    assert legal, "a running game always has a legal action"
    playable = spec.concrete(legal[rng.below(len(legal))], rng)
    return playable[rng.below(len(playable))]


def walk(spec: Spec, g: Game, rng: Rng, steps: int = STEPS, each=None) -> list[Any]:
    """Random legal play for ``steps`` actions or to the end; ``each(g, action, events)``."""
    events: list[Any] = list(g.opening_events)
    for _ in range(steps):
        if g.is_over:
            break
        a = choose(spec, g, rng)
        ev = g.apply(a)
        events += ev
        if each is not None:
            each(g, a, ev)
    return events


def test_every_registered_game_is_under_contract() -> None:
    assert set(game_ids()) <= set(ids)


@pytest.mark.parametrize("spec", SPECS, ids=ids)
def test_every_game_describes_itself(spec: Spec) -> None:
    cls = spec.cls
    assert cls.title and cls.score_label and cls.score_meaning and cls.score_aggregate in ("sum", "mean")
    assert cls.lower_is_better in (True, False, None)
    assert cls.hint_bot is None or cls.id not in game_ids() or cls.hint_bot in bot_names(cls.id)


@pytest.mark.parametrize("spec", SPECS, ids=ids)
@SETTINGS
@given(data=st.data())
def test_cards_are_conserved(spec: Spec, data: st.DataObject) -> None:
    if spec.cards is None:
        return
    g, rng = start(spec, data)
    first = spec.cards(g.to_position())

    def each(g: Game, a: Action, ev: list[Any]) -> None:
        pos = g.to_position()
        if spec.id == "quinze-classique":  # one colour deck at a time: the deck in play is whole
            from quinze_protocol.games.classique import colour_deck

            assert spec.cards(pos) == __import__("collections").Counter(ALL_CARDS[c] for c in colour_deck(pos["deck"]))
        else:
            assert spec.cards(pos) == first

    walk(spec, g, rng, each=each)


@pytest.mark.parametrize("spec", SPECS, ids=ids)
@SETTINGS
@given(data=st.data())
def test_same_seed_and_actions_same_game(spec: Spec, data: st.DataObject) -> None:
    options = data.draw(spec.options)
    seed = data.draw(st.integers(0, 2**64 - 1))
    g1 = spec.cls.new(options, seed)
    rng = Rng(seed)
    actions: list[dict[str, Any]] = []
    events1 = [e.full() for e in g1.opening_events]
    for _ in range(STEPS):
        if g1.is_over:
            break
        a = choose(spec, g1, rng)
        actions.append(_plain(a.to_data()))
        events1 += [e.full() for e in g1.apply(a)]
    g2 = spec.cls.new(options, seed)
    events2 = [e.full() for e in g2.opening_events]
    for d in actions:  # from data, checked, as from the network
        events2 += [e.full() for e in g2.apply(d)]
    assert _plain(events1) == _plain(events2)
    assert g1.to_position() == g2.to_position() and g1.result() == g2.result()


@pytest.mark.parametrize("spec", SPECS, ids=ids)
@SETTINGS
@given(data=st.data())
def test_views_never_show_what_the_seat_cannot_see(spec: Spec, data: st.DataObject) -> None:
    g, rng = start(spec, data)
    steps = data.draw(st.integers(0, STEPS), label="steps")
    events = walk(spec, g, rng, steps)
    for e in events:  # private parts stay private: never in the public part, never another seat's
        declared = set(spec.cls.private_fields.get(e.kind, ()))
        for s, part in e.private.items():
            assert 0 <= s < g.players and not set(part) & set(e.public), e
            assert set(part) <= declared, (e.kind, set(part), declared)  # Game.private_fields says them all
        assert e.for_seat(None) == {"kind": e.kind, **e.public}
    if g.is_over:
        return
    pos = g.to_position()
    for seat in [None, *range(g.players)]:
        hidden = spec.cls.from_position(spec.hide(dict(pos), seat, Rng(rng.below(1 << 30))))
        assert _plain(hidden.view(seat)) == _plain(g.view(seat)), seat
        json.dumps(g.view(seat))


@pytest.mark.parametrize("spec", SPECS, ids=ids)
@SETTINGS
@given(data=st.data())
def test_every_legal_action_applies_and_others_are_refused_unchanged(spec: Spec, data: st.DataObject) -> None:
    g, rng = start(spec, data)
    # candidate actions: what was legal somewhere in another game of the same kind, and mutations
    other, orng = start(spec, data)
    pool: list[dict[str, Any]] = []
    walk(spec, other, orng, 60, each=lambda h, a, ev: pool.append(_plain(a.to_data())))
    pool += [{"type": "no-such-action"}, {"kind": "no type"}]

    def mutate(d: dict[str, Any]) -> dict[str, Any]:
        out = dict(d)
        for k, v in d.items():
            if isinstance(v, str) and v in ALL_CARDS and rng.below(2):
                out[k] = ALL_CARDS[rng.below(54)]
            elif isinstance(v, list) and v and all(x in ALL_CARDS for x in v):
                out[k] = [ALL_CARDS[rng.below(54)] if rng.below(2) else x for x in v]
            elif isinstance(v, int) and not isinstance(v, bool) and rng.below(2):
                out[k] = v + rng.below(7) - 3
        return out

    def each(g: Game, a: Action, ev: list[Any]) -> None:
        if g.is_over:
            assert g.legal_actions() == []
            return
        legal = g.legal_actions()
        assert len({json.dumps(x.to_data(), sort_keys=True) for x in legal}) == len(legal)  # each once
        before = g.to_position()
        for entry in legal:
            for playable in spec.concrete(entry, rng):
                probe = g.copy()
                probe.apply(_plain(playable.to_data()))  # checked, from data: accepted
        tries = [mutate(pool[rng.below(len(pool))]) for _ in range(6)] + [mutate(x.to_data()) for x in legal[:3]]
        for d in tries:
            try:
                parsed = spec.cls.parse_action(d)
            except ActionError as err:
                assert err.code == "bad-action" and err.reason
                continue
            if spec.listed(parsed, legal):
                continue
            with pytest.raises(GameError) as err:
                g.apply(d)
            assert isinstance(err.value, (IllegalAction, ActionError)) and err.value.code and err.value.reason
            assert g.to_position() == before, d

    walk(spec, g, rng, 40, each=each)


@pytest.mark.parametrize("spec", SPECS, ids=ids)
@SETTINGS
@given(data=st.data())
def test_load_of_dump_equals_the_game_after_every_action(spec: Spec, data: st.DataObject) -> None:
    g, rng = start(spec, data)

    def each(g: Game, a: Action, ev: list[Any]) -> None:
        pos = g.to_position()
        assert _plain(pos) == pos  # plain JSON data
        h = spec.cls.from_position(_plain(pos))
        assert h.to_position() == pos
        assert h.legal_data() == g.legal_data() and h.to_act == g.to_act and h.is_over == g.is_over
        assert h.result() == g.result()
        for seat in [None, *range(g.players)]:
            assert h.view(seat) == g.view(seat)
        if not g.is_over:  # and it goes on identically
            nxt = choose(spec, g, Rng(len(ev)))
            assert [e.full() for e in h.apply(nxt)] == [e.full() for e in g.copy().apply(nxt)]

    walk(spec, g, rng, each=each)


@pytest.mark.parametrize("spec", SPECS, ids=ids)
@SETTINGS
@given(data=st.data())
def test_copy_is_independent_of_its_source(spec: Spec, data: st.DataObject) -> None:
    g, rng = start(spec, data)
    walk(spec, g, rng, data.draw(st.integers(0, STEPS), label="steps"))
    pos = g.to_position()
    c = g.copy()
    assert c.to_position() == pos and c.legal_data() == g.legal_data()
    walk(spec, c, Rng(7), 30)  # the copy moves: the source does not
    assert g.to_position() == pos
    c2 = g.copy()
    walk(spec, g, Rng(9), 30)  # the source moves: an earlier copy does not
    assert c2.to_position() == pos


def _same_legal(g: Game) -> None:
    """``legal_count``, ``legal_action`` and ``legal_pick`` agree with ``legal_actions`` at ``g``."""
    legal = g.legal_actions()
    n = len(legal)
    assert g.legal_count() == n
    for i in range(n):
        assert g.legal_action(i) == legal[i], i
    for k in (0, n - 1):
        if n:
            assert g.legal_pick(lambda m: k if m == n else -1) == legal[k]
    for bad in (n, n + 3, -1):
        with pytest.raises(IndexError) as err:
            g.legal_action(bad)
        assert f"no legal action {bad}: {n} legal action(s)" in str(err.value)
        with pytest.raises(IndexError):
            g.legal_pick(lambda m: bad)
    assert g.legal_actions() == legal  # counting and picking changed nothing


@pytest.mark.parametrize("spec", SPECS, ids=ids)
@SETTINGS
@given(data=st.data())
def test_legal_count_and_legal_action_agree_with_the_list(spec: Spec, data: st.DataObject) -> None:
    g, rng = start(spec, data)
    _same_legal(g)
    # a long walk: late positions (a full table, substitutions in a row) are the ones to check
    walk(spec, g, rng, data.draw(st.integers(0, 2000), label="steps"), each=lambda g, a, ev: _same_legal(g))
    pos = g.to_position()
    _same_legal(spec.cls.from_position(pos))
    _same_legal(g.copy())


@pytest.mark.parametrize("spec", SPECS, ids=ids)
@SETTINGS
@given(data=st.data())
def test_a_picking_bot_plays_as_it_chooses(spec: Spec, data: st.DataObject) -> None:
    """A bot with ``picks``: ``bot.complete(game.legal_pick(bot.pick))`` is ``bot.choose(view, legal)``, with
    the same draws, so random self-play by index is the same game."""
    if spec.cls.id not in game_ids():
        return
    seed = data.draw(st.integers(0, 2**32), label="seed")
    options = data.draw(spec.options, label="options")
    for name in bot_names(spec.cls.id):
        if "@" in name or not get_bot(spec.cls.id, name, 0).picks:  # NAME@N: a search budget
            continue
        g1, g2 = spec.cls.new(options, seed), spec.cls.new(options, seed)
        b1 = [get_bot(spec.cls.id, name, seed + s) for s in range(g1.players)]
        b2 = [get_bot(spec.cls.id, name, seed + s) for s in range(g1.players)]
        for _ in range(400):
            if g1.is_over:
                break
            seat = g1.to_act
            a1 = b1[seat].choose(g1.view(seat), g1.legal_actions())
            a2 = b2[seat].complete(g2.legal_pick(b2[seat].pick))
            assert a1 == a2
            assert g1.apply(a1) == g2.apply(a2, checked=False)
        assert g1.to_position() == g2.to_position()


@pytest.mark.parametrize("spec", SPECS, ids=ids)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_results_obey_the_scoring_invariants(spec: Spec, data: st.DataObject) -> None:
    g, rng = start(spec, data)
    events = walk(spec, g, rng, 100_000)
    assert g.is_over and g.to_act is None and g.legal_actions() == []
    r = g.result()
    assert r is not None and len(r.points) == len(r.scores) == g.players
    assert abs(sum(r.points) - 1) < 1e-9
    assert set(r.winners) == {s for s, p in enumerate(r.points) if p > 0}
    assert all(abs(p - 1 / len(r.winners)) < 1e-9 for p in r.points if p > 0)
    assert all(g.view(s)["result"] == r.to_data() for s in [None, *range(g.players)])
    if spec.cls.id in game_ids():  # the three games end with game-end {result}
        assert events[-1].kind == "game-end" and events[-1].public["result"] == r.to_data()
    with pytest.raises(IllegalAction) as err:
        g.check(_any_action(spec))
    assert err.value.code == "game-over"
    spec.result_ok(g, r)


def _any_action(spec: Spec) -> Action:
    """An action of the game's own kind (the game is over: any will do)."""
    g = spec.cls.new({}, 1)
    return spec.concrete(g.legal_actions()[0], Rng(1))[0]
