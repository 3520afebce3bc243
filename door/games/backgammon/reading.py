"""Reading what a player writes, checking checker plays, and saying what is wrong.

:func:`read_move` turns text into a :class:`BgMove` that is legal in the state (a play is
matched against the legal plays: a hit left out of the writing is found, an ambiguous
writing is refused with its readings); :func:`checked_play` proves a play's steps legal
and gives the sides after it. Every refusal names the rule it applies, with a legal
example where one helps ("you must use both dice: 24/22/17 does").
"""

from __future__ import annotations

from collections.abc import Sequence

from door.games.backgammon import movegen, notation
from door.games.backgammon.moves import (
    ACCEPT,
    BEAVER,
    DOUBLE,
    DROP,
    EMPTY_PLAY,
    NO_PLAY,
    REJECT,
    ROLL,
    TAKE,
    BgMove,
    resign,
)
from door.games.backgammon.phases import chance_pending, mover_sides, not_now
from door.games.backgammon.position import (
    BAR,
    DOUBLED,
    MOVING,
    OVER,
    BackgammonState,
    Side,
)
from door.games.base import AmbiguousMoveError, IllegalMoveError, InvalidMoveError

Sides = tuple[Side, Side]

_RESIGN_LEVELS = {
    "": 1, "n": 1, "normal": 1, "s": 1, "single": 1, "1": 1,
    "g": 2, "gammon": 2, "2": 2,
    "b": 3, "bg": 3, "backgammon": 3, "3": 3,
}  # fmt: skip

_DOUBLE_ANSWERS = {"pass": "drop", "accept": "take", "ok": "take", "reject": "drop"}


def plays(state: BackgammonState) -> list[movegen.PlayResult]:
    """Every distinct checker play (with resulting sides) in the moving phase."""
    if state.phase != MOVING or state.dice is None:
        return []
    me, opp = mover_sides(state)
    return movegen.legal_plays(me, opp, state.dice[0], state.dice[1])


def _dice_list(state: BackgammonState) -> list[int]:
    assert state.dice is not None
    d1, d2 = state.dice
    return [d1] * 4 if d1 == d2 else [d1, d2]


# --- checking a play -----------------------------------------------------------------------


def checked_play(state: BackgammonState, steps: Sequence[movegen.Step]) -> Sides:
    """The sides (mover's, opponent's) after the play ``steps`` in the moving phase, or
    the ``IllegalMoveError`` it earns.

    Each step must be a legal single step with a die still unused. A play of every die
    (two, four with doubles) is then legal; only a shorter one needs the list of every
    play (to rule out a play of more dice, or of the larger die).
    """
    if steps and len(steps) == len(_dice_list(state)):
        try:
            return _walk_steps(state, steps)
        except IllegalMoveError:
            pass  # the full check below says what is wrong, in the usual order
    legal = plays(state)
    if not legal:
        if steps:
            raise IllegalMoveError("you have no legal move with this roll: the turn passes")
        return mover_sides(state)
    if not steps:
        raise IllegalMoveError(
            "you have a legal move, so you must play: e.g. " + notation.format_play(legal[0][0])
        )
    after = _walk_steps(state, steps)
    if after not in {(p[1], p[2]) for p in legal}:
        raise IllegalMoveError(diagnose(state, legal, after, steps))
    return after


def _walk_steps(state: BackgammonState, steps: Sequence[movegen.Step]) -> Sides:
    """Make ``steps`` one at a time, each a legal single step with an unused die."""
    assert state.dice is not None
    me, opp = mover_sides(state)
    m, o = list(me), list(opp)
    d1, d2 = state.dice
    dice = _dice_list(state)
    for step in steps:
        src, dst, die, _hit = step
        where = f"{notation.point_name(src)}/{notation.point_name(dst)}"
        if die not in dice:
            raise IllegalMoveError(f"{where} needs a {die}, which is not left of your {d1}-{d2}")
        legal = movegen.legal_step(m, o, src, dst, die)
        if legal is None:
            raise IllegalMoveError(f"{where} is not a legal move of a {die}")
        movegen.apply_step(m, o, legal)
        dice.remove(die)
    return tuple(m), tuple(o)


