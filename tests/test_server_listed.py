"""An answer that names one of the actions an ``action-request`` listed, byte for byte, is taken
as that listed action without being parsed again (``Table.handle_action``), and played without the
game's check where the game lists only legal actions (``Game.listed_legal``): it plays and is
recorded exactly as the same data read and checked by the game, and an entry that is no action
itself (a classique raise's range) is still refused. The listed entries' encodings are kept by
action (``quinze_server.wire.entries``) and are the plain encoding. Real server on loopback TCP,
real games."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
import trio

from quinze_protocol.game import game_ids, get_game
from quinze_protocol.rng import Rng
from netclient import NetClient
from serverkit import seated_pair, serving

from quinze_server.wire import _ENTRIES, entries

_pack = msgpack.Packer(use_bin_type=True).pack


@pytest.mark.parametrize("game_id", game_ids())
@pytest.mark.parametrize("players", [2, 3, 4])
def test_listed_actions_read_back_as_themselves(game_id: str, players: int) -> None:
    """What the server's shortcut relies on: every listed action's data, read by the game, is an
    action equal to it, whose data encodes to the same bytes (random games, every decision)."""
    cls = get_game(game_id)
    checked = 0
    for seed in range(6):
        game = cls.new({"players": players}, seed=seed)
        rng = Rng(seed)
        for _ in range(200):
            if game.is_over:
                break
            legal = game.legal_actions()
            for action in legal:
                data = action.to_data()
                again = cls.parse_action(data)
                assert again == action, (game_id, data)
                assert _pack(again.to_data()) == _pack(data), (game_id, data)
                checked += 1
            game.apply(game.legal_action(rng.below(len(legal))) if game_id != "quinze-classique"
                       else _concrete(game.legal_action(rng.below(len(legal)))))
    assert checked > 100


@pytest.mark.parametrize("game_id", game_ids())
@pytest.mark.parametrize("players", [2, 3, 4])
def test_kept_entries_are_the_plain_encoding(game_id: str, players: int) -> None:
    """The server keeps each listed action's encoded entry (``quinze_server.wire.entries``, by
    action, across games): at every decision of random games, what it gives is exactly the plain
    encoding of each listed action's data, in order, whether kept already or not."""
    cls = get_game(game_id)
    _ENTRIES.pop(cls, None)
    kept_before = 0
    for seed in range(8):
        game = cls.new({"players": players}, seed=100 + seed)
        rng = Rng(seed)
        for _ in range(250):
            if game.is_over:
                break
            legal = game.legal_actions()
            assert entries(cls, legal) == [_pack(a.to_data()) for a in legal], game_id
            assert entries(cls, legal) == [_pack(a.to_data()) for a in legal], game_id  # all kept now
            choice = game.legal_action(rng.below(len(legal)))
            game.apply(choice if game_id != "quinze-classique" else _concrete(choice))
        kept_before = max(kept_before, len(_ENTRIES.get(cls, {})))
    assert kept_before > 5  # the entries were kept (and found again)


@pytest.mark.parametrize("game_id", [g for g in game_ids() if get_game(g).listed_legal])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_game_that_lists_only_legal_actions_does(game_id: str, players: int) -> None:
    """``Game.listed_legal``: the server plays a listed answer without the game's check, so
    every action such a game lists must pass it (random games, every decision, every entry);
    and a game that says False (classique) does list entries that the check refuses."""
    cls = get_game(game_id)
    checked = 0
    for seed in range(6):
        game = cls.new({"players": players}, seed=seed)
        rng = Rng(seed)
        for _ in range(300):
            if game.is_over:
                break
            legal = game.legal_actions()
            for action in legal:
                game.check(action)
                checked += 1
            game.apply(game.legal_action(rng.below(len(legal))), checked=False)
    assert checked > 100
    assert not get_game("quinze-classique").listed_legal


def _concrete(action: Any) -> Any:
    """A classique raise listed with its range, as the raise by its least amount."""
    data = action.to_data()
    return action.with_amount(data["min"]) if data.get("min") is not None else action


def _standing(legal: list[dict[str, Any]]) -> dict[str, Any]:
    """A classique answer that keeps the coup going to its raising round: stand, check or call."""
    return next((e for t in ("stand", "check", "call") for e in legal if e["type"] == t), legal[0])


def _reordered(data: dict[str, Any]) -> dict[str, Any]:
    """The same action data, its keys in reverse order: not the listed entry's bytes."""
    return dict(reversed(list(data.items())))


async def _play(port: int, answer: Any, game: str = "quinze", options: dict[str, Any] | None = None) -> dict[str, Any]:
    """A seeded 2-player game (Le Quinze to 30 points unless told) played to its end with the
    first listed action each time, sent as ``answer(entry)``; the game-over message (its actions
    without their times)."""
    options = {"players": 2, "target": 30} if options is None else options
    a, b, table, _ = await seated_pair(port, game=game, options=options, seed=77)
    over: dict[str, Any] = {}

    async def run(key: str, c: NetClient) -> None:
        while True:
            msg = await c.recv(10.0)
            if msg["type"] == "action-request":
                await c.send({"type": "action", "table": table, "request": msg["request"], "action": answer(msg["legal"][0])})
            elif msg["type"] == "game-over":
                over[key] = msg
                return

    async with trio.open_nursery() as n:
        n.start_soon(run, "a", a)
        n.start_soon(run, "b", b)
    assert over["a"] == over["b"]
    for rec in over["a"]["actions"]:
        assert rec.keys() == {"seat", "action", "time"}
        del rec["time"]
    await a.aclose()
    await b.aclose()
    return over["a"]


