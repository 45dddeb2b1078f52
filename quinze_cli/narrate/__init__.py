"""Logged games told in words, for ``quinze replay`` (PROTOCOL.md, "Replay log").

A logged event is ``Event.full()``: ``{"kind", **public, "private": {"<seat>": {...}}}``. It is
told either for the whole table (every seat's private part) or as one seat saw it: the public
part plus that seat's private part only, the logic of :meth:`quinze_protocol.game.Event.for_seat`
(:func:`seat_event`).

All the wording of one game lives in one module here (``quinze``, ``classique``, ``quatorze``),
each with ``NARRATORS`` (event kind -> function ``(public, private, who) -> [lines]``) and
``SECTIONS`` (the kinds that open a new part of the game: a deal, a coup), named in the game's
:class:`~quinze_cli.gameside.GameSide` (its ``narrators`` and ``sections``). ``public`` is the event
without ``kind`` and ``private``; ``private`` maps each seat whose private part is shown to that
part; ``who(seat)`` names a seat. An unknown kind, or data a narrator cannot read, is told by
:func:`generic` (never an exception), so a damaged or future log still prints.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any

from quinze_protocol.game import Event
from quinze_cli.i18n import Own

__all__ = ["Names", "cards", "generic", "narrate_event", "result_lines", "seat_event", "split_event", "start_lines"]

Narrator = Callable[[dict[str, Any], dict[int, dict[str, Any]], Callable[[Any], str]], list[str]]


class Names:
    """Names the seats of one game: ``who(1) -> "bob"``; with duplicate names ``"bob#1"``; the
    seat of the viewer gets ``" (you)"`` (in ``lang``: ``" (vous)"``) and is an :class:`~quinze_cli.i18n.Own` (its actions are
    then told "You draw ...", as in ``quinze play``); a seat outside the list is ``"seat N"``."""

    def __init__(self, players: Any, viewer: int | None = None, lang: str = "en") -> None:
        names = [str(p) for p in players] if isinstance(players, list) else []
        dup = len(set(names)) < len(names)
        self.names = [f"{n}#{s}" if dup else n for s, n in enumerate(names)]
        self.viewer = viewer
        self.lang = lang

    def __call__(self, seat: Any) -> str:
        t = _words(self.lang)
        if isinstance(seat, int) and 0 <= seat < len(self.names):
            name = self.names[seat]
        else:
            name = t("replay.seat", seat=seat)
        return Own(f"{name} {t('common.you')}") if self.is_viewer(seat) else name

    def is_viewer(self, seat: Any) -> bool:
        """True when ``seat`` is the seat the game is told for."""
        return self.viewer is not None and seat == self.viewer


def cards(texts: Any) -> str:
    """Cards as one string, ``"7H 8C"``; ``"nothing"`` for none."""
    if isinstance(texts, str):
        return texts
    return " ".join(str(c) for c in texts) if texts else "nothing"


def split_event(full: Mapping[str, Any], seat: int | None) -> tuple[str, dict[str, Any], dict[int, dict[str, Any]]]:
    """``(kind, public, private)`` of a logged event: ``private`` holds every seat's part when
    ``seat`` is None (the whole table), else only ``seat``'s (if any)."""
    kind = str(full.get("kind", "?"))
    public = {k: v for k, v in full.items() if k not in ("kind", "private")}
    private: dict[int, dict[str, Any]] = {}
    raw = full.get("private")
    if isinstance(raw, Mapping):
        for key, part in raw.items():
            try:
                s = int(key)
            except (TypeError, ValueError):
                continue
            if isinstance(part, Mapping) and (seat is None or s == seat):
                private[s] = dict(part)
    return kind, public, private


def seat_event(full: Mapping[str, Any], seat: int) -> dict[str, Any]:
    """The logged event as ``seat`` received it: :meth:`Event.for_seat` of the event rebuilt from
    its full form (``{"kind", **public, **private[seat]}``)."""
    kind, public, private = split_event(full, seat)
    return Event(kind, public, private).for_seat(seat)


def generic(kind: str, public: Mapping[str, Any], private: Mapping[int, Mapping[str, Any]], who: Callable[[Any], str],
            lang: str = "en") -> list[str]:
    """Any event in plain terms: ``kind: key value, ...`` (the log's own words) then each shown
    private part, introduced in ``lang``."""

    def show(v: Any) -> str:
        if isinstance(v, list) and all(isinstance(c, str) for c in v):
            return cards(v)
        return str(v)

    parts = [f"{k} {who(v) if k == 'seat' else show(v)}" for k, v in public.items()]
    lines = [f"{kind}: {', '.join(parts)}" if parts else kind]
    for s, part in sorted(private.items()):
        lines.append(_words(lang)("replay.seen-by-part", name=who(s),
                                  fields=", ".join(f"{k} {show(v)}" for k, v in part.items())))
    return lines


def narrate_event(game_id: str, full: Mapping[str, Any], who: Names, seat: int | None,
                  lang: str = "en") -> tuple[bool, list[str]]:
    """``(starts_section, lines)``: the logged event ``full`` told in words for the whole table
    (``seat`` None) or as ``seat`` saw it (its own actions in the second person), in ``lang``
    (``"en"``, ``"fr"``: :data:`quinze_cli.i18n.LANGUAGES`). Raises ``ValueError`` for an unknown
    ``lang``; never for the event's data (what a narrator cannot read is told by :func:`generic`)."""
    from quinze_cli.gameside import find_side

    kind, public, private = split_event(full, seat)
    side = find_side(game_id)
    fn: Narrator | None = None
    if side is not None:
        fn = _narrators(game_id, lang, seat is not None).get(kind)
    section = side is not None and kind in side.sections
    if fn is not None:
        try:
            return section, fn(public, private, who)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            pass  # data this narrator cannot read: told plainly below
    return section, generic(kind, public, private, who, lang)


