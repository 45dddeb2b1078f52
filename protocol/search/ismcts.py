"""Single-observer information-set Monte Carlo tree search (SO-ISMCTS; Cowling, Powley &
Whitehouse, "Information Set Monte Carlo Tree Search", IEEE TCIAIG 2012). docs/bots.md.

One tree for the searching seat's information set. Each iteration:

1. determinize: a full game dealt from the seat's view and knowledge
   (:mod:`quinze_protocol.search.determinize`), a new one every iteration;
2. select: down the tree of the seat's own decisions (the other seats' moves in between are
   played by the game's playout policy, which sees their cards in this determinization: see
   :attr:`GameModel.opponents_in_tree`), among the children whose action is legal in it,
   the one maximising UCB1 with availability counts
   (``mean + c * sqrt(ln(available) / visits)``), until a node has a legal action not tried yet;
3. expand that action (one new node; with a progressive bias, :attr:`GameModel.bias`, the
   game's rule of thumb is tried first and favoured while its node has few visits);
4. play out to the horizon with the game's rollout policy (:class:`GameModel`);
5. back up: each node adds the reward of the seat that chose its action (rewards in 0..1).

The move played is the most visited child of the root. Nodes are keyed by the action, so the
opponents' moves in different determinizations share a node when they are the same action
(that is what makes the tree one of information sets, not of states).

Why ISMCTS and not determinized UCT (one tree per determinization, votes at the end): it spends
the whole budget in one tree, so it needs no choice of how many determinizations, and it never
searches a line that only one guessed deal allows ("strategy fusion" is reduced). With a budget of
a few hundred iterations per move, that matters more than the bias ISMCTS keeps.

Deterministic: every random number comes from the :class:`~quinze_protocol.rng.Rng` given; with an
iteration budget the same view, knowledge and seed give the same move. A time budget
(``deadline``) stops on the clock instead, which is not reproducible.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from quinze_protocol.game import Action, Game
from quinze_protocol.rng import GAMMA, MASK64, MIX1, MIX2, Rng
from quinze_protocol.search.determinize import Determinizer

__all__ = ["GameModel", "Node", "search"]

_M64 = MASK64
_UNSET = object()


class Node:
    """A tree node: the action that led here was chosen by ``seat``; ``reward`` sums that seat's
    rewards over ``visits``; ``avail`` counts the iterations in which the action was legal.
    ``children``: the next decisions, by action; ``after``: with an observation key
    (:meth:`GameModel.observation`), the decision reached after this action, by what the
    searching seat then sees (empty otherwise: ``children`` holds the next decision)."""

    __slots__ = ("children", "visits", "avail", "reward", "seat", "after")

    def __init__(self, seat: int) -> None:
        self.children: dict[Action, Node] = {}
        self.visits = 0
        self.avail = 1
        self.reward = 0.0
        self.seat = seat
        self.after: dict[Any, Node] = {}


class GameModel:
    """What the search needs to know of one game. Subclassed per game in
    :mod:`quinze_protocol.search.models`.

    - ``actions(g)``: the concrete actions to search at ``g`` (``legal_actions`` with any
      parameterised action replaced by a few values);
    - ``start(g)``: a marker of the root state (e.g. its deal number, chips) passed to the others;
    - ``done(g, start, steps)``: True when a playout stops here (the horizon);
    - ``rewards(g, start)``: per seat, a reward in 0..1 at a stopped state;
    - ``rollout(g, rng)``: one action of the playout policy (default: uniform over ``actions``).
    """

    max_steps = 400
    """A playout stops after this many decisions (then ``rewards`` judges the state)."""
    c = 0.7
    """The exploration constant of UCB1 (rewards in 0..1), unless :func:`search` is given one."""
    bias = 0.0
    """Progressive bias (Chaslot et al. 2008) towards the first of :meth:`actions`, which is then
    the rule of thumb's choice: ``bias / (visits + 1)`` is added to its UCB value, and untried
    actions are expanded in order. 0: none (untried actions in random order). A game may use
    another value by table size: :meth:`bias_at`."""
    opponents_in_tree = False
    """False: the other seats' moves are played by :meth:`rollout` (which sees their cards in the
    determinization) and the tree holds only the searching seat's decisions. True: they are tree
    nodes too, chosen by UCB over the searching seat's information set, the plain SO-ISMCTS, which
    makes every opponent play as if it did not know its own cards."""

    def actions(self, g: Game) -> list[Action]:
        return g.legal_actions()

    def direct(self, view: Any, legal: Sequence[Action]) -> Action | None:
        """A move the bot plays without searching (None: search). Default: always search."""
        return None

    def start(self, g: Game) -> Any:
        return None

    def bias_at(self, g: Game) -> float:
        """The progressive bias of a search from ``g`` (default: :attr:`bias`)."""
        return self.bias

    def done(self, g: Game, start: Any, steps: int) -> bool:
        return g.is_over or steps >= self.max_steps

    def rewards(self, g: Game, start: Any) -> Sequence[float]:  # pragma: no cover - overridden
        raise NotImplementedError

    def rollout(self, g: Game, rng: Rng) -> Action:
        return _uniform(self.actions(g), rng)

    def policy(self, root: Game, start: Any) -> Callable[[Game, Rng], Action]:
        """The playout policy of a search from ``root`` (a determinization of the root decision;
        ``start`` its marker): a function ``(g, rng) -> action``. Default: :meth:`rollout`."""
        return self.rollout

    flat = False
    """True: the bot searches by :func:`quinze_protocol.search.flat.flat_search` (every action
    compared on the same deals and draws) instead of the tree of :func:`search`."""

    observation: Callable[[Game, int], Any] | None = None
    """``observation(g, seat)``: a hashable summary of what ``seat`` sees at ``g`` (its cards,
    the public cards and counts), or None. Given, the searching seat's next decision after one of
    its actions is a node per observation, so the tree's later choices depend on what was seen
    meanwhile (the card drawn, the opponents' moves), as the information sets of ISMCTS do;
    without it every such decision shares one node, blind to what happened in between."""


def _uniform(items: Sequence[Any], rng: Rng) -> Any:
    n = len(items)
    if n == 1:
        return items[0]
    # Rng.below(n) inlined (the same numbers)
    limit = (1 << 64) - ((1 << 64) % n)
    while True:
        rng.state = z = (rng.state + GAMMA) & _M64
        z = ((z ^ (z >> 30)) * MIX1) & _M64
        z = ((z ^ (z >> 27)) * MIX2) & _M64
        x = z ^ (z >> 31)
        if x < limit:
            return items[x % n]


def search(det: Determinizer, model: GameModel, rng: Rng, *, iterations: int,
           deadline: Callable[[], bool] | None = None, c: float | None = None,
           stats: dict[str, Any] | None = None) -> Action:
    """The action SO-ISMCTS chooses for the seat to act of ``det``'s view.

    ``iterations``: at most this many (>= 1); ``deadline``: a function called between iterations,
    True stops the search (at least one iteration is always run). ``c``: the exploration
    constant (None: the model's :attr:`GameModel.c`). ``stats`` (optional) is filled with ``iterations``,
    the root's ``{action data text: [visits, mean]}`` (``root``) and ``{action: visits}`` (``visits``).
    """
    if c is None:
        c = model.c
    root = Node(-1)
    log, sqrt = math.log, math.sqrt
    done = model.done
    act = model.actions
    roll: Callable[[Game, Rng], Action] = model.rollout
    n = 0
    me: int | None = None
    in_tree = model.opponents_in_tree
    observe = None if in_tree else model.observation
    bias = model.bias
    start: Any = _UNSET
    while n < iterations:
        if n and deadline is not None and deadline():
            break
        n += 1
        g = det.sample(rng)
        g.record_events = False  # the search never reads the events of its playouts: none built
        if me is None:
            me = g.to_act
            bias = model.bias_at(g)
        if start is _UNSET:  # every determinization shares the root's public marker
            start = model.start(g)
            roll = model.policy(g, start)
        node = root
        path = [root]
        steps = 0
        fresh = True  # node is the decision reached now (False: the action node just taken)
        # selection and expansion (with opponents_in_tree False, the others' moves are played
        # by the rollout policy and the tree holds only the searching seat's own decisions)
        while not done(g, start, steps):
            seat = g.to_act
            assert seat is not None, "somebody acts until the playout is done"
            if not in_tree and seat != me:
                g.apply(roll(g, rng), checked=False)
                steps += 1
                continue
            if not fresh:  # my next decision after the action taken: by what I see now
                key = observe(g, seat)  # type: ignore[misc]
                nxt = node.after.get(key)
                if nxt is None:
                    nxt = node.after[key] = Node(seat)
                node = nxt
            fresh = observe is None
            legal = act(g)
            children = node.children
            untried = [a for a in legal if a not in children]
            if untried:
                a = untried[0] if bias else _uniform(untried, rng)
                for b in legal:
                    ch = children.get(b)
                    if ch is not None:
                        ch.avail += 1
                child = children[a] = Node(seat)
                g.apply(a, checked=False)
                steps += 1
                path.append(child)
                break
            first = legal[0]
            best = first
            best_v = -1.0
            for b in legal:
                ch = children[b]
                ch.avail += 1
                v = ch.reward / ch.visits + c * sqrt(log(ch.avail) / ch.visits)
                if bias and b == first:
                    v += bias / (ch.visits + 1)
                if v > best_v:
                    best, best_v = b, v
            node = children[best]
            g.apply(best, checked=False)
            steps += 1
            path.append(node)
        # playout
        while not done(g, start, steps):
            g.apply(roll(g, rng), checked=False)
            steps += 1
        r = model.rewards(g, start)
        for nd in path[1:]:
            nd.visits += 1
            nd.reward += r[nd.seat]
    best_a, best_n = None, -1
    for a, ch in root.children.items():
        if ch.visits > best_n:
            best_a, best_n = a, ch.visits
    if stats is not None:
        stats["iterations"] = n
        stats["visits"] = {a: ch.visits for a, ch in root.children.items()}
        stats["root"] = {str(a.to_data()): [ch.visits, ch.reward / ch.visits if ch.visits else 0.0]
                         for a, ch in root.children.items()}
    assert best_a is not None
    return best_a
