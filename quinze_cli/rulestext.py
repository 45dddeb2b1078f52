"""The shipped rules texts, ``quinze_cli/rules/<game>.md`` (English) and
``quinze_cli/rules/fr/<game>.md`` (French), for ``quinze rules`` and the client's help."""

from __future__ import annotations

import re
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


_BLOCK_START = re.compile(r"\s*(?:#|[-*+] |\d+[.)] |```|\||>)")
"""A line that starts a block of its own: a heading, a list item, a code fence, a table row, a quote."""


def one_line_paragraphs(text: str) -> str:
    """``text`` (Markdown, wrapped at some width in its file) with each paragraph and list item
    on one line: a line that continues the one above (not blank, not a heading, a list item, a
    code fence, a table row or a quote) is joined to it with one space, its indent dropped. What
    ``quinze rules`` writes to a file or a pipe (README: a line there is never cut at a width),
    so that ``grep`` finds a rule whole; the Markdown source is otherwise unchanged."""
    out: list[str] = []
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            out.append(line.rstrip())
            continue
        joins = (not fenced and out and out[-1].strip() and line.strip() and not _BLOCK_START.match(line)
                 and not out[-1].lstrip().startswith(("#", "```")))
        if joins:
            out[-1] = f"{out[-1]} {line.strip()}"
        else:
            out.append(line.rstrip())
    return "\n".join(out) + "\n"
