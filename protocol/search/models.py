"""What the search knows of each game: horizon, rewards, playout policy (docs/bots.md).

Rewards are per seat in 0..1. A finished game gives its result's points (the rules texts in quinze_cli/rules/: the share
of the win). Otherwise each game judges the state where the playout stopped:

- Le Quinze (``quinze``): the playout stops at the end of the deal; the reward grows with how
  much better the seat's deal score is than the others' mean (lower is better, quinze_cli/rules/quinze.md
  "Scoring"): ``0.5 + 0.5 * d / (|d| + 20)``.
- Le 14 (``quatorze``): the playout stops one round on (the game can last hundreds of turns);
  the reward compares the seat's cards left, less half of those the hand could lay at once,
  with the best other seat's (quinze_cli/rules/quatorze.md "Score"): ``0.5 + 0.5 * d / (|d| + 4)``.
- classique (``quinze-classique``): the playout stops at the end of the coup; the reward is an
  estimate of the chance to win the match from the lead in chips over the best other seat then
  and the coups left (:meth:`ClassiqueModel.rewards`). A raise is searched with three amounts:
  the minimum, the middle and the maximum of its range.

Each model also says what a seat observes (``observation``), so that the search tree's later
decisions of the searching seat are told apart by what it saw in between
(:attr:`quinze_protocol.search.ismcts.GameModel.observation`). The playout policies are the
built-in rules of thumb with a little noise: a uniform move one time in eight (Le Quinze) or ten
(Le 14), a hitting line drawn around 11 in classique (a uniformly random classique move is so
often a blunder, burning on 14 or standing on 5, that the search learnt to stake everything on
the opponents making them).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from quinze_protocol.game import Action
from quinze_protocol.rng import Rng
from quinze_protocol.search.ismcts import GameModel, _uniform

__all__ = ["MODELS", "model_for"]


def _squash(d: float, scale: float) -> float:
    return 0.5 + 0.5 * d / (abs(d) + scale)


class QuinzeModel(GameModel):
    """Le Quinze: one deal deep; greedy-ish playouts (see :meth:`rollout`)."""

    max_steps = 600

    def start(self, g: Any) -> Any:
        return g.deal_no

    def done(self, g: Any, start: Any, steps: int) -> bool:
        return g.phase == "over" or g.deal_no != start or steps >= self.max_steps

    def rewards(self, g: Any, start: Any) -> Sequence[float]:
        res = g.result()
        if res is not None:
            return res.points
        n = g.n
        if g.deal_no != start:
            scores = g.history[-1]["scores"]
        else:
            from quinze_protocol.games.quinze_legal import CARD_POINTS

            scores = [sum(CARD_POINTS[c] for c in h) for h in g.hands]
        total = sum(scores)
        return [_squash((total - scores[s]) / (n - 1) - scores[s], 20.0) for s in range(n)]

    def observation(self, g: Any, seat: int) -> Any:
        """The seat's hand and the table (the rest it sees follows from them and the moves)."""
        return (tuple(sorted(g.hands[seat])), tuple(sorted(g.table)))

    def rollout(self, g: Any, rng: Rng) -> Action:
        """The built-in ``greedy`` choice (the fifteen shedding the most cards, then points;
        else the costliest placement) seven times in eight, else uniform."""
        legal = g.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if rng.next64() & 7 == 0:
            return _uniform(legal, rng)
        from quinze_protocol.games.quinze_legal import CARD_POINTS as pts
        best, key = legal[0], (-1, 0, 0)
        for a in legal:
            kind = a[0]
            if kind == "fifteen":
                h = a[1] + a[3]
                k = (2, len(h), sum(pts[c] for c in h))
            elif kind == "place":
                k = (1, 0, sum(pts[c] for c in a[1]))
            else:
                k = (0, 0, 0)
            if k > key:
                best, key = a, k
        return best


def _value_key(a: Any) -> Any:
    """What a Le 14 move does, suits left out (suits never matter, quinze_cli/rules/quatorze.md
    "Material and values")."""
    from quinze_protocol.games.quatorze_actions import VALUES

    name = type(a).__name__
    if name == "Discard":
        return (name, VALUES[a.card])
    if name == "Combine":
        return (name, tuple(sorted(VALUES[c] for c in a.cards)))
    if name == "Substitute":
        return (name, a.kind, a.combination, a.other, tuple(sorted(VALUES[c] for c in a.hand)),
                tuple(sorted(VALUES[c] for c in a.cards)), VALUES[a.card] if a.card >= 0 else -1)
    return a


