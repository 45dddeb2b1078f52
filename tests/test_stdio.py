"""Standard streams, handled once for every command (quinze_cli/stdio.py): a reader that closes
stdout early ends the command quietly with exit 141 (``quinze replay LOG | head -1``), a stream
that cannot encode French text gets it without accents, and NO_COLOR removes colour (only
colour: bold and dim stay, as rich and no-color.org have it). The pipe, encoding and terminal
are the subject here, so these start the real executable."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from quinze_cli.stdio import EXIT_BROKEN_PIPE, EXIT_OUTPUT_FAILED, guarded, plain_text, stdout_closed

ROOT = Path(__file__).resolve().parents[1]
QUINZE = str(Path(sys.executable).parent / "quinze")
LOG = str(ROOT / "examples" / "positions" / "quinze-match.jsonl")
POSITION = str(ROOT / "examples" / "positions" / "quinze-first.json")

WRITERS = [
    ["replay", LOG], ["replay", LOG, "--json"], ["replay", LOG, "--verify"], ["rules"], ["rules", "--lang", "fr"],
    ["legal", POSITION], ["selfplay", "--games", "2", "--json"], ["--version"], ["rules", "--help"],
]
"""Commands that print on stdout: rich consoles, typer.echo, print, click's help."""


@pytest.mark.parametrize("args", WRITERS, ids=lambda a: " ".join(a).replace(LOG, "LOG").replace(POSITION, "POS"))
def test_a_closed_stdout_ends_the_command_quietly_with_141(args: list[str], tmp_path: Path) -> None:
    # The reading end is closed before the command writes: its first write meets a broken pipe.
    proc = subprocess.Popen([QUINZE, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == EXIT_BROKEN_PIPE, err
    assert err == ""  # no traceback, no "Exception ignored", no error line


def test_head_reads_one_line_and_the_pipeline_says_141() -> None:
    done = subprocess.run(["bash", "-c", f'set -o pipefail; "{QUINZE}" replay "{LOG}" | head -1; echo "status $?" >&2'],
                          capture_output=True, text=True, timeout=120)
    assert done.stdout.count("\n") == 1 and "Game 1" in done.stdout
    assert done.stderr.strip() == f"status {EXIT_BROKEN_PIPE}"


def test_a_broken_pipe_that_is_not_stdouts_is_not_hidden() -> None:
    # stdout is pytest's capture (a file, open): a bot's or a peer's broken pipe is an error as before.
    assert not stdout_closed()
    with pytest.raises(BrokenPipeError), guarded(rich=False):
        raise BrokenPipeError(32, "a bot's stdin")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("args", WRITERS, ids=lambda a: " ".join(a).replace(LOG, "LOG").replace(POSITION, "POS"))
def test_a_full_disk_is_one_line_and_exit_1(args: list[str], tmp_path: Path) -> None:
    # /dev/full: every write fails with ENOSPC, as on a full disk.
    with open("/dev/full", "wb") as full:
        done = subprocess.run([QUINZE, *args], stdout=full, stderr=subprocess.PIPE, text=True, timeout=120,
                              cwd=tmp_path)
    assert done.returncode == EXIT_OUTPUT_FAILED == 1, done.stderr
    assert done.stderr == "quinze: cannot write the output: No space left on device\n"


def test_an_oserror_that_is_not_stdouts_is_not_hidden(tmp_path: Path) -> None:
    # A log file that cannot be written keeps its own error: only stdout's writes are taken for it.
    with pytest.raises(OSError, match="No space left"), guarded(rich=False):
        raise OSError(28, "No space left on device")


def test_stdout_closed_tells_a_pipe_without_reader() -> None:
    read, write = os.pipe()
    with os.fdopen(write, "w") as stream:
        assert not stdout_closed(stream)
        os.close(read)
        assert stdout_closed(stream)


@pytest.mark.parametrize(("text", "encoding", "plain"), [
    ("Règle : défausse", "ascii", "Regle : defausse"), ("« œuvre »", "ascii", '" oeuvre "'), ("7♥ ─", "ascii", "7? ?"),
    ("7♥ é", "latin-1", "7? é"), ("mu ± sigma, 2 × 3 − 1 → 5 ≤ 6", "ascii", "mu +/- sigma, 2 x 3 - 1 -> 5 <= 6"),
    ("± ×", "latin-1", "± ×"),
])
def test_text_the_stream_cannot_encode_is_written_plain(text: str, encoding: str, plain: str) -> None:
    import codecs

    assert codecs.decode(codecs.encode(text, encoding, "quinze-plain"), encoding) == plain
    with pytest.raises(UnicodeDecodeError):
        plain_text(UnicodeDecodeError("ascii", b"\xff", 0, 1, "not an encode error"))


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
@pytest.mark.parametrize("args", [["rules", "--lang", "fr"], ["rules", "--lang", "en"], ["replay", LOG, "--game", "1"],
                                  ["selfplay", "--games", "1"]], ids=lambda a: " ".join(a[:3]).replace(LOG, "LOG"))
def test_a_stream_that_is_not_utf8_gets_plain_text_not_a_traceback(args: list[str], encoding: str,
                                                                     tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONIOENCODING=encoding, COLUMNS="100")
    done = subprocess.run([QUINZE, *args], capture_output=True, timeout=120, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr.decode(encoding)
    assert b"Traceback" not in done.stderr and b"UnicodeEncodeError" not in done.stderr
    out = done.stdout.decode(encoding)
    if args[:3] == ["rules", "--lang", "fr"]:
        assert ("Regles" in out or "defausse" in out) if encoding == "ascii" else "défausse" in out


# --------------------------------------------------------------------------- colour

SGR = re.compile(r"\x1b\[([0-9;]*)m")


def styles(raw: str) -> tuple[bool, bool]:
    """(any colour code, any bold/dim/italic code) among the SGR sequences of ``raw``."""
    colour = style = False
    for params in SGR.findall(raw):
        codes = [int(p) for p in params.split(";") if p.isdigit()]
        colour |= any(30 <= c <= 49 or 90 <= c <= 107 for c in codes)
        style |= any(c in (1, 2, 3) for c in codes)
    return colour, style


def spawn(args: list[str], no_color: bool, tmp_path: Path) -> str:
    """What ``quinze ARGS`` shows on an 80x24 terminal (xterm-256color); a server is stopped by
    Ctrl-C once it listens."""
    pexpect = pytest.importorskip("pexpect")
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env.update(TERM="xterm-256color", COLUMNS="80", LINES="24", **({"NO_COLOR": "1"} if no_color else {}))
    child = pexpect.spawn(QUINZE, args, env=env, cwd=str(tmp_path), encoding="utf-8", timeout=120, dimensions=(24, 80))
    if args[0] == "serve":
        child.expect("Ctrl-C to stop")
        child.kill(signal.SIGINT)
    child.expect(pexpect.EOF)
    child.close()
    return child.before if args[0] != "serve" else child.before + "listening"


COLOURED = [["serve", "--no-announce", "--port", "0"], ["replay", LOG, "--game", "1"], ["rules", "quinze"],
            ["selfplay", "--games", "1"]]


@pytest.mark.parametrize("args", COLOURED, ids=lambda a: a[0])
def test_no_color_removes_colour_and_keeps_bold(args: list[str], tmp_path: Path) -> None:
    """NO_COLOR (no-color.org) prevents ANSI colour; bold and dim are styles it leaves alone, as
    rich does: every command alike, the server's log lines included."""
    colour, style = styles(spawn(args, True, tmp_path))
    assert not colour
    assert style


def test_without_no_color_the_server_log_is_in_colour(tmp_path: Path) -> None:
    colour, _ = styles(spawn(COLOURED[0], False, tmp_path))
    assert colour  # so that the check above can fail


def test_the_json_of_a_replay_is_never_styled(tmp_path: Path) -> None:
    raw = spawn(["replay", LOG, "--json"], False, tmp_path)
    assert styles(raw) == (False, False)
    assert len(json.loads(raw)) == 1  # one game, whole JSON


def _pty_console(rows: int, cols: int) -> tuple[Any, Any]:
    """A rich console on a pseudo-terminal of ``rows`` × ``cols``, and its file."""
    import fcntl
    import struct
    import termios
    import weakref

    from rich.console import Console

    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    file = os.fdopen(slave, "w")
    weakref.finalize(file, os.close, master)  # the slave is a terminal while the master is open
    return Console(file=file), file


@pytest.mark.parametrize("term", ["dumb", "unknown"])
def test_a_dumb_terminal_gets_its_real_size_not_80_columns(term: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """rich gives a dumb terminal 80 × 25 whatever it is; fit_dumb_terminal reads the terminal,
    and COLUMNS / LINES before it, as rich does for other terminals."""
    from quinze_cli.stdio import fit_dumb_terminal

    monkeypatch.setenv("TERM", term)
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)
    console, file = _pty_console(30, 40)
    with file:
        assert console.is_dumb_terminal and console.size == (80, 25)  # rich's own answer: why this exists
        assert fit_dumb_terminal(console) is console and console.size == (40, 30)
    monkeypatch.setenv("COLUMNS", "52")
    monkeypatch.setenv("LINES", "oops")
    console, file = _pty_console(30, 40)
    with file:
        assert fit_dumb_terminal(console).size == (52, 30)


def test_other_terminals_are_left_to_rich(monkeypatch: pytest.MonkeyPatch) -> None:
    from quinze_cli.stdio import fit_dumb_terminal

    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setenv("COLUMNS", "61")
    console, file = _pty_console(30, 40)
    with file:
        assert not console.is_dumb_terminal
        assert fit_dumb_terminal(console).size.width == 61
