"""``quinze play``: the terminal client for people playing at a table over the LAN.

Modules by concern:

* :mod:`~quinze_cli.play.main` — running the client (console, language, exit codes);
* :mod:`~quinze_cli.play.session` — the connection, the inbox (server messages, typed lines,
  Ctrl-C), reconnection with backoff, the goodbye;
* :mod:`~quinze_cli.play.lobby` — listing, creating, joining and watching tables;
* :mod:`~quinze_cli.play.asking` — questions to the lobby and their answers;
* :mod:`~quinze_cli.play.table` — the game-agnostic table loop (requests, legal checks, refusals);
* :mod:`~quinze_cli.play.screen` — the frame of the table screen (80x24);
* :mod:`~quinze_cli.play.registry` — :class:`GameUI`, the per-game renderer and input reader,
  by game id (with a generic fallback);
* :mod:`~quinze_cli.play.render_quinze`, :mod:`~quinze_cli.play.input_quinze` — Le Quinze;
* :mod:`~quinze_cli.play.cards_ui` — cards as people see and type them (en/fr);
* :mod:`~quinze_cli.i18n` — the string catalogues (``quinze_cli/locale/*.json``);
* :mod:`~quinze_cli.play.terminal` — reading lines (readline, Tab completion);
* :mod:`~quinze_cli.play.tokens` — seat tokens kept for reconnecting;
* :mod:`~quinze_cli.play.local` — ``--local``: embedded server and built-in bots.
"""
