"""Misbehaving bot: reads its first line, then exits with status 0 while the input goes on (as if
one message were the whole conversation). Usage: ``python3 exit_zero_early.py``."""

import sys

sys.stdin.readline()
sys.exit(0)
