"""The pure core of Quinze: cards, the games' rules behind one interface, messages, framing and
the replay-log format. No I/O, no Trio, no Typer: Python bot authors may import it.

Find a game by id with :func:`protocol.game.get_game`.
"""

__version__ = "0.1.0"
