"""A CORRECT random bot that writes megabytes to stderr.

At each game-start it writes MIB mebibytes (default 4) of text to stderr, then 64 KiB more before
each answer. Its answers are correct: a relay that drains stderr into a capped file must let it
play to the end; a relay that does not read stderr deadlocks it (the pipe fills and the bot blocks).

Usage: ``python3 flood_stderr.py [MIB]``.
"""

import sys

from botlib import messages, random_answer, send

LINE = "flood " * 10 + "\n"  # 61 bytes
CHUNK = LINE * (65536 // len(LINE))
mib = float(sys.argv[1]) if len(sys.argv) > 1 else 4.0


def flood(nbytes):
    """Write about ``nbytes`` bytes to stderr in 64 KiB chunks."""
    for _ in range(max(1, int(nbytes) // len(CHUNK))):
        sys.stderr.write(CHUNK)
    sys.stderr.flush()


for msg in messages():
    if msg.get("type") == "game-start":
        flood(mib * 1024 * 1024)
    elif msg.get("type") == "action-request":
        flood(len(CHUNK))
        send(random_answer(msg))
