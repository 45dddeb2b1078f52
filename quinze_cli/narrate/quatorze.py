"""Le 14 in words (quinze_cli/rules/quatorze.md): one function per event kind of :mod:`quinze_protocol.games.quatorze`.

The wording lives in the language catalogues (``quatorze.ev.*`` in ``quinze_cli/locale/*.json``),
shared by ``quinze replay`` (English, :data:`NARRATORS`) and ``quinze play`` (the player's
language, :func:`narrators`). Each function is ``(event, private, who, t) -> lines`` where ``t``
is a :class:`~quinze_cli.i18n.Catalogue`; cards stay in canonical spelling (``KC``).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from quinze_cli.narrate import cards
from quinze_cli.i18n import Catalogue

__all__ = ["NARRATORS", "SECTIONS", "narrators"]

SECTIONS = {"setup"}


def _cards(t: Catalogue, texts: Any) -> str:
    return cards(texts) if texts else t("quatorze.ev.nothing")


def setup(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Catalogue) -> list[str]:
    lines = [t("quatorze.ev.setup", discard=e["discard"], stock=e["stock"], first=who(e["first"]))]
    lines += [t("quatorze.ev.hand", name=who(s), cards=_cards(t, p["hand"])) for s, p in sorted(priv.items()) if "hand" in p]
    return lines


def draw(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Catalogue) -> list[str]:
    s = e["seat"]
    card = e.get("card") or priv.get(s, {}).get("card") or t("quatorze.ev.a-card")
    where = "discard" if e["from"] == "discard" else "stock"
    return [t(f"quatorze.ev.draw-{where}", name=who(s), card=card, stock=e["stock"])]


def no_draw(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Catalogue) -> list[str]:
    why = "whole-hand" if e["reason"] == "whole-hand" else "nothing-to-draw"
    return [t(f"quatorze.ev.no-draw.{why}", name=who(e["seat"]))]


def reshuffle(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Catalogue) -> list[str]:
    return [t.plural("quatorze.ev.reshuffle", e["stock"], discard=e["discard"], stock=e["stock"])]


def combine(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Catalogue) -> list[str]:
    return [t("quatorze.ev.combine", name=who(e["seat"]), cards=_cards(t, e["cards"]), combination=e["combination"])]


SUBSTITUTIONS = {
    "hand-for-two": ("hand", "cards", "combination"),
    "two-for-one": ("hand", "card", "combination"),
    "between": ("cards", "combination", "card", "other"),
}
"""The fields of each kind of substitution (quinze_cli/rules/quatorze.md "Substitutions"): a hand
card for two cards of a combination, two hand cards for one, or two cards of one combination for
one card of another."""


def substitute(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Catalogue) -> list[str]:
    """A substitution as a sentence, one per kind (``quatorze.ev.substitute.KIND``: ``Ana swaps 9S
    from their hand for 3C 6C of combination 0.``). An event of another shape (a kind this version
    does not know, a field missing) is told field by field rather than lost."""
    kind = e.get("substitution")
    need = SUBSTITUTIONS.get(kind) if isinstance(kind, str) else None
    if need is not None and all(k in e for k in need):
        return [t(f"quatorze.ev.substitute.{kind}", name=who(e["seat"]),
                  **{k: cards(e[k]) if k in ("hand", "cards", "card") else e[k] for k in need})]
    details = ", ".join(f"{k} {cards(v) if isinstance(v, list) else v}" for k, v in e.items() if k != "seat")
    return [t("quatorze.ev.substitute-data", name=who(e["seat"]), details=details)]


def discard(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Catalogue) -> list[str]:
    return [t("quatorze.ev.discard", name=who(e["seat"]), card=e["card"])]


def take_up(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Catalogue) -> list[str]:
    s = e["seat"]
    fields = {"name": who(s), "size": e["size"], "left": e["packets_left"]}
    if s in priv and "cards" in priv[s]:
        return [t("quatorze.ev.take-up-seen", cards=_cards(t, priv[s]["cards"]), **fields)]
    return [t("quatorze.ev.take-up", **fields)]


def game_end(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Catalogue) -> list[str]:
    left = ", ".join(f"{who(s)} {n}" for s, n in enumerate(e["cards_left"]))
    reason = e["reason"]
    key = f"quatorze.ev.reason.{reason}"
    why = t(key) if key in ("quatorze.ev.reason.out", "quatorze.ev.reason.max-turns") else str(reason)
    winners = ", ".join(who(s) for s in e["winners"])
    return [t("quatorze.ev.game-end", reason=why, winners=winners, left=left)]


_FUNCTIONS = {
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


def narrators(t: Catalogue) -> dict[str, Any]:
    """Event kind -> ``(event, private, who) -> lines`` worded from the catalogue ``t``."""
    return {kind: partial(fn, t=t) for kind, fn in _FUNCTIONS.items()}


NARRATORS = narrators(Catalogue("en", strict=True))
"""The English narrators of ``quinze replay``."""
