"""CLI commands over the engines: legal, selfplay, bench, rules (typer CliRunner, real files)."""

from __future__ import annotations

import json
import sys

import pytest
from typer.testing import CliRunner

from quinze_cli.app import app
from quinze_helpers import position

runner = CliRunner()


def write(tmp_path, data, name="pos.json"):
    p = tmp_path / name
    p.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return str(p)


def test_legal_prints_sorted_json_lines(tmp_path):
    path = write(tmp_path, position(["7S 8S 6D 9D KD", "4D 5D"]))
    out = runner.invoke(app, ["legal", path])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    actions = [json.loads(line) for line in lines]
    assert lines == sorted(lines)
    assert {"type": "fifteen", "hand": ["8S", "7S"], "table": []} in actions
    assert {"type": "fifteen", "hand": ["9D", "6D"], "table": []} in actions
    assert all(a["type"] == "fifteen" for a in actions)


def test_legal_in_the_place_phase(tmp_path):
    path = write(tmp_path, position(["KS KH QD", "4D 5D"]))
    out = runner.invoke(app, ["legal", path])
    assert out.exit_code == 0
    actions = [json.loads(line) for line in out.output.splitlines()]
    assert {"type": "place", "cards": ["KS", "KH"]} in actions
    assert {"type": "place", "cards": ["QD"]} in actions
    assert len(actions) == 3


@pytest.mark.parametrize(
    "content,needle",
    [
        ("{not json", "not JSON"),
        ("[1, 2]", "JSON object"),
        (json.dumps({"options": {}}), "game"),
        (json.dumps({"game": "belote"}), "no game"),
    ],
)
def test_legal_bad_files_exit_1_without_traceback(tmp_path, content, needle):
    out = runner.invoke(app, ["legal", write(tmp_path, content)])
    assert out.exit_code == 1
    assert "error:" in out.output and needle in out.output
    assert "Traceback" not in out.output


def test_legal_bad_position_names_the_field(tmp_path):
    data = position(["7S 8S KD", "4D 5D"])
    data["hands"][1][0] = "4X"
    out = runner.invoke(app, ["legal", write(tmp_path, data)])
    assert out.exit_code == 1 and "hands[1][0]" in out.output


def test_legal_missing_file(tmp_path):
    out = runner.invoke(app, ["legal", str(tmp_path / "nope.json")])
    assert out.exit_code == 1 and "cannot read" in out.output


def test_selfplay_json_summary():
    out = runner.invoke(app, ["selfplay", "--games", "6", "--seed", "4", "--players", "3",
                              "--bot", "greedy", "--bot", "random", "--bot", "random",
                              "--option", "quick_place=true", "--option", "target=50", "--json"])
    assert out.exit_code == 0, out.output
    s = json.loads(out.output)
    assert s["games"] == 6 and s["bots"] == ["greedy", "random", "random"]
    assert abs(sum(s["points"]) - 6) < 1e-9
    assert s["options"]["quick_place"] is True and s["options"]["target"] == 50
    assert s["stats"]["deals"] >= 6 and s["reasons"] == {"target": 6}
    again = runner.invoke(app, ["selfplay", "--games", "6", "--seed", "4", "--players", "3",
                                "--bot", "greedy", "--bot", "random", "--bot", "random",
                                "--option", "quick_place=true", "--option", "target=50", "--json"])
    t = json.loads(again.output)
    assert (t["points"], t["stats"], t["decisions"]) == (s["points"], s["stats"], s["decisions"])


def test_selfplay_rich_summary():
    out = runner.invoke(app, ["selfplay", "--games", "3"])
    assert out.exit_code == 0, out.output
    assert "wins (points)" in out.output and "mean turns per deal" in out.output


@pytest.mark.parametrize(
    "args,code,needle",
    [
        (["--option", "target"], 2, "KEY=VALUE"),
        (["--option", "target=0"], 1, "target"),
        (["--option", "colour=red"], 1, "colour"),
        (["--bot", "genius"], 1, "genius"),
        (["--players", "9"], 1, "players"),
        (["--players", "3", "--bot", "random", "--bot", "random"], 1, "bot"),
        (["--game", "belote"], 1, "belote"),
    ],
)
def test_selfplay_bad_input(args, code, needle):
    out = runner.invoke(app, ["selfplay", "--games", "1", *args])
    assert out.exit_code == code, out.output
    assert needle in out.output and "Traceback" not in out.output


