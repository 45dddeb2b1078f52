"""``quinze play`` problems found by a tester, each reproduced for real: the client in a
pseudo-terminal (pexpect) or as a subprocess against a real server on loopback
(``tests/play_host.py``) or its own ``--local`` one. No duration is asserted.
"""

from __future__ import annotations

import pexpect
from playkit import QUINZE, TIMEOUT, plain

PROMPT_EN = r"Your move \(\d+ s\)> "


def spawn(env, *args: str, cwd: str | None = None) -> pexpect.spawn:
    return pexpect.spawn(QUINZE, ["play", *args], env=env, encoding="utf-8", timeout=TIMEOUT,
                         dimensions=(24, 80), cwd=cwd)


def test_ctrl_c_leaves_the_table_and_exits_130(env, tmp_path):
    child = spawn(env, "--local", "--seed", "3", "--name", "Ana", cwd=str(tmp_path))
    child.expect(PROMPT_EN)
    child.sendintr()
    child.expect("Interrupted: leaving the table. Bye.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert "Traceback" not in plain(child.before)
