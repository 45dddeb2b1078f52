"""The user-facing strings of ``quinze play``, ``quinze replay`` and the viewer: one JSON
catalogue per language.

Catalogues live in ``quinze_cli/locale/<lang>.json`` (``en``, ``fr``): a flat map from a key
(``"lobby.title"``) to a text with ``str.format`` fields (``"{name} made 15: {cards}"``).
Namespaces: ``common.*`` for the words every game's screen uses (hand, stock, discard pile,
table, a count of cards), ``<game>.*`` for one game's own (``quinze.*``, ``quatorze.*``,
``classique.*``), and ``lobby.*``, ``table.*``, ``notice.*`` ... for the client itself.

Counts: a text that shows a number of things has two keys, ``<key>.one`` and ``<key>.other``,
and is read with :meth:`Catalogue.plural`, which picks the form by the language's rule
(:func:`plural_form`): English says "1 card" but "0 cards", French "0 carte", "1 carte",
"2 cartes".

A game registered from outside this package brings its own strings (``GameSide.strings``), merged in.
English is the reference: a key missing from another catalogue falls back to English, and a
key missing everywhere is shown as the key itself (so a gap is visible, never a crash).
A *strict* catalogue (``Catalogue(lang, strict=True)``, used by tests and by ``quinze replay``)
never falls back: a key missing from its own language, or a text whose fields do not match,
raises :class:`MissingText`.

The language is ``--lang`` when given, otherwise the environment's as POSIX and gettext read it
(:func:`choose_language`: the first of ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` that is set decides,
``fr_FR.UTF-8`` gives French, ``C`` or ``POSIX`` English; then ``LANGUAGE``), otherwise English.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any

__all__ = ["LANGUAGES", "Catalogue", "MissingText", "Own", "YouCatalogue", "choose_language", "plural_form"]

LANGUAGES = ("en", "fr")
"""Languages with a catalogue, English first (the fallback)."""


def plural_form(lang: str, n: Any) -> str:
    """``"one"`` or ``"other"``: the plural form of the count ``n`` in ``lang`` (the CLDR rules
    for integers: English ``one`` is exactly 1, French ``one`` is 0 and 1). Anything that is not
    an int (an unknown count shown as ``"?"``) takes ``"other"``."""
    if not isinstance(n, int) or isinstance(n, bool):
        return "other"
    if lang == "fr":
        return "one" if n in (0, 1) else "other"
    return "one" if n == 1 else "other"


UNTRANSLATED_LOCALES = ("C", "POSIX")
"""Locales that ask for the programs' own messages, untranslated (POSIX; ``C.UTF-8`` is ``C``)."""


def _language_of(name: str) -> str | None:
    """The catalogue language a locale or language name names (``"fr_FR.UTF-8"``, ``"fr"``,
    ``"fr-CA"`` give ``"fr"``), or None (``"de_DE"``, ``""``)."""
    code = name.strip().lower().replace("-", "_").split("@", 1)[0].split(".", 1)[0].split("_", 1)[0]
    return code if code in LANGUAGES else None


def choose_language(flag: str | None, environ: Mapping[str, str] | None = None) -> str:
    """The language to use (``"en"`` or ``"fr"``): ``flag`` (``"en"``, ``"fr"``, ``"fr_FR.UTF-8"``
    ...) when given, else the environment's, as POSIX and GNU gettext read it for messages:

    - the locale is the first of ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` that is set and not empty
      (``LC_ALL=C`` over ``LANG=fr_FR.UTF-8`` is ``C``); none set is ``C``;
    - ``C`` or ``POSIX`` (also ``C.UTF-8``) means untranslated: English, whatever ``LANGUAGE`` says;
    - otherwise ``LANGUAGE``, when set and not empty, is a list of languages by preference
      (``de:fr``), and its first with a catalogue is used (none: English);
    - otherwise the locale's language when it has a catalogue (``fr_CA.UTF-8``: French), else
      English (``de_DE.UTF-8``).

    Raises ``ValueError`` naming the flag when ``flag`` is not a known language.
    """
    if flag:
        code = _language_of(flag)
        if code is None:
            raise ValueError(f"--lang: unknown language {flag!r} (known: {', '.join(LANGUAGES)})")
        return code
    env = os.environ if environ is None else environ
    locale = next((env[v] for v in ("LC_ALL", "LC_MESSAGES", "LANG") if env.get(v)), "C")
    if locale.split(".", 1)[0].split("@", 1)[0] in UNTRANSLATED_LOCALES:
        return "en"
    if env.get("LANGUAGE"):
        return next((code for part in env["LANGUAGE"].split(":") if (code := _language_of(part))), "en")
    return _language_of(locale) or "en"


