"""Built-in bots for Le Quinze classique (``quinze-classique``, quinze_cli/rules/quinze-classique.md).

- ``random``: uniform over the legal actions; a raise gets an amount uniform in its range.
- ``threshold``: reads its view. Speaking round: hits below ``hit_below`` (11), else stands.
  Drawing turn: raises (the minimum) with 14 or 15, hits below 11, stands otherwise.
  Raising round: raises with 14 or 15 when it may and nobody has raised in the coup yet (so at
  most once a coup: a raise answered by a raise is called, never re-raised by 1 forever), calls or checks when close (a total of at least
  11, or still to draw), folds when far behind (an opponent's face-up cards alone beat its total).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from quinze_protocol.game import Action, Bot, register_bot
from quinze_protocol.games.classique_actions import Call, Check, Fold, Hit, Pass, Raise, Stand
from quinze_protocol.rng import GAMMA, MASK64, MIX1, MIX2, Rng

__all__ = ["RandomBot", "ThresholdBot"]

_LIMITS: dict[int, int] = {}
"""``Rng.below``'s rejection limit by list length."""


class RandomBot(Bot):
    """Uniform over the legal actions, with its own seeded generator."""

    needs_view = False

    def __init__(self, seed: int = 0) -> None:
        self.rng = Rng(seed)

    def choose(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        # Rng.choice, without copying the list: Rng.below(len(legal)) inlined (the same numbers
        # and the same state, rejections included)
        n = len(legal)
        limit = _LIMITS.get(n)
        if limit is None:
            limit = _LIMITS[n] = (1 << 64) - ((1 << 64) % n)
        rng = self.rng
        rng.state = z = (rng.state + GAMMA) & MASK64
        z = ((z ^ (z >> 30)) * MIX1) & MASK64
        z = ((z ^ (z >> 27)) * MIX2) & MASK64
        x = z ^ (z >> 31)
        while x >= limit:
            x = rng.next64()
        a = legal[x % n]
        if isinstance(a, Raise) and a.amount is None and a.min is not None and a.max is not None:
            return a.with_amount(a.min + self.rng.below(a.max - a.min + 1))
        return a


class ThresholdBot(Bot):
    """Hits below ``hit_below``, raises with ``raise_at`` or more, folds when far behind."""

    def __init__(self, seed: int = 0, hit_below: int = 11, raise_at: int = 14) -> None:
        self.rng = Rng(seed)
        self.hit_below = hit_below
        self.raise_at = raise_at

    @staticmethod
    def _may_raise(view: Mapping[str, Any], seat: Any) -> bool:
        """True while nobody has raised in this coup (every stake is at most the ante): the bot
        raises once per coup and then calls, so two of them (or one against a person who
        re-raises) never raise each other by 1 until the chips run out."""
        stakes = view.get("stakes") or []
        ante = view.get("ante") or 0
        return not stakes or max(stakes) <= ante

    def choose(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        seat = view.get("seat")
        total = view.get("total") or 0
        kinds = {type(a): a for a in legal}
        rng_raise = kinds.get(Raise)
        if Pass in kinds:  # speaking round
            return kinds[Hit] if total < self.hit_below else kinds[Stand]
        if isinstance(rng_raise, Raise) and rng_raise.min is not None and total >= self.raise_at \
                and self._may_raise(view, seat):
            return Raise(amount=rng_raise.min)
        if Hit in kinds:  # drawing turn
            return kinds[Hit] if total < self.hit_below else kinds[Stand]
        if Check in kinds:
            return kinds[Check]
        status = view.get("status") or []
        still_to_draw = seat is not None and seat < len(status) and status[seat] == "hit"
        ups = view.get("face_up_totals") or []
        rivals = [p for p, st in enumerate(status) if p != seat and st in ("stand", "hit")]
        beaten = any(ups[p] + 1 > total and ups[p] + 1 <= 15 for p in rivals if p < len(ups))
        if Call in kinds and (total >= self.hit_below or still_to_draw or not beaten):
            return kinds[Call]
        return kinds.get(Fold) or legal[0]


@register_bot("quinze-classique", "random")
def _random(seed: int) -> Bot:
    return RandomBot(seed)


@register_bot("quinze-classique", "threshold")
def _threshold(seed: int) -> Bot:
    return ThresholdBot(seed)
