"""Le Quinze in words (quinze_cli/rules/quinze.md): one function per event kind of :mod:`quinze_protocol.games.quinze`.

The wording lives in the language catalogues (``quinze.log.*`` in ``quinze_cli/locale/*.json``),
read by ``quinze replay`` and its step-through viewer in the language of ``--lang``
(:func:`narrators`; :data:`NARRATORS` is the English). ``quinze play`` words its own table's
events from ``quinze.ev.*`` (:mod:`quinze_cli.play.render_quinze`): shorter lines, under a board
that already shows the cards. Each function is ``(event, private, who, t) -> lines`` where ``t``
is a :class:`~quinze_cli.i18n.Catalogue` or :class:`~quinze_cli.i18n.YouCatalogue`; told as one
seat saw it (``quinze replay --seat``), that seat's own actions come from the ``.you`` texts
("You draw 7H"), as in ``quinze play``. Cards stay in canonical spelling (``KC``).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from quinze_cli.i18n import Catalogue, YouCatalogue
from quinze_cli.narrate import cards

__all__ = ["NARRATORS", "SECTIONS", "narrators"]

SECTIONS = {"deal"}

Words = Catalogue | YouCatalogue


def deal(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Words) -> list[str]:
    sizes = e["hand_sizes"]
    dealt = (t("quinze.log.dealt-each", n=sizes[0]) if len(set(sizes)) == 1
             else t("quinze.log.dealt-sizes", sizes=", ".join(map(str, sizes))))
    first = t("quinze.log.first", name=who(e["first"]))
    lines = [t("quinze.log.deal", deal=e["deal"], name=who(e["dealer"]), dealt=dealt, first=first, stock=e["stock"])]
    lines += [t("quinze.log.hand", name=who(s), cards=cards(p["hand"])) for s, p in sorted(priv.items()) if "hand" in p]
    return lines


def draw(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Words) -> list[str]:
    s = e["seat"]
    card = priv[s]["card"] if s in priv and "card" in priv[s] else t("quinze.log.a-card")
    return [t("quinze.log.draw", name=who(s), card=card, stock=e["stock"])]


def reshuffle(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Words) -> list[str]:
    return [t.plural("quinze.log.reshuffle", e["stock"], stock=e["stock"])]


def fifteen(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Words) -> list[str]:
    key = "quinze.log.fifteen-table" if e["table"] else "quinze.log.fifteen"
    return [t(key, name=who(e["seat"]), hand=cards(e["hand"]), table=cards(e["table"]))]


def place(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Words) -> list[str]:
    what = t("quinze.log.pair", cards=cards(e["cards"])) if len(e["cards"]) == 2 else cards(e["cards"])
    key = "quinze.log.place-quick" if e.get("quick") else "quinze.log.place"
    return [t(key, name=who(e["seat"]), cards=what)]


def end_turn(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Words) -> list[str]:
    return [t("quinze.log.end-turn", name=who(e["seat"]))]


_DEAL_ENDS = ("out", "first-turn", "blocked", "max-turns")


def deal_end(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Words) -> list[str]:
    reason = e["reason"]
    key = f"quinze.log.deal-end.{reason}" if reason in _DEAL_ENDS else "quinze.log.deal-end"
    head = t(key, deal=e["deal"], name=who(e["seat"]), reason=reason)
    scores = ", ".join(f"{who(i)} {v}" for i, v in enumerate(e["scores"]))
    totals = ", ".join(f"{who(i)} {v}" for i, v in enumerate(e["totals"]))
    lines = [head, t("quinze.log.deal-scores", scores=scores, totals=totals)]
    lines += [t("quinze.log.kept", name=who(i), cards=cards(h)) for i, h in enumerate(e["hands"]) if h]
    return lines


def game_end(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Words) -> list[str]:
    return [t("quinze.log.game-end", winners=", ".join(who(s) for s in e["result"]["winners"]))]


_FUNCTIONS = {
    "deal": deal,
    "draw": draw,
    "reshuffle": reshuffle,
    "fifteen": fifteen,
    "place": place,
    "end-turn": end_turn,
    "deal-end": deal_end,
    "game-end": game_end,
}


def narrators(t: Words) -> dict[str, Any]:
    """Event kind -> ``(event, private, who) -> lines`` worded from the catalogue ``t``."""
    return {kind: partial(fn, t=t) for kind, fn in _FUNCTIONS.items()}


NARRATORS = narrators(Catalogue("en", strict=True))
"""The English narrators of ``quinze replay``."""
