"""Helpers for the Le Quinze tests: build positions by hand, a brute-force fifteen finder."""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

from quinze_protocol.cards import card_text, parse_cards
from quinze_protocol.game import get_game
from quinze_protocol.games.quinze_legal import CARD_RANK, is_fifteen

Quinze = get_game("quinze")


def position(hands: list[str], table: str = "", discard: str = "", stock: str | None = None, *,
             to_act: int = 0, dealer: int | None = None, options: dict[str, Any] | None = None,
             turn: dict[str, Any] | None = None, seat_turns: list[int] | None = None,
             totals: list[int] | None = None, turns: int = 5, phase: str | None = None) -> dict[str, Any]:
    """Position data: ``hands`` as card strings per seat; every card not named goes to the stock
    (in card order) unless ``stock`` is given."""
    n = len(hands)
    opts = {"players": n, **(options or {})}
    decks = 1 if n <= 4 else 2
    named = [t for h in hands for t in h.split()] + table.split() + discard.split()
    if stock is None:
        left = Counter({card_text(c): decks for c in range(54)})
        left.subtract(card_text(c) for c in parse_cards(named))
        stock_list = [t for t in (card_text(c) for c in range(54)) for _ in range(left[t])]
    else:
        stock_list = stock.split()
    data: dict[str, Any] = {
        "game": "quinze", "format": 1, "options": opts, "rng": 12345, "deal": 2,
        "dealer": (to_act - 1) % n if dealer is None else dealer, "to_act": to_act,
        "turn": turn or {"fifteens": 0, "used_table": False}, "turns": turns,
        "seat_turns": seat_turns or [3] * n,
        "hands": [h.split() for h in hands], "table": table.split(), "discard": discard.split(),
        "stock": stock_list, "totals": totals or [0] * n,
    }
    if phase is not None:
        data["phase"] = phase
    return data


def load(*args: Any, **kwargs: Any) -> Any:
    return Quinze.from_position(position(*args, **kwargs))


def signature(hand_cards: Any, table_cards: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A fifteen up to exchanging equal-ranked cards in the same place."""
    return tuple(sorted(CARD_RANK[c] for c in hand_cards)), tuple(sorted(CARD_RANK[c] for c in table_cards))


def brute_fifteens(hand: list[int], table: list[int]) -> set[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every fifteen by trying every subset of cards (small positions only)."""
    out = set()
    for i in range(1, len(hand) + 1):
        for hs in itertools.combinations(hand, i):
            for j in range(len(table) + 1):
                for ts in itertools.combinations(table, j):
                    if is_fifteen(hs, ts):
                        out.add(signature(hs, ts))
    return out
