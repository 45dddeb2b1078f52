"""Le Quinze classique in words (quinze_cli/rules/quinze-classique.md): one function per event kind of
:mod:`quinze_protocol.games.classique`.

The wording lives in the language catalogues (``classique.ev.*`` in ``quinze_cli/locale/*.json``),
shared by ``quinze replay`` (English, :data:`NARRATORS`) and ``quinze play`` (the player's
language, :func:`narrators`). Each function is ``(event, private, who, t) -> lines`` where ``t``
is a :class:`~quinze_cli.i18n.Catalogue`; cards stay in canonical spelling (``KC``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from quinze_cli.narrate import cards
from quinze_cli.i18n import Catalogue

__all__ = ["NARRATORS", "SECTIONS", "narrators"]

SECTIONS = {"ante"}

_REASONS = {
    "deck-change": ("first", "played", "talon-short", "dealer-out"),
    "pot-won": ("single-opener", "last-in", "showdown"),
    "match-end": ("tours", "last-player", "max-coups"),
}
"""Reason codes worded in the catalogues (``classique.ev.<kind>.<reason>``); others are shown as sent."""


def _reason(t: Catalogue, kind: str, reason: Any) -> str:
    return t(f"classique.ev.{kind}.{reason}") if reason in _REASONS[kind] else str(reason)


def _chips(values: list[Any], who: Any) -> str:
    return ", ".join(f"{who(s)} {v}" for s, v in enumerate(values))


def ceremony(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Catalogue) -> list[str]:
    draws = ", ".join(t("classique.ev.ceremony-draw", card=d["card"], name=who(d["seat"])) for d in e["draws"])
    return [t("classique.ev.ceremony", draws=draws, dealer=who(e["first_dealer"]), speaker=who(e["first_to_speak"]))]


def deck_change(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Catalogue) -> list[str]:
    deck = t(f"classique.deck.{e['deck']}") if e["deck"] in ("black", "red") else str(e["deck"])
    return [t("classique.ev.deck-change", name=who(e["dealer"]), deck=deck, reason=_reason(t, "deck-change", e["reason"]))]


def out(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Catalogue) -> list[str]:
    return [t.plural("classique.ev.out", e["chips"], name=who(e["seat"]), chips=e["chips"])]


def ante(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Catalogue) -> list[str]:
    return [t("classique.ev.ante", coup=e["coup"], n=len(e["seats"]), amount=e["amount"], pot=e["pot"])]


def deal(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Catalogue) -> list[str]:
    lines = [t("classique.ev.deal", name=who(e["dealer"]), talon=e["talon"])]
    lines += [t("classique.ev.hidden", name=who(s), card=p["card"]) for s, p in sorted(priv.items()) if "card" in p]
    return lines


def speak(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Catalogue) -> list[str]:
    say = e["say"]
    if say in ("pass", "stand", "hit"):
        return [t(f"classique.ev.speak.{say}", name=who(e["seat"]))]
    return [t("classique.ev.speak", name=who(e["seat"]), say=say)]


def stake(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Catalogue, verb: str) -> list[str]:
    """``check``, ``fold``, ``call`` (``amount``: chips paid) and ``raise`` (``amount``: chips on top
    of the highest stake): the new stake and pot."""
    fields = {"name": who(e["seat"]), "stake": e["stake"], "pot": e["pot"]}
    if verb in ("call", "raise") and "amount" in e:
        return [t(f"classique.ev.{verb}-amount", amount=e["amount"], **fields)]
    return [t(f"classique.ev.{verb}", **fields)]


def stand(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Catalogue) -> list[str]:
    return [t("classique.ev.stand-forced" if e.get("forced") else "classique.ev.stand", name=who(e["seat"]))]


def hit(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Catalogue) -> list[str]:
    return [t("classique.ev.hit", name=who(e["seat"]), card=e["card"], total=e["face_up_total"], talon=e["talon"])]


def burnt(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Catalogue) -> list[str]:
    return [t("classique.ev.burnt", name=who(e["seat"]), total=e["total"], hidden=e["hidden"])]


def showdown(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Catalogue) -> list[str]:
    def hand(h: dict[str, Any]) -> str:
        fields = {"name": who(h["seat"]), "hidden": h["hidden"], "total": h["total"]}
        if not h["face_up"]:
            return t("classique.ev.showdown-hand-alone", **fields)
        return t("classique.ev.showdown-hand", face_up=cards(h["face_up"]), **fields)

    return [t("classique.ev.showdown", hands=t("classique.ev.showdown-sep").join(hand(h) for h in e["hands"]))]


def pot_won(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Catalogue) -> list[str]:
    fields = {"name": who(e["seat"]), "amount": e["amount"]}
    if e["reason"] in _REASONS["pot-won"]:
        return [t(f"classique.ev.pot-won.{e['reason']}", **fields)]
    return [t("classique.ev.pot-won", reason=e["reason"], **fields)]


def coup_end(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Catalogue) -> list[str]:
    key = "classique.ev.coup-end.all-passed" if e["outcome"] == "all-passed" else "classique.ev.coup-end"
    return [t(key, coup=e["coup"], pot=e["pot"], chips=_chips(e["chips"], who))]


def match_end(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Catalogue) -> list[str]:
    shares = ", ".join(f"{who(d['seat'])} {d['amount']}" for d in e["shares"])
    fields = {"reason": _reason(t, "match-end", e["reason"]), "chips": _chips(e["chips"], who)}
    if shares:
        return [t("classique.ev.match-end-shared", shares=shares, **fields)]
    return [t("classique.ev.match-end", **fields)]


def game_end(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Catalogue) -> list[str]:
    res = e["result"]
    winners = ", ".join(who(s) for s in res["winners"])
    return [t("classique.ev.game-end", winners=winners, scores=_chips(res["scores"], who))]


_FUNCTIONS: dict[str, Callable[..., list[str]]] = {
    "ceremony": ceremony,
    "deck-change": deck_change,
    "out": out,
    "ante": ante,
    "deal": deal,
    "speak": speak,
    "check": partial(stake, verb="check"),
    "call": partial(stake, verb="call"),
    "raise": partial(stake, verb="raise"),
    "fold": partial(stake, verb="fold"),
    "stand": stand,
    "hit": hit,
    "burnt": burnt,
    "showdown": showdown,
    "pot-won": pot_won,
    "coup-end": coup_end,
    "match-end": match_end,
    "game-end": game_end,
}


def narrators(t: Catalogue) -> dict[str, Any]:
    """Event kind -> ``(event, private, who) -> lines`` worded from the catalogue ``t``."""
    return {kind: partial(fn, t=t) for kind, fn in _FUNCTIONS.items()}


NARRATORS = narrators(Catalogue("en", strict=True))
"""The English narrators of ``quinze replay``."""