def diagnose(
    state: BackgammonState,
    legal: list[movegen.PlayResult],
    result: Sides | None,
    steps: Sequence[movegen.Step] = (),
) -> str:
    """Name the rule a wrong play breaks, with a legal example where that helps."""
    assert state.dice is not None
    d1, d2 = state.dice
    need = len(legal[0][0])
    example = notation.format_play(legal[0][0])
    used = len(steps)
    if result is not None and used < need:
        # Find a legal play that continues this one, to show what "both dice" means.
        for p in legal:
            if _extends(state, steps, p):
                example = notation.format_play(p[0], full_path=True)
                break
        if d1 == d2:
            return f"you must play as many {d1}s as you can ({need}): {example} does"
        if need == 2:
            return f"you must use both dice: {example} does"
    if need == 1 and d1 != d2 and used == 1 and steps and steps[0][2] != max(d1, d2):
        return f"when only one die can be played it must be the larger one: {example} does"
    return f"that play is not legal with {d1}-{d2}; for example {example} is"


def _extends(
    state: BackgammonState, steps: Sequence[movegen.Step], play: movegen.PlayResult
) -> bool:
    me, opp = mover_sides(state)
    m, o = list(me), list(opp)
    for s in steps:
        movegen.apply_step(m, o, s)
    dice = _dice_list(state)
    for s in steps:
        if s[2] in dice:
            dice.remove(s[2])
    return _reaches(m, o, dice, (play[1], play[2]))


def _reaches(m: list[int], o: list[int], dice: list[int], target: Sides) -> bool:
    """Can the remaining ``dice`` (in some order) take (m, o) to ``target``?"""
    if (tuple(m), tuple(o)) == target:
        return True
    for die in sorted(set(dice)):
        rest = list(dice)
        rest.remove(die)
        for step in movegen.single_steps(m, o, die):
            movegen.apply_step(m, o, step)
            ok = _reaches(m, o, rest, target)
            movegen.undo_step(m, o, step)
            if ok:
                return True
    return False


