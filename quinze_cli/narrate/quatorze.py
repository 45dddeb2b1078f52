"""Le 14 in words (RULES.md §3): one function per event kind of :mod:`protocol.games.quatorze`."""

from __future__ import annotations

from typing import Any

from quinze_cli.narrate import cards

SECTIONS = {"setup"}


def setup(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any) -> list[str]:
    lines = [f"Each player gets four packets (5 4 3 2 cards) and takes up the first; "
             f"{e['discard']} is turned up; stock {e['stock']}; {who(e['first'])} plays first."]
    lines += [f"  hand of {who(s)}: {cards(p['hand'])}" for s, p in sorted(priv.items()) if "hand" in p]
    return lines


def draw(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any) -> list[str]:
    s = e["seat"]
    card = e.get("card") or priv.get(s, {}).get("card") or "a card"
    return [f"{who(s)} draws {card} from the {e['from']} (stock {e['stock']})."]


def no_draw(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any) -> list[str]:
    why = "the whole hand can be laid" if e["reason"] == "whole-hand" else "there is nothing to draw"
    return [f"{who(e['seat'])} does not draw: {why}."]


def reshuffle(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any) -> list[str]:
    return [f"The discard pile but {e['discard']} becomes a new stock of {e['stock']} cards."]


def combine(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any) -> list[str]:
    return [f"{who(e['seat'])} lays {cards(e['cards'])} (combination {e['combination']})."]


def substitute(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any) -> list[str]:
    details = ", ".join(f"{k} {cards(v) if isinstance(v, list) else v}" for k, v in e.items() if k != "seat")
    return [f"{who(e['seat'])} substitutes: {details}."]


def discard(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any) -> list[str]:
    return [f"{who(e['seat'])} discards {e['card']}."]


def take_up(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any) -> list[str]:
    s = e["seat"]
    seen = f": {cards(priv[s]['cards'])}" if s in priv and "cards" in priv[s] else ""
    return [f"{who(s)} takes up the next packet of {e['size']} cards ({e['packets_left']} left){seen}."]


def game_end(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any) -> list[str]:
    left = ", ".join(f"{who(s)} {n}" for s, n in enumerate(e["cards_left"]))
    return [f"The game ends ({e['reason']}): {', '.join(who(s) for s in e['winners'])} won; cards left: {left}."]


NARRATORS = {
    "setup": setup,
    "draw": draw,
    "no-draw": no_draw,
    "reshuffle": reshuffle,
    "combine": combine,
    "substitute": substitute,
    "discard": discard,
    "take-up": take_up,
    "game-end": game_end,
}
