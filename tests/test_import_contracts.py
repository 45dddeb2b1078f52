"""The import-linter contracts (pyproject.toml ``[tool.importlinter]``, run by ``.ci/run`` as
``lint-imports``) stay complete as the tree grows: the contract that keeps quinze_cli out of a
game's private modules names every module of ``protocol/games/`` except the engine modules,
which ``quinze_protocol.games`` imports to register the games (their public entry points)."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _contract(name_start: str) -> dict:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    found = [c for c in config["contracts"] if c["name"].startswith(name_start)]
    assert len(found) == 1, [c["name"] for c in config["contracts"]]
    return found[0]


def _engine_modules() -> set[str]:
    """The modules ``protocol/games/__init__.py`` imports from ``quinze_protocol.games``."""
    tree = ast.parse((ROOT / "protocol" / "games" / "__init__.py").read_text())
    return {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
            and node.module == "quinze_protocol.games" for alias in node.names}


def test_every_private_game_module_is_forbidden_to_quinze_cli() -> None:
    contract = _contract("quinze_cli uses a game through its engine module")
    assert contract["type"] == "forbidden" and contract["source_modules"] == ["quinze_cli"]
    engines = _engine_modules()
    assert {"quinze", "quatorze", "classique"} <= engines
    modules = {p.stem for p in (ROOT / "protocol" / "games").glob("*.py")} - {"__init__"}
    private = {f"quinze_protocol.games.{m}" for m in modules - engines}
    assert set(contract["forbidden_modules"]) == private


def test_the_layers_and_the_commands_have_their_contracts() -> None:
    layers = _contract("layers:")
    assert layers["type"] == "layers" and layers["layers"] == ["quinze_cli", "quinze_server", "quinze_protocol"]
    commands = _contract("no command module imports another command")
    assert commands["type"] == "independence" and commands["modules"] == ["quinze_cli.commands.*"]
