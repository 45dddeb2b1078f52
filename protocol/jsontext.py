"""JSON text read from a file or a peer: :func:`loads_json`, whose every failure is a ``ValueError``.

Python's ``json`` parser descends once per array or object inside another, and a value nested
deeper than the interpreter's recursion limit allows (about a thousand levels; a corrupted line of
100,000 ``[`` is one) raises ``RecursionError``, not the ``ValueError`` (``JSONDecodeError``) of
any other bad JSON. Every reader of JSON that comes from outside the process (a log, a journal, a
position file, a bot's line) goes through :func:`loads_json`, so that its one ``except
ValueError`` covers that case too and says it like the others: the text is not JSON, because it
is :data:`TOO_DEEP`.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["TOO_DEEP", "JSONTooDeep", "json_error", "loads_json"]

TOO_DEEP = "nested too deeply"
"""What a value nested beyond the parser's reach is called in errors (``not JSON (nested too deeply)``)."""


class JSONTooDeep(ValueError):
    """JSON text (perhaps well-formed) holding arrays or objects nested deeper than the parser can
    follow. ``msg`` is :data:`TOO_DEEP`, as a ``JSONDecodeError``'s ``msg`` says what is wrong;
    no line and column (the parser gives none)."""

    msg = TOO_DEEP

    def __init__(self) -> None:
        super().__init__(TOO_DEEP)


def loads_json(text: str | bytes | bytearray, **kwargs: Any) -> Any:
    """``json.loads(text, **kwargs)``, except that a value nested too deeply raises
    :class:`JSONTooDeep` (a ``ValueError``) instead of ``RecursionError``. Other errors are
    ``json.loads``'s own: ``JSONDecodeError`` (a ``ValueError``) for text that is not JSON,
    ``UnicodeDecodeError`` (also a ``ValueError``) for bytes that are not UTF-8, and whatever a
    ``parse_constant`` or hook given in ``kwargs`` raises."""
    try:
        return json.loads(text, **kwargs)
    except RecursionError:
        raise JSONTooDeep() from None


def json_error(err: ValueError) -> str:
    """What is wrong, in words, for a ``ValueError`` of :func:`loads_json`:
    ``"Expecting value (line 1, column 5)"`` for a ``JSONDecodeError``, :data:`TOO_DEEP`
    for :class:`JSONTooDeep`, the error's text for any other."""
    if isinstance(err, json.JSONDecodeError):
        return f"{err.msg} (line {err.lineno}, column {err.colno})"
    if isinstance(err, JSONTooDeep):
        return TOO_DEEP
    return str(err)
