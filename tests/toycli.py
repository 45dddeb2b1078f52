"""The CLI side of the toy game of tests/toygame.py ("first to say 3"), registered the way any
game's is: one :class:`quinze_cli.gameside.GameSide` (board renderer and input reader, narration,
locale namespace and its strings), plus a built-in bot so that ``quinze match`` can play it.
Nothing in ``quinze_cli`` names the toy game. :func:`toy_registered` registers the engine, its bot
and its CLI side for the length of a ``with`` block and removes them after.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from quinze_protocol import registry as game_registry
from quinze_protocol.game import Action, Bot, register_bot, register_game
from quinze_protocol.rng import Rng
from quinze_cli.gameside import GameSide, register_side, unregister_side
from quinze_cli.play.registry import GameUI, InputError, TableState
from toygame import FirstToThree

TOY = FirstToThree.id

STRINGS = {
    "en": {"game.title.first-to-three": "First to say 3", "toy.last": "Last said: {n}",
           "toy.secret": "Your secret number: {n}", "toy.say": "say {n}", "toy.help.1": "Type 1, 2 or 3 (say N).",
           "toy.bad": "Say {a} or {b}, not {n}.", "toy.ev.said": "{name} says {n}.", "toy.ev.won": "{name} said 3 and wins.",
           "toy.ev.deal": "Secret numbers are dealt to {n} seats."},
    "fr": {"game.title.first-to-three": "Le premier à dire 3", "toy.last": "Dernier nombre dit : {n}",
           "toy.secret": "Votre nombre secret : {n}", "toy.say": "dire {n}", "toy.help.1": "Tapez 1, 2 ou 3 (dire N).",
           "toy.bad": "Dites {a} ou {b}, pas {n}.", "toy.ev.said": "{name} dit {n}.", "toy.ev.won": "{name} dit 3 et gagne.",
           "toy.ev.deal": "Les nombres secrets sont distribués à {n} places."},
}


class ToyUI(GameUI):
    """The board (the last number said, from the game's observer; our secret), ``1``/``say 2`` as
    input, actions in words."""

    def start(self, state: TableState) -> None:
        self.observe_start(state, secret=None)  # the public picture, plus our own secret

    def on_request(self, state: TableState) -> None:
        if state.observer is None:
            self.start(state)
        self.observe(state)
        if "secret" in (state.view or {}):
            state.public["secret"] = state.view["secret"]

    def on_event(self, state: TableState, event: dict[str, Any]) -> list[str]:
        from quinze_cli.play.events_ui import tell

        if state.observer is None:
            self.start(state)
        self.observe(state, event)
        if event.get("kind") == "deal" and "secret" in event:
            state.public["secret"] = event["secret"]
        return tell(self.game_id or TOY, state, event, None, self.cat("common.you"), style=self.style, cat=self.cat)

    def board(self, state: TableState) -> RenderableType:
        lines = [Text(self.cat("toy.last", n=state.public.get("last", 0)))]
        if state.seat is not None and state.public.get("secret") is not None:
            lines.append(Text(self.cat("toy.secret", n=state.public["secret"])))
        return Group(*lines)

    def action_text(self, state: TableState, action: dict[str, Any]) -> Text:
        return Text(self.cat("toy.say", n=action.get("n")))

    def parse(self, state: TableState, text: str) -> dict[str, Any]:
        words = text.lower().split()
        if words and words[0] in ("say", "dire"):
            words = words[1:]
        if len(words) == 1 and words[0].isdigit():
            n = int(words[0])
            for entry in state.legal:
                if entry.get("n") == n:
                    return entry
            last = state.public.get("last", 0)
            raise InputError(self.cat("toy.bad", a=last + 1, b=last + 2, n=n))
        raise InputError(self.cat("input.number-only", n=len(state.legal)))

    def help_lines(self) -> list[str]:
        return [self.cat("toy.help.1")]


def _deal(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Any) -> list[str]:
    lines = [t("toy.ev.deal", n=e["players"])]
    return lines + [f"  {who(s)}: {p['secret']}" for s, p in sorted(priv.items()) if "secret" in p]


def _said(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Any) -> list[str]:
    return [t("toy.ev.said", name=who(e["seat"]), n=e["n"])]


def _won(e: dict[str, Any], priv: dict[int, dict[str, Any]], who: Any, t: Any) -> list[str]:
    return [t("toy.ev.won", name=who(e["seat"]))]


def narrators(t: Any) -> dict[str, Any]:
    """Event kind -> ``(public, private, who) -> lines``, worded from the catalogue ``t``."""
    return {kind: (lambda e, p, w, fn=fn: fn(e, p, w, t)) for kind, fn in (("deal", _deal), ("said", _said), ("won", _won))}


class _English:
    def __call__(self, key: str, **fields: Any) -> str:
        return STRINGS["en"][key].format(**fields)


SIDE = GameSide(TOY, ToyUI, narrators(_English()), frozenset({"deal"}), "toy", narrators, STRINGS)


class FirstLegal(Bot):
    """Says a random one of the legal numbers (seeded)."""

    needs_view = False

    def __init__(self, seed: int) -> None:
        self.rng = Rng(seed)

    def choose(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        return legal[self.rng.below(len(legal))]


@contextmanager
def toy_registered() -> Iterator[None]:
    """The toy game, its built-in bot ``random`` and its CLI side registered meanwhile."""
    game_registry.get_game("quinze")  # the real games are loaded first
    register_game(FirstToThree)
    register_bot(TOY, "random")(FirstLegal)
    register_side(SIDE)
    try:
        yield
    finally:
        unregister_side(TOY)
        game_registry._BOTS.pop(TOY, None)
        game_registry._GAMES.pop(TOY, None)