@pytest.fixture
def tenth_budgets(monkeypatch):
    """The timed engine figures of ``bench --quick`` at a tenth of their seconds (0.02 s per
    self-play figure, 0.03 s per search figure, each still at least one whole game or decision):
    these tests check the figures' shape and the table, not their size, and the four runs of
    the engine section cost about 13 s of CPU at --quick's own budgets."""
    from quinze_cli.bench import engine, search

    for module, name in ((engine, "decision_us"), (search, "playout_rate"), (search, "mcts_rate")):
        timed = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *a, seconds, _timed=timed, **kw: _timed(*a, seconds=seconds / 10, **kw))
    interleaved = engine.self_play_us
    monkeypatch.setattr(engine, "self_play_us", lambda *a, seconds, warmup, _timed=interleaved, **kw:
                        _timed(*a, seconds=seconds / 10, warmup=warmup / 10, **kw))


def test_bench_quick_json(tenth_budgets):
    out = runner.invoke(app, ["bench", "--quick", "--json"])
    assert out.exit_code == 0, out.output
    fig = json.loads(out.stdout)["engine"]  # stderr carries the how-long note
    assert "took" not in out.stdout
    assert out.stderr.startswith("quinze bench: the engine, server and match sections (--quick: smaller budgets, rough figures)")
    assert [line.split(" took ")[0] for line in out.stderr.splitlines() if " took " in line] == [
        f"bench: the {name} section" for name in ("engine", "server", "match")]  # each section's time, in order
    games = {d["game"] for d in fig["decision"]}
    assert "quinze" in games
    q = next(d for d in fig["decision"] if d["game"] == "quinze")
    assert q["decisions"] > 0 and q["us_per_decision"] > 0
    assert fig["legal_p99"]["positions"] > 0 and fig["legal_p99"]["p99_us"] >= fig["legal_p99"]["p50_us"]
    assert fig["adversarial"]["legal"] > 1000
    assert fig["largest_legal"]["largest"] >= 1
    # no absolute target: without --anchor nothing is marked met or not
    assert "targets" not in fig and "met" not in q and "anchor" not in fig
    # copy() + playouts and the search bot's speed, per game
    assert {p["game"] for p in fig["playouts"]} == games and all(p["playouts_per_s"] > 0 for p in fig["playouts"])
    assert {m["game"] for m in fig["mcts"]} == games and all(m["iterations_per_s"] > 0 for m in fig["mcts"])


def test_bench_anchor_gives_ratios_measured_in_the_same_run(tmp_path, tenth_budgets):
    """--anchor runs a reference program (here a stand-in printing fixed figures, so no test
    depends on the real anchor) and each game's µs per decision becomes a ratio to it."""
    fake = tmp_path / "anchor.py"
    fake.write_text("import json, sys\nassert '--json' in sys.argv\n"
                    "print(json.dumps({'rlcard_uno_us_per_decision': 1000.0, 'openspiel_crazy_eights_us_per_decision': None}))\n")
    out = runner.invoke(app, ["bench", "--quick", "--only", "engine", "--json", "--anchor", f"{sys.executable} {fake}"])
    assert out.exit_code == 0, out.output
    fig = json.loads(out.stdout)["engine"]
    assert fig["anchor"]["rlcard_uno_us_per_decision"] == 1000.0
    for d in fig["decision"]:
        assert d["uno_ratio"] == round(d["us_per_decision"] / 1000.0, 3)
        assert d["target_uno_ratio"] == 1.0 and d["met"] is (d["uno_ratio"] <= 1.0)
        assert "openspiel_ratio" not in d
    table = runner.invoke(app, ["bench", "--quick", "--only", "engine", "--anchor", f"{sys.executable} {fake}"])
    assert table.exit_code == 0, table.output
    assert "x RLCard UNO" in table.stdout
    bad = runner.invoke(app, ["bench", "--quick", "--only", "engine", "--anchor", str(tmp_path / "missing")])
    assert bad.exit_code == 2 and "--anchor" in bad.output


