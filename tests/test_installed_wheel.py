"""README's plain install (``pip install .``: a wheel in site-packages, no source checkout beside it)
runs the load bench: its server process loads the installed ``quinze_server`` and
``quinze_protocol`` (quinze_cli/bench/load_server.py, ``tree_layout``), not a checkout's
``server/`` folder that site-packages does not have.

The wheel is built from a copy of the sources in ``tmp_path`` (a build in the checkout would leave
``build/`` there, shared with other runs), as pip builds it (in an isolated environment with the
setuptools pyproject.toml asks for, from the configured index) and installed without its dependencies in a fresh venv
outside the checkout; the dependencies come from this test's own environment through a path file
(``sys.path`` only: that environment's editable-install hooks, in its own path files, are not run,
so every ``quinze_*`` module is the wheel's). .ci/run installs the wheel with its dependencies
from the index and runs ``quinze bench --only load --quick`` with it too.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("pyproject.toml", "README.md", "protocol", "server", "quinze_cli")


def _installed(tmp_path: Path) -> Path:
    """A venv in ``tmp_path`` holding the wheel of this checkout; its ``bin`` folder."""
    src = tmp_path / "src"
    src.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy2(ROOT / name, src / name)
    wheels = tmp_path / "wheel"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(src)],
                   check=True, capture_output=True, timeout=120)
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    purelib = Path(sysconfig.get_path("purelib", vars={"base": str(env_dir), "platbase": str(env_dir)}))
    purelib.mkdir(parents=True, exist_ok=True)
    # Dependencies (trio, msgpack, typer...) from this environment, after the wheel's own folder.
    (purelib / "zz_test_dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    wheel = next(wheels.glob("quinze-*.whl"))
    subprocess.run([sys.executable, "-m", "pip", "--python", str(env_dir / "bin" / "python"), "install", "-q",
                    "--no-deps", "--no-index", str(wheel)], check=True, capture_output=True, timeout=120)
    return env_dir / "bin"


def test_the_load_bench_runs_from_an_installed_wheel_outside_the_checkout(tmp_path: Path) -> None:
    bin_dir = _installed(tmp_path)
    where = subprocess.run([str(bin_dir / "python"), "-c", "import quinze_cli, quinze_server; "
                            "print(quinze_cli.__file__); print(quinze_server.__file__)"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=60, check=True)
    site = tmp_path / "venv"
    assert all(Path(p).is_relative_to(site) for p in where.stdout.split()), where.stdout  # the wheel's, not the checkout's
    # The smallest load run the CLI allows: one size, one round, no reference server.
    run = subprocess.run([str(bin_dir / "quinze"), "bench", "--json", "--only", "load", "--quick", "--load-sizes", "2/4",
                          "--load-duration", "0.3", "--load-rounds", "1", "--load-no-reference"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stderr[-3000:]
    load = json.loads(run.stdout)["load"]
    assert Path(load["tree"]).is_relative_to(site) and (Path(load["tree"]) / "quinze_server" / "app.py").is_file()
    (size,) = load["sizes"]
    assert size["tables"] == 2 and size["actions"] > 0 and size["errors"] == 0, size["first_errors"]
    # --load-tree names both layouts it takes when a folder has neither.
    bad = subprocess.run([str(bin_dir / "quinze"), "bench", "--only", "load", "--load-tree", str(tmp_path)],
                         cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "quinze_server/app.py" in bad.stderr + bad.stdout
