"""Le Quinze: the refusals of an action (:meth:`QuinzeGame.check`), each with its stable code
and its reason in words (quinze_cli/rules/quinze.md "A turn"; PROTOCOL.md "Le Quinze (`quinze`)" lists the codes).
Kept apart from the game's play and legal lists: a refusal reads the game, never changes it."""

from __future__ import annotations

from typing import Any

from quinze_protocol.cards import card_text
from quinze_protocol.game import ActionError, IllegalAction
from quinze_protocol.games.quinze_actions import End, Fifteen, Place
from quinze_protocol.games.quinze_legal import CARD_RANK, fifteen_problem

__all__ = ["check_action"]

_TEXT = tuple(card_text(c) for c in range(54))
_FACE = (11, 12, 13)


def check_action(game: Any, action: Any) -> None:
    """Raise :class:`IllegalAction` (a stable code, the reason in words) unless ``action`` is legal
    now in ``game`` (a :class:`~quinze_protocol.games.quinze.QuinzeGame`), or :class:`ActionError`
    for a value that is no Le Quinze action (quinze_cli/rules/quinze.md "A turn"). No mutation."""
    if game.phase == "over":
        raise IllegalAction("the game is over", code="game-over")
    if not isinstance(action, (Fifteen, Place, End)):
        raise ActionError(f"not a {game.id} action: {action!r}", field="type")
    phase = game.phase
    hand = game.hands[game.seat]
    kind = action[0]
    if kind == "fifteen":
        if phase == "placed":
            raise IllegalAction("after the quick placement the turn can only end", code="cannot-fifteen")
        hc = action[1] + action[3]
        tc = action[2] + action[4]
        _held(hc, hand, "card-not-held", "you do not hold")
        _held(tc, game.table, "card-not-on-table", "the table does not have")
        problem = fifteen_problem(hc, tc)
        if problem is not None:
            raise IllegalAction(problem[1], code=problem[0])
        return
    if kind == "place":
        cards = action[1]
        if phase == "fifteen":
            raise IllegalAction("you can make a fifteen, so you must make one before anything else", code="must-make-fifteen")
        if phase == "placed":
            raise IllegalAction("you already placed a card this turn", code="cannot-place")
        _held(cards, hand, "card-not-held", "you do not hold")
        if phase == "more":
            if not game.quick_place:
                raise IllegalAction("after a fifteen you may only make more fifteens or end the turn", code="cannot-place")
            if not game.used_table:
                raise IllegalAction("the quick placement needs a fifteen that used a table card this turn", code="cannot-place")
            if len(cards) != 1:
                raise IllegalAction("the quick placement is one card", code="cannot-place")
            if len(hand) < 2:
                raise IllegalAction("you may not place your last card", code="last-card")
            return
        if len(cards) == 2:
            r0, r1 = CARD_RANK[cards[0]], CARD_RANK[cards[1]]
            if r0 != r1 or r0 not in _FACE:
                raise IllegalAction("two cards may be placed only as a pair of J, Q or K", code="cannot-place")
            if len(hand) < 3:
                raise IllegalAction("a face pair may be placed only when holding at least three cards", code="pair-needs-three")
        return
    # end
    if phase in ("more", "placed"):
        return
    if phase == "fifteen":
        raise IllegalAction("you can make a fifteen, so you must make one before ending the turn", code="must-make-fifteen")
    raise IllegalAction("you made no fifteen: place a card to end the turn", code="cannot-end")


def _held(cards: tuple[int, ...], pool: list[int], code: str, words: str) -> None:
    """Raise :class:`IllegalAction` ``code`` unless every card of ``cards`` is in ``pool`` (as many times)."""
    left = list(pool)
    for c in cards:
        try:
            left.remove(c)
        except ValueError:
            raise IllegalAction(f"{words} {_TEXT[c]}" + (" (that many times)" if c in pool else ""), code=code) from None
