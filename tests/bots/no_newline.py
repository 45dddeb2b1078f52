"""Misbehaving bot: writes its answer without the final newline (and flushes), so the relay
never sees a whole line: it times out, and must say that a line was left unfinished.

Usage: ``python3 no_newline.py``.
"""

from botlib import messages, random_answer, send

for msg in messages():
    if msg.get("type") == "action-request":
        send(random_answer(msg), end="")
