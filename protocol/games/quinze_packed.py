"""Le Quinze: the msgpack encoding of a view, put together from kept encodings
(:meth:`quinze_protocol.games.quinze.QuinzeGame.packed_view`, PROTOCOL.md "Framing").

msgpack writes a map as a header (its number of entries) followed by each key and value in
order, an array as a header followed by its items, so the encoding of a view is the encodings of
its parts joined. The bytes are exactly ``msgpack.packb(game.view(seat), use_bin_type=True)``
(tests/test_quinze_packed.py compares them at every decision of seeded games): the keys are
encoded once, each card's text once, and the table's and the discard pile's arrays are kept while
their cards are the same (the discard pile's extended while it only grows), as
:meth:`~quinze_protocol.games.quinze.QuinzeGame.view` keeps their texts. What it saves is the
view's dicts and lists (built and freed at every request) and msgpack's walk over them: the
server sends one view per action.

Pure: no I/O.
"""

from __future__ import annotations

from operator import itemgetter as _items
from typing import Any

import msgpack

from quinze_protocol.cards import card_text
from quinze_protocol.games.quinze_actions import End, Fifteen, Place
from quinze_protocol.games.quinze_texts import VIEW_SORT

__all__ = ["DRAWN", "DRAW_PUBLIC", "END_PUBLIC", "packed_entry", "packed_event", "packed_view"]

_pack = msgpack.Packer(use_bin_type=True).pack
_ENC = tuple(_pack(card_text(c)) for c in range(54))
"""The encoding of each card's text."""
_VKEY = {c: VIEW_SORT[c] for c in range(54)}.__getitem__
_SMALL = tuple(_pack(n) for n in range(128))
_ARRAY = tuple(bytes((0x90 | n,)) for n in range(16))
_NONE = _pack(None)
_pack_array_header = msgpack.Packer(use_bin_type=True).pack_array_header


def _key(name: str) -> bytes:
    return _pack(name)


def _entries(key: str, values: range) -> tuple[bytes, ...]:
    """The encoded entry ``key: n`` for each int ``n`` of ``values`` (from 0)."""
    k = _pack(key)
    return tuple(k + _pack(n) for n in values)


_GAME_SEAT = _key("game") + _pack("quinze") + _key("seat")
_HEADS = (bytes((0x80 | 15,)) + _GAME_SEAT, b"\xde\x00\x10" + _GAME_SEAT)
"""The view's map header (15 entries; 16 with the hand) and its first entry, up to the seat's value."""
_TABLE = _key("table")
_DISCARD = _key("discard")
_STOCK = _entries("stock", range(256))
_HAND_SIZES = tuple(_key("hand_sizes") + _pack_array_header(n) for n in range(64))
"""The ``hand_sizes`` key and its array's header, by number of seats."""
_TOTALS = _key("totals")
_DEALER = _key("dealer")
_TO_ACT = _entries("to_act", range(64))
_TO_ACT_NONE = _key("to_act") + _NONE
_PHASE = {p: _key("phase") + _pack(p) for p in ("fifteen", "place", "more", "placed", "over")}
_FIFTEENS = tuple(_key("turn") + bytes((0x83,)) + _key("fifteens") + _pack(n) for n in range(256))
"""The ``turn`` key, its map's header and its ``fifteens`` entry, by fifteens made."""
_USED = {b: _key("used_table") + _pack(b) + _key("actions") for b in (False, True)}
"""The ``used_table`` entry and the ``actions`` key after it."""
_NO_ACTIONS = _ARRAY[0]
_DEAL = _entries("deal", range(1024))
_TURNS = _entries("turns", range(1024))
_OPTIONS = _key("options")
_RESULT = _key("result")
_NO_RESULT = _RESULT + _NONE
_HAND = _key("hand")
_HAND_KEYS = tuple(_HAND + _ARRAY[n] for n in range(16))


def _array(n: int) -> bytes:
    return _ARRAY[n] if n < 16 else _pack_array_header(n)


def _cards(cards: Any) -> bytes:
    """The encoded array of the texts of ``cards`` in display order (as ``quinze_texts.texts``)."""
    n = len(cards)
    if n > 1:
        return _array(n) + b"".join(_items(*sorted(cards, key=_VKEY))(_ENC))
    return _ARRAY[1] + _ENC[cards[0]] if n else _ARRAY[0]


