"""Closes its standard output at once, then keeps reading its input to the end (and exits 0):
check-bot must say it closed its stdout, not that it is "still running"."""

import os
import sys

os.close(1)
for _ in sys.stdin.buffer:
    pass
