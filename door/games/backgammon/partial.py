"""Partial plays for the cursor UI: building a play one checker step at a time.

A :class:`PartialPlay` holds a state in the ``moving`` phase and the steps made so far.
It only ever allows steps after which the play can still be finished legally, so a
player who follows it cannot end with an illegal play (the must-use-both-dice and
larger-die rules included)::

    pp = PartialPlay.start(rules, state)
    pp.next_steps()            # every single step allowed now: (src, dst, die, hit)
    pp.destinations(13)        # where the checker on 13 may go, one or more dice
    pp = pp.move_checker(13, 7)
    pp = pp.undo()
    pp.is_complete()           # True once the play is a whole legal play
    rules.apply(state, pp.move())

Points are the mover's: 1..24, 25 = the bar, 0 = off. All objects are immutable.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from door.games.backgammon import movegen, notation
from door.games.backgammon.moves import BgMove
from door.games.backgammon.position import MOVING, BackgammonState, Side
from door.games.base import IllegalMoveError

Target = tuple[Side, Side]

BAR_POINT = 25
"""Source point of a checker entering from the bar."""
OFF_POINT = 0
"""Destination point of a checker borne off."""


@dataclass(frozen=True)
class _Plan:
    """What every partial play of one (state, roll) shares: the legal end positions."""

    me: Side
    opp: Side
    dice: tuple[int, ...]
    targets: frozenset[Target]
    length: int


def _plan(state: BackgammonState) -> _Plan:
    if state.phase != MOVING or state.dice is None:
        raise IllegalMoveError("there is no roll to play now")
    me = state.board[state.turn]
    opp = state.board[1 - state.turn]
    d1, d2 = state.dice
    plays = movegen.legal_plays(me, opp, d1, d2)
    # No legal play: the empty play (nothing moves) is the only, complete, play.
    targets = frozenset((p[1], p[2]) for p in plays) if plays else frozenset({(me, opp)})
    length = len(plays[0][0]) if plays else 0
    dice = (d1,) * 4 if d1 == d2 else (d1, d2)
    return _Plan(me, opp, dice, targets, length)


@dataclass(frozen=True)
class PartialPlay:
    """A play in the making (see the module doc). Build with :meth:`start`."""

    state: BackgammonState
    steps: tuple[movegen.Step, ...] = ()
    _plan: _Plan | None = field(default=None, repr=False, compare=False)

    @classmethod
    def start(cls, state: BackgammonState) -> PartialPlay:
        """An empty partial play of the roll the seat on roll has to play."""
        return cls(state, (), _plan(state))

    @property
    def plan(self) -> _Plan:
        return self._plan if self._plan is not None else _plan(self.state)

    # --- where things stand ----------------------------------------------------------
    def sides(self) -> tuple[Side, Side]:
        """(mover's side, opponent's side) after the steps so far."""
        p = self.plan
        return movegen.play_result(p.me, p.opp, self.steps)

    def dice_left(self) -> tuple[int, ...]:
        """The dice not used yet (four entries for doubles at the start)."""
        left = list(self.plan.dice)
        for s in self.steps:
            left.remove(s[2])
        return tuple(sorted(left, reverse=True))

    def is_complete(self) -> bool:
        """True when the steps so far make a whole legal play (nothing more may be added)."""
        p = self.plan
        return len(self.steps) == p.length and self.sides() in p.targets

    # --- what may come next -----------------------------------------------------------
    def next_steps(self) -> list[movegen.Step]:
        """Every single step that keeps a legal finish possible."""
        p = self.plan
        if len(self.steps) >= p.length:
            return []
        me, opp = self.sides()
        m, o = list(me), list(opp)
        left = list(self.dice_left())
        need = p.length - len(self.steps) - 1
        out: list[movegen.Step] = []
        memo: dict[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]], bool] = {}
        for die in sorted(set(left), reverse=True):
            rest = list(left)
            rest.remove(die)
            for step in movegen.single_steps(m, o, die):
                movegen.apply_step(m, o, step)
                if _can_finish(m, o, rest, need, p.targets, memo):
                    out.append(step)
                movegen.undo_step(m, o, step)
        return out

    def destinations(self, src: int) -> list[tuple[int, tuple[movegen.Step, ...]]]:
        """Where the checker on ``src`` may end up with one or more of the dice left, each
        with the steps that take it there (fewest dice first, then the smaller die)."""
        found: dict[int, tuple[movegen.Step, ...]] = {}
        frontier: list[tuple[PartialPlay, int, tuple[movegen.Step, ...]]] = [(self, src, ())]
        while frontier:
            nxt: list[tuple[PartialPlay, int, tuple[movegen.Step, ...]]] = []
            for pp, at, path in frontier:
                steps = sorted(
                    (s for s in pp.next_steps() if s[0] == at), key=lambda s: (s[2], -s[1])
                )
                for s in steps:
                    if s[1] not in found:
                        found[s[1]] = (*path, s)
                    if s[1] != 0:
                        nxt.append((pp._with(s), s[1], (*path, s)))
            frontier = nxt
        return sorted(found.items(), key=lambda kv: (len(kv[1]), -kv[0]))

    # --- changing it ------------------------------------------------------------------
    def _with(self, step: movegen.Step) -> PartialPlay:
        return PartialPlay(self.state, (*self.steps, step), self.plan)

    def add(self, step: movegen.Step) -> PartialPlay:
        """Add one single step; ``IllegalMoveError`` if it would make the play illegal."""
        for s in self.next_steps():
            if s[:3] == tuple(step[:3]):
                return self._with(s)
        src, dst = notation.point_name(step[0]), notation.point_name(step[1])
        raise IllegalMoveError(f"{src}/{dst} with a {step[2]} is not allowed here")

    def move_checker(self, src: int, dst: int) -> PartialPlay:
        """Move the checker on ``src`` to ``dst`` (possibly using several dice)."""
        for d, path in self.destinations(src):
            if d == dst:
                pp = self
                for s in path:
                    pp = pp._with(s)
                return pp
        raise IllegalMoveError(
            f"the checker on {notation.point_name(src)} cannot go to {notation.point_name(dst)}"
        )

    def undo(self) -> PartialPlay:
        """Take back the last step (no change when there is none)."""
        if not self.steps:
            return self
        return PartialPlay(self.state, self.steps[:-1], self.plan)

    def reset(self) -> PartialPlay:
        """Take back every step."""
        return PartialPlay(self.state, (), self.plan)

    # --- the result -------------------------------------------------------------------
    def move(self) -> BgMove:
        """The finished play as a move for ``rules.apply``; ``IllegalMoveError`` if it is
        not complete yet."""
        if not self.is_complete():
            raise IllegalMoveError(self._incomplete_reason())
        return BgMove("play", self.steps)

    def notation(self) -> str:
        """The steps so far in gnubg notation."""
        return notation.format_play(self.steps)

    def _incomplete_reason(self) -> str:
        p = self.plan
        left = p.length - len(self.steps)
        if left > 0:
            return f"the play is not finished: {left} more dice to use"
        return "the play is not complete"


def _can_finish(
    m: list[int],
    o: list[int],
    rest: list[int],
    need: int,
    targets: frozenset[Target],
    memo: dict[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]], bool],
) -> bool:
    here = (tuple(m), tuple(o))
    if need == 0:
        return here in targets
    key = (here[0], here[1], tuple(sorted(rest)))
    cached = memo.get(key)
    if cached is not None:
        return cached
    ok = False
    for die in sorted(set(rest)):
        r2 = list(rest)
        r2.remove(die)
        for step in movegen.single_steps(m, o, die):
            movegen.apply_step(m, o, step)
            ok = _can_finish(m, o, r2, need - 1, targets, memo)
            movegen.undo_step(m, o, step)
            if ok:
                break
        if ok:
            break
    memo[key] = ok
    return ok
