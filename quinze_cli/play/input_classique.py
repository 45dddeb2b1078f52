"""Typed actions of Le Quinze classique in ``quinze play`` (quinze_cli/rules/quinze-classique.md "A coup").

What a player may type (besides a number from the list, handled by the generic prompt), in
English or French:

* ``pass`` (``passe``), ``stand`` (``m'y tiens``, ``je m'y tiens``), ``hit`` (``carte``, ``card``, ``tirer``),
  ``check`` (``parole``), ``call`` (``tiens``, ``je tiens``, ``tenir``, ``suivre``), ``fold``
  (``coucher``, ``je me couche``); the French words are those of the rules text
  (quinze_cli/rules/fr/quinze-classique.md "Un coup": « je m'y tiens », « je tiens », « parole »).
  ``stand`` and ``call`` are never legal together, so ``tiens`` alone (the same verb) is
  whichever of the two is legal now;
* ``raise 5`` (``relancer 5``, ``renvi 5``): raise by 5 chips on top of the highest stake,
  checked against the legal range ``min..max`` of the request (quinze_cli/rules/quinze-classique.md step 3 [decision]);
  ``raise`` alone and ``raise min`` take the bottom of the range, ``raise max`` its top, which
  is asked for a yes first (:func:`confirm`; the amount typed, ``raise 99``, is not asked).

Nothing is sent unless it is legal now; otherwise :class:`InputError` explains why (the range
when the amount is out of it or not a whole number), in the user's language, quoting what was
typed whole (``'raise 1e2'``, ``'foo12'``), never a part of it.
"""

from __future__ import annotations

import re
from typing import Any

from quinze_cli.i18n import Catalogue
from quinze_cli.play.registry import InputError, TableState

__all__ = ["WORDS", "completions", "confirm", "parse"]

WORDS = {
    "pass": "pass", "passe": "pass", "passer": "pass", "je passe": "pass",
    "stand": "stand", "je m'y tiens": "stand", "m'y tiens": "stand", "s'y tenir": "stand", "reste": "stand",
    "stay": "stand",
    "hit": "hit", "carte": "hit", "tirer": "hit", "demande": "hit", "draw": "hit", "card": "hit",
    "check": "check", "parole": "check",
    "call": "call", "tiens": "call", "je tiens": "call", "tenir": "call", "suivre": "call", "tenu": "call",
    "fold": "fold", "coucher": "fold", "se coucher": "fold", "abandon": "fold", "je me couche": "fold",
    "raise": "raise", "relance": "raise", "relancer": "raise", "renvi": "raise", "renvier": "raise", "r": "raise",
}
"""Typed words (lower case) -> action type (``tiens``: see :data:`EITHER`)."""

EITHER = {"tiens": ("call", "stand"), "je tiens": ("call", "stand")}
"""Words read as the first of these action types that is legal now (the rules' « je tiens » is a
call, but a player who says « tiens » in the speaking round or the drawing turn means to stand:
the two are never legal at the same time)."""


def _range(state: TableState) -> tuple[int, int] | None:
    rr = state.public.get("raise")
    if rr and len(rr) == 2 and all(isinstance(x, int) for x in rr):
        return rr[0], rr[1]
    for a in state.legal:
        if a.get("type") == "raise" and "min" in a:
            return a["min"], a["max"]
    return None


def _allowed(cat: Catalogue, state: TableState) -> str:
    kinds = list(dict.fromkeys(a.get("type", "?") for a in state.legal))
    return ", ".join(cat(f"classique.word.{k}") if cat.has(f"classique.word.{k}") else k for k in kinds)


_AMOUNT = re.compile(r"[+-]?\d+|min|max")
"""An amount as typed after ``raise``: a whole number of chips (``5``, ``+5``; a sign is read so
that ``raise -1`` is told it is out of range), or ``min``/``max``."""


