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
from quinze_protocol.rng import DrawsAhead, Rng

__all__ = ["RandomBot", "ThresholdBot"]

class RandomBot(DrawsAhead, Bot):
    """Uniform over the legal actions, with its own seeded generator; a raise listed with its
    range gets an amount uniform in it: ``legal[Rng.below(len(legal))]``, then for a raise
    ``min + Rng.below(max - min + 1)``, the same numbers and state, rejections included (the
    outputs computed a batch at a time, :class:`~quinze_protocol.rng.DrawsAhead`). It picks by
    index (:attr:`picks`): :meth:`complete` draws the amount after the pick. A 2-seat match is
    about 27 decisions, so a seat draws about 15 numbers: the first batch is 16."""

    needs_view = False
    picks = True

    def __init__(self, seed: int = 0) -> None:
        self._draws_from(seed)
        self._batch = 1  # BATCHES[1] = 16 outputs first

    pick = DrawsAhead.below
    """``rng.below(n)``'s number (a draw for ``n == 1`` too): :meth:`DrawsAhead.below`."""

    def choose(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        return self.complete(legal[self.pick(len(legal))])

    def complete(self, action: Action) -> Action:
        """A raise listed with its range: the raise by an amount drawn in it; any other action itself."""
        if isinstance(action, Raise) and action.amount is None and action.min is not None and action.max is not None:
            return action.with_amount(action.min + self.pick(action.max - action.min + 1))
        return action




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
