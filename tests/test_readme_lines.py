"""Every command line of README.md and examples/README.md that runs offline in a few seconds runs
as typed (in document order, from a copy of the repository's examples, with ``quinze`` on PATH)
and exits 0. Lines with a placeholder (README marks them: HOST, my_bot.py, LOG, ...) and the
long or interactive ones (servers, the terminal client, big matches, the viewer, tested in
test_viewer.py) are left out; the test checks that the quick ones it must run are there. A line
that a document repeats word for word (examples/README.md shows its Python match twice) runs once,
where it first appears."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PLACEHOLDERS = ("HOST", "PORT", "my_bot.py", "LOG ", "<time>", "bot_a", " ID ", "192.168.", "COMMAND")
LONG = ("quinze serve", "quinze play", "quinze bench", "quinze selfplay", "quinze tournament", "quinze sprt", "pip ", "python3 -m venv",
        "python -m pytest", "dask ", "--step", "--cluster", "quinze check-bot")


def command_lines(doc: Path) -> list[str]:
    """The lines of the ``sh`` blocks of ``doc``, comments after ``  #`` removed."""
    lines = []
    for block in re.findall(r"```sh\n(.*?)```", doc.read_text(), re.S):
        for line in block.splitlines():
            line = re.split(r"\s{2,}#", line)[0].strip()
            if line and not line.startswith("#"):
                lines.append(line)
    return lines


def runnable(line: str) -> bool:
    if any(p in line + " " for p in PLACEHOLDERS) or any(word in line for word in LONG):
        return False
    if line.startswith("quinze match"):
        games = re.search(r"--games (\d+)", line)
        return games is not None and int(games.group(1)) <= 10 and ("node " not in line or shutil.which("node"))
    if line.startswith("cargo") and shutil.which("cargo") is None and not (Path.home() / ".cargo" / "bin" / "cargo").exists():
        return False
    return True


@pytest.mark.parametrize("doc", ["README.md", "examples/README.md"])
def test_every_quick_readme_line_runs_as_typed(doc: str, tmp_path: Path) -> None:
    lines = list(dict.fromkeys(line for line in command_lines(ROOT / doc) if runnable(line)))  # a repeated line runs once
    wanted = {"README.md": ["quinze legal examples/positions/", "--position | quinze legal -", "quinze rules"],
              "examples/README.md": ["quinze legal before-12.json", "cc -std=c99", "quinze match ./random_bot_c"]}[doc]
    for w in wanted:
        assert any(w in line for line in lines), (w, lines)
    shutil.copytree(ROOT / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns("target"))
    env = dict(os.environ)
    path = [str(Path(sys.executable).parent)]
    cargo_home = Path.home() / ".cargo" / "bin"
    if cargo_home.is_dir():
        path.append(str(cargo_home))
    env["PATH"] = os.pathsep.join(path + [env.get("PATH", "")])
    for line in lines:
        done = subprocess.run(["bash", "-o", "pipefail", "-c", line], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, f"{doc}: {line!r} failed:\n{done.stderr[-2000:]}"
        assert "error" not in done.stderr.lower(), (line, done.stderr[-2000:])


def test_cargo_is_found_for_the_rust_line() -> None:
    if shutil.which("cargo") is None and not (Path.home() / ".cargo" / "bin" / "cargo").exists():
        pytest.skip("cargo is not on PATH nor in ~/.cargo/bin")
