"""A CORRECT random bot whose answer lines end with ``\\r\\n`` (Windows line endings).

Nothing wrong here: the JSON-lines wire accepts ``\\r\\n`` (PROTOCOL.md, "Framing"), so the relay
must accept every answer and the bot must play its games to the end.
"""

from botlib import messages, random_answer, send

for msg in messages():
    if msg.get("type") == "action-request":
        send(random_answer(msg), end="\r\n")