def _by_value(actions: list[Action]) -> list[Action]:
    """``actions`` with one move kept (the first) of those that differ only by suits: the
    search then spends its iterations on moves that differ."""
    seen: set[Any] = set()
    out = []
    for a in actions:
        k = _value_key(a)
        if k not in seen:
            seen.add(k)
            out.append(a)
    return out


class QuatorzeModel(GameModel):
    """Le 14: one round deep, judged by cards left; the turn planner's move first
    (:mod:`quinze_protocol.search.plan_quatorze`), which also finishes the searching seat's
    turn in the playouts; a greedy playout policy for the other turns."""

    max_steps = 200
    rounds = 1
    bias = 5.0
    """The search leaves the planner's move only when another is clearly better: with 0.5 it left
    it on noise and scored 0.598 against greedy where the planner alone scored 0.672, with 5
    0.669 (the same 59 to 61 duplicate deals at 100 iterations, docs/bots.md). Before the
    planner, with greedy's move first, 0.5 had scored 0.57 and 0.1 0.43."""
    bias_large = 5.0
    """The bias at three seats and more (now the same as at two), where the search left greedy's move on differences
    smaller than the noise of two hidden hands and lost to it (docs/bots.md, "Le 14 at three
    seats": 0.233 with 0.5, 0.317 with 5, on the same 20 duplicate deals at 100 iterations; 0.267
    with 0.5, 0.317 with 5 at 400 iterations). It does not beat greedy there."""

    def bias_at(self, g: Any) -> float:
        return self.bias if g.players <= 2 else self.bias_large

    prior = "planner"
    """The first searched move (which the progressive bias favours, and which ``mcts@1`` plays):
    ``"planner"``, the move of :mod:`quinze_protocol.search.plan_quatorze`; ``"greedy"``, the
    built-in ``greedy``'s."""

    searched = "all"
    """Which decisions the bot searches: ``"all"``; ``"draw"``, only the choice of pile (the
    planner plays the rest of the turn: it sees all that decides it)."""

    def direct(self, view: Any, legal: Sequence[Action]) -> Action | None:
        """The planner's move when :attr:`searched` leaves this decision to it."""
        if self.searched == "all" or view.get("phase") == "draw":
            return None
        from quinze_protocol.search.plan_quatorze import planned_action

        return planned_action(view, legal)

    def actions(self, g: Any) -> list[Action]:
        """:meth:`greedy_actions`, with the planner's move first (:attr:`prior`)."""
        out = self.greedy_actions(g)
        if self.prior != "planner":
            return out
        from quinze_protocol.search.plan_quatorze import game_plan

        a = game_plan(g)
        if a is None:
            return out
        k = _value_key(a)
        return [a] + [b for b in out if _value_key(b) != k]

    def greedy_actions(self, g: Any) -> list[Action]:
        """The moves worth searching, a subset of the legal ones, ordered best first by the rule
        of thumb: when a combination can be laid, those that let the most cards be laid this turn
        (as the built-in ``greedy`` counts them); else the two-for-one substitutions (one card
        fewer) and the discards of cards that belong to no combination of the hand (all
        discards when every card belongs to one). Draws: the discard pile's top first when it
        makes 14 with the hand (``greedy`` takes it then), else the stock first; the first move is
        then always ``greedy``'s (with one iteration the search plays as ``greedy``). Moves that
        differ only by suits are searched once. The substitutions that keep or grow the hand
        (``between``, ``hand-for-two``) are not searched."""
        from quinze_protocol.games.quatorze_actions import VALUES
        from quinze_protocol.games.quatorze_bots import _most_laid
        from quinze_protocol.games.quatorze_legal import combinations

        legal = g.legal_actions()
        if g.phase == "draw":
            if len(legal) == 2 and self._wants_discard(g):
                return [_DRAW_DISCARD, _DRAW_STOCK]
            return sorted(legal, key=lambda a: a != _DRAW_STOCK)
        hand = g.hands[g.seat]
        combines = [a for a in legal if type(a).__name__ == "Combine"]
        if combines:
            def laid(a: Any) -> int:
                left = list(hand)
                for c in a.cards:
                    left.remove(c)
                return len(a.cards) + _most_laid(tuple(sorted(VALUES[c] for c in left)))

            scored = [((laid(a), -len(a.cards)), a) for a in combines]
            top = max(k for k, _ in scored)
            # greedy's choice first (the most laid, then the fewest cards), then the other
            # combinations that let as many cards be laid
            return _by_value([a for k, a in scored if k == top]
                             + [a for k, a in scored if k[0] == top[0] and k != top])
        sheds = [a for a in legal if type(a).__name__ == "Substitute" and a.kind == "two-for-one"]
        discards = [a for a in legal if type(a).__name__ == "Discard"]
        useful = {c for a in combinations(hand) for c in a.cards}
        spare = [a for a in discards if a.card not in useful] or discards
        spare.sort(key=lambda a: -VALUES[a.card])
        out = _by_value(sheds + spare)
        return out or legal

    def start(self, g: Any) -> Any:
        return g.turns + g.players * self.rounds

    def done(self, g: Any, start: Any, steps: int) -> bool:
        return g.phase == "over" or g.turns >= start or steps >= self.max_steps

    planned_turn = True
    """The playouts finish the searching seat's current turn by the planner
    (:mod:`quinze_protocol.search.plan_quatorze`), which is cached by hand and table: that turn
    shares its hand and table in every determinization, up to the card drawn. The other turns
    are played by :meth:`rollout`."""

    def policy(self, root: Any, start: Any) -> Any:
        if not self.planned_turn:
            return self.rollout
        from quinze_protocol.search.plan_quatorze import game_plan

        me, turn, roll = root.seat, root.turns, self.rollout

        def play(g: Any, rng: Rng) -> Action:
            if g.turns == turn and g.seat == me:
                a = game_plan(g)
                if a is not None:
                    return a
            return roll(g, rng)

        return play

    def rollout(self, g: Any, rng: Rng) -> Action:
        """Like the built-in ``greedy``, nine times in ten (else uniform): draw the discard
        pile's top when it makes 14 with some hand cards, else the stock; lay the biggest
        combination; a two-for-one substitution (one card fewer); else discard the highest card
        (never a substitution that grows the hand)."""

        if g.phase == "draw":
            if g.discard and g.stock:
                return _DRAW_DISCARD if self._wants_discard(g) else _DRAW_STOCK
            return _DRAW_STOCK if g.stock else _DRAW_DISCARD
        legal = self.greedy_actions(g)
        if len(legal) == 1 or rng.below(10):
            return legal[0]  # the rule of thumb's first choice (see actions)
        return _uniform(legal, rng)

    @staticmethod
    def _wants_discard(g: Any) -> bool:
        """True when the discard pile's top card makes 14 with some cards of the hand (``greedy``
        then draws it)."""
        from quinze_protocol.games.quatorze_actions import VALUES

        if not g.discard:
            return False
        need = 14 - VALUES[g.discard[-1]]
        bits = 1
        for c in g.hands[g.seat]:
            bits = (bits | bits << VALUES[c]) & 0x7FFF
        return bool((bits >> need) & 1)

    def observation(self, g: Any, seat: int) -> Any:
        """The phase, the seat's hand, the discard pile's top, every hand's size and the
        table's combinations."""
        top = g.discard[-1] if g.discard else -1
        return (g.phase, tuple(sorted(g.hands[seat])), top, tuple(len(h) for h in g.hands),
                tuple(tuple(c) for c in g.table))

    def rewards(self, g: Any, start: Any) -> Sequence[float]:
        res = g.result()
        if res is not None:
            return res.points
        from quinze_protocol.games.quatorze_actions import VALUES
        from quinze_protocol.games.quatorze_bots import _most_laid

        # cards left, less half of those the hand could lay as combinations at once
        left = [x - 0.5 * _most_laid(tuple(sorted(VALUES[c] for c in h)))
                for x, h in zip(g.cards_left(), g.hands)]
        n = len(left)
        out = []
        for s in range(n):
            best_other = min(left[t] for t in range(n) if t != s)
            out.append(_squash(best_other - left[s], 4.0))
        return out


