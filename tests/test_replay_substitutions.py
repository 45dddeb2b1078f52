"""Le 14's substitutions in words (``quinze replay``, English and French, every viewpoint): each
kind (quinze_cli/rules/quatorze.md "Substitutions": hand for two, two for one, between) is a
sentence naming its cards and combinations, as every other action is, never the logged fields
one by one (``random substitutes: substitution two-for-one, hand AD 8H, ...``). Real logged games:
seeded Le 14 matches between the built-in bots, and the real ``quinze replay`` command."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import clikit
from quinze_protocol.replaylog import read_log
from quinze_cli.i18n import LANGUAGES
from quinze_cli.narrate import Names, narrate_event

KINDS = ("hand-for-two", "two-for-one", "between")
RAW = re.compile(r"substitut|hand-for-two|two-for-one|\bbetween\b|\bhand [0-9AJQKR]|card [0-9AJQKR]|other \d")
VERB = {"en": {"hand-for-two": "swap", "two-for-one": "swap", "between": "exchange"},
        "fr": {"hand-for-two": "change", "two-for-one": "change", "between": "permut"}}


@pytest.fixture(scope="module")
def log(tmp_path_factory) -> Path:
    where = tmp_path_factory.mktemp("quatorze-subs")
    done = clikit.quinze("match", "builtin:random", "builtin:greedy", "--game", "quatorze", "--games", "8",
                         "--seed", "3", "--log-dir", str(where))
    assert done.returncode == 0, done.stderr
    return next(where.glob("match-*.jsonl"))


def _cards(value) -> list[str]:
    return value if isinstance(value, list) else [value]


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("seat", [None, 0, 1])
def test_every_kind_of_substitution_is_a_sentence(log: Path, lang: str, seat: int | None) -> None:
    seen: dict[str, int] = {}
    for logged in read_log(log.read_text()).games:
        who = Names(logged.header["players"], seat, lang)
        for rec in logged.records:
            event = rec.get("event") if rec.get("record") == "event" else None
            if event is None or event["kind"] != "substitute":
                continue
            kind = event["substitution"]
            _, lines = narrate_event("quatorze", event, who, seat, lang)
            assert len(lines) == 1, lines
            line = lines[0]
            seen[kind] = seen.get(kind, 0) + 1
            assert not RAW.search(line), line
            assert VERB[lang][kind] in line.lower(), line
            for field in ("hand", "cards", "card"):  # every card named, in the order logged
                if field in event:
                    assert " ".join(_cards(event[field])) in line, (field, line)
            assert re.findall(r"combina\w+ (\d+)", line) == \
                [str(event["combination"])] + ([str(event["other"])] if kind == "between" else []), line
            if seat == event["seat"]:
                assert line.startswith("You " if lang == "en" else "Vous "), line
    assert set(seen) == set(KINDS), seen


@pytest.mark.parametrize("lang", LANGUAGES)
def test_quinze_replay_tells_them_in_words(log: Path, lang: str) -> None:
    told = 0
    for game in range(1, 9):
        done = clikit.quinze("replay", str(log), "--game", str(game), "--lang", lang)
        assert done.returncode == 0, done.stderr
        for line in done.stdout.splitlines():
            assert not re.search(r"substitutes?:|substitution :|hand-for-two|two-for-one|, hand ", line), line
            told += bool(re.search(r"swaps|exchanges|échange|permute", line))
    assert told >= 10
