"""Client-side game tracking (protocol/observer.py): each game's observer, fed the events a
spectator sees, keeps a picture equal to ``Game.view(None)`` after the events of every action of
random games (hypothesis), for every game under contract, the toy game included; only the keys a
game declares ``unknown`` may be None where the view knows them. Private fields are never read;
a picture started from any seat's view mid-game goes on exactly as one that saw every event."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gamespecs import SPECS, Spec
from quinze_protocol.game import Game
from quinze_protocol.observer import Observer
from test_game_contract import choose, start

SETTINGS = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
STEPS = 400
ids = [s.id for s in SPECS]


def same(obs: Observer, g: Game, where: str) -> None:
    view = g.view(None)
    picture = obs.picture
    assert set(picture) == set(view), (where, set(picture) ^ set(view))
    for key, value in view.items():
        if key in obs.unknown and picture[key] is None:
            continue
        assert picture[key] == value, (where, key, picture[key], value)


@pytest.mark.parametrize("spec", SPECS, ids=ids)
def test_every_game_has_an_observer(spec: Spec) -> None:
    cls = spec.cls.observer
    assert issubclass(cls, Observer) and cls is not Observer and cls.game == spec.id
    assert set(cls.unknown) <= set(spec.cls.new({}, 1).view(None))


@pytest.mark.parametrize("spec", SPECS, ids=ids)
@SETTINGS
@given(data=st.data())
def test_the_picture_is_the_spectator_view_after_every_action(spec: Spec, data: st.DataObject) -> None:
    g, rng = start(spec, data)
    seat = data.draw(st.sampled_from([None, *range(g.players)]), label="events as seen by")
    join = data.draw(st.integers(0, STEPS), label="a late observer joins after action")
    obs = spec.cls.observer(g.options)
    late: Observer | None = None
    for e in g.opening_events:
        obs.apply(e.for_seat(seat))
    same(obs, g, "after the opening events")
    for i in range(STEPS):
        if g.is_over:
            break
        if i == join:
            late = spec.cls.observer.from_view(g.view(g.to_act))
            same(late, g, f"joined at action {i}")
        events = g.apply(choose(spec, g, rng))
        for e in events:
            obs.apply(e.for_seat(seat))
            if late is not None:
                late.apply(e.for_seat(None))
        same(obs, g, f"after action {i + 1}")
        if late is not None:
            same(late, g, f"after action {i + 1} (joined at {join})")
    obs.sync(g.view(0))
    assert obs.picture == g.view(None)  # a view settles every key, the seat's own ones dropped


def test_bad_event_data_leaves_the_picture_as_it_was() -> None:
    spec = SPECS[0]
    g = spec.cls.new({"players": 3}, 7)
    obs = spec.cls.observer(g.options)
    for e in g.opening_events:
        obs.apply(e.for_seat(None))
    before: dict[str, Any] = {k: v for k, v in obs.picture.items()}
    for bad in ({"kind": "fifteen"}, {"kind": "no-such-kind", "x": 1}, {"kind": "place", "seat": "x", "cards": 3}, {}):
        obs.apply(bad)
    assert obs.picture == before
