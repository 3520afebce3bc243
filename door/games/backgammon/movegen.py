"""Legal checker plays: every distinct play of a roll, de-duplicated by resulting position.

Everything here works from the mover's side: ``me`` and ``opp`` are 25-entry sides
(``position.Side``), each counted from its owner's side. A *step* moves one checker by one
die: ``(src, dst, die, hit)`` with points 1..24 of the mover, ``src`` 25 for the bar and
``dst`` 0 for borne off. A *play* is the tuple of steps of one turn.

The rules applied: checkers on the bar enter first; a point held by two or more opposing
checkers is closed; bearing off only with every checker home, a die higher than the
highest occupied point bearing off from that point; as many dice as possible must be used
(four with doubles), and when only one die of a non-double can be used, the larger one
if it can be.
"""

from __future__ import annotations

from collections.abc import Iterable

from door.games.backgammon.position import Side

Step = tuple[int, int, int, bool]
"""One checker moved by one die: ``(src, dst, die, hit)``; src 25 = bar, dst 0 = off."""
Play = tuple[Step, ...]
PlayResult = tuple[Play, Side, Side]
"""A play with the mover's and the opponent's sides after it."""


def single_steps(me: Side | list[int], opp: Side | list[int], die: int) -> list[Step]:
    """Every legal single step of one die (from the highest source down)."""
    if me[24]:
        dst = 25 - die
        o = opp[24 - dst]
        if o < 2:
            return [(25, dst, die, o == 1)]
        return []
    out: list[Step] = []
    # Bearing off needs every checker home (points 1..6); the bar is empty here.
    home = not any(me[6:24])
    highest = 0
    if home:
        for i in range(5, -1, -1):
            if me[i]:
                highest = i + 1
                break
    for src in range(24, 0, -1):
        if not me[src - 1]:
            continue
        dst = src - die
        if dst > 0:
            o = opp[24 - dst]
            if o < 2:
                out.append((src, dst, die, o == 1))
        elif home and (dst == 0 or src == highest):
            out.append((src, 0, die, False))
    return out


def legal_step(
    me: Side | list[int], opp: Side | list[int], src: int, dst: int, die: int
) -> Step | None:
    """The step ``src``/``dst`` with ``die`` if :func:`single_steps` lists it, else None:
    the same rules for one named step, without listing the others.

    >>> from door.games.backgammon.position import start_side
    >>> legal_step(start_side(), start_side(), 13, 10, 3)
    (13, 10, 3, False)
    >>> legal_step(start_side(), start_side(), 6, 0, 6) is None  # not every checker home
    True
    """
    if me[24]:
        if src != 25 or dst != 25 - die:
            return None
        o = opp[24 - dst]
        return (25, dst, die, o == 1) if o < 2 else None
    if not 1 <= src <= 24 or not me[src - 1]:
        return None
    target = src - die
    if target > 0:
        if dst != target:
            return None
        o = opp[24 - dst]
        return (src, dst, die, o == 1) if o < 2 else None
    # Bearing off: every checker home, and a larger number only from the highest point.
    if dst != 0 or any(me[6:24]) or (target < 0 and any(me[src:6])):
        return None
    return (src, 0, die, False)


def apply_step(me: list[int], opp: list[int], step: Step) -> None:
    """Make ``step`` on the mutable sides (no legality check)."""
    src, dst, _die, hit = step
    me[src - 1] -= 1
    if dst:
        me[dst - 1] += 1
        if hit:
            opp[24 - dst] -= 1
            opp[24] += 1


def undo_step(me: list[int], opp: list[int], step: Step) -> None:
    """Take back ``step`` made by :func:`apply_step`."""
    src, dst, _die, hit = step
    me[src - 1] += 1
    if dst:
        me[dst - 1] -= 1
        if hit:
            opp[24 - dst] += 1
            opp[24] -= 1


def play_result(me: Side, opp: Side, play: Iterable[Step]) -> tuple[Side, Side]:
    """The two sides after ``play`` (steps assumed legal)."""
    m = list(me)
    o = list(opp)
    for step in play:
        apply_step(m, o, step)
    return tuple(m), tuple(o)


Found = dict[tuple[tuple[int, ...], int], Play]
"""Plays found so far, keyed by (mover's side after, bitmask of the points hit)."""


def legal_plays(me: Side, opp: Side, d1: int, d2: int) -> list[PlayResult]:
    """Every distinct legal play of the roll ``d1``-``d2``, one per resulting position.

    An empty list means the mover has no legal step at all (the turn passes). Each play is
    one step sequence that reaches its position; others may reach the same one.

    >>> from door.games.backgammon.position import start_side
    >>> len(legal_plays(start_side(), start_side(), 3, 1))
    16
    """
    m = list(me)
    o = list(opp)
    found = _plays_of_doubles(m, o, d1) if d1 == d2 else _plays_of_two_dice(m, o, d1, d2)
    out: list[PlayResult] = []
    for play in found.values():
        mm, oo = play_result(me, opp, play)
        out.append((play, mm, oo))
    return out


