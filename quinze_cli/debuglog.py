"""``--debug`` of ``quinze bot`` and ``quinze match``: every message to and from the bots and the
server logged on stderr."""

from __future__ import annotations

import logging

from quinze_cli.stdio import log_handler

LOGGERS = ("quinze.bot", "quinze.relay", "quinze.client", "quinze.match")
"""The loggers ``--debug`` turns to debug level."""


def enable_debug() -> None:
    """Log every message to and from the bots and the server (debug level) on stderr."""
    handler = log_handler(show_path=False, markup=False, rich_tracebacks=False)
    for name in LOGGERS:
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
