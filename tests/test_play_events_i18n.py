"""``quinze play`` tells the events of Le 14 and Le Quinze classique in the player's language.

Seeded games of built-in bots are played in process and every event is fed, as a seat (0) and as
a spectator receive it, through the client's GameUI with a *strict* catalogue (no fallback to
English, no key shown as itself: :class:`quinze_cli.i18n.MissingText`) in English and in
French. Every event kind must give its line in the right language; ``quinze replay`` keeps its
English wording from the same catalogue entries.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any

import pytest

from quinze_protocol.game import get_bot, get_game
from quinze_cli.gameside import get_side
from quinze_cli.narrate import Names, narrate_event
from quinze_cli.play.cards_ui import CardStyle
from quinze_cli.i18n import Catalogue, MissingText
from quinze_cli.play.registry import TableState, get_ui

NAMES = ["Ana", "Bob", "Cy", "Dee"]
ENGLISH = re.compile(
    r"\b(the|and|of|with|each|draws?|discards?|lays|takes|stock|cards?|packets?|left|ends|won|wins|"
    r"nothing|stands|passes|checks|calls|raises|folds|deals|hidden|showing|burnt|chips|stake|match|"
    r"players?|swaps?|for|everybody|seats|drawn|showdown|first|turned|substitutes?|lay|you|draw|exchanges?)\b", re.IGNORECASE)
FRENCH = re.compile(r"\b(le|la|les|de|du|une|pioche|défausse|carte|cartes|paquet|pose|donne|jetons|enjeu|"
                    r"relance|remporte|partie|victoire|vous|tient|passe|tirage|abattage|fin|contre|joueurs|misent|chacun|prend)\b|[éèàç]|\s[:;]\s", re.IGNORECASE)
GAMES = {
    # game -> (options, bots, seeds): small caves so players drop out and matches end
    "quatorze": ({"max_turns": 200}, ("greedy", "random"), range(6)),
    "quinze-classique": ({"cave": 6, "tours": 2}, ("threshold", "random"), range(10)),
}
QUIET = {("quinze-classique", "coup-end")}
"""Event kinds the client may leave out of the log (shown on the board instead)."""


def _catalogue_keys(lang: str) -> dict[str, str]:
    return json.loads(resources.files("quinze_cli").joinpath("locale", f"{lang}.json").read_text(encoding="utf-8"))


def _events(game: str, players: int, seed: int, bot: str) -> list[Any]:
    options, _, _ = GAMES[game]
    g = get_game(game).new({"players": players, **options}, seed=seed)
    bots = [get_bot(game, bot, s) for s in range(players)]
    events = list(g.opening_events)
    for _ in range(5000):
        if g.is_over:
            return events
        s = g.to_act
        events += g.apply(bots[s].choose(g.view(s), g.legal_actions()))
    raise AssertionError(f"{game} seed {seed}: no end")


def _told(game: str, lang: str, players: int, events: list[Any], seat: int | None) -> list[tuple[str, list[str]]]:
    """Each event's kind and its lines through the client's UI, strict catalogue of ``lang``."""
    cat = Catalogue(lang, strict=True)
    ui = get_ui(game, cat, CardStyle(lang, False))
    g = get_game(game).new({"players": players, **GAMES[game][0]}, seed=0)
    st = TableState(table="t1", game=game, seat=seat, players=NAMES[:players], options=g.options, number=1)
    ui.start(st)
    return [(e.kind, ui.on_event(st, e.for_seat(seat))) for e in events]


def test_event_texts_exist_in_both_catalogues_with_the_same_fields():
    en, fr = _catalogue_keys("en"), _catalogue_keys("fr")
    ev = {k for k in en if k.startswith(("quatorze.ev.", "classique.ev."))}
    assert len(ev) > 50
    assert ev == {k for k in fr if k.startswith(("quatorze.ev.", "classique.ev."))}
    fields = re.compile(r"\{(\w+)")
    for key in ev:
        assert set(fields.findall(en[key])) == set(fields.findall(fr[key])), key
        assert en[key] != fr[key] or not re.search(r"[a-z]{3}", re.sub(r"\{\w+\}", "", en[key])), key


def test_strict_catalogue_never_falls_back():
    cat = Catalogue("fr", strict=True)
    assert cat("classique.ev.burnt", name="Ana", total=17, hidden="9H") == "Ana se brûle avec 17 (carte cachée 9H)."
    with pytest.raises(MissingText, match="no.such"):
        cat("no.such.key")
    with pytest.raises(MissingText, match="classique.ev.burnt"):
        cat("classique.ev.burnt", name="Ana")  # a field missing
    assert not isinstance(MissingText("x"), KeyError)  # never swallowed as bad event data
    assert Catalogue("fr")("no.such.key") == "no.such.key"  # the lenient client catalogue is unchanged


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_event_kind_is_told_in_the_players_language(game):
    _, bots, seeds = GAMES[game]
    narrators = get_side(game).narrators
    seen: set[str] = set()
    french_sample: list[str] = []
    for seed in seeds:
        players = 2 + seed % 3
        events = _events(game, players, seed, bots[seed % 2])
        for seat in (0, None):
            en = _told(game, "en", players, events, seat)
            fr = _told(game, "fr", players, events, seat)
            for (kind, en_lines), (_, fr_lines) in zip(en, fr):
                seen.add(kind)
                assert len(en_lines) == len(fr_lines), kind
                if (game, kind) not in QUIET:
                    assert en_lines, (kind, seed)
                for e_line, f_line in zip(en_lines, fr_lines):
                    assert not e_line.startswith(f"{kind}:") and not f_line.startswith(f"{kind}:"), (e_line, f_line)
                    assert e_line != f_line, e_line
                    glossed = re.sub(r" \((s'y tient|demande carte|s'y tenir|demander carte)\)", "", e_line)  # French game terms as glosses
                    assert ENGLISH.search(e_line) and not FRENCH.search(glossed), e_line
                    assert FRENCH.search(f_line), f_line
                    assert not ENGLISH.search(f_line), f_line
                    french_sample.append(f_line)
    engine_kinds = set(narrators) - {"substitute"}
    if game == "quatorze":
        seen = {"substitute" if k in ("hand-for-two", "two-for-one", "between") else k for k in seen}
        engine_kinds.add("substitute")
    missing = engine_kinds - seen - {"reshuffle", "burnt", "out"}
    assert not missing, missing  # every common kind came up (rare ones: where they did, they were checked)
    assert len(french_sample) > 200


def test_french_lines_read_naturally():
    events = _events("quinze-classique", 3, 3, "threshold")
    lines = [line for _, told in _told("quinze-classique", "fr", 3, events, 0) for line in told]
    assert lines[0].startswith("Tirage du premier donneur : ") and "Ana (vous)" in lines[0]
    assert any(re.fullmatch(r"Coup 1 : 3 joueurs misent 1 ; pot 3\.", x) for x in lines), lines[:5]
    assert any(" donne une carte cachée à chacun (talon " in x for x in lines)
    events = _events("quatorze", 2, 1, "greedy")
    lines = [line for _, told in _told("quatorze", "fr", 2, events, 0) for line in told]
    assert lines[0].startswith("Chacun reçoit quatre paquets (5 4 3 2 cartes)") and "talon" in lines[0]
    assert any(re.search(r" pose .+ \(combinaison \d+\)\.$", x) for x in lines)
    assert any(" se défausse de " in x for x in lines)
    assert lines[-1].startswith("Fin de la partie (sortie) ; vainqueur : ")


def test_replay_keeps_the_english_wording_from_the_same_entries():
    events = _events("quinze-classique", 3, 2, "threshold")
    who = Names(NAMES[:3])
    text = [line for e in events for line in narrate_event("quinze-classique", e.full(), who, None)[1]]
    assert text[0].startswith("First dealer drawn: ") and any(line.startswith("  hidden card of Ana: ") for line in text)
    assert any(re.fullmatch(r"Coup \d+: \d players ante \d+; pot \d+\.", line) for line in text)
    events = _events("quatorze", 2, 1, "greedy")
    text = [line for e in events for line in narrate_event("quatorze", e.full(), Names(NAMES[:2]), None)[1]]
    assert text[0].startswith("Each player gets four packets") and text[-1].startswith("The game ends (a player went out): ")
