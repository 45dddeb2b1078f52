"""The statistics of ``quinze match`` and ``quinze tournament``: Elo with finite intervals,
pentanomial pairs, the GSPRT against published reference figures, Plackett–Luce ratings and the
results tables."""

from __future__ import annotations

import io
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from quinze_cli.results import elo_line, print_results
from quinze_cli.stats import MatchStats
from quinze_cli.stats.elo import elo_estimate, elo_to_score, pentanomial, score_to_elo
from quinze_cli.stats.sprt import SprtSpec, SprtState, llr, parse_sprt


def test_elo_interval_is_finite_for_any_sample():
    e = elo_estimate([1.0] * 200)
    assert e["score"] == 1.0 and math.isfinite(e["difference"]) and e["low"] < e["difference"] < e["high"]
    assert (e["difference"], e["low"], e["high"]) == (921.3, 579.1, 1263.5)  # as the elo module docstring says
    e = elo_estimate([0.0] * 50)
    assert e["high"] < 0 and math.isfinite(e["low"])
    assert elo_estimate([0.5] * 10)["difference"] == 0.0
    assert elo_estimate([])["difference"] is None


@given(st.lists(st.sampled_from([0.0, 0.5, 1.0, 1 / 3, 2 / 3]), min_size=1, max_size=60))
@settings(max_examples=60, deadline=None)
def test_elo_never_infinite_and_order_free(units):
    e = elo_estimate(units)
    assert all(math.isfinite(e[k]) for k in ("difference", "low", "high"))
    assert e["low"] <= e["difference"] <= e["high"]
    shuffled = list(units)
    random.Random(1).shuffle(shuffled)
    assert elo_estimate(shuffled) == e


def test_elo_scale_roundtrip():
    for d in (-300.0, -5.0, 0.0, 35.0, 400.0):
        assert score_to_elo(elo_to_score(d)) == pytest.approx(d)
    with pytest.raises(ValueError):
        score_to_elo(1.0)


def test_pairs_use_the_pentanomial_variance_which_is_tighter():
    # 40 duplicate pairs where the deal decides most games: each pair 1 + 0 (mean 1/2) or 1 + 1.
    pairs = [0.5] * 30 + [1.0] * 10
    games = []
    for p in pairs:
        games += [1.0, 0.0] if p == 0.5 else [1.0, 1.0]
    by_pair = elo_estimate(pairs, unit="pair")
    by_game = elo_estimate(games)
    assert pentanomial(pairs) == [0, 0, 30, 0, 10]
    assert by_pair["high"] - by_pair["low"] < by_game["high"] - by_game["low"]
    assert pentanomial([1 / 3]) is None

    stats = MatchStats([("a", "x"), ("b", "y")], group=2)
    for i, p in enumerate(pairs):
        first = [1.0, 0.0] if p == 0.5 else [1.0, 1.0]
        for g in range(2):
            stats.add_game([0, 1] if g == 0 else [1, 0], [first[g], 1 - first[g]] if g == 0 else [1 - first[g], first[g]],
                           [], index=2 * i + g, deal=100 + i)
    elo = stats.elo()
    assert elo["unit"] == "pair" and elo["units"] == 40 and elo["pentanomial"] == [0, 0, 30, 0, 10]
    assert "over 40 pairs (80 games)" in elo_line(stats)


# Reference figures: fastchess (github.com/Disservin/fastchess), app/tests/sprt_test.cpp, the
# "logistic" model (GSPRT with the expectation statistic, as fishtest's LLR_logistic in
# server/fishtest/stats/LLRcalc.py). fastchess checks them to 1% (doctest Approx epsilon 0.01);
# we check to the two decimals they are published with. Stats(wins, losses, draws) and, for
# pairs, Stats(LL, LD, WL, DD, WD, WW).
TRINOMIAL_REFERENCES = [
    # (wins, losses, draws, elo0, elo1, LLR)
    (21404, 21184, 40708, 0.5, 2.5, -1.57),
    (57433, 57030, 106593, 0.0, 2.0, -2.59),
]
PENTANOMIAL_REFERENCES = [
    # (LL, LD, WL, DD, WD, WW, elo0, elo1, LLR)
    (223, 9863, 20279, 1000, 10037, 246, 0.5, 2.5, -3.07),
    (871, 26175, 55003, 980, 26678, 821, 0.0, 2.0, -4.98),
]


@pytest.mark.parametrize("w,lost,d,elo0,elo1,expected", TRINOMIAL_REFERENCES)
def test_llr_trinomial_matches_fastchess(w, lost, d, elo0, elo1, expected):
    assert llr({1.0: w, 0.0: lost, 0.5: d}, elo0, elo1) == pytest.approx(expected, abs=0.005)


