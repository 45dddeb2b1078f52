"""The C and Rust example bots and the smallest Python bot of examples/README.md: built with the
machine's compilers (gcc, cargo offline), then played as real subprocesses, both directly
against the engines (every answer checked legal, as in test_examples.py) and through
``quinze match`` against the server."""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from test_examples import RANDOM_PY, play

from quinze_protocol.game import game_ids
import forkkit

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "bots"
QUINZE = str(Path(sys.executable).parent / "quinze")
GCC = shutil.which("gcc") or shutil.which("cc")


def find_cargo() -> str | None:
    """cargo on PATH, else the rustup default ``~/.cargo/bin/cargo``."""
    found = shutil.which("cargo")
    if found:
        return found
    home = Path.home() / ".cargo" / "bin" / "cargo"
    return str(home) if home.exists() else None


CARGO = find_cargo()
needs_gcc = pytest.mark.skipif(GCC is None, reason="no C compiler (gcc or cc) on PATH")
needs_cargo = pytest.mark.skipif(CARGO is None, reason="cargo is not on PATH nor in ~/.cargo/bin")


def build_c(out_dir: Path) -> Path:
    """Compile examples/bots/random_bot.c strictly (C99, warnings are errors); returns the binary."""
    binary = out_dir / "random_bot_c"
    subprocess.run([GCC, "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-O2", "-o", str(binary),
                    str(EXAMPLES / "random_bot.c")], check=True, capture_output=True, timeout=120)
    return binary


def build_rust(target_dir: Path) -> Path:
    """``cargo build --offline --release`` of examples/bots/rust into ``target_dir``; returns the binary."""
    env = dict(os.environ, CARGO_TARGET_DIR=str(target_dir))
    env["PATH"] = str(Path(CARGO).parent) + os.pathsep + env.get("PATH", "")
    done = subprocess.run([CARGO, "build", "--offline", "--release", "--manifest-path", str(EXAMPLES / "rust" / "Cargo.toml")],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    return target_dir / "release" / "random_bot"


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], Path]) -> Path:
    """``build(folder)``'s binary, built once per run of the suite: by the first test asking, in a
    folder of the run's temporary directory shared by its xdist workers (the parent of each one's
    ``basetemp``; without xdist, this process's), under a lock; the others wait and take it. A
    failed build leaves nothing, so the next test asking builds again (and fails the same way).
    The C and Rust example bots were each built twice a run (here and in tests/test_checkbot.py;
    the Rust one 1.1 s of CPU); test_readme_lines.py still builds them as README says, from a copy."""
    base = tmp_path_factory.getbasetemp()
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    shared = base.parent if worker and base.name == f"popen-{worker}" else base  # xdist's own layout, else ours
    folder, done = shared / f"built-{name}", shared / f"built-{name}.path"
    with open(shared / f"built-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.exists():
            return Path(done.read_text())
        folder.mkdir(exist_ok=True)
        binary = build(folder)
        done.write_text(str(binary))
        return binary


@pytest.fixture(scope="module")
def c_bot(tmp_path_factory) -> Path:
    if GCC is None:
        pytest.skip("no C compiler (gcc or cc) on PATH")
    return built_once(tmp_path_factory, "c-bot", build_c)


@pytest.fixture(scope="module")
def rust_bot(tmp_path_factory) -> Path:
    if CARGO is None:
        pytest.skip("cargo is not on PATH nor in ~/.cargo/bin")
    return built_once(tmp_path_factory, "rust-bot", build_rust)


def readme_bot() -> str:
    """The Python bot of examples/README.md, "The smallest complete bot" (its first python block)."""
    text = (ROOT / "examples" / "README.md").read_text()
    section = text[text.index("## The smallest complete bot"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_sources_stay_small() -> None:
    assert len((EXAMPLES / "random_bot.c").read_text().splitlines()) <= 150
    assert len((EXAMPLES / "rust" / "src" / "main.rs").read_text().splitlines()) <= 150
    assert len(readme_bot().strip().splitlines()) <= 15


@needs_gcc
@pytest.mark.parametrize("game_id", game_ids())
def test_c_bot_plays_a_whole_game_of_every_game_legally(c_bot: Path, game_id: str) -> None:
    game, played = play(game_id, [[str(c_bot), "1"], RANDOM_PY + ["2"]], seed=13)
    assert game.is_over and played


@needs_cargo
@pytest.mark.parametrize("game_id", game_ids())
def test_rust_bot_plays_a_whole_game_of_every_game_legally(rust_bot: Path, game_id: str) -> None:
    game, played = play(game_id, [RANDOM_PY + ["2"], [str(rust_bot), "1"]], seed=14)
    assert game.is_over and played


@pytest.mark.parametrize("game_id", game_ids())
def test_readme_bot_plays_a_whole_game_of_every_game_legally(tmp_path: Path, game_id: str) -> None:
    (tmp_path / "my_bot.py").write_text(readme_bot())
    game, played = play(game_id, [[sys.executable, str(tmp_path / "my_bot.py")], RANDOM_PY + ["2"]], seed=15)
    assert game.is_over and played


SHORT = {"quinze": ["--option", "target=30"]}
"""Options that shorten a game where the game has one (Le Quinze to 30 points: two or three deals,
not eight or nine): a match through the server is the subject, whole games are played above."""


def match(tmp_path: Path, game_id: str, *bots: str) -> dict:
    """``quinze match BOTS --game G --games 2`` (with :data:`SHORT`) on an embedded server; the
    results of --json."""
    done = forkkit.run([QUINZE, "match", *bots, "--game", game_id, "--games", "2", "--seed", "5",
                           "--json", "out.json", "--log-dir", "logs", *SHORT.get(game_id, [])],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr + done.stdout
    data = json.loads((tmp_path / "out.json").read_text())
    assert data["complete"] and data["failures"] == [], data
    assert [b["games"] for b in data["bots"]] == [2] * len(bots)
    return data


@needs_gcc
@needs_cargo
@pytest.mark.parametrize("game_id", game_ids())
def test_c_and_rust_bots_play_a_match_through_the_server(tmp_path: Path, c_bot: Path, rust_bot: Path, game_id: str) -> None:
    data = match(tmp_path, game_id, str(c_bot), str(rust_bot))
    assert data["played"] == 2


@pytest.mark.parametrize("game_id", game_ids())
def test_readme_bot_plays_a_match_through_the_server(tmp_path: Path, game_id: str) -> None:
    (tmp_path / "my_bot.py").write_text(readme_bot())
    match(tmp_path, game_id, f"{sys.executable} my_bot.py", "builtin:random")