def _find_prefix(
    m: list[int], o: list[int], dice: list[int], target: Sides
) -> tuple[movegen.Step, ...] | None:
    """Steps with some of ``dice`` that reach ``target`` (None if no prefix of a roll does)."""
    seen: set[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = set()
    path: list[movegen.Step] = []

    def rec(rest: list[int]) -> tuple[movegen.Step, ...] | None:
        here = (tuple(m), tuple(o))
        if here == target:
            return tuple(path)
        key = (here[0], here[1], tuple(sorted(rest)))
        if key in seen:
            return None
        seen.add(key)
        for die in sorted(set(rest)):
            r2 = list(rest)
            r2.remove(die)
            for step in movegen.single_steps(m, o, die):
                movegen.apply_step(m, o, step)
                path.append(step)
                found = rec(r2)
                path.pop()
                movegen.undo_step(m, o, step)
                if found is not None:
                    return found
        return None

    return rec(list(dice))


# --- reading text --------------------------------------------------------------------------


def read_move(state: BackgammonState, text: str) -> BgMove:
    """The move ``text`` means in ``state``: an action word (not yet checked against the
    phase) or a checker play (matched against the legal plays). Raises the error trio."""
    words = " ".join(text.strip().lower().split())
    phase = state.phase
    if phase == OVER:
        raise IllegalMoveError("the match is over")
    if chance_pending(state):
        raise IllegalMoveError("the dice must be rolled first")
    action = _read_action(state, words)
    if action is not None:
        return action
    first, _, rest = words.partition(" ")
    if first in ("move", "m"):
        words = rest
    written = notation.parse_text(words)
    if phase != MOVING:
        raise IllegalMoveError(not_now(state, "move checkers"))
    return _match_play(state, written, words)


def _read_action(state: BackgammonState, words: str) -> BgMove | None:
    """The action ``words`` name, or None when they must be a checker play."""
    phase = state.phase
    if words == "pass" and phase == MOVING and not plays(state):
        return EMPTY_PLAY  # "pass" with nothing to play means passing the turn
    if words in ("roll", "r"):
        return ROLL
    if words in ("double", "redouble", "d"):
        return DOUBLE
    if words in ("take", "drop", "pass", "beaver") or (
        words in ("accept", "reject", "ok") and phase == DOUBLED
    ):
        word = _DOUBLE_ANSWERS.get(words, words)
        return {"take": TAKE, "drop": DROP, "beaver": BEAVER}[word]
    if words in ("accept", "reject"):
        return ACCEPT if words == "accept" else REJECT
    first, _, rest = words.partition(" ")
    if first == "resign":
        return resign(resign_level(rest))
    if words in (NO_PLAY, "no play", "noplay", ""):
        return _empty_play(state)
    return None


def _empty_play(state: BackgammonState) -> BgMove:
    if state.phase == MOVING:
        legal = plays(state)
        if not legal:
            return EMPTY_PLAY
        raise IllegalMoveError(
            "you have a legal move, so you must play: e.g. " + notation.format_play(legal[0][0])
        )
    raise InvalidMoveError("no move given")


def resign_level(word: str) -> int:
    """1, 2 or 3 for the level a ``resign`` names (``""`` is single).

    >>> resign_level("g"), resign_level("")
    (2, 1)
    """
    try:
        return _RESIGN_LEVELS[word]
    except KeyError:
        raise InvalidMoveError(
            f"resign what? write resign single, resign gammon or resign backgammon (not {word!r})"
        ) from None


def _match_play(
    state: BackgammonState, written: list[notation.WrittenMove], text: str
) -> BgMove:
    assert state.dice is not None
    me, opp = mover_sides(state)
    try:
        quick: Sides | None = written_result(state, written)
    except IllegalMoveError:
        quick = None  # said again below, after the checks that come first
    if quick is not None:
        # A play of every die that reaches the written position is legal; finding it
        # costs a fraction of listing every play (which errors and hits left out of
        # the writing still need).
        steps = movegen.find_full_play(me, opp, state.dice[0], state.dice[1], quick)
        if steps is not None:
            return BgMove("play", steps)
    legal = plays(state)
    if not legal:
        raise IllegalMoveError(
            "you have no legal move with this roll: the turn passes (play (no play))"
        )
    result = written_result(state, written)
    exact = [p for p in legal if (p[1], p[2]) == result]
    if exact:
        return BgMove("play", exact[0][0])
    # The writer may have left out a hit on the way ("24/20" for "24/23*/20").
    same_me = [p for p in legal if p[1] == result[0]]
    if len(same_me) == 1:
        return BgMove("play", same_me[0][0])
    if len(same_me) > 1:
        readings = " or ".join(notation.format_play(p[0]) for p in same_me)
        raise AmbiguousMoveError(f"{text!r} could mean {readings}: say which")
    prefix = _find_prefix(list(me), list(opp), _dice_list(state), result)
    if prefix is None:
        _check_higher_die(state, written)
        d1, d2 = state.dice
        example = notation.format_play(legal[0][0])
        raise IllegalMoveError(f"{text} cannot be played with {d1}-{d2}; for example {example} can")
    raise IllegalMoveError(diagnose(state, legal, result, prefix))


def written_result(state: BackgammonState, written: list[notation.WrittenMove]) -> Sides:
    """The sides after the written checker moves, or the error the writing makes."""
    me, opp = mover_sides(state)
    m, o = list(me), list(opp)
    hit_marks: set[int] = set()
    for w in sorted(written, key=lambda w: -w.src):
        _check_written_move(m, o, w)
        m[w.src - 1] -= 1
        if w.dst:
            m[w.dst - 1] += 1
            if o[24 - w.dst] == 1:
                o[24 - w.dst] = 0
                o[BAR] += 1
                hit_marks.add(w.dst)
            elif w.starred and w.dst not in hit_marks:
                raise IllegalMoveError(f"there is no blot on {w.dst} to hit")
    if any(w.dst == 0 for w in written) and any(m[6:25]):
        raise IllegalMoveError(
            "you may bear off only when all your checkers are in your home board"
        )
    return tuple(m), tuple(o)


def _check_written_move(m: list[int], o: list[int], w: notation.WrittenMove) -> None:
    if m[BAR] and w.src != 25:
        raise IllegalMoveError(
            "you have a checker on the bar: it must enter before any other checker moves"
        )
    if m[w.src - 1] <= 0:
        raise IllegalMoveError(f"you have no checker on {notation.point_name(w.src)} to move")
    if w.dst and o[24 - w.dst] >= 2:
        raise IllegalMoveError(f"you cannot land on {w.dst}: your opponent holds that point")


def _check_higher_die(state: BackgammonState, written: list[notation.WrittenMove]) -> None:
    """Name the bear-off rule when a checker was borne off with a number too large."""
    assert state.dice is not None
    me, _opp = mover_sides(state)
    for w in written:
        if w.dst == 0 and w.src not in state.dice and any(me[w.src : 6]):
            raise IllegalMoveError(
                f"{w.src}/off needs a {w.src}: a larger number bears off only from your "
                "highest point"
            )
