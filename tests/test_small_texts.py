"""Small texts that must say the truth: what ``hint`` is (the docs, both catalogues and the bot
behind it agree), and the endings of ``play --local`` and ``replay``. Real games (the engine),
the real CLI in this process (tests/clikit.py) or under a pty where the terminal matters (a ``quinze``
forked from the suite's zygote, tests/forkkit.py: a real process, without an interpreter's start)."""

from __future__ import annotations

import json
import re
import signal
from pathlib import Path

import forkkit
import pytest

from quinze_protocol.game import get_bot, get_game
from quinze_protocol.rng import Rng
from quinze_cli.i18n import Catalogue
from quinze_cli.play.cards_ui import CardStyle
from quinze_cli.play.registry import HINT_BOT, TableState, get_ui

ROOT = Path(__file__).resolve().parent.parent
GAMES = ["quinze", "quinze-classique", "quatorze"]


def _concrete(entry: dict) -> dict:
    if "min" in entry and "max" in entry:
        return {**{k: v for k, v in entry.items() if k not in ("min", "max")}, "amount": entry["min"]}
    return entry


@pytest.mark.parametrize("game_id", GAMES)
def test_the_hint_is_what_the_search_bot_plays(game_id: str) -> None:
    """At several points of a real game, the client's hint is the search bot's (mcts@150) choice
    from what the seat sees, the bot the texts name."""
    cls = get_game(game_id)
    game = cls.new(cls.validate_options({"players": 2}), 7)
    rng = Rng(3)
    ui = get_ui(game_id, Catalogue("en"), CardStyle("en", False))
    asked = 0
    while not game.is_over and asked < 3:
        seat = game.to_act
        legal = game.legal_data()
        if rng.below(3) == 0 or len(legal) > 1:
            state = TableState(table="t1", game=game_id, options=game.options, view=game.view(seat), legal=legal)
            entries = [cls.parse_action(a) for a in ui.hint_entries(state)]
            assert ui.hint(state) == get_bot(game_id, HINT_BOT, 0).choose(state.view, entries).to_data()
            asked += 1
        game.apply(_concrete(rng.choice(legal)))
    assert asked == 3
    assert HINT_BOT.startswith("mcts@")


def test_every_text_about_hint_names_the_search_bot() -> None:
    docs = (ROOT / "docs" / "play.md").read_text(encoding="utf-8")
    assert "`hint` (what the search bot" in docs and "150 iterations" in docs and HINT_BOT == "mcts@150"
    for lang, words in (("en", "the search bot"), ("fr", "le robot de recherche")):
        cat = json.loads((ROOT / "quinze_cli" / "locale" / f"{lang}.json").read_text(encoding="utf-8"))
        assert words in cat["table.hint"] and words in cat["help.2"], lang
        assert "built-in" not in cat["table.hint"] + cat["help.2"] and "intégré" not in cat["table.hint"] + cat["help.2"]


BAD_LOCAL = [  # every way the game or its options can be wrong, each named in the one error line
    (["--game", "nope"], "--game: no game 'nope'"),
    (["-o", "target=abc"], "--option: target: expects a whole number"),
    (["-o", "nosuch=1"], "--option: nosuch: unknown option"),
    (["-o", "players=9"], "--option: players:"),
    (["-o", "players=x"], "--option: players:"),
    (["--game", "quinze-classique", "-o", "target=5"], "--option: target: unknown option"),
    (["-o", "target"], "--option 'target': expected KEY=VALUE"),
]


@pytest.mark.parametrize(("args", "named"), BAD_LOCAL, ids=[" ".join(a) for a, _ in BAD_LOCAL])
def test_a_bad_game_or_option_of_play_local_is_a_usage_error(tmp_path: Path, args: list[str], named: str) -> None:
    from clikit import quinze

    done = quinze("play", "--local", *args, cwd=tmp_path)
    assert done.returncode == 2, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and named in lines[0], done.stderr
    assert not (tmp_path / "logs").exists()  # nothing started


SEED_LINES = {  # lang: (the line when a log is kept, the line with --no-log)
    "en": ("(check the commitment with a replay)", "(no replay log kept: --no-log)"),
    "fr": ("(vérifiable avec un rejeu)", "(aucun journal de rejeu gardé : --no-log)"),
}


