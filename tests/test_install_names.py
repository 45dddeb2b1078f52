"""The installed import names (pyproject.toml ``[tool.setuptools]``): the folders ``protocol/`` and
``server/`` install as ``quinze_protocol`` and ``quinze_server``, never as bare ``protocol`` and
``server`` packages that another project's would overwrite, and one process never loads two copies
of a package (and so of the game registry) through a bare import from the repository root."""

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {"quinze_protocol": "protocol", "quinze_server": "server", "quinze_cli": "quinze_cli"}


def test_pyproject_lists_every_package_under_its_installed_name():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert config["package-dir"] == FOLDERS
    found = set()
    for name, folder in FOLDERS.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / folder)
            found.add(".".join((name, *relative.parts)))
    assert set(config["packages"]) == found


def _bare_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        bad += [f"{path.relative_to(ROOT)}:{node.lineno} {n}" for n in names if n.split(".")[0] in ("protocol", "server")]
    return bad


def test_no_source_file_imports_a_bare_folder_name():
    files = [p for folder in ("protocol", "server", "quinze_cli", "tests", "examples") for p in (ROOT / folder).rglob("*.py")]
    assert len(files) > 100
    assert [b for p in files for b in _bare_imports(p)] == []


def test_importing_a_folder_by_its_bare_name_fails_and_says_what_to_import():
    for bare, installed in (("protocol", "quinze_protocol"), ("server", "quinze_server")):
        run = subprocess.run([sys.executable, "-c", f"import {installed}, {bare}"], cwd=ROOT,
                             capture_output=True, text=True)
        assert run.returncode == 1
        assert f"import {installed}, not '{bare}'" in run.stderr


WALK = """
import importlib, pkgutil, sys
import quinze_cli, quinze_protocol, quinze_server
for package in (quinze_protocol, quinze_server, quinze_cli):
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        importlib.import_module(info.name)
from quinze_protocol.game import get_game
for game in ("quinze", "quinze-classique", "quatorze"):
    get_game(game)
stray = sorted(m for m in sys.modules if m.split(".")[0] in ("protocol", "server"))
print(len([m for m in sys.modules if m.startswith("quinze_")]), stray)
"""


def test_every_module_imports_from_the_repository_root_without_a_bare_copy():
    # The repository root is on sys.path here (cwd), exactly where a stray bare import would find the folder.
    run = subprocess.run([sys.executable, "-c", WALK], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    count, stray = run.stdout.split(" ", 1)
    assert int(count) > 80
    assert stray.strip() == "[]"
