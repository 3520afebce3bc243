"""Compare our legal plays with bgsage's independent C++ generator.

bgsage's ``possible_moves`` differs from the rules in two documented ways, normalised here:
it returns the unchanged board when there is no legal play (we return no play), and when a
play bears off the last checker it also lists shorter ways of doing so that leave a die
unused (the rules, like gnubg, demand every die that can be played). So results that bear
off everything are compared as "ours is a non-empty subset of theirs".
"""

from __future__ import annotations

import hashlib

from door.games.backgammon.ids import encode_position
from door.games.backgammon.position import Side

Result = tuple[Side, Side]


def digest(results: set[Result]) -> tuple[int, str, tuple[str, ...]]:
    """(count of ordinary results, sha1 of their sorted IDs, sorted IDs of finished ones)."""
    ordinary = sorted(encode_position(m, o) for m, o in results if sum(m))
    finished = tuple(sorted(encode_position(m, o) for m, o in results if not sum(m)))
    sha = hashlib.sha1(" ".join(ordinary).encode()).hexdigest()
    return len(ordinary), sha, finished


def normalise_bgsage(me: Side, opp: Side, theirs: set[Result]) -> set[Result]:
    if theirs == {(me, opp)}:
        return set()
    return theirs


def agrees(ours: set[Result], theirs_digest: tuple[int, str, tuple[str, ...]]) -> bool:
    n, sha, finished = theirs_digest
    o_n, o_sha, o_finished = digest(ours)
    if (o_n, o_sha) != (n, sha):
        return False
    if finished:
        return bool(o_finished) and set(o_finished) <= set(finished)
    return not o_finished
