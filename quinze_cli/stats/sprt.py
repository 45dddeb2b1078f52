"""The sequential probability ratio test of ``quinze match --sprt``: play until the games say,
with the error rates asked for, whether one bot is ``elo0`` or ``elo1`` Elo stronger than the other.

**Model.** The generalised SPRT of the chess testing frameworks: the units (games, or duplicate
pairs: see :mod:`quinze_cli.stats.elo`) are drawn from an unknown discrete distribution over
their possible scores: the *trinomial* one (loss 0, draw 1/2, win 1) for single games, the
*pentanomial* one (pair mean 0, 1/4, 1/2, 3/4, 1) for duplicate pairs; a score not on that grid (a
tie shared by three seats) is one more point of the support. For each hypothesis ``H_i`` (the
expected score is ``s_i``, the score of ``elo_i`` logistic Elo) the maximum likelihood
distribution with that expectation is found (it solves the secular equation
``sum_k p̂_k (a_k - s) / (1 + θ (a_k - s)) = 0`` for ``θ``, then ``p_k = p̂_k / (1 + θ (a_k - s))``);
the log-likelihood ratio is ``LLR = N · sum_k p̂_k log(p1_k / p0_k)`` over the ``N`` units with
empirical frequencies ``p̂``. Outcomes never seen count as 0.001 of a unit (the same
regularisation as the reference implementations), so the LLR is finite from the first unit.

**Bounds.** Wald's: the test accepts H1 once ``LLR >= log((1 - beta) / alpha)`` and H0 once
``LLR <= log(beta / (1 - alpha))``; ``alpha`` is the false positive rate (H1 accepted although
H0 holds), ``beta`` the false negative rate.

The numbers agree with fastchess's and fishtest's logistic GSPRT to the reported precision
(reference figures in ``tests/test_stats.py``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from quinze_cli.stats.elo import elo_to_score

__all__ = ["SprtSpec", "SprtState", "llr", "parse_sprt"]

REGULARISE = 1e-3
"""The weight given to an outcome never seen (as fishtest's and fastchess's ``regularize``)."""


@dataclass(frozen=True)
class SprtSpec:
    """``elo0 < elo1`` in logistic Elo; ``alpha``, ``beta`` the error rates (each in 0..1,
    ``alpha + beta < 1``)."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    @property
    def lower(self) -> float:
        """H0 is accepted at or below this LLR: ``log(beta / (1 - alpha))``."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """H1 is accepted at or above this LLR: ``log((1 - beta) / alpha)``."""
        return math.log((1.0 - self.beta) / self.alpha)

    def to_data(self) -> dict[str, float]:
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta}

    def text(self) -> str:
        """``"elo0=0,elo1=5,alpha=0.05,beta=0.05"``: the form :func:`parse_sprt` reads."""
        return f"elo0={self.elo0:g},elo1={self.elo1:g},alpha={self.alpha:g},beta={self.beta:g}"


def parse_sprt(text: str) -> SprtSpec:
    """``"elo0=0,elo1=5[,alpha=0.05,beta=0.05]"`` as a :class:`SprtSpec`. Raises ``ValueError``
    naming the part that is wrong (unknown key, not a number, missing elo0/elo1, elo0 >= elo1,
    alpha or beta outside 0..1, alpha + beta >= 1)."""
    values: dict[str, float] = {}
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep:
            raise ValueError(f"{part!r} is not KEY=VALUE (keys: elo0, elo1, alpha, beta)")
        if key not in ("elo0", "elo1", "alpha", "beta"):
            raise ValueError(f"unknown key {key!r} (keys: elo0, elo1, alpha, beta)")
        try:
            number = float(value)
        except ValueError:
            raise ValueError(f"{key}={value.strip()!r} is not a number") from None
        if not math.isfinite(number):
            raise ValueError(f"{key} must be finite, got {value.strip()}")
        values[key] = number
    for key in ("elo0", "elo1"):
        if key not in values:
            raise ValueError(f"{key} is missing (e.g. elo0=0,elo1=5)")
    spec = SprtSpec(values["elo0"], values["elo1"], values.get("alpha", 0.05), values.get("beta", 0.05))
    if spec.elo0 >= spec.elo1:
        raise ValueError(f"elo0 ({spec.elo0:g}) must be less than elo1 ({spec.elo1:g})")
    for key in ("alpha", "beta"):
        if not 0.0 < getattr(spec, key) < 1.0:
            raise ValueError(f"{key} must be between 0 and 1 (exclusive), got {getattr(spec, key):g}")
    if spec.alpha + spec.beta >= 1.0:
        raise ValueError(f"alpha + beta must be less than 1, got {spec.alpha + spec.beta:g}")
    return spec


def _mle(support: list[float], freq: list[float], s: float) -> list[float]:
    """The distribution over ``support`` closest (maximum likelihood) to the empirical ``freq``
    with expectation ``s``: the root ``θ`` of the secular equation, found by bisection (the
    function falls monotonically from +inf to -inf on its interval)."""
    shifted = [a - s for a in support]
    lo, hi = -1.0 / max(shifted), -1.0 / min(shifted)

    def f(x: float) -> float:
        return sum(p * a / (1.0 + x * a) for p, a in zip(freq, shifted))

    for _ in range(200):
        mid = (lo + hi) / 2.0
        if mid in (lo, hi):
            break
        if f(mid) > 0.0:
            lo = mid
        else:
            hi = mid
    theta = (lo + hi) / 2.0
    return [p / (1.0 + theta * a) for p, a in zip(freq, shifted)]


def grid(group: int) -> list[float]:
    """The outcomes of a unit of ``group`` games with points 0, 1/2 or 1 each: the trinomial
    ``[0, 0.5, 1]`` for one game, the pentanomial ``[0, 0.25, 0.5, 0.75, 1]`` for a pair."""
    return [k / (2 * group) for k in range(2 * group + 1)]


def llr(counts: Mapping[float, float], elo0: float, elo1: float, *, group: int = 1) -> float:
    """The log-likelihood ratio of H1 (``elo1``) over H0 (``elo0``), logistic Elo, for units
    counted by score in ``counts`` (``{score: number of units}``, scores in 0..1), over the
    support :func:`grid` ``(group)`` plus every score seen. 0.0 without units."""
    seen = {round(float(k), 9): float(v) for k, v in counts.items() if v}
    if not seen:
        return 0.0
    support = sorted(set(round(a, 9) for a in grid(group)) | set(seen))
    weights = [seen.get(a, 0.0) or REGULARISE for a in support]
    n = math.fsum(weights)
    freq = [w / n for w in weights]
    s0, s1 = elo_to_score(elo0), elo_to_score(elo1)
    p0, p1 = _mle(support, freq, s0), _mle(support, freq, s1)
    return n * math.fsum(p * (math.log(b) - math.log(a)) for p, a, b in zip(freq, p0, p1))


class SprtState:
    """A running SPRT: :meth:`add` each finished unit's score; :attr:`result` becomes ``"H1"``
    or ``"H0"`` once the LLR crosses a bound (and stays: later units are still counted, the
    decision is the first crossing)."""

    def __init__(self, spec: SprtSpec, *, group: int = 1) -> None:
        self.spec = spec
        self.group = group
        self.counts: Counter[float] = Counter()
        self.units = 0
        self.llr = 0.0
        self.result: str | None = None
        self.decided_at: int | None = None
        """Units counted when the test decided."""

    def add(self, score: float) -> str | None:
        """Count one unit; returns the decision (None while undecided)."""
        self.counts[round(float(score), 9)] += 1
        self.units += 1
        self.llr = llr(self.counts, self.spec.elo0, self.spec.elo1, group=self.group)
        if self.result is None:
            if self.llr >= self.spec.upper:
                self.result, self.decided_at = "H1", self.units
            elif self.llr <= self.spec.lower:
                self.result, self.decided_at = "H0", self.units
        return self.result

    def add_all(self, scores: Iterable[float]) -> str | None:
        for s in scores:
            self.add(s)
        return self.result

    def line(self) -> str:
        """``"SPRT elo0=0 elo1=5: LLR 1.23 (-2.94, 2.94), 40 pairs"`` plus the decision (``": H1
        accepted"``), or ``": undecided"`` while LLR is still between the bounds (a match stopped
        by ``--games`` before the test decided)."""
        unit = "pairs" if self.group == 2 else "groups" if self.group > 2 else "games"
        text = (f"SPRT elo0={self.spec.elo0:g} elo1={self.spec.elo1:g}: LLR {self.llr:.2f} "
                f"({self.spec.lower:.2f}, {self.spec.upper:.2f}), {self.units} {unit}")
        return text + (f": {self.result} accepted" if self.result is not None else ": undecided")

    def to_data(self) -> dict[str, Any]:
        return {**self.spec.to_data(), "llr": round(self.llr, 4), "lower": round(self.spec.lower, 4),
                "upper": round(self.spec.upper, 4), "units": self.units, "group": self.group,
                "result": self.result, "decided_at": self.decided_at}
