"""Le Quinze classique in words (RULES.md §2): one function per event kind of
:mod:`protocol.games.classique`."""

from __future__ import annotations

from typing import Any

from quinze_cli.narrate import cards

SECTIONS = {"ante"}


def _chips(values: list[Any], who: Any) -> str:
    return ", ".join(f"{who(s)} {v}" for s, v in enumerate(values))


def ceremony(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any) -> list[str]:
    draws = ", ".join(f"{d['card']} to {who(d['seat'])}" for d in e["draws"])
    return [f"Seats drawn: {draws}; {who(e['first_dealer'])} deals first, {who(e['first_to_speak'])} speaks first."]


def deck_change(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any) -> list[str]:
    return [f"{who(e['dealer'])} takes the deal with the {e['deck']} deck, freshly shuffled ({e['reason']})."]


def out(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any) -> list[str]:
    return [f"{who(e['seat'])} cannot ante ({e['chips']} chips) and is out of the match."]


def ante(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any) -> list[str]:
    return [f"Coup {e['coup']}: {len(e['seats'])} players ante {e['amount']}; pot {e['pot']}."]


def deal(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any) -> list[str]:
    lines = [f"{who(e['dealer'])} deals one hidden card each (talon {e['talon']})."]
    lines += [f"  hidden card of {who(s)}: {p['card']}" for s, p in sorted(priv.items()) if "card" in p]
    return lines


def speak(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any) -> list[str]:
    words = {"pass": "passes", "stand": "stands (s'y tient)", "hit": "will draw (demande carte)"}
    return [f"{who(e['seat'])} {words.get(e['say'], e['say'])}."]


def stake(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, verb: str) -> list[str]:
    amount = f" {e['amount']}" if "amount" in e else ""
    return [f"{who(e['seat'])} {verb}{amount}: stake {e['stake']}, pot {e['pot']}."]


def stand(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any) -> list[str]:
    return [f"{who(e['seat'])} stands" + (" (the talon is out)." if e.get("forced") else ".")]


def hit(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any) -> list[str]:
    return [f"{who(e['seat'])} draws {e['card']} face up: {e['face_up_total']} showing (talon {e['talon']})."]


def burnt(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any) -> list[str]:
    return [f"{who(e['seat'])} is burnt with {e['total']} (hidden card {e['hidden']})."]


def showdown(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any) -> list[str]:
    shown = "; ".join(f"{who(h['seat'])} {h['hidden']} + {cards(h['face_up'])} = {h['total']}" for h in e["hands"])
    return [f"Showdown: {shown}."]


def pot_won(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any) -> list[str]:
    how = {"single-opener": "as the only opener", "last-in": "as the last one in", "showdown": "at the showdown"}
    return [f"{who(e['seat'])} wins the pot of {e['amount']} {how.get(e['reason'], e['reason'])}."]


def coup_end(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any) -> list[str]:
    head = "Everybody passed; the pot stays" if e["outcome"] == "all-passed" else f"Coup {e['coup']} ends"
    return [f"{head} (pot {e['pot']}); chips: {_chips(e['chips'], who)}."]


def match_end(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any) -> list[str]:
    shares = ", ".join(f"{who(d['seat'])} {d['amount']}" for d in e["shares"])
    left = f" the pot left is shared: {shares};" if shares else ""
    return [f"The match ends ({e['reason']});{left} chips: {_chips(e['chips'], who)}."]


NARRATORS = {
    "ceremony": ceremony,
    "deck-change": deck_change,
    "out": out,
    "ante": ante,
    "deal": deal,
    "speak": speak,
    "check": lambda e, p, w: stake(e, p, w, "checks"),
    "call": lambda e, p, w: stake(e, p, w, "calls"),
    "raise": lambda e, p, w: stake(e, p, w, "raises"),
    "fold": lambda e, p, w: stake(e, p, w, "folds"),
    "stand": stand,
    "hit": hit,
    "burnt": burnt,
    "showdown": showdown,
    "pot-won": pot_won,
    "coup-end": coup_end,
    "match-end": match_end,
}