def _word_and_amount(raw: str) -> tuple[str, str | None, str | None]:
    """``raw`` (lower case, single spaces) read as ``(word, amount, rest)``: a known word alone
    (``"pass"``), a known word and an amount (``"raise 5"``, ``"raise5"``, ``"r max"``; ``word`` is
    empty for an amount alone, ``"5"``), or a known word and something after it that is not an
    amount (``"raise 1e2"``: ``("raise", None, "1e2")``); ``("", None, raw)`` when ``raw`` starts
    with no known word."""
    if raw in WORDS:
        return raw, None, None
    m = re.fullmatch(r"(.*?)\s*(" + _AMOUNT.pattern + ")", raw)
    if m and (not m.group(1) or m.group(1) in WORDS):
        return m.group(1), m.group(2), None
    for word in sorted(WORDS, key=len, reverse=True):  # the longest word that ends where a word can end
        rest = raw[len(word):]
        if raw.startswith(word) and rest and not rest[0].isalpha() and rest[0] != "'":
            return word, None, rest.strip()
    return "", None, raw


def parse(cat: Catalogue, state: TableState, text: str) -> dict[str, Any]:
    """The typed ``text`` as legal action data (see the module docstring). Raises InputError,
    whose text quotes ``text`` whole (stripped) when it is not read as an action."""
    typed = text.strip()
    raw = re.sub(r"\s+", " ", typed.lower())
    if not raw:
        raise InputError(cat("input.empty"))
    word, amount, rest = _word_and_amount(raw)
    if not word and amount is not None:
        raise InputError(cat("input.bad-number-one" if len(state.legal) == 1 else "input.bad-number", n=len(state.legal)))
    kind = WORDS.get(word)
    if kind is None or (rest is not None and kind != "raise"):
        raise InputError(cat("classique.err.unknown", word=typed, allowed=_allowed(cat, state)))
    if kind != "raise":
        if amount is not None:
            raise InputError(cat("classique.err.no-amount", word=word))
        for either in EITHER.get(word, ()):
            if any(a.get("type") == either for a in state.legal):
                kind = either
                break
        for a in state.legal:
            if a.get("type") == kind:
                return {"type": kind}
        raise InputError(cat("classique.err.not-now", word=word, allowed=_allowed(cat, state)))
    rr = _range(state)
    if rr is None:
        raise InputError(cat("classique.err.no-raise", allowed=_allowed(cat, state)))
    lo, hi = rr
    if rest is not None:  # "raise 1e2", "raise 99.5", "raise 1 2", "raise ten"
        raise InputError(cat("classique.err.bad-amount", typed=typed, lo=lo, hi=hi))
    if amount is None or amount == "min":
        n = lo
    elif amount == "max":
        n = hi
    else:
        try:
            n = int(amount)
        except ValueError:  # more digits than int() reads (4300): far out of range
            raise InputError(cat("classique.err.bad-amount", typed=typed, lo=lo, hi=hi)) from None
    if not lo <= n <= hi:
        raise InputError(cat("classique.err.raise-range", n=n, lo=lo, hi=hi))
    return {"type": "raise", "amount": n}


def confirm(cat: Catalogue, state: TableState, action: dict[str, Any], text: str) -> str | None:
    """The yes/no question to ask before sending ``action``, picked by number or typed as
    ``text``, or None: a raise to the top of the range (``raise max``, or the listed top) is
    asked first, as it may put every chip in at once; an amount typed in figures is not."""
    if action.get("type") != "raise" or re.search(r"\d", text.replace(" ", "")) and not text.strip().isdecimal():
        return None
    rr = _range(state)
    if rr is None or action.get("amount") != rr[1] or rr[1] == rr[0]:
        return None
    return cat("classique.confirm-max", n=rr[1])


def completions(cat: Catalogue, state: TableState) -> list[str]:
    """The action words of the language."""
    if cat.lang == "fr":
        return ["passe", "m'y", "tiens", "carte", "parole", "coucher", "relancer"]
    return ["pass", "stand", "hit", "check", "call", "fold", "raise"]
