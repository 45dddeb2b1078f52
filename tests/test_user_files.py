"""Text files a user names (``match --positions``, ``tournament --positions`` and ``--config``,
``quinze legal POSITION``) are read by one helper (quinze_cli.options.read_text_file): a binary
file, a missing file or a directory is refused before anything is played, with the file's name
and what is wrong, never a codec's traceback or message."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from clikit import quinze

BINARY = b"\x80\x81\xff\x00 not text"


def _run(kind: str, what: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    logs = str(tmp_path / "logs")
    if kind == "match --positions":
        return quinze("match", "builtin:random", "builtin:greedy", "--games", "2", "--positions", str(what),
                      "--log-dir", logs)
    if kind == "tournament --positions":
        return quinze("tournament", "builtin:random", "builtin:greedy", "--games-per-pairing", "2",
                      "--positions", str(what), "--log-dir", logs)
    if kind == "tournament --config":
        return quinze("tournament", "--config", str(what), "--log-dir", logs)
    return quinze("legal", str(what))


KINDS = ["match --positions", "tournament --positions", "tournament --config", "legal"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_binary_file_is_named_and_said_not_text(kind: str, tmp_path: Path) -> None:
    path = tmp_path / "binary.data"
    path.write_bytes(BINARY)
    p = _run(kind, path, tmp_path)
    assert p.returncode in (1, 2), p.stderr
    assert f"{path} is not UTF-8 text" in p.stderr
    assert "codec" not in p.stderr and "Traceback" not in p.stderr
    assert not (tmp_path / "logs").exists() or not any((tmp_path / "logs").iterdir())


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("missing", [False, True], ids=["directory", "missing"])
def test_a_file_that_cannot_be_read_is_named_with_the_reason(kind: str, missing: bool, tmp_path: Path) -> None:
    path = tmp_path / "nothing-here" if missing else tmp_path
    p = _run(kind, path, tmp_path)
    assert p.returncode in (1, 2), p.stderr
    reason = "No such file or directory" if missing else "Is a directory"
    assert f"cannot read {path}: {reason}" in p.stderr
    assert "Traceback" not in p.stderr


def test_legal_says_standard_input_is_not_text() -> None:
    p = quinze("legal", "-", input=BINARY)
    assert p.returncode == 1
    assert p.stderr.startswith("error: <stdin> is not UTF-8 text")

