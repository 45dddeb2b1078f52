"""PROTOCOL.md "Shuffles and deals" is exact: an implementation written here from that section
alone (it imports nothing of the reference generator or of the games' shuffles) reproduces the engines'
deals, for many seeds and every player count, in all three games, and their reshuffles."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from quinze_protocol.cards import card_text, parse_card
from quinze_protocol.game import get_bot, get_game

DOC = Path(__file__).resolve().parent.parent / "PROTOCOL.md"
M64 = (1 << 64) - 1


class SplitMix:
    """The generator as PROTOCOL.md describes it."""

    def __init__(self, state: int) -> None:
        self.state = state & M64

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & M64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        limit = (1 << 64) - (1 << 64) % n
        while True:
            x = self.next()
            if x < limit:
                return x % n

    def shuffle(self, items: list) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


def texts(cards) -> list[str]:
    return sorted(card_text(c) for c in cards)


def test_the_section_states_the_constants() -> None:
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## Shuffles and deals"):text.index("## Game actions")]
    for const in ("0x9E3779B97F4A7C15", "0xBF58476D1CE4E5B9", "0x94D049BB133111EB", ">> 30", ">> 27", ">> 31"):
        assert const in section
    for game in ("Le Quinze", "Le 14", "Le Quinze classique"):
        assert f"**{game}**" in section


SEEDS = list(range(0, 40)) + [2**63 + 5, 2**64 - 1, -7, 123456789012345]


@pytest.mark.parametrize("players", range(2, 9))
def test_quinze_deals(players: int) -> None:
    cls = get_game("quinze")
    for seed in SEEDS:
        g = cls.new({"players": players}, seed)
        r = SplitMix(seed)
        dealer = r.below(players)
        cards = list(range(54)) * (1 if players <= 4 else 2)
        r.shuffle(cards)
        hands: list[list[int]] = [[] for _ in range(players)]
        first = (dealer + 1) % players
        for _ in range(9 if players == 2 else 8):
            for k in range(players):
                hands[(first + k) % players].append(cards.pop())
        deal = g.opening_events[0].full()
        assert deal["dealer"] == dealer and deal["first"] == first
        for s in range(players):
            assert sorted(deal["private"][str(s)]["hand"]) == texts(hands[s])
        draw = g.opening_events[1].full()
        top = cards.pop()  # the first turn's draw
        assert draw["private"][str(first)]["card"] == card_text(top)
        pos = g.to_position()
        assert pos["stock"] == [card_text(c) for c in reversed(cards)] and pos["rng"] == r.state


@pytest.mark.parametrize("players", range(2, 5))
def test_quatorze_deals(players: int) -> None:
    cls = get_game("quatorze")
    for seed in SEEDS:
        g = cls.new({"players": players}, seed)
        r = SplitMix(seed)
        cards = list(range(52)) * 2
        r.shuffle(cards)
        packets: list[list[list[int]]] = [[] for _ in range(players)]
        for size in (5, 4, 3, 2):
            for s in range(players):
                packets[s].append(cards[-size:])
                del cards[-size:]
        discard = cards.pop()
        first = r.below(players)
        setup = g.opening_events[0].full()
        assert setup["first"] == first and setup["discard"] == card_text(discard)
        pos = g.to_position()
        for s in range(players):
            assert sorted(setup["private"][str(s)]["hand"]) == texts(packets[s][0])
            assert [sorted(p) for p in pos["packets"][s]] == [texts(p) for p in packets[s][1:]]
        assert pos["stock"] == [card_text(c) for c in reversed(cards)] and pos["rng"] == r.state


@pytest.mark.parametrize("players", range(2, 7))
def test_classique_ceremony_and_first_coup(players: int) -> None:
    cls = get_game("quinze-classique")
    for seed in SEEDS:
        g = cls.new({"players": players}, seed)
        r = SplitMix(seed)
        cer = [12, 11, 10, 9, 8, 7][:players]
        r.shuffle(cer)
        dealer = min(range(players), key=lambda s: cer[s] % 13)
        talon = sorted([c for c in range(52) if c // 13 in (0, 3)] * 2)
        r.shuffle(talon)
        hidden = {}
        for k in range(players):
            s = (dealer + 1 + k) % players
            hidden[s] = talon.pop()
        ev = [e.full() for e in g.opening_events]
        assert ev[0]["draws"] == [{"card": card_text(c), "seat": s} for s, c in enumerate(cer)]
        assert ev[0]["first_dealer"] == dealer
        deal = next(e for e in ev if e["kind"] == "deal")
        assert {int(s): p["card"] for s, p in deal["private"].items()} == {s: card_text(c) for s, c in hidden.items()}
        pos = g.to_position()
        assert pos["talon"] == [card_text(c) for c in talon] and pos["rng"] == r.state


def _play_until(game_id: str, players: int, seed: int, kind: str):
    """Random play until an action's events include ``kind``: (position before it, action, events)."""
    g = get_game(game_id).new({"players": players}, seed)
    bot = get_bot(game_id, "random", seed)
    while not g.is_over:
        before = g.to_position()
        a = bot.choose(g.view(g.to_act), g.legal_actions())
        if a.to_data()["type"] == "raise" and getattr(a, "amount", 0) is None:
            a = a.with_amount(a.min)
        events = [e.full() for e in g.apply(a)]
        if any(e["kind"] == kind for e in events):
            return before, a.to_data(), events, g
    return None


