"""What the ``quinze play`` tests share: paths, the pexpect timeout and ANSI stripping. Their
fixtures ``env`` and ``host`` are in ``conftest.py``."""

from __future__ import annotations

import re
import sys
from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent
QUINZE = str(Path(sys.executable).with_name("quinze"))
TIMEOUT = 60
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def plain(text: str) -> str:
    """``text`` without ANSI escapes."""
    return ANSI.sub("", text)
