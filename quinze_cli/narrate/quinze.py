"""Le Quinze in words (quinze_cli/rules/quinze.md): one function per event kind of :mod:`quinze_protocol.games.quinze`.

Told as one seat saw it (``quinze replay --seat``), that seat's own actions are in the second
person ("You draw 7H"), as in ``quinze play`` (:func:`_does`).
"""

from __future__ import annotations

from typing import Any

from quinze_cli.narrate import cards

SECTIONS = {"deal"}


def _mine(who: Any, seat: Any) -> bool:
    is_viewer = getattr(who, "is_viewer", None)
    return bool(is_viewer(seat)) if is_viewer is not None else False


def _does(who: Any, seat: Any, third: str, second: str, you: str = "You") -> str:
    """``"bob draws"`` or, for the viewer's seat, ``"You draw"`` (``you``: ``"you"`` inside a
    sentence): the subject and the verb phrase (``third`` / ``second`` person)."""
    return f"{you} {second}" if _mine(who, seat) else f"{who(seat)} {third}"


def deal(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any) -> list[str]:
    sizes = e["hand_sizes"]
    dealt = f"{sizes[0]} cards each" if len(set(sizes)) == 1 else "hands of " + ", ".join(map(str, sizes))
    first = "you play first" if _mine(who, e["first"]) else f"{who(e['first'])} plays first"
    lines = [f"Deal {e['deal']}: {_does(who, e['dealer'], 'deals', 'deal', 'you')} {dealt}; {first}; stock {e['stock']}."]
    lines += [f"  hand of {who(s)}: {cards(p['hand'])}" for s, p in sorted(priv.items()) if "hand" in p]
    return lines


def draw(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any) -> list[str]:
    s = e["seat"]
    what = priv[s]["card"] if s in priv and "card" in priv[s] else "a card"
    return [f"{_does(who, s, 'draws', 'draw')} {what} (stock {e['stock']})."]


def reshuffle(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any) -> list[str]:
    return [f"The discard pile is shuffled into a new stock of {e['stock']} cards."]


def fifteen(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any) -> list[str]:
    table = f" with {cards(e['table'])} from the table" if e["table"] else ""
    return [f"{_does(who, e['seat'], 'makes', 'make')} fifteen: {cards(e['hand'])} from hand{table}."]


def place(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any) -> list[str]:
    what = f"the pair {cards(e['cards'])}" if len(e["cards"]) == 2 else cards(e["cards"])
    quick = " (quick placement)" if e.get("quick") else ""
    return [f"{_does(who, e['seat'], 'places', 'place')} {what} on the table{quick}."]


def end_turn(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any) -> list[str]:
    return [f"{_does(who, e['seat'], 'ends the turn', 'end your turn')}."]


def deal_end(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any) -> list[str]:
    n, s, reason = e["deal"], e["seat"], e["reason"]
    head = {
        "out": f"{_does(who, s, 'goes out and wins', 'go out and win')} deal {n}.",
        "first-turn": ("You go out on your first turn: -50 for you, 0 for the others." if _mine(who, s) else
                       f"{who(s)} goes out on their first turn: -50 for them, 0 for the others."),
        "blocked": f"Deal {n} is blocked: the stock and the discard pile are empty.",
        "max-turns": f"Deal {n} reaches the turn limit and ends as blocked.",
    }.get(reason, f"Deal {n} ends ({reason}).")
    scores = ", ".join(f"{who(i)} {v}" for i, v in enumerate(e["scores"]))
    totals = ", ".join(f"{who(i)} {v}" for i, v in enumerate(e["totals"]))
    lines = [head, f"  scores: {scores}; totals: {totals}"]
    lines += [f"  {who(i)} kept {cards(h)}" for i, h in enumerate(e["hands"]) if h]
    return lines


def game_end(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any) -> list[str]:
    winners = [who(s) for s in e["result"]["winners"]]
    return [f"A total reached the target: the match is over; lowest total: {', '.join(winners)}."]


NARRATORS = {
    "deal": deal,
    "draw": draw,
    "reshuffle": reshuffle,
    "fifteen": fifteen,
    "place": place,
    "end-turn": end_turn,
    "deal-end": deal_end,
    "game-end": game_end,
}
