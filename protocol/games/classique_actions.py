"""Actions of Le Quinze classique (game id ``quinze-classique``, quinze_cli/rules/quinze-classique.md).

Seven actions, each a small frozen value with ``to_data()``:

========  =================================================  ======================================
type      data                                               when (quinze_cli/rules/quinze-classique.md "A coup")
========  =================================================  ======================================
pass      ``{"type": "pass"}``                               speaking round (step 2)
stand     ``{"type": "stand"}``                              speaking round; own drawing turn (4)
hit       ``{"type": "hit"}``                                speaking round; own drawing turn (4)
check     ``{"type": "check"}``                              raising round, nobody raised yet (3)
call      ``{"type": "call"}``                               raising round, own stake below the top
raise     ``{"type": "raise", "amount": N}``                 raising round; own drawing turn
fold      ``{"type": "fold"}``                               raising round
========  =================================================  ======================================

A raise is the one parameterised action. ``amount`` is in chips, *added on top of* the highest
stake of the coup (the raiser first matches that stake, then adds ``amount``). In a list of legal
actions a raise appears once, with its range instead of a value:
``{"type": "raise", "min": m, "max": M}`` (an :class:`Raise` with ``amount=None``); an action to
apply carries ``{"type": "raise", "amount": N}`` with ``m <= N <= M``, any such ``N`` being legal.
:meth:`Raise.with_amount` turns the listed range into an action.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from quinze_protocol import caches as _caches
from quinze_protocol.game import Action, ActionError

__all__ = [
    "Call",
    "Check",
    "Fold",
    "Hit",
    "Pass",
    "Raise",
    "Stand",
    "ACTION_TYPES",
    "parse_action_data",
]


@dataclass(frozen=True, slots=True)
class Pass(Action):
    """``pass``: out of this coup, the ante stays in the pot (quinze_cli/rules/quinze-classique.md step 2)."""

    def to_data(self) -> dict[str, Any]:
        return {"type": "pass"}


@dataclass(frozen=True, slots=True)
class Stand(Action):
    """``stand``: open without drawing (speaking round) or stop drawing (drawing turn)."""

    def to_data(self) -> dict[str, Any]:
        return {"type": "stand"}


@dataclass(frozen=True, slots=True)
class Hit(Action):
    """``hit``: open and draw later (speaking round) or take one face-up card (drawing turn)."""

    def to_data(self) -> dict[str, Any]:
        return {"type": "hit"}


@dataclass(frozen=True, slots=True)
class Check(Action):
    """``check``: stay in without raising, only while nobody has raised this round (step 3)."""

    def to_data(self) -> dict[str, Any]:
        return {"type": "check"}


@dataclass(frozen=True, slots=True)
class Call(Action):
    """``call``: pay up to the highest stake of the coup (step 3)."""

    def to_data(self) -> dict[str, Any]:
        return {"type": "call"}


@dataclass(frozen=True, slots=True)
class Fold(Action):
    """``fold``: leave the coup; what was staked stays in the pot (step 3)."""

    def to_data(self) -> dict[str, Any]:
        return {"type": "fold"}


@dataclass(frozen=True, slots=True)
class Raise(Action):
    """``raise``: match the highest stake and add ``amount`` chips (steps 3 and 4).

    Either ``amount`` (an action to apply) or ``min``/``max`` (the range, in a legal list).
    """

    amount: int | None = None
    min: int | None = None
    max: int | None = None

    def to_data(self) -> dict[str, Any]:
        if self.amount is not None:
            return {"type": "raise", "amount": self.amount}
        return {"type": "raise", "min": self.min, "max": self.max}

    def with_amount(self, amount: int) -> "Raise":
        """The action raising by ``amount`` chips (range not checked here). Actions are immutable
        values: one is made per amount and kept (``_BY_AMOUNT``)."""
        r = _BY_AMOUNT.get(amount)
        if r is None:
            if len(_BY_AMOUNT) > 4096:
                _BY_AMOUNT.clear()
            r = _BY_AMOUNT[amount] = Raise(amount=amount)
        return r


_BY_AMOUNT: dict[int, Raise] = {}
"""Raises by amount (:meth:`Raise.with_amount`): made once, since building a frozen dataclass runs
its ``__init__``, a Python function called from C (random self-play raises at every third
decision or so)."""
_caches.register_dict("classique_actions._BY_AMOUNT", _BY_AMOUNT)


ACTION_TYPES: dict[str, type[Action]] = {
    "pass": Pass,
    "stand": Stand,
    "hit": Hit,
    "check": Check,
    "call": Call,
    "raise": Raise,
    "fold": Fold,
}



def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def parse_action_data(data: Mapping[str, Any]) -> Action:
    """Read action data into an action. Raises :class:`ActionError` naming the field.

    ``type`` must be one of :data:`ACTION_TYPES`; ``raise`` needs an int ``amount`` in chips (its
    range is checked by ``apply``: ``raise-too-small`` / ``raise-too-large``; a range echoed back as
    ``min``/``max`` is ignored). A raise as listed in a legal list (``min`` and ``max``, no
    ``amount``) is read as that range, so a built-in bot can read the legal entries of an
    ``action-request``; ``apply`` refuses it (ActionError, field ``amount``). Keys unknown to this
    version are ignored (PROTOCOL.md "Conventions").
    """
    if not isinstance(data, Mapping):
        raise ActionError(f"an action is a map with a 'type', not {type(data).__name__}", field="action")
    kind = data.get("type")
    if kind is None:
        raise ActionError("missing", field="type")
    if not isinstance(kind, str) or kind not in ACTION_TYPES:
        raise ActionError(f"unknown action type {kind!r} (known: {', '.join(ACTION_TYPES)})", field="type")
    if kind != "raise":
        return ACTION_TYPES[kind]()
    if "amount" not in data:
        lo, hi = data.get("min"), data.get("max")
        if _is_int(lo) and _is_int(hi):
            return Raise(min=lo, max=hi)  # a listed range, read for in-process bots; apply refuses it
        raise ActionError("a raise needs an amount in chips", field="amount")
    amount = data["amount"]
    if not isinstance(amount, int) or isinstance(amount, bool):
        raise ActionError(f"expects a whole number of chips, got {amount!r}", field="amount")
    return Raise(amount=amount)
