"""The games. Importing this package registers every game and its built-in bots
(see :func:`quinze_protocol.game.get_game`). One module per game."""

from quinze_protocol.games import quinze  # noqa: F401
from quinze_protocol.games import quatorze  # noqa: F401
from quinze_protocol.games import classique  # noqa: F401
from quinze_protocol.search import bots as _search_bots  # noqa: E402,F401  (registers builtin:mcts for every game)