@pytest.mark.parametrize("game", ["quinze", "quatorze"])
async def test_listed_and_other_answers_play_and_record_alike(game: str) -> None:
    """A listed answer (taken as the listed action, and played unchecked: Game.listed_legal) and
    the same data with its keys reordered (read and checked by the game) play the same game: the
    same actions recorded, result, forfeit and seed."""
    options = {"players": 2, "target": 30} if game == "quinze" else {"players": 2}
    async with serving() as port:
        listed = await _play(port, lambda entry: entry, game, options)
        other = await _play(port, _reordered, game, options)
    assert len(listed["actions"]) > 10
    for key in ("actions", "result", "forfeit", "seed"):
        assert listed[key] == other[key], key


async def test_a_listed_entry_that_is_no_action_is_refused() -> None:
    """Le Quinze classique lists a raise with its range; that entry sent back as it is is
    refused (``bad-action``, field ``amount``), listed or not, and the seat may answer again."""
    async with serving() as port:
        a, b, table, _ = await seated_pair(port, game="quinze-classique", options={"players": 2}, seed=5)
        seen: list[dict[str, Any]] = []

        async def run(c: NetClient, done: trio.CancelScope) -> None:
            while True:
                req = await c.expect("action-request", timeout=10.0)
                ranged = [e for e in req["legal"] if e["type"] == "raise" and "min" in e]
                if not ranged:
                    await c.send({"type": "action", "table": table, "request": req["request"], "action": _standing(req["legal"])})
                    continue
                await c.send({"type": "action", "table": table, "request": req["request"], "action": ranged[0]})
                seen.append(await c.expect("refused"))
                fine = {"type": "raise", "amount": ranged[0]["min"]}
                await c.send({"type": "action", "table": table, "request": req["request"], "action": fine})
                seen.append(await c.expect("accepted", request=req["request"]))
                seen.append(req)
                done.cancel()

        with trio.fail_after(20):
            async with trio.open_nursery() as n:
                n.start_soon(run, a, n.cancel_scope)
                n.start_soon(run, b, n.cancel_scope)
        refused, accepted, req = seen
        assert refused["code"] == "bad-action" and refused["request"] == req["request"]
        assert "amount" in refused["reason"]
        assert accepted["request"] == req["request"]


def _frame(msg: dict[str, Any]) -> bytes:
    body = _pack(msg)
    return len(body).to_bytes(4, "big") + body


async def test_a_listed_answer_sent_again_is_refused_as_any_other() -> None:
    """A listed entry sent back as it is, in ``{"type", "table", "request", "action"}`` (what the
    server reads without decoding it: ``ClientConnection._listed``), is played; the same frame sent
    again, and the same message with its keys in another order (decoded as usual), get the same
    refusal."""
    async with serving() as port:
        a, b, table, _ = await seated_pair(port, game="quinze", options={"players": 2}, seed=77)
        with trio.fail_after(20):
            req, who = None, a
            while req is None:
                for c in (a, b):
                    with trio.move_on_after(0.5):
                        req, who = await c.expect("action-request"), c
                        break
            listed = {"type": "action", "table": table, "request": req["request"], "action": req["legal"][0]}
            await who.send_raw(_frame(listed))
            accepted = await who.expect("accepted")
            assert accepted["request"] == req["request"]
            await who.send_raw(_frame(listed))
            again = await who.expect("refused")
            await who.send_raw(_frame(dict(reversed(list(listed.items())))))
            other = await who.expect("refused")
            assert again == other and again["request"] == req["request"]
            assert again["code"] in ("not-your-turn", "stale-request")
        await a.aclose()
        await b.aclose()


def test_answerable_entries() -> None:
    """The entries a client may send back undecoded (``quinze_server.wire.ANSWERABLE``) are those
    that decode as a frame's map with a text ``type``: every Le Quinze entry; not a map with a
    binary value, a key that is not text, or no text ``type``."""
    from quinze_server.wire import ANSWERABLE, _answerable

    cls = get_game("quinze")
    game = cls.new({"players": 2}, seed=3)
    rng = Rng(3)
    for _ in range(60):
        if game.is_over:
            break
        legal = game.legal_actions()
        for entry in entries(cls, legal):
            assert entry in ANSWERABLE
        game.apply(legal[rng.below(len(legal))])
    assert _answerable(_pack({"type": "raise", "amount": 2.5}))
    assert not _answerable(_pack({"type": "x", "b": b"\x00"}))
    assert not _answerable(_pack({1: "x", "type": "y"}))
    assert not _answerable(_pack({"type": 3}))
    assert not _answerable(_pack(["type", "x"]))