@pytest.mark.parametrize(("lang", "no_log"), [("en", True), ("fr", True), ("en", False)])
def test_the_seed_line_sends_to_a_replay_only_when_a_log_is_kept(env, tmp_path: Path, lang: str, no_log: bool) -> None:
    """A whole ``--local`` game in a terminal: the game-over's seed line points to a replay only
    when there is a replay log to check it with."""
    import pexpect
    from playkit import QUINZE, TIMEOUT, move_prompts, plain

    args = ["play", "--local", "--name", "Ana", "--seed", "3", "-o", "target=1", "--lang", lang]
    child = forkkit.spawn(QUINZE, args + (["--no-log"] if no_log else []), env=env, cwd=str(tmp_path),
                          encoding="utf-8", timeout=TIMEOUT, dimensions=(24, 80))
    out = []
    for _ in move_prompts(child, 400):
        out.append(child.before)
        child.sendline("1")
    out.append(child.before + str(child.after))  # up to the table's closing line
    child.expect(pexpect.EOF)
    child.close()
    text = " ".join(plain("".join(out) + child.before).split())  # the lines wrap at 80 columns
    logged, unlogged = SEED_LINES[lang]
    assert child.exitstatus == 0, text[-2000:]
    assert (unlogged if no_log else logged) in text
    assert (logged if no_log else unlogged) not in text
    assert (tmp_path / "logs").exists() is not no_log


COLOUR_SGR = re.compile(r"\x1b\[([0-9;]*)m")


def _colour_params(raw: str) -> set[str]:
    """The SGR parameters in ``raw`` that set a colour (30-49, 90-107: foreground, background, 256
    and true colours), leaving out styles (bold 1, dim 2, ...) and resets."""
    found = set()
    for m in COLOUR_SGR.finditer(raw):
        for p in m.group(1).split(";"):
            if p.isdigit() and (30 <= int(p) <= 49 or 90 <= int(p) <= 107):
                found.add(p)
    return found


@pytest.mark.parametrize("game_id", GAMES)
def test_replay_step_sends_no_colour_with_no_color(env, tmp_path: Path, game_id: str) -> None:
    """no-color.org asks that NO_COLOR prevent ANSI colour (bold and dim are styles it leaves
    alone, as rich does): at every screen of several steps, NO_COLOR gives no colour code, and
    the same steps without it do (so the check can fail)."""
    import pexpect
    from clikit import quinze
    from playkit import QUINZE, TIMEOUT

    done = quinze("match", "builtin:random", "builtin:random", "--game", game_id, "--games", "1", "--seed", "5",
                  "--log-dir", "logs", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    log = str(next((tmp_path / "logs").glob("match-*.jsonl")))
    seen = {}
    for no_color in (True, False):
        run_env = {k: v for k, v in env.items() if k != "NO_COLOR"} | {"TERM": "xterm-256color"}
        if no_color:
            run_env["NO_COLOR"] = "1"
        child = forkkit.spawn(QUINZE, ["replay", log, "--game", "1", "--step"], env=run_env, encoding="utf-8",
                              timeout=TIMEOUT, dimensions=(24, 80))
        raw = []
        for n, key in ((1, ""), (2, "l"), (3, "l"), (1, "\x1b[H")):  # start, two steps, Home
            if key:
                child.send(key)
            child.expect(rf"before action {n}/")
            raw.append(child.before + child.after)
        child.send("d")  # the next deal or coup: another board
        child.send("q")
        child.expect(pexpect.EOF)
        child.close()
        raw.append(child.before)
        seen[no_color] = _colour_params("".join(raw))
        assert child.exitstatus == 0
    assert seen[True] == set(), seen
    assert seen[False], "without NO_COLOR the viewer draws in colour (the check above means something)"


def test_ctrl_c_during_replay_verify_says_how_many_games_were_checked(env, tmp_path: Path) -> None:
    """Ctrl-C typed in the terminal while ``--verify`` runs through a long log: the games checked
    so far keep their lines, the summary counts them, stderr says how many of how many, exit 130."""
    import pexpect
    from clikit import quinze
    from playkit import QUINZE, TIMEOUT, plain

    done = quinze("match", "builtin:random", "builtin:random", "--games", "2", "--seed", "2", "--log-dir", "logs",
                  cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    two = next((tmp_path / "logs").glob("match-*.jsonl")).read_text(encoding="utf-8")
    big = tmp_path / "big.jsonl"
    big.write_text(two * 1000, encoding="utf-8")  # 2000 games: far more than are checked before the Ctrl-C
    # A command typed at a terminal runs with Ctrl-C's default action; a test run started in the
    # background of a non-interactive shell inherits SIGINT ignored, and Python keeps it ignored:
    # the command is started with this process's SIGINT at its default (forkkit gives a command
    # SIGINT as a start from here would).
    was = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        child = forkkit.spawn(QUINZE, ["replay", str(big), "--verify"], env=env, encoding="utf-8", timeout=TIMEOUT,
                              dimensions=(24, 200))
    finally:
        signal.signal(signal.SIGINT, was)
    child.expect(r"game 5: (\x1b\[[0-9;]*m)*verified")
    seen = child.before + child.after
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    text = plain(seen + child.before)
    m = re.search(r"interrupted after (\d+) of 2000 game\(s\) checked", text)
    assert m and 5 <= int(m.group(1)) < 2000, text[-500:]
    checked = int(m.group(1))
    assert f"{checked}/{checked} verified" in text  # the summary of the games checked
    assert f"game {checked}: verified" in text and f"game {checked + 1}:" not in text
    assert child.exitstatus == 130