def _in_order(cards: Any) -> bytes:
    """The encoded texts of ``cards`` in their own order, joined (no array header)."""
    n = len(cards)
    if n > 1:
        return b"".join(_items(*cards)(_ENC))
    return _ENC[cards[0]] if n else b""


_FIFTEEN = bytes((0x83,)) + _pack("type") + _pack("fifteen") + _pack("hand")
_TABLE_CARDS = _pack("table")
_PLACE = bytes((0x82,)) + _pack("type") + _pack("place") + _pack("cards")
_END = _pack({"type": "end"})


def packed_entry(action: Any) -> bytes | None:
    """``msgpack.packb(action.to_data(), use_bin_type=True)`` for a :class:`Fifteen`, :class:`Place`
    or :class:`End` (the same bytes, from each card's encoded text): a map of text keys whose
    values are texts and arrays of texts, so a client may send it back as it is
    (``Game.packed_entry``); None for anything else."""
    t = type(action)
    if t is Fifteen:
        _, hp, tp, hf, tf = action
        h = hp + hf if hf else hp
        tt = tp + tf if tf else tp
        return _FIFTEEN + _array(len(h)) + _in_order(h) + _TABLE_CARDS + _array(len(tt)) + _in_order(tt)
    if t is Place:
        cards = action[1]
        return _PLACE + _array(len(cards)) + _in_order(cards)
    if t is End:
        return _END
    return None


_TEXTS = tuple(card_text(c) for c in range(54))
DRAWN = tuple(tuple({s: {"card": _TEXTS[c]}} for c in range(54)) for s in range(8))
"""The private part of a ``draw`` event, by seat and card: built once, shared by the events
(:mod:`quinze_protocol.games.quinze` makes them; events are immutable values)."""
DRAW_PUBLIC = tuple(tuple({"seat": s, "stock": k} for k in range(108)) for s in range(8))
"""The public part of a ``draw`` event, by seat and stock size after it; :data:`END_PUBLIC` that
of ``end-turn`` by seat: built once, shared (the private parts are shared already)."""
END_PUBLIC = tuple({"seat": s} for s in range(8))
_SHARED = {id(p): ("draw", _pack({"kind": "draw", **p})) for by_seat in DRAW_PUBLIC for p in by_seat}
_SHARED.update({id(p): ("end-turn", _pack({"kind": "end-turn", **p})) for p in END_PUBLIC})
"""The kind and public form's encoding of each shared public part, by its id: these parts live
as long as the module, so no other object has their ids."""
_DRAWN_CARD = {id(d): c for by_seat in DRAWN for c, d in enumerate(by_seat)}
"""The card of each shared private part of a draw, by its id."""
_CARD_KEY = _pack("card")


def packed_event(event: Any, seat: int | None) -> bytes | None:
    """``msgpack.packb(event.for_seat(seat), use_bin_type=True)`` for a ``draw`` or ``end-turn``
    event made of the shared parts (:data:`DRAW_PUBLIC`, :data:`DRAWN`, :data:`END_PUBLIC`:
    the same bytes, encoded once); None for any other event (``Game.packed_event``)."""
    kind, public, private = event
    shared = _SHARED.get(id(public))
    if shared is None or shared[0] != kind:
        return None
    if seat is None or seat not in private:
        return shared[1]
    c = _DRAWN_CARD.get(id(private))
    if c is None:
        return None
    return b"\x84" + shared[1][1:] + _CARD_KEY + _ENC[c]  # the public form's 3 entries, then the card


_COLD = (None, b"", None, b"", b"", None, b"", None, None, b"")
"""The memo of a game not yet seen (None equals no list of cards, no totals)."""


def _actions(acts: list[Any]) -> bytes:
    """The encoded array of the turn's actions' data."""
    if len(acts) == 1:
        one = packed_entry(acts[0])
        if one is not None:
            return _ARRAY[1] + one
    return _pack([a.to_data() for a in acts])


