"""Two-seat Elo: the difference of one bot over another from its score, with an interval that is
finite for any finite sample.

**Units.** The estimate is made over *units*: a unit is one game (its score is the bot's points
in that game, 0..1), or, in a duplicate match, one *deal group*: the games that replay the same
deal with the seats rotated (two for two bots), scored by the bot's mean points over the group.
A duplicate group's score varies much less than a single game's (the luck of the deal is shared),
so its variance, the *pentanomial* one for a pair of games (outcomes LL, LD, DD/WL, WD, WW), is the
right one for the interval and a tighter one.

**Prior.** To every sample two pseudo-units are added, one scored 1 and one scored 0 (a weak prior
centred on equal strength, worth two units). The score ``p`` of the sample so completed is always
strictly between 0 and 1, so the difference ``-400 log10(1/p - 1)`` is finite, and so is its
interval: ``difference ± z·s·400 / (ln 10 · p (1 - p))`` (the delta method: ``s`` is the standard
error of ``p``, the units' standard deviation over ``sqrt(units)``). 200 wins of 200 give
``+921.3 (95%: +579.1 .. +1263.5)``, not infinity; with many units the prior's weight vanishes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["Z95", "elo_estimate", "elo_to_score", "pentanomial", "score_to_elo"]

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the normal law."""

_PRIOR = (0.0, 1.0)


def score_to_elo(p: float) -> float:
    """Elo difference for an expected score ``p`` (0 < p < 1): ``-400 log10(1/p - 1)``.
    Raises ``ValueError`` outside that range."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"a score of {p} has no finite Elo difference")
    return -400.0 * math.log10(1.0 / p - 1.0)


def elo_to_score(elo: float) -> float:
    """The expected score (0..1) of a bot ``elo`` points stronger than its opponent."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def _mean_var(values: Sequence[float]) -> tuple[float, float]:
    """Mean and sample variance, each an exactly rounded sum (:func:`math.fsum`): the same
    numbers in any order give the same result, bit for bit (a resumed match sums its games in
    another order than an uninterrupted one)."""
    n = len(values)
    mean = math.fsum(values) / n
    var = math.fsum((x - mean) ** 2 for x in values) / (n - 1) if n > 1 else 0.0
    return mean, var


def elo_estimate(units: Iterable[float], *, unit: str = "game", z: float = Z95) -> dict[str, Any]:
    """The Elo difference of a bot over its opponent from its score in each unit (0..1 each:
    a game's points, or a deal group's mean points; see the module docstring).

    Returns ``{"unit", "units", "score", "difference", "low", "high", "stderr"}``: ``score``
    the raw mean of the units (no prior; None without units); ``difference`` and its interval
    ``low .. high`` (``z`` standard errors, 95% by default) in Elo points, always finite, from the
    sample with the prior's two pseudo-units; ``stderr`` of the difference. All None without
    units. Raises ``ValueError`` for a unit score outside 0..1.
    """
    values = [float(x) for x in units]
    for x in values:
        if not -1e-9 <= x <= 1.0 + 1e-9:
            raise ValueError(f"a unit score must be in 0..1, got {x}")
    n = len(values)
    if n == 0:
        return {"unit": unit, "units": 0, "score": None, "difference": None, "low": None, "high": None, "stderr": None}
    raw = math.fsum(values) / n
    p, var = _mean_var(values + list(_PRIOR))
    se_p = math.sqrt(var / (n + len(_PRIOR)))
    d = score_to_elo(p)
    se = se_p * 400.0 / (math.log(10.0) * p * (1.0 - p))
    return {
        "unit": unit,
        "units": n,
        "score": round(raw, 6),
        "difference": _round(d),
        "low": _round(d - z * se),
        "high": _round(d + z * se),
        "stderr": _round(se),
    }


def pentanomial(pair_scores: Iterable[float]) -> list[int] | None:
    """Counts of duplicate pairs by total points over the pair's two games: ``[LL, LD, DD+WL,
    WD, WW]`` (pair mean 0, 1/4, 1/2, 3/4, 1), or None when some pair's mean is not one of
    those (shared points of a tie between more than two seats)."""
    counts = [0] * 5
    for s in pair_scores:
        k = round(s * 4)
        if abs(s * 4 - k) > 1e-9 or not 0 <= k <= 4:
            return None
        counts[k] += 1
    return counts


def _round(x: float) -> float:
    return round(x, 1) + 0.0  # + 0.0: no "-0.0"