class ClassiqueModel(GameModel):
    """Le Quinze classique: one coup deep, chips won or lost; a threshold playout policy."""

    def rollout(self, g: Any, rng: Rng) -> Action:
        """Like the built-in ``threshold``, its hitting line drawn at each decision: 11 eight
        times in ten, else 10 or 12 (a varied but sensible opponent; uniform noise would make it
        burn or stand on 5 often, and the search then stakes everything on such blunders): hit
        below the line, else stand; raise the minimum with 14 or 15; call or check unless far
        behind."""
        from quinze_protocol.games.classique_actions import Call, Check, Fold, Hit, Raise, Stand
        from quinze_protocol.games.classique_coup import value

        r = rng.below(10)
        line = 11 if r > 1 else 10 + 2 * r
        s = g.turn
        total = value(g.hidden[s]) + sum(value(c) for c in g.face_up[s])
        if g.phase == "speak":
            return Hit() if total < line else Stand()
        rr = g.raise_range(s)
        if rr is not None and total >= 14:
            return Raise(amount=rr[0])
        if g.phase == "draw":
            return Hit() if total < line else Stand()
        if not g.raised:
            return Check()
        if g.stakes[s] >= g.high:
            return Fold() if rr is None else Raise(amount=rr[0])
        ups = [sum(value(c) for c in g.face_up[p]) for p in range(g.players)]
        rivals = [p for p in range(g.players) if p != s and g.status[p] in ("stand", "hit")]
        beaten = any(ups[p] + 1 > total and ups[p] + 1 <= 15 for p in rivals)
        if total >= 11 or g.status[s] == "hit" or not beaten:
            return Call()
        return Fold()

    def observation(self, g: Any, seat: int) -> Any:
        """What every seat sees of the coup: phase, face-up cards, statuses and stakes."""
        return (g.phase, tuple(tuple(f) for f in g.face_up), tuple(g.status), tuple(g.stakes))

    def actions(self, g: Any) -> list[Action]:
        from quinze_protocol.games.classique_actions import Raise

        out: list[Action] = []
        for a in g.legal_actions():
            if isinstance(a, Raise) and a.amount is None and a.min is not None and a.max is not None:
                for amount in sorted({a.min, (a.min + a.max) // 2, a.max}):
                    out.append(Raise(amount=amount))
            else:
                out.append(a)
        return out

    def start(self, g: Any) -> Any:
        return (g.coup, list(g.chips), list(g.stakes))

    def done(self, g: Any, start: Any, steps: int) -> bool:
        return g.phase == "over" or g.coup != start[0] or steps >= self.max_steps

    def rewards(self, g: Any, start: Any) -> Sequence[float]:
        """The chance of winning the match from the standing after the coup: the lead in chips
        ``d`` over the best other seat (the next coup's ante given back), against the swing the
        coups left can still make, ``spread = 4 * ante * sqrt(coups left)``:
        ``1 / (1 + exp(-1.7 * d / spread))`` (a logistic close to the normal law's). So a lead
        weighs more as the match nears its end, and a coup staking everything is worth what it
        risks, not only the chips it may win."""
        res = g.result()
        if res is not None:
            return res.points
        n = g.players
        in_match = sum(1 for p in range(n) if g.in_match[p]) or 1
        tours = g.options["tours"]
        left = (tours - g.rounds) * in_match - (g.dealer - g.first_dealer) % n
        spread = 4.0 * g.options["ante"] * math.sqrt(max(left, 1))
        have = [g.chips[s] + g.stakes[s] for s in range(n)]
        out = []
        for s in range(n):
            z = 1.7 * (have[s] - max(have[t] for t in range(n) if t != s)) / spread
            out.append(1.0 / (1.0 + math.exp(-z)) if z > -30 else 0.0)
        return out


def _draws() -> tuple[Action, Action]:
    from quinze_protocol.games.quatorze_actions import Draw

    return Draw("stock"), Draw("discard")


_DRAW_STOCK, _DRAW_DISCARD = _draws()

MODELS: dict[str, GameModel] = {
    "quinze": QuinzeModel(),
    "quatorze": QuatorzeModel(),
    "quinze-classique": ClassiqueModel(),
}


def model_for(game_id: str) -> GameModel:
    """The :class:`GameModel` of ``game_id`` (KeyError when none)."""
    return MODELS[game_id]
