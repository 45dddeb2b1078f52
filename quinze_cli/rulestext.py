"""The shipped rules texts, ``quinze_cli/rules/<game>.md`` (English) and
``quinze_cli/rules/fr/<game>.md`` (French), for ``quinze rules`` and the client's help."""

from __future__ import annotations

from importlib import resources


def rules_text(game: str, lang: str) -> str:
    """The rules text of ``game`` in ``lang`` (``"en"``, ``"fr"``), English when there is no
    translation. Raises ``FileNotFoundError`` for a game without any text."""
    base = resources.files("quinze_cli").joinpath("rules")
    paths = [base.joinpath(f"{game}.md")]
    if lang != "en":
        paths.insert(0, base.joinpath(lang, f"{game}.md"))
    for path in paths:
        try:
            return path.read_text(encoding="utf-8")
        except (FileNotFoundError, OSError):
            continue
    raise FileNotFoundError(f"no rules text for {game}")