def _plays_of_doubles(m: list[int], o: list[int], die: int) -> Found:
    """The plays of as many steps of ``die`` as can be made (up to four)."""
    found: Found = {}
    best = [0]  # the most steps found so far
    _doubles_from(m, o, die, 0, 25, 0, [], found, best)
    return found if best[0] else {}


def _doubles_from(
    m: list[int],
    o: list[int],
    die: int,
    depth: int,
    max_src: int,
    hits: int,
    path: list[Step],
    found: Found,
    best: list[int],
) -> None:
    """Extend ``path`` (``depth`` steps so far) by every further step of ``die``."""
    if depth < 4:
        any_step = False
        for step in single_steps(m, o, die):
            src = step[0]
            # Steps of one number commute, so taking sources in non-increasing
            # order reaches every position while skipping most permutations.
            if src > max_src:
                continue
            any_step = True
            apply_step(m, o, step)
            path.append(step)
            hit = hits | (1 << step[1]) if step[3] else hits
            _doubles_from(m, o, die, depth + 1, src, hit, path, found, best)
            path.pop()
            undo_step(m, o, step)
        if any_step:
            return
    if depth < best[0]:
        return
    if depth > best[0]:
        best[0] = depth
        found.clear()
    key = (tuple(m), hits)
    if key not in found:
        found[key] = tuple(path)


def _plays_of_two_dice(m: list[int], o: list[int], d1: int, d2: int) -> Found:
    """The plays of both dice, or else of one (the larger if it can be played)."""
    found: Found = {}
    best = 0
    big = max(d1, d2)
    for first, second in ((d1, d2), (d2, d1)):
        for s1 in single_steps(m, o, first):
            apply_step(m, o, s1)
            h1 = 1 << s1[1] if s1[3] else 0
            steps2 = single_steps(m, o, second)
            for s2 in steps2:
                apply_step(m, o, s2)
                if best < 2:
                    best = 2
                    found.clear()
                key = (tuple(m), h1 | (1 << s2[1]) if s2[3] else h1)
                if key not in found:
                    found[key] = (s1, s2)
                undo_step(m, o, s2)
            if not steps2 and best <= 1:
                best = 1
                key = (tuple(m), h1)
                old = found.get(key)
                # The same position by either die counts as played with the larger.
                if old is None or (first == big and old[0][2] != big):
                    found[key] = (s1,)
            undo_step(m, o, s1)
    # Only one die can be used: it must be the larger one when that is possible.
    if best == 1 and any(play[0][2] == big for play in found.values()):
        found = {k: p for k, p in found.items() if p[0][2] == big}
    return found


def find_full_play(
    me: Side, opp: Side, d1: int, d2: int, target: tuple[Side, Side]
) -> Play | None:
    """The play :func:`legal_plays` lists for ``target`` when it uses every die, else None.

    Searches the same tree in the same order as :func:`legal_plays` and stops at the first
    play of all the dice (two, four with doubles) that reaches ``target``, so the steps are
    exactly those ``legal_plays`` would give; a play using every die is always legal. None
    says nothing (a shorter legal play may still reach ``target``): ask ``legal_plays``.
    """
    t_me, t_opp = list(target[0]), list(target[1])
    m = list(me)
    o = list(opp)
    if d1 != d2:
        for first, second in ((d1, d2), (d2, d1)):
            for s1 in single_steps(m, o, first):
                apply_step(m, o, s1)
                for s2 in single_steps(m, o, second):
                    apply_step(m, o, s2)
                    if m == t_me and o == t_opp:
                        return (s1, s2)
                    undo_step(m, o, s2)
                undo_step(m, o, s1)
        return None
    die = d1
    path: list[Step] = []

    def rec(depth: int, max_src: int) -> bool:
        # Points above max_src (and the bar, once left) never change again in this
        # order of steps, so a branch that differs from the target there is dead.
        if m[max_src:25] != t_me[max_src:25]:
            return False
        if depth == 4:
            return m == t_me and o == t_opp
        for step in single_steps(m, o, die):
            src = step[0]
            if src > max_src:
                continue
            apply_step(m, o, step)
            path.append(step)
            if rec(depth + 1, src):
                return True
            path.pop()
            undo_step(m, o, step)
        return False

    return tuple(path) if rec(0, 25) else None
