"""Misbehaving bot: exits with code 3 at once, before reading anything (a crash at start-up)."""

import sys

sys.exit(3)