@pytest.mark.parametrize("seed", range(6))
def test_quinze_reshuffle(seed: int) -> None:
    got = _play_until("quinze", 4, seed, "reshuffle")
    assert got is not None
    before, _, events, g = got
    # the reshuffle happens when the next turn starts, after this action moved cards to the pile
    r = SplitMix(before["rng"])
    i = next(k for k, e in enumerate(events) if e["kind"] == "reshuffle")
    pile = [c for e in events[:i] if e["kind"] == "fifteen" for c in e["hand"] + e["table"]]
    stock = [parse_card(t) for t in before["discard"] + pile]
    r.shuffle(stock)
    assert events[i] == {"kind": "reshuffle", "stock": len(stock)}
    drawn = events[i + 1]["private"]
    assert list(drawn.values())[0]["card"] == card_text(stock.pop())
    assert g.to_position()["rng"] == r.state
    assert g.to_position()["stock"] == [card_text(c) for c in reversed(stock)]


@pytest.mark.parametrize("seed", range(12))
def test_quatorze_reshuffle_at_the_draw(seed: int) -> None:
    # a real position with its whole stock moved onto the discard pile: the next stock draw
    # shuffles the pile but its top card (PROTOCOL.md; Le 14 rules version 2)
    cls = get_game("quatorze")
    pos = cls.new({"players": 2 + seed % 3}, seed).to_position()
    if pos["phase"] != "draw":
        pytest.skip("the first player must lay the whole hand")
    pos["discard"] = pos["discard"] + list(reversed(pos["stock"]))
    pos["stock"] = []
    g = cls.from_position(pos)
    events = [e.full() for e in g.apply({"type": "draw", "from": "stock"})]
    r = SplitMix(pos["rng"])
    pile = [parse_card(t) for t in pos["discard"]]
    top = pile.pop()
    r.shuffle(pile)
    assert events[0] == {"kind": "reshuffle", "stock": len(pile), "discard": card_text(top)}
    card = pile.pop()
    assert events[1]["private"][str(pos["to_act"])]["card"] == card_text(card)
    after = g.to_position()
    assert after["rng"] == r.state and after["stock"] == [card_text(c) for c in reversed(pile)]
    assert after["discard"] == [card_text(top)]


def test_no_import_of_the_reference_implementation() -> None:
    tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not {"quinze_protocol.rng", "quinze_protocol.games.quinze_shuffle"} & imported