@pytest.mark.parametrize("ll,ld,wl,dd,wd,ww,elo0,elo1,expected", PENTANOMIAL_REFERENCES)
def test_llr_pentanomial_matches_fastchess(ll, ld, wl, dd, wd, ww, elo0, elo1, expected):
    counts = {0.0: ll, 0.25: ld, 0.5: wl + dd, 0.75: wd, 1.0: ww}
    assert llr(counts, elo0, elo1, group=2) == pytest.approx(expected, abs=0.005)


def test_sprt_bounds_and_decisions():
    spec = parse_sprt("elo0=0,elo1=5")
    assert (spec.alpha, spec.beta) == (0.05, 0.05)
    assert spec.upper == pytest.approx(math.log(19)) and spec.lower == pytest.approx(-math.log(19))
    state = SprtState(parse_sprt("elo0=0, elo1=50, alpha=0.1, beta=0.2"))
    for _ in range(200):
        if state.add(1.0):
            break
    assert state.result == "H1" and state.llr >= state.spec.upper and state.decided_at == state.units
    assert "H1 accepted" in state.line() and "undecided" not in state.line()
    undecided = SprtState(SprtSpec(0, 5))
    undecided.add_all([1.0, 0.0] * 5)  # stopped by --games with LLR between the bounds
    assert undecided.result is None and undecided.line().endswith(", 10 games: undecided")
    state = SprtState(SprtSpec(0, 50))
    state.add_all([0.0, 0.5] * 100)
    assert state.result == "H0"
    assert llr({}, 0, 5) == 0.0


@pytest.mark.parametrize("text,message", [
    ("elo0=0", "elo1 is missing"),
    ("elo0=5,elo1=0", "must be less than elo1"),
    ("elo0=0,elo1=5,alpha=1.5", "alpha must be between 0 and 1"),
    ("elo0=0,elo1=5,gamma=1", "unknown key 'gamma'"),
    ("elo0=zero,elo1=5", "elo0='zero' is not a number"),
    ("elo0=0,elo1=5,alpha=0.6,beta=0.5", "alpha \\+ beta must be less than 1"),
    ("elo0 0", "is not KEY=VALUE"),
])
def test_sprt_bad_specs_are_named(text, message):
    with pytest.raises(ValueError, match=message):
        parse_sprt(text)


def test_plackett_luce_ratings_from_rankings():
    pytest.importorskip("openskill")
    stats = MatchStats([("strong", "a"), ("middle", "b"), ("weak", "c")], lower_is_better=True)
    rng = random.Random(5)
    for i in range(60):
        seats = [0, 1, 2]
        rng.shuffle(seats)
        winner = 0 if rng.random() < 0.6 else 1 if rng.random() < 0.7 else 2
        points = [1.0 if b == winner else 0.0 for b in seats]
        scores = [{0: 10.0, 1: 20.0, 2: 30.0}[b] + (0 if b == winner else 5) for b in seats]
        stats.add_game(seats, points, [], scores, index=i)
    ratings = stats.ratings()
    by = {r["name"]: r for r in ratings}
    assert by["strong"]["ordinal"] > by["middle"]["ordinal"] > by["weak"]["ordinal"]
    assert by["strong"]["elo"] == 0.0 and by["weak"]["elo"] < by["middle"]["elo"] < 0
    assert all(r["elo_low"] <= r["elo"] <= r["elo_high"] for r in ratings)
    assert by["middle"]["ordinal"] == pytest.approx(by["middle"]["mu"] - 3 * by["middle"]["sigma"], abs=0.01)
    # The order of arrival does not matter: ratings follow the schedule's index.
    again = MatchStats([("strong", "a"), ("middle", "b"), ("weak", "c")], lower_is_better=True)
    for rec in reversed(stats.records):
        again.add_game(rec[1], rec[2], [], rec[3], index=rec[0])
    assert again.ratings() == ratings


def test_results_table_drops_repeated_columns_and_says_which_way_is_better():
    stats = MatchStats([("a", "x"), ("b", "y")])
    stats.add_game([0, 1], [1.0, 0.0], [], [10.0, 40.0])
    stats.add_game([1, 0], [0.0, 1.0], [], [50.0, 12.0])
    out = Console(file=io.StringIO(), width=120, color_system=None)
    print_results(out, stats, "quinze")
    text = out.file.getvalue()
    assert "Wins" not in text and "Win rate" not in text and "Points" in text and "Score" in text
    assert "lower is better" in " ".join(text.split())
    # A shared point (a tie) makes Wins differ from Points: the column is back.
    stats.add_game([0, 1], [0.5, 0.5], [], [20.0, 20.0])
    out = Console(file=io.StringIO(), width=120, color_system=None)
    print_results(out, stats, "quinze-classique")
    text = out.file.getvalue()
    assert "Wins" in text and "Win rate" in text and "higher is better" in " ".join(text.split())
