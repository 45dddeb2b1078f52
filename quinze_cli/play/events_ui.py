"""Events in words for ``quinze play``, in the player's language.

The wording of Le 14 and Le Quinze classique lives once, in the language catalogues
(``quatorze.ev.*``, ``classique.ev.*`` in ``quinze_cli/locale/*.json``), read by the narration
modules :mod:`quinze_cli.narrate.quatorze` and :mod:`quinze_cli.narrate.classique` that
``quinze replay`` uses in English. A seat receives an event as
:meth:`quinze_protocol.game.Event.for_seat` gives it: the public fields merged with its own private
fields; :func:`tell` splits the private fields back out (the keys named per kind) so the
narrators see ``(public, {seat: private}, who)`` exactly as for a logged event.

The narrators write cards in the canonical spelling (``KC``, ``10S``, ``BJ``; :mod:`quinze_protocol.cards`);
:func:`tell` rewrites those tokens with the client's :class:`~quinze_cli.play.cards_ui.CardStyle`
(``K♣`` in colour, French letters in French) so the log matches the rest of the screen. Player
names are left as typed even when they look like a card (they stand as placeholders meanwhile).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from quinze_protocol.cards import parse_card
from quinze_cli.gameside import find_side
from quinze_cli.narrate import generic
from quinze_cli.play.cards_ui import CardStyle
from quinze_cli.i18n import Catalogue, Own, YouCatalogue
from quinze_cli.play.registry import TableState

__all__ = ["Own", "YouCatalogue", "style_cards", "tell"]

_CARD = re.compile(r"(?<![\w♠♥♦♣])(?:10|[2-9AJQK])[SHDC](?!\w)|(?<!\w)[BR]J(?!\w)")
_NAME = re.compile("\x00(\\d+)\x00")


def style_cards(line: str, style: CardStyle) -> str:
    """``line`` with every canonical card token (``KC``, ``10S``, ``RJ``) written in ``style``."""

    def sub(m: re.Match[str]) -> str:
        try:
            return style.text(parse_card(m.group(0)))
        except Exception:  # noqa: BLE001 - not a card after all: as written
            return m.group(0)

    return _CARD.sub(sub, line)


def _private_fields(game_id: str) -> Mapping[str, Sequence[str]]:
    from quinze_protocol.game import GameError, get_game

    try:
        return get_game(game_id).private_fields
    except GameError:
        return {}


def tell(game_id: str, state: TableState, event: Mapping[str, Any], private_keys: Mapping[str, Sequence[str]] | None,
         you: str, kind: str | None = None, style: CardStyle | None = None,
         cat: Catalogue | None = None) -> list[str]:
    """The event as the seat (or spectator) of ``state`` received it, in words.

    ``private_keys``: event kind -> the fields that are the seat's private part (None: the game's
    own ``Game.private_fields``); ``you`` marks our
    own seat's name (``"(you)"``); ``kind`` overrides the event's kind; ``style``: cards are
    rewritten in it (:func:`style_cards`); ``cat``: the catalogue the words come from (English when
    None). Data a narrator cannot read is told plainly (:func:`quinze_cli.narrate.generic`); raises
    only :class:`~quinze_cli.i18n.MissingText` when a strict ``cat`` lacks a text.
    """
    kind = kind or str(event.get("kind", "?"))
    if private_keys is None:
        private_keys = _private_fields(game_id)
    keys = set(private_keys.get(kind, ()))
    if event.get("seat") not in (None, state.seat):
        keys = set()  # another seat's event: what it carries was sent to everybody (a card drawn from the discard pile)
    public = {k: v for k, v in event.items() if k != "kind" and k not in keys}
    if kind == "substitute" and event.get("kind") not in (None, "substitute"):
        public["kind"] = event["kind"]
    mine = {k: v for k, v in event.items() if k in keys}
    private: dict[int, dict[str, Any]] = {state.seat: mine} if mine and state.seat is not None else {}

    names: list[str] = []

    def who(seat: Any) -> str:
        name = state.name(seat) if isinstance(seat, int) else f"#{seat}"
        mine = seat == state.seat and state.seat is not None
        name = f"{name} {you}" if mine else name
        if style is not None:
            names.append(name)  # a placeholder while cards are restyled: names stay as typed
            name = f"\x00{len(names) - 1}\x00"
        return Own(name) if mine else name

    side = find_side(game_id)
    words = YouCatalogue(cat) if cat is not None else None
    fn = side.narrators_for(words).get(kind) if side is not None else None
    lines: list[str] | None = None
    if fn is not None:
        try:
            lines = list(fn(public, private, who))
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            lines = None
    if lines is None:
        lines = generic(kind, public, private, who, cat.lang if cat is not None else "en")
    if style is None:
        return lines
    return [_NAME.sub(lambda m: names[int(m.group(1))], style_cards(line, style)) for line in lines]
