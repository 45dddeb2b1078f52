"""``--option KEY=VALUE`` pairs, read the same way by every command (match, bot, selfplay, play).

Values stay text here; each game's option specs convert and check them
(:meth:`protocol.game.Game.validate_options`).
"""

from __future__ import annotations

from collections.abc import Sequence

from quinze_cli.errors import EXIT_USAGE, fail

__all__ = ["option_pairs", "parse_option_pairs"]


def parse_option_pairs(pairs: Sequence[str]) -> dict[str, str]:
    """``["target=50", "quick_place=true"]`` as ``{"target": "50", "quick_place": "true"}``.

    Raises ``ValueError`` naming the pair without ``=`` or with an empty key, or a key given twice.
    """
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ValueError(f"--option {pair!r}: expected KEY=VALUE")
        if key in out:
            raise ValueError(f"--option {key} given twice")
        out[key] = value.strip()
    return out


def option_pairs(pairs: Sequence[str] | None) -> dict[str, str]:
    """:func:`parse_option_pairs` for a command: a bad pair ends the command with exit 2."""
    try:
        return parse_option_pairs(pairs or [])
    except ValueError as err:
        fail(str(err), EXIT_USAGE)
