"""PROTOCOL.md documents each game's options and view fields, and its message examples show every
field the server sends in a view (e.g. ``view.turn.actions``)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from quinze_protocol.game import get_bot, get_game

DOC = Path(__file__).resolve().parent.parent / "PROTOCOL.md"
SECTIONS = {"quinze": "### Le Quinze (`quinze`)", "quinze-classique": "### Le Quinze classique (`quinze-classique`)",
            "quatorze": "### Le 14 (`quatorze`)"}


def section(game_id: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(SECTIONS[game_id])
    rest = text[start + 1:]
    ends = [i for i in (rest.find("\n### "), rest.find("\n## ")) if i >= 0]
    return text[start:start + 1 + min(ends)]


def views_of_a_game(game_id: str, seed: int = 4) -> list[dict[str, Any]]:
    cls = get_game(game_id)
    g = cls.new({"players": 3}, seed)
    bot = get_bot(game_id, "random", seed)
    out = []
    while not g.is_over:
        out += [g.view(g.to_act), g.view(None)]
        a = bot.choose(g.view(g.to_act), g.legal_actions())
        if a.to_data()["type"] == "raise" and getattr(a, "amount", 0) is None:
            a = a.with_amount(a.min)
        g.apply(a)
    return out + [g.view(0)]


@pytest.mark.parametrize("game_id", sorted(SECTIONS))
def test_options_are_documented(game_id: str) -> None:
    body = section(game_id)
    line = body[body.index("Options:"):]
    for opt in get_game(game_id).option_specs:
        assert f"`{opt.name}`" in line, opt.name


@pytest.mark.parametrize("game_id", sorted(SECTIONS))
def test_view_fields_are_documented(game_id: str) -> None:
    body = section(game_id)
    view = body[body.index("View:"):]
    view = view[:view.index("\n\n")]
    keys = set()
    for v in views_of_a_game(game_id):
        keys |= set(v)
        if isinstance(v.get("turn"), dict):
            keys |= set(v["turn"])
    for k in sorted(keys):
        assert f"`{k}`" in view, k


def _key_paths(data: Any, prefix: str = "") -> set[str]:
    out = set()
    if isinstance(data, dict):
        for k, v in data.items():
            if k == "options":  # options are each game's own, shown as validated
                out.add(prefix + k)
                continue
            out.add(prefix + k)
            out |= _key_paths(v, prefix + k + ".")
    return out


def test_example_views_show_every_field() -> None:
    text = DOC.read_text(encoding="utf-8")
    found = 0
    for block in re.findall(r"```json\n(.*?)```", text, re.S):
        try:
            msg = json.loads(block)
        except ValueError:
            continue
        if not isinstance(msg, dict) or not isinstance(msg.get("view"), dict):
            continue
        view = msg["view"]
        cls = get_game(view["game"])
        engine = cls.new(view["options"], 42).view(view["seat"])
        assert _key_paths(engine) <= _key_paths(view), (msg["type"], _key_paths(engine) - _key_paths(view))
        found += 1
    assert found >= 2