@cache
def _read(lang: str) -> dict[str, str]:
    text = resources.files("quinze_cli").joinpath("locale", f"{lang}.json").read_text(encoding="utf-8")
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError(f"locale/{lang}.json: expected a JSON object")
    return {str(k): str(v) for k, v in data.items()}


class MissingText(LookupError):
    """A strict catalogue has no text for a key, or its text does not take the given fields.

    Deliberately not a ``KeyError``: code that reads event data and catches ``KeyError`` must not
    hide a gap in a catalogue."""


class Catalogue:
    """The strings of one language, with English as fallback (none when ``strict``).

    ``cat("lobby.joined", table="t1")`` formats the text of the key; ``cat.lang`` is the code.
    Raises :class:`MissingText` only when ``strict``.
    """

    def __init__(self, lang: str = "en", strict: bool = False) -> None:
        self.lang = lang if lang in LANGUAGES else "en"
        self.strict = strict
        from quinze_cli.gameside import side_strings

        self._own = {**_read(self.lang), **side_strings(self.lang)}
        self._en = {**_read("en"), **side_strings("en")}

    def has(self, key: str) -> bool:
        """True when some catalogue defines ``key``."""
        return key in self._own or (not self.strict and key in self._en)

    def __call__(self, key: str, /, **fields: Any) -> str:
        if self.strict:
            if key not in self._own:
                raise MissingText(f"locale/{self.lang}.json: no text for {key!r}")
            try:
                return self._own[key].format(**fields)
            except (KeyError, IndexError, ValueError) as err:
                raise MissingText(f"locale/{self.lang}.json: {key!r} does not take fields {sorted(fields)}: {err}") from None
        text = self._own.get(key) or self._en.get(key)
        if text is None:
            return key
        if not fields:
            return text
        try:
            return text.format(**fields)
        except (KeyError, IndexError, ValueError):
            return text

    def plural(self, key: str, n: Any, /, **fields: Any) -> str:
        """The text of ``key.one`` or ``key.other``, as the count ``n`` takes in this language
        (:func:`plural_form`), formatted with ``n`` and ``fields``: ``cat.plural("common.cards", 0)``
        is "0 cards" in English and "0 carte" in French. Raises :class:`MissingText` only when
        ``strict``."""
        return self(f"{key}.{plural_form(self.lang, n)}", n=n, **fields)


class Own(str):
    """The name of our own seat as a narrator receives it (``"Ana (you)"``): a text in its own
    right, and the mark that makes :class:`YouCatalogue` say "you" instead."""


class YouCatalogue:
    """A catalogue that tells our own actions in the second person: a text whose ``name`` field is
    :class:`Own` is taken from ``KEY.you`` when the catalogue has it ("You draw 7♥ from the
    stock." rather than "Ana (you) draws 7♥ ..."); elsewhere our name stays ``Ana (you)``. The
    same rule in the three games (issue 14 §2)."""

    def __init__(self, cat: Catalogue) -> None:
        self.cat = cat
        self.lang = cat.lang
        self.strict = cat.strict

    def has(self, key: str) -> bool:
        return self.cat.has(key)

    def __call__(self, key: str, /, **fields: Any) -> str:
        if isinstance(fields.get("name"), Own) and self.cat.has(key + ".you"):
            return self.cat(key + ".you", **fields)
        return self.cat(key, **fields)

    def plural(self, key: str, n: Any, /, **fields: Any) -> str:
        """:meth:`Catalogue.plural`, in the second person for our own actions: ``KEY.you.one`` /
        ``KEY.you.other`` when the catalogue has them, else ``KEY.you``, else the plural forms."""
        if isinstance(fields.get("name"), Own):
            form = plural_form(self.lang, n)
            for you in (f"{key}.you.{form}", f"{key}.you"):
                if self.cat.has(you):
                    return self.cat(you, n=n, **fields)
        return self.cat.plural(key, n, **fields)