def packed_view(g: Any, seat: int | None) -> bytes:
    """``msgpack.packb(g.view(seat), use_bin_type=True)`` for a
    :class:`~quinze_protocol.games.quinze.QuinzeGame` ``g``, the same bytes.

    Kept on the game (``g._packed``, one tuple, replaced, never changed; shared by a copy as the
    view's memos are): the table's encoded entry with a copy of its cards, the discard pile's
    encoded texts with a copy of its cards (extended while the pile only grows), the totals and
    dealer entries with the values, the options and result entries with a copy of the options and
    the result; each is checked against the game's current value at every call, so any change,
    the engine's or not, is seen. The cyclic collector tracks four of these objects per game (the
    tuple, the two copies of cards, the options': fewer than the view's own memos, two tuples and
    four lists; a copy as bytes would be untracked, but building it costs 2,800 instructions a
    view more than comparing the lists). The ints of the view (seat,
    stock, dealer, seat to act, fifteens, deal, turns) are the engine's ints, their entries read
    from tables. Raises what :meth:`view` or msgpack raise for a state they cannot show."""
    if g.id != "quinze":  # pragma: no cover - (a subclass of another id: its own view)
        return _pack(g.view(seat))
    memo = g.__dict__.get("_packed", _COLD)
    table_cards, table_enc, discard_cards, discard_body, discard_enc, totals, totals_enc, options, result, options_enc = memo
    changed = False
    table = g.table
    if table != table_cards:
        table_cards, table_enc, changed = table[:], _TABLE + _cards(table), True
    discard = g.discard
    if discard != discard_cards:
        k = len(discard_cards) if discard_cards is not None else 0
        if k and len(discard) > k and discard[:k] == discard_cards:
            discard_body = discard_body + _in_order(discard[k:])
        else:
            discard_body = _in_order(discard)
        discard_cards, changed = discard[:], True
        discard_enc = _DISCARD + _array(len(discard)) + discard_body
    tot = (*g.totals, g.dealer)
    if tot != totals:
        totals, changed = tot, True
        totals_enc = _TOTALS + _pack(g.totals) + _DEALER + _pack(g.dealer)
    opts = g.options
    res = g._result
    if res is not result or opts != options:  # (options keep their keys' order: validate_options')
        options, result, changed = dict(opts), res, True
        options_enc = _OPTIONS + _pack(options) + (_NO_RESULT if res is None else _RESULT + _pack(res.to_data()))
    if changed:
        g._packed = (table_cards, table_enc, discard_cards, discard_body, discard_enc, totals, totals_enc, options, result,
                     options_enc)
    hands = g.hands
    try:
        sizes = bytes(map(len, hands))  # the hands' sizes as positive fixints (under 128)
    except ValueError:  # pragma: no cover - (a hand of 256 cards or more: no deck has them)
        sizes = b"\x80"
    if not sizes.isascii():  # pragma: no cover - (a hand of 128 cards or more)
        return _pack(g.view(seat))
    acts = g.turn_actions
    to_act = g.to_act
    phase = _PHASE.get(g.phase)
    used = _USED.get(g.used_table) if type(g.used_table) is bool else None
    n = len(g.stock)
    made = g.fifteens_made
    deal = g.deal_no
    turns = g.turns
    parts = [
        _HEADS[seat is not None], _NONE if seat is None else _SMALL[seat] if 0 <= seat < 128 else _pack(seat),
        table_enc, discard_enc,
        _STOCK[n] if n < 256 else _key("stock") + _pack(n),
        _HAND_SIZES[len(sizes)] if len(sizes) < 64 else _key("hand_sizes") + _pack_array_header(len(sizes)), sizes,
        totals_enc,
        _TO_ACT_NONE if to_act is None else _TO_ACT[to_act] if 0 <= to_act < 64 else _key("to_act") + _pack(to_act),
        phase if phase is not None else _key("phase") + _pack(g.phase),
        _FIFTEENS[made] if 0 <= made < 256 else _key("turn") + bytes((0x83,)) + _key("fifteens") + _pack(made),
        used if used is not None else _key("used_table") + _pack(g.used_table) + _key("actions"),
        _NO_ACTIONS if not acts else _actions(acts),
        _DEAL[deal] if 0 <= deal < 1024 else _key("deal") + _pack(deal),
        _TURNS[turns] if 0 <= turns < 1024 else _key("turns") + _pack(turns),
        options_enc,
    ]
    if seat is not None:  # the hand: its key, its array's header, its texts in display order (as _cards)
        hand = hands[seat]
        k = len(hand)
        parts.append(_HAND_KEYS[k] if k < 16 else _HAND + _pack_array_header(k))
        if k > 1:
            parts.extend(_items(*sorted(hand, key=_VKEY))(_ENC))
        elif k:
            parts.append(_ENC[hand[0]])
    return b"".join(parts)
