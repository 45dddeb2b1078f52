"""The one game interface shared by Le Quinze, Le 14 and Le Quinze classique.

A game object is the whole state of one game (for Le Quinze: all the deals played up to
the ``target``, what quinze_cli/rules/quinze.md calls "the match"). It is pure: no I/O, all randomness
from its own seeded :class:`~quinze_protocol.rng.Rng`, so the same options, seed and actions give
the same game on any machine (the rules texts in quinze_cli/rules/, "Common to the three games").

Life cycle::

    game = get_game("quinze").new({"players": 3}, seed=42)
    game.opening_events          # the events of setting up (the first deal, ...)
    while not game.is_over:
        seat = game.to_act
        action = pick(game.view(seat), game.legal_actions())
        events = game.apply(action)          # checked: IllegalAction, state unchanged
    game.result()

Two entry points for actions, as in python-chess: ``apply(action)`` checks (every action
from the network or a bot program goes through it: data is read by :meth:`Game.parse_action`,
a class method, then :meth:`Game.check` refuses what is illegal, then the game's own play
step); ``apply(action, checked=False)`` is the fast path for trusted code that took the action
from :meth:`Game.legal_actions` itself. ``copy()`` gives an independent game for search.

Everything that crosses a boundary is JSON-compatible data (dicts with string keys, lists,
str, int, float, bool, None): action data, views, events, positions, results. The same
data goes into msgpack frames, JSON lines and logs unchanged.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

from quinze_protocol import caches as _caches
from quinze_protocol.game_errors import ActionError, GameError, IllegalAction, OptionError, PositionError, UnknownGame

if TYPE_CHECKING:
    from quinze_protocol.observer import Observer

__all__ = [
    "Action",
    "ActionError",
    "Bot",
    "Event",
    "Game",
    "GameError",
    "IllegalAction",
    "Option",
    "OptionError",
    "PositionError",
    "Result",
    "UnknownGame",
    "bot_names",
    "get_bot",
    "is_bot_name",
    "register_budgeted_bot",
    "get_game",
    "game_ids",
    "register_bot",
    "register_game",
]


# --------------------------------------------------------------------------- values


class Action:
    """One move. Each game subclasses it (a small frozen value, hashable, comparable).

    ``to_data()`` gives the action as protocol data: a dict with a ``"type"`` key and the
    game's fields, e.g. ``{"type": "fifteen", "hand": ["7H"], "table": ["8C"]}``. For a
    parameterised action in a legal list (a raise), the data carries its range instead of a
    value (``{"type": "raise", "min": 1, "max": 20}``); see the game's module.
    """

    __slots__ = ()

    def to_data(self) -> dict[str, Any]:  # pragma: no cover - abstract
        raise NotImplementedError


_NO_PRIVATE: Mapping[int, Mapping[str, Any]] = MappingProxyType({})
"""``Event.private`` of an event made without private fields (read only: shared)."""


class Event(NamedTuple):
    """Something that happened, as the game tells it.

    - ``kind``: e.g. ``"deal"``, ``"draw"``, ``"fifteen"``, ``"deal-end"`` (the game's module lists them).
    - ``public``: what everybody may see (JSON-compatible dict, without ``kind``).
    - ``private``: per seat, what only that seat may also see (e.g. the card it drew).

    An immutable value, equal to another event with the same fields. A named tuple: the engines
    make several per decision, and a tuple is built by one call (``tuple.__new__(Event, (kind,
    public, private))``, :func:`quinze_protocol.games.events.event`), where a frozen dataclass
    set each field through ``object.__setattr__``.
    """

    kind: str
    public: Mapping[str, Any]
    private: Mapping[int, Mapping[str, Any]] = _NO_PRIVATE

    def for_seat(self, seat: int | None) -> dict[str, Any]:
        """The event as ``seat`` sees it (``None``: a spectator): ``{"kind": ..., **public, **private[seat]}``."""
        out = {"kind": self.kind, **self.public}
        if seat is not None and seat in self.private:
            out.update(self.private[seat])
        return out

    def full(self) -> dict[str, Any]:
        """Everything, for logs: ``{"kind", **public, "private": {"<seat>": {...}}}`` (private only if any)."""
        out = {"kind": self.kind, **self.public}
        if self.private:
            out["private"] = {str(s): dict(p) for s, p in self.private.items()}
        return out


FORFEIT = "forfeit"
"""``Result.reason`` of a forfeited game (:meth:`Result.forfeit`)."""
ABORTED = "aborted"
"""``Result.reason`` of a game the server stopped before its end (:meth:`Result.aborted`)."""


@dataclass(frozen=True, slots=True)
class Result:
    """How a game ended.

    - ``points``: per seat, the share of the win: 1 for a sole winner, ``1/k`` each for ``k``
      tied winners, 0 otherwise (sums to 1). Matches and Elo use these.
    - ``scores``: per seat, the game's own score (Le Quinze: match totals in points, lower is
      better; Le Quinze classique: chips won or lost; Le 14: cards left).
    - ``winners``: seats that won.
    - ``reason``: why it ended, e.g. ``"target"``, ``"blocked"``, ``"max-turns"``, ``"out"``.
    """

    points: tuple[float, ...]
    scores: tuple[float, ...]
    winners: tuple[int, ...]
    reason: str

    def to_data(self) -> dict[str, Any]:
        """``{"points": [float], "scores": [number], "winners": [int], "reason": str}``."""
        return {
            "points": list(self.points),
            "scores": list(self.scores),
            "winners": list(self.winners),
            "reason": self.reason,
        }

    @classmethod
    def from_winners(cls, winners: Sequence[int], scores: Sequence[float], reason: str) -> "Result":
        """A result sharing one point equally among ``winners``."""
        n = len(scores)
        share = 1.0 / len(winners) if winners else 0.0
        points = tuple([share if s in winners else 0.0 for s in range(n)])  # a list: no generator run from C
        return cls(points, tuple(scores), tuple(sorted(winners)), reason)

    @classmethod
    def forfeit(cls, players: int, seat: int) -> "Result":
        """The result of a game forfeited by ``seat`` (of ``players`` seats): 0 points for it, the
        others share the point equally; scores all 0.0; reason ``"forfeit"`` (PROTOCOL.md "Flow" 5)."""
        return cls.from_winners([s for s in range(players) if s != seat], [0.0] * players, FORFEIT)

    @classmethod
    def aborted(cls, players: int) -> "Result":
        """The result of a game stopped before its end (the server shut down): nobody wins, points
        and scores all 0.0, reason ``"aborted"`` (PROTOCOL.md "Flow" 8). Matches count no point."""
        return cls((0.0,) * players, (0.0,) * players, (), ABORTED)


@dataclass(frozen=True, slots=True)
class Option:
    """One table option: its name, type (``int``, ``bool`` or ``str``), default, bounds and help.

    ``default`` may be None where the game derives it (then the game fills it in ``new``).
    """

    name: str
    type: type
    default: Any
    help: str
    min: int | None = None
    max: int | None = None
    choices: tuple[str, ...] | None = None

    def convert(self, value: Any) -> Any:
        """The value checked and converted, as the wire carries it (PROTOCOL.md "Game actions"):
        a bool option takes only a boolean (the words of the command line, ``"yes"``, ``"0"``...,
        are :meth:`from_text`'s: here they are refused, as ``0`` and ``1`` are); an int option an
        integer, or its digits as text (``"50"``); a str option text.

        Raises :class:`OptionError` naming the option.
        """
        v = value
        if self.type is bool:
            if not isinstance(v, bool):
                what = " (a boolean; text is read only from the command line)" if isinstance(v, str) else ""
                raise OptionError(f"expects true or false{what}, got {value!r}", field=self.name)
            return v
        if self.type is int:
            if isinstance(v, str):
                try:
                    v = int(v.strip())
                except ValueError:
                    raise OptionError(f"expects a whole number, got {value!r}", field=self.name) from None
            if not isinstance(v, int) or isinstance(v, bool):
                raise OptionError(f"expects a whole number, got {value!r}", field=self.name)
            if self.min is not None and v < self.min:
                raise OptionError(f"must be at least {self.min}, got {v}", field=self.name)
            if self.max is not None and v > self.max:
                raise OptionError(f"must be at most {self.max}, got {v}", field=self.name)
            return v
        if not isinstance(v, str):
            raise OptionError(f"expects text, got {value!r}", field=self.name)
        if self.choices is not None and v not in self.choices:
            raise OptionError(f"must be one of {', '.join(self.choices)}, got {v!r}", field=self.name)
        return v

    def from_text(self, value: Any) -> Any:
        """``value`` as the command line gives it (``--option KEY=VALUE``: text) read for this
        option's type: for a bool option ``true``/``false``, ``yes``/``no``, ``on``/``off``,
        ``1``/``0`` (any case, spaces around ignored) are True or False, other text is refused
        (:class:`OptionError` naming the option). Anything else is returned as it is, for
        :meth:`convert` to check."""
        if self.type is bool and isinstance(value, str):
            low = value.strip().lower()
            if low in ("1", "true", "yes", "on"):
                return True
            if low in ("0", "false", "no", "off"):
                return False
            raise OptionError(f"expects true or false (or yes/no, on/off, 1/0), got {value!r}", field=self.name)
        return value

    def to_data(self) -> dict[str, Any]:
        """``{"name", "type": "int"|"bool"|"str", "default", "help", "min", "max", "choices"}``."""
        return {
            "name": self.name,
            "type": self.type.__name__,
            "default": self.default,
            "help": self.help,
            "min": self.min,
            "max": self.max,
            "choices": list(self.choices) if self.choices else None,
        }


# --------------------------------------------------------------------------- the interface


_VALIDATED: dict[Any, dict[str, Any]] = {}
""":meth:`Game.validate_options` results by (game class, raw items, their types): ``new`` validates
its options again for every game, and a match or a benchmark passes the same ones each time."""
_caches.register_dict("game._VALIDATED", _VALIDATED)
_LAST_VALIDATED: dict[Any, tuple[tuple[Any, ...], tuple[Any, ...], tuple[Any, ...], dict[str, Any]]] = {}
"""By game class: the names, values and types last kept in :data:`_VALIDATED`, and the result
(three tuple comparisons tell the same options, about 2,500 instructions fewer than that key)."""
_caches.register_dict("game._LAST_VALIDATED", _LAST_VALIDATED)


class Game(ABC):
    """The interface every game implements. Subclasses set the class attributes and register
    themselves with :func:`register_game`.

    Seats are ``0 .. players-1`` in order of play (the rules texts in quinze_cli/rules/, "Common to the three games").
    """

    id: ClassVar[str]
    """Game id: ``"quinze"``, ``"quatorze"``, ``"quinze-classique"``."""
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    option_specs: ClassVar[tuple[Option, ...]]
    """Every table option but ``players``, which all games share."""
    score_label: ClassVar[str] = "Game score"
    """What ``Result.scores`` is called in tables of results (``"Mean total"``, ``"Chips"``...)."""
    score_meaning: ClassVar[str] = "the game's own score"
    """What ``Result.scores`` means, in words, as a match aggregates it."""
    score_aggregate: ClassVar[str] = "mean"
    """How a match aggregates ``Result.scores`` over its games: ``"sum"`` or ``"mean"``."""
    lower_is_better: ClassVar[bool | None] = None
    """True when a lower ``Result.scores`` entry is better, False when higher is, None: neither."""
    hint_bot: ClassVar[str | None] = None
    """The built-in bot whose choice is the hint of ``quinze play`` (None: the first one)."""
    private_fields: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    """By event kind, the fields that are private to a seat (``Event.private``); no other field of
    any event is ever private."""
    observer: ClassVar[type[Observer]]
    """The game's :class:`~quinze_protocol.observer.Observer`: the public picture a client keeps
    from the events a spectator sees, equal to ``view(None)`` after every action."""
    rules_version: ClassVar[int] = 1
    """Version of the rules this engine plays, bumped by every change of how the game plays (the
    same seed, options and actions would give another game). Recorded in every log header
    (``header.rules``) so that a log of another version is recognised as such."""

    options: dict[str, Any]
    """The validated options this game was made with, ``players`` included."""
    opening_events: list[Event]
    """Events produced by :meth:`new` (seating, the first deal, ...); empty after ``from_position``."""
    listed_legal: ClassVar[bool] = False
    """True when every action :meth:`legal_actions` lists is legal as it stands, so that one taken
    from the list of this very state may be played with ``apply(action, checked=False)`` (the
    server does so for an answer naming a listed entry byte for byte); False where a listed entry
    may stand for several actions and is no action itself (Le Quinze classique lists a raise with
    its range). tests/test_server_listed.py checks every listed action of random games of each
    game that says True."""
    record_events: bool = True
    """False: :meth:`apply` builds no events and returns an empty list, for callers that never
    read them (search playouts, in-process self-play: building the events is a large part of a
    decision's cost). The game plays exactly the same. Set on one game (``g.record_events =
    False``); its copies keep the setting; :meth:`new` and :meth:`from_position` give games that
    record."""

    # ---- options

    @classmethod
    def validate_options(cls, raw: Mapping[str, Any], *, text: bool = False) -> dict[str, Any]:
        """Every option with its default filled in and its value checked and converted.

        ``raw`` holds the values as the wire carries them (:meth:`Option.convert`: a bool option a
        boolean). ``text``: ``raw`` comes from the command line (``--option key=value``, a typed
        lobby line), whose words are read first (:meth:`Option.from_text`: ``quick_place=yes``).
        ``players`` defaults to ``min_players``. Raises :class:`OptionError` naming the option
        (unknown names included).
        """
        if text:
            specs_by_name = {o.name: o for o in cls.option_specs}
            raw = {k: (specs_by_name[k].from_text(v) if k in specs_by_name else v) for k, v in raw.items()}
        values = tuple(raw.values())
        types = tuple(map(type, values))
        last = _LAST_VALIDATED.get(cls)  # the same as last kept? (types first: a kept value is hashable)
        if last is not None and types == last[2] and values == last[1] and tuple(raw) == last[0]:
            return dict(last[3])
        try:  # the same options again (every game of a match): the result kept, values and types alike
            key: Any = (cls, tuple(raw.items()), types)
            done = _VALIDATED.get(key)
        except TypeError:  # an unhashable value: checked below, not kept
            key = done = None
        if done is not None:
            _LAST_VALIDATED[cls] = (tuple(raw), values, types, done)
            return dict(done)
        specs = {o.name: o for o in cls.option_specs}
        players = Option("players", int, cls.min_players, "number of seats", cls.min_players, cls.max_players)
        specs = {"players": players, **specs}
        for name in raw:
            if name not in specs:
                raise OptionError(
                    f"unknown option for {cls.id} (known: {', '.join(specs)})", field=str(name), code="unknown-option"
                )
        options = {name: (spec.convert(raw[name]) if name in raw else spec.default) for name, spec in specs.items()}
        cls.check_options(options)
        if key is not None:
            if len(_VALIDATED) >= 256:
                _VALIDATED.clear()
            _VALIDATED[key] = done = dict(options)
            _LAST_VALIDATED[cls] = (tuple(raw), values, types, done)
        return options

    @classmethod
    def check_options(cls, options: Mapping[str, Any]) -> None:
        """Refuse options that are each valid but that the game refuses together (Le Quinze
        classique: ``caves`` must give one cave per seat). Called by :meth:`validate_options` on
        its converted options, so no game needs to be made to check options. Raises
        :class:`OptionError` naming the option; the default accepts everything."""
        return None

    # ---- creation and positions

    @classmethod
    @abstractmethod
    def new(cls, options: Mapping[str, Any], seed: int) -> "Game":
        """A new game with ``options`` (validated with :meth:`validate_options`) and integer ``seed``.

        Raises :class:`OptionError`. The setting-up events are in ``opening_events``.
        """

    @classmethod
    @abstractmethod
    def from_position(cls, data: Mapping[str, Any]) -> "Game":
        """A game from position data (the format of :meth:`to_position`). Raises :class:`PositionError`
        naming the field and the reason (cards not in the decks in play, wrong hand sizes, phases)."""

    @abstractmethod
    def to_position(self) -> dict[str, Any]:
        """The complete state as JSON-compatible data, generator state included:
        ``from_position(to_position())`` continues identically."""

    @abstractmethod
    def copy(self) -> "Game":
        """An independent copy of this game: same state, same generator state, nothing mutable
        shared, so playing either never changes the other (search bots try moves on copies).
        Cheap: no validation, no event replay (``quinze bench`` measures it). The copy's
        ``opening_events`` are the source's (events are never changed)."""

    # ---- play

    @property
    def players(self) -> int:
        """Number of seats."""
        return self.options["players"]

    @property
    @abstractmethod
    def to_act(self) -> int | None:
        """The seat whose decision it is, None once the game is over."""

    @property
    @abstractmethod
    def is_over(self) -> bool:
        """True once the game has ended."""

    @abstractmethod
    def legal_actions(self) -> list[Action]:
        """Every legal action of the seat to act, each listed once (equivalent ones merged);
        empty once the game is over."""

    def legal_count(self) -> int:
        """``len(legal_actions())``; a game may count its legal actions without listing them."""
        return len(self.legal_actions())

    def legal_action(self, i: int) -> Action:
        """``legal_actions()[i]`` for ``0 <= i < legal_count()``; a game may build that action
        alone. Raises :class:`IndexError` (naming ``i`` and the count) for any other ``i``."""
        return _nth(self.legal_actions(), i)

    def legal_pick(self, pick: Callable[[int], int]) -> Action:
        """``legal_action(pick(legal_count()))``, counting once: the action at the index that
        ``pick`` chooses among the ``n`` legal ones (a uniform ``pick`` gives random play without
        a list, :attr:`Bot.picks`). Raises :class:`IndexError` as :meth:`legal_action` does."""
        legal = self.legal_actions()
        return _nth(legal, pick(len(legal)))

    @classmethod
    @abstractmethod
    def parse_action(cls, data: Mapping[str, Any]) -> Action:
        """Action data (``{"type": ..., ...}``) read into an :class:`Action`. Raises
        :class:`ActionError` naming the field. Position-independent (a class method: no game is
        needed to read the entries of a legal list); legality is :meth:`check`'s business."""

    @abstractmethod
    def check(self, action: Action) -> None:
        """Raise :class:`IllegalAction` (stable ``code``, ``reason`` in words) unless ``action``
        is legal now for the seat to act; :class:`ActionError` for an action of another game.
        Never changes the state."""

    @abstractmethod
    def _play(self, action: Action) -> list[Event]:
        """The game's own play step: ``action``, already legal, played for the seat to act; the
        events it produced, the automatic steps that follow included."""

    def apply(self, action: Action | Mapping[str, Any], *, checked: bool = True) -> list[Event]:
        """Play ``action`` (an :class:`Action` or its data) for the seat to act; returns the events
        it produced (including any automatic steps that follow: draws, the next deal, the end
        of the game).

        Data goes through :meth:`parse_action` (:class:`ActionError` naming the field); with
        ``checked`` (the default) :meth:`check` refuses an illegal action (:class:`IllegalAction`)
        and the state is unchanged; then the game's :meth:`_play`. ``checked=False`` is for
        actions taken from :meth:`legal_actions` of this very state. The events: an empty list
        when :attr:`record_events` is False.
        """
        if not isinstance(action, Action):
            if not isinstance(action, Mapping):
                raise ActionError(f"not an action: {type(action).__name__}", field="type")
            action = self.parse_action(action)
        if checked:
            self.check(action)
        return self._play(action)

    @abstractmethod
    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see (each rules text in quinze_cli/rules/, "What each player sees"); ``None`` for a spectator,
        who sees only public information. Never another hand's cards or the stock order."""

    @staticmethod
    def packed_entry(action: Any) -> bytes | None:
        """Where the game encodes its actions itself: for one of its actions, the msgpack of its
        ``to_data()`` (``use_bin_type``, the same bytes) that decodes as a frame's map with a text
        ``type`` (PROTOCOL.md "Framing"; so the server lets a client send it back as it is without
        checking it again); None (the default, and for an action the game does not encode): the
        server encodes ``to_data()`` and checks it."""
        return None

    @staticmethod
    def packed_event(event: "Event", seat: int | None) -> bytes | None:
        """Where the game keeps an event's encoding: the msgpack of ``event.for_seat(seat)``
        (``use_bin_type``, the same bytes; ``seat`` None: the public form); None (the default,
        and for an event the game does not keep): the server encodes the event itself."""
        return None

    def packed_view(self, seat: int | None) -> bytes | None:
        """The msgpack encoding of :meth:`view` (``use_bin_type``: PROTOCOL.md "Framing"), the same
        bytes, where the game makes it for less than encoding the view (the server sends one per
        action); None (the default): encode :meth:`view` itself."""
        return None

    @abstractmethod
    def result(self) -> Result | None:
        """The result once over, else None. The same value is in every view (``view()["result"]``,
        as :meth:`Result.to_data`, or None) and in the game's last event, ``game-end``
        (``{"result": Result.to_data(), ...}``)."""

    def stats(self) -> dict[str, float]:
        """Per-game figures for self-play summaries (``quinze selfplay``): counters named by the
        game, e.g. deals and blocked deals, coups and showdowns; ``{}`` for a game that keeps
        none."""
        return {}

    # ---- conveniences

    def legal_data(self) -> list[dict[str, Any]]:
        """The legal actions as protocol data."""
        return [a.to_data() for a in self.legal_actions()]


def _nth(legal: Sequence[Action], i: int) -> Action:
    if 0 <= i < len(legal):
        return legal[i]
    raise IndexError(f"no legal action {i!r}: {len(legal)} legal action(s), numbered from 0")


# --------------------------------------------------------------------------- bots


class Bot(ABC):
    """A built-in player that runs in process. It sees what a seat sees over the protocol:
    the seat's view and the legal actions, never the game object.

    ``needs_view``: False lets fast callers (self-play, benchmarks) pass an empty view.
    ``picks``: True when the choice depends on the number of legal actions alone:
    ``choose(view, legal)`` is ``complete(legal[pick(len(legal))])`` with the same draws, so a
    caller may play ``bot.complete(game.legal_pick(bot.pick))`` instead (the same game, no list:
    random self-play); :meth:`complete` is the identity unless the bot draws a parameter of the
    entry picked (classique's random bot: the amount of a raise listed with its range).
    """

    needs_view: ClassVar[bool] = True
    picks: ClassVar[bool] = False

    def pick(self, n: int) -> int:
        """The index (``0..n-1``) :meth:`choose` would take among ``n`` actions (:attr:`picks`)."""
        raise NotImplementedError(f"{type(self).__name__} chooses from the actions, not by index")

    def complete(self, action: Action) -> Action:
        """The action :meth:`choose` gives when :meth:`pick` chose the listed ``action``
        (:attr:`picks`): ``action`` itself by default; a bot that draws a parameter after the
        index (a raise's amount) draws it here, as :meth:`choose` does."""
        return action

    @abstractmethod
    def choose(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        """One of ``legal`` (non-empty)."""

    def observe(self, event: Mapping[str, Any]) -> None:
        """One event of the game as this bot's seat was sent it (``Event.for_seat(seat)``:
        ``{"kind": ..., public fields, own private fields}``), in order. The default ignores it;
        a bot that remembers (the search bot ``mcts``) keeps what it needs."""
        return None


# The registry of games and built-in bots (quinze_protocol.registry), named here as before.
from quinze_protocol.registry import (  # noqa: E402
    bot_names,
    game_ids,
    get_bot,
    get_game,
    is_bot_name,
    register_bot,
    register_budgeted_bot,
    register_game,
)