@cache
def _narrators(game_id: str, lang: str, second_person: bool) -> Mapping[str, Narrator]:
    """The narrators of ``game_id`` worded in ``lang``; with ``second_person`` the viewer's own
    actions are told "You ..." (the ``.you`` texts, :class:`~quinze_cli.i18n.YouCatalogue`). A
    game narrated without a catalogue (one registered from outside, English only) says it itself
    (``Names.is_viewer``)."""
    from quinze_cli.gameside import find_side
    from quinze_cli.i18n import Catalogue, YouCatalogue

    side = find_side(game_id)
    if side is None:
        return {}
    cat = Catalogue(lang, strict=True)
    return side.narrators_for(YouCatalogue(cat) if second_person else cat)


@cache
def _words(lang: str) -> Any:
    from quinze_cli.i18n import Catalogue

    return Catalogue(lang, strict=True)


def result_lines(record: Mapping[str, Any] | None, who: Names, lang: str = "en") -> list[str]:
    """The result record in words, in ``lang``: winners, reason, points and scores, and any forfeit
    or abort (their codes in ``lang``'s words, :func:`_code`) (PROTOCOL.md "Replay log": the ``result`` record)."""
    t = _words(lang)
    if record is None:
        return [t("replay.no-result")]
    raw = record.get("result")
    result: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    winners: Sequence[Any] = result.get("winners") or []
    you = t("replay.you")
    names = [you if who.is_viewer(s) else who(s) for s in winners]
    if not names:
        head = t("replay.nobody-wins")
    elif names == [you]:
        head = t("replay.you-win")
    elif len(names) == 1:
        head = t("replay.wins", name=names[0])
    else:
        head = t("replay.share-win", names=", ".join(names[:-1]), last=names[-1])
    lines = [t("replay.result", head=head, reason=_code(t, result.get("reason", "?")))]
    for key in ("points", "scores"):
        values = result.get(key)
        if isinstance(values, list):
            shown = ", ".join(f"{who(s)} {v:g}" if isinstance(v, (int, float)) else f"{who(s)} {v}" for s, v in enumerate(values))
            lines.append(t(f"replay.{key}", values=shown))
    forfeit = record.get("forfeit")
    if isinstance(forfeit, Mapping):
        lines.append(t("replay.forfeited", name=who(forfeit.get("seat")), kind=_code(t, forfeit.get("kind", "?"))))
    if record.get("aborted") is not None:
        lines.append(t("replay.aborted", why=_code(t, record["aborted"])))
    return lines


def _code(t: Any, code: Any) -> str:
    """A code of the log (a result's reason, a forfeit's kind, why a game was aborted) in the
    catalogue's words (``replay.code.*``: the code itself in English, French words in French);
    a code the catalogue does not know as written."""
    key = f"replay.code.{code}"
    return str(t(key)) if t.has(key) else str(code)


def start_lines(position: Any, who: Names, seat: int | None, lang: str = "en") -> list[str]:
    """The state a game logged from a position started in (the log header's ``position``,
    docs/positions.md), in words: where it stands (deal, coup, stock or talon, pot) and who acts,
    then the cards the whole table (``seat`` None) or ``seat`` could see: the hands (Le Quinze,
    Le 14) or hidden cards (classique) of those seats only, and what lies face up for all (the
    table, Le 14's laid combinations, classique's face-up cards). A log of a dealt game has a
    ``deal`` or ``setup`` event for this instead. [] when ``position`` is not a map; a field of
    another shape is left out (never an exception)."""
    if not isinstance(position, Mapping):
        return []
    t = _words(lang)

    def seen(s: int) -> bool:
        return seat is None or s == seat

    def laid(combos: Any) -> str:
        if isinstance(combos, list) and combos and all(isinstance(c, list) for c in combos):
            return " | ".join(cards(c) for c in combos)
        return cards(combos)

    what = []
    if isinstance(position.get("deal"), int):
        what.append(t("replay.start.deal", deal=position["deal"]))
    if isinstance(position.get("coup"), int):
        what.append(t("replay.start.coup", coup=position["coup"]))
    for key in ("stock", "talon"):
        if isinstance(position.get(key), list):
            what.append(t(f"replay.start.{key}", n=len(position[key])))
    if isinstance(position.get("pot"), int):
        what.append(t("replay.start.pot", pot=position["pot"]))
    lines = [t("replay.start", what=", ".join(what), name=who(position.get("to_act")))]
    for key, text in (("hands", "replay.start.hand"), ("packets", "replay.start.laid"), ("hidden", "replay.start.hidden"),
                      ("face_up", "replay.start.face-up")):
        per_seat = position.get(key)
        if not isinstance(per_seat, list):
            continue
        for s, part in enumerate(per_seat):
            if key in ("hands", "hidden") and not seen(s):
                continue  # a seat's own cards: only for the whole table or that seat
            if key == "hidden":
                if isinstance(part, str):
                    lines.append(t(text, name=who(s), card=part))
            elif isinstance(part, list) and part:
                lines.append(t(text, name=who(s), cards=laid(part)))
    if isinstance(position.get("table"), list) and position["table"]:
        lines.append(t("replay.start.table", cards=laid(position["table"])))
    return lines
