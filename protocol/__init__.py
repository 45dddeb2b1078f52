"""The pure core of Quinze: cards, the games' rules behind one interface, messages, framing and
the replay-log format. No I/O, no Trio, no Typer: Python bot authors may import it.

Installed as ``quinze_protocol`` (the repository folder is ``protocol/``; pyproject.toml maps it):
a bare ``protocol`` package would clash with the many projects that ship one. Importing this
folder under its folder name (``import protocol`` from the repository root) raises ImportError, so
one process never holds two copies of the game registry.

Find a game by id with :func:`quinze_protocol.game.get_game`.
"""

if __name__ != "quinze_protocol":
    raise ImportError(f"import quinze_protocol, not {__name__!r}: the folder protocol/ is installed as quinze_protocol "
                      "(pip install -e . in the repository)")

__version__ = "0.1.0"