def test_bench_tables_have_a_met_column(tenth_budgets):
    out = runner.invoke(app, ["bench", "--quick", "--only", "engine"])
    assert out.exit_code == 0, out.output
    header = next(line for line in out.stdout.splitlines() if "figure" in line)
    assert header.split()[-2:] == ["met", "┃"]
    assert "mcts iterations/s" in out.stdout and "playouts/s" in out.stdout
    assert out.stderr.startswith("quinze bench: the engine section (--quick")  # the note
    assert "bench: the engine section took " in out.stderr and "met" not in out.stderr  # no spinner off a terminal


def test_rules_quinze():
    out = runner.invoke(app, ["rules", "quinze"])
    assert out.exit_code == 0
    assert "Le Quinze" in out.output and "fifteen" in out.output and "-50" in out.output.replace("−", "-")


@pytest.mark.parametrize("game_id", ["quinze", "quatorze", "quinze-classique"])
@pytest.mark.parametrize("bad", [2, 0, "1", True])
def test_legal_refuses_a_format_other_than_1(tmp_path, game_id, bad):
    """docs/positions.md: every position is format 1; another is an error naming the field."""
    from quinze_protocol.game import get_game

    cls = get_game(game_id)
    data = cls.new(cls.validate_options({}), 3).to_position()
    assert data["format"] == 1
    good = runner.invoke(app, ["legal", write(tmp_path, data, "good.json")])
    assert good.exit_code == 0 and good.stdout.strip(), good.output
    out = runner.invoke(app, ["legal", write(tmp_path, {**data, "format": bad})])
    assert out.exit_code == 1, out.output
    assert out.output.startswith("error: ") and "format" in out.output and "Traceback" not in out.output


def test_legal_reads_the_position_from_stdin(tmp_path):
    data = position(["7S 8S 6D 9D KD", "4D 5D"])
    from_file = runner.invoke(app, ["legal", write(tmp_path, data)])
    from_stdin = runner.invoke(app, ["legal", "-"], input=json.dumps(data))
    assert from_stdin.exit_code == 0, from_stdin.output
    assert from_stdin.stdout == from_file.stdout and from_stdin.stdout.strip()
    bad = runner.invoke(app, ["legal", "-"], input="{not json")
    assert bad.exit_code == 1 and bad.output.startswith("error: <stdin> is not JSON")


@pytest.mark.parametrize("game_id", ["quatorze", "quinze-classique"])
@pytest.mark.parametrize("bad", [2, True, "1"])
def test_position_modules_check_the_format_themselves(game_id, bad):
    from quinze_protocol.game import GameError, get_game

    cls = get_game(game_id)
    data = cls.new(cls.validate_options({}), 3).to_position()
    with pytest.raises(GameError) as err:
        cls.from_position({**data, "format": bad})
    assert err.value.field == "format"


def test_version_and_an_unknown_game_named_once():
    from typer.testing import CliRunner

    from quinze_cli.app import app

    runner = CliRunner()
    got = runner.invoke(app, ["--version"])
    assert got.exit_code == 0 and got.output.startswith("quinze 0.1.0 (protocol 1)")
    got = runner.invoke(app, ["selfplay", "--game", "nope", "--games", "1"])
    assert got.exit_code == 1
    text = got.output + (got.stderr if got.stderr_bytes is not None else "")
    assert "no game 'nope'" in text and "game: game" not in text


def test_the_self_play_figures_are_interleaved_after_a_warm_up():
    """The three self-play figures come from one interleaved run: each variant played whole
    chunks of games of its own, after at least one untimed game."""
    from quinze_cli.bench.engine import self_play_us

    d = self_play_us("quatorze", seconds=0.01, warmup=0.0, chunk=2)
    assert d["interleaved"] and d["by_index"] and d["warmup_games"] >= 1
    assert d["games"] % 2 == 0 and d["games"] >= 2 and d["decisions"] > d["games"]
    for key in ("us_per_decision", "quiet_us_per_decision", "listing_us_per_decision", "warmup_us_per_decision"):
        assert d[key] > 0, key
