"""quinze_protocol.games.events.event builds the same value as Event(...)."""

from __future__ import annotations

from quinze_protocol.game import Event
from quinze_protocol.games.events import event


def test_event_equals_the_dataclass() -> None:
    a = event("draw", {"seat": 1, "stock": 40}, {1: {"card": "7H"}})
    b = Event("draw", {"seat": 1, "stock": 40}, {1: {"card": "7H"}})
    assert a == b and hash(a.kind) == hash(b.kind)
    assert a.for_seat(1) == b.for_seat(1) and a.full() == b.full()
    assert event("end-turn", {"seat": 0}) == Event("end-turn", {"seat": 0})
    assert event("end-turn", {"seat": 0}).private == {}


def test_an_event_is_an_immutable_value_that_pickles() -> None:
    import pickle

    import pytest

    e = Event("draw", {"seat": 1, "stock": 40}, {1: {"card": "7H"}})
    assert pickle.loads(pickle.dumps(e)) == e
    with pytest.raises(AttributeError):
        e.kind = "deal"  # type: ignore[misc]
    assert Event("end-turn", {"seat": 0}).private == {} and not Event("end-turn", {"seat": 0}).full().get("private")
    assert repr(Event("end-turn", {"seat": 0}, {})) == "Event(kind='end-turn', public={'seat': 0}, private={})"
