"""Legal plays: the standard rules, the worked examples of reference/backgammon.md §1,
golden counts, and a cross-check against bgsage's independent generator."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from door.games.backgammon.ids import decode_position
from door.games.backgammon.movegen import legal_plays, legal_step, single_steps
from door.games.backgammon.notation import format_play
from door.games.backgammon.position import Side, start_side
from tests.games.backgammon.crosscheck import agrees, digest, normalise_bgsage
from tests.games.backgammon.helpers import (
    from_bgsage,
    opp_holding,
    random_cases,
    random_placement,
    side,
    to_bgsage,
)

DATA = Path(__file__).parent / "data"


def plays_text(me: Side, opp: Side, d1: int, d2: int) -> set[str]:
    return {format_play(p[0]) for p in legal_plays(me, opp, d1, d2)}


def opening_golden() -> list[tuple[int, int, int]]:
    rows = []
    for line in (DATA / "opening_counts.txt").read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        roll, count = line.split()
        a, b = roll.split("-")
        rows.append((int(a), int(b), int(count)))
    return rows


@pytest.mark.parametrize(("d1", "d2", "count"), opening_golden())
def test_opening_roll_has_the_golden_number_of_distinct_plays(d1: int, d2: int, count: int) -> None:
    assert len(legal_plays(start_side(), start_side(), d1, d2)) == count


def test_golden_file_covers_all_21_rolls_and_the_reference_counts() -> None:
    golden = {(a, b): n for a, b, n in opening_golden()}
    assert len(golden) == 21
    assert golden[(3, 1)] == 16 and golden[(2, 1)] == 15
    assert golden[(5, 5)] == 4 and golden[(6, 6)] == 11 and golden[(2, 2)] == 75


def test_opening_3_1_plays_are_exactly_the_reference_list() -> None:
    expected = {
        "8/5 6/5",
        "24/23 13/10",
        "24/20",
        "24/23 24/21",
        "13/9",
        "24/21 6/5",
        "13/10 6/5",
        "24/23 6/3",
        "24/23 8/5",
        "24/21 8/7",
        "13/10 8/7",
        "8/4",
        "6/2",
        "6/5 6/3",
        "8/7 6/3",
        "8/7 8/5",
    }
    assert plays_text(start_side(), start_side(), 3, 1) == expected


def test_dice_order_does_not_matter() -> None:
    s = start_side()
    assert plays_text(s, s, 1, 3) == plays_text(s, s, 3, 1)


def test_plays_are_distinct_by_resulting_position() -> None:
    plays = legal_plays(start_side(), start_side(), 2, 2)
    results = [(p[1], p[2]) for p in plays]
    assert len(results) == len(set(results))


# --- reference §1, example by example ---------------------------------------------------


def test_both_dice_must_be_used_even_if_that_forces_the_order() -> None:
    # Only checker on 24, opponent holds 19, 5-2: 5 first is blocked, 2 then 5 works.
    assert plays_text(side(p24=1), opp_holding(19), 5, 2) == {"24/17"}


def test_when_only_one_die_can_be_played_it_must_be_the_larger() -> None:
    # Checker on 24, opponent holds 13, 6-5: either alone, not both (both end on 13).
    assert plays_text(side(p24=1), opp_holding(13), 6, 5) == {"24/18"}


def test_when_the_larger_die_cannot_be_played_the_smaller_is() -> None:
    assert plays_text(side(p24=1), opp_holding(18, 16), 6, 2) == {"24/22"}


def test_doubles_play_as_many_as_fit() -> None:
    # Checker on 24, opponent holds 8, 4-4: only three 4s fit.
    assert plays_text(side(p24=1), opp_holding(8), 4, 4) == {"24/12"}


def test_doubles_give_four_moves() -> None:
    plays = legal_plays(side(p24=1), (0,) * 25, 3, 3)
    assert [len(p[0]) for p in plays] == [4]
    assert {format_play(p[0]) for p in plays} == {"24/12"}


def test_bar_checker_enters_first_and_closed_six_point_blocks_the_six() -> None:
    me = list(start_side())
    me[23] = 1  # one back checker on the bar instead of on 24
    me[24] = 1
    expected = {"bar/14", "bar/20 13/7", "bar/20 24/18", "bar/20 8/2"}
    assert plays_text(tuple(me), start_side(), 6, 5) == expected


def test_closed_board_forfeits_the_whole_roll() -> None:
    assert legal_plays(side(bar=1, p13=5), opp_holding(19, 20, 21, 22, 23, 24), 6, 5) == []


def test_if_only_one_of_two_bar_checkers_enters_the_rest_of_the_roll_is_lost() -> None:
    # Two on the bar; only 5 (entering on 20) is open.
    opp = opp_holding(19, 21, 22, 23, 24)
    assert plays_text(side(bar=2, p13=5), opp, 6, 5) == {"bar/20"}


def test_after_entering_the_other_die_may_move_any_checker() -> None:
    opp = opp_holding(19, 21, 22, 23, 24)
    texts = plays_text(side(bar=1, p13=5), opp, 5, 3)
    assert "bar/20 13/10" in texts and "bar/17" in texts


def test_bear_off_with_dice_higher_than_every_checker() -> None:
    assert plays_text(side(p5=1, p4=1), (0,) * 25, 6, 6) == {"5/off 4/off"}


def test_higher_die_bears_off_from_the_highest_point_only() -> None:
    assert plays_text(side(p5=1, p4=1), (0,) * 25, 6, 1) == {"5/off 4/3", "5/off"}


def test_bearing_off_waits_until_the_last_checker_is_home() -> None:
    assert plays_text(side(p7=1, p5=1), (0,) * 25, 6, 5) == {"7/1 5/off", "7/2 5/off"}


def test_a_checker_hit_in_the_bear_off_must_come_home_before_bearing_off() -> None:
    # One checker on the bar, the rest home: 6-1 may not bear off at all.
    plays = legal_plays(side(bar=1, p1=3, p2=3), (0,) * 25, 6, 1)
    assert all(step[1] != 0 for p in plays for step in p[0])


def test_a_die_matching_no_checker_must_move_inside_the_board() -> None:
    # Checkers on 6 and 2 with 5-4: neither die may bear off the 2 while 6 is occupied,
    # so the 6 moves first; it leaves one checker on 1 or one on 2.
    results = {p[1] for p in legal_plays(side(p6=1, p2=1), (0,) * 25, 5, 4)}
    assert results == {side(p1=1), side(p2=1)}


def test_hitting_a_blot_sends_it_to_the_bar() -> None:
    opp = [0] * 25
    opp[24 - 20] = 1  # a blot on the mover's 20
    plays = legal_plays(side(p24=1), tuple(opp), 4, 1)
    hit = [p for p in plays if format_play(p[0]) == "24/20*/19"]
    assert len(hit) == 1
    assert hit[0][2][24] == 1 and hit[0][2][24 - 20] == 0


def test_nothing_moves_onto_a_point_held_by_the_opponent() -> None:
    plays = legal_plays(side(p24=1), opp_holding(23, 22, 21, 20, 19, 18), 6, 6)
    assert plays == []


# --- invariants and the independent engine ----------------------------------------------


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6), st.integers(1, 6))
def test_every_play_conserves_checkers_and_uses_the_same_number_of_dice(
    seed: int, d1: int, d2: int
) -> None:
    import random

    me, opp = random_placement(random.Random(seed))
    plays = legal_plays(me, opp, d1, d2)
    assert len({len(p[0]) for p in plays}) <= 1
    for play, m, o in plays:
        borne = sum(1 for step in play if step[1] == 0)
        hits = sum(1 for step in play if step[3])
        assert sum(me) - sum(m) == borne  # only bearing off takes checkers away
        assert sum(o) == sum(opp)  # a hit checker goes to the bar, it does not vanish
        assert o[24] - opp[24] == hits
        assert all(n >= 0 for n in m + o)


def _bgsage() -> object | None:
    try:
        import bgsage
    except ImportError:
        return None
    return bgsage


def test_legal_plays_match_bgsage_on_2500_random_positions() -> None:
    bgsage = _bgsage()
    if bgsage is None:
        pytest.skip("bgsage is not installed; test_legal_plays_match_the_bgsage_fixture covers it")
    mismatches = []
    for me, opp, d1, d2 in random_cases(7, 2500):
        ours = {(p[1], p[2]) for p in legal_plays(me, opp, d1, d2)}
        raw = bgsage.possible_moves(to_bgsage(me, opp), d1, d2)  # type: ignore[attr-defined]
        theirs = normalise_bgsage(me, opp, {from_bgsage(b) for b in raw})
        if not agrees(ours, digest(theirs)):
            mismatches.append((me, opp, d1, d2))
    assert mismatches == []


def test_legal_plays_match_the_bgsage_fixture() -> None:
    # Generated from bgsage (tests run without it too): 2,500 positions and rolls.
    lines = [
        line.split()
        for line in (DATA / "bgsage_crosscheck.txt").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    assert len(lines) >= 2000
    bad = []
    for pos, d1, d2, n, sha, finished in lines:
        me, opp = decode_position(pos)
        ours = {(p[1], p[2]) for p in legal_plays(me, opp, int(d1), int(d2))}
        fin = tuple(finished.split(",")) if finished != "-" else ()
        if not agrees(ours, (int(n), sha, fin)):
            bad.append(pos)
    assert bad == []


def test_legal_plays_match_gnubgs_own_generator_on_2000_positions() -> None:
    # Fixture made with gnubg's move generator (gnubg_nn.moves): like gnubg, we demand every
    # die that can be used even when the last checker could be borne off with fewer.
    import hashlib

    from door.games.backgammon.ids import encode_position

    rows = [
        line.split()
        for line in (DATA / "gnubg_crosscheck.txt").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    assert len(rows) >= 2000
    bad = []
    for pos, d1, d2, n, sha in rows:
        me, opp = decode_position(pos)
        ids = sorted(encode_position(m, o) for _p, m, o in legal_plays(me, opp, int(d1), int(d2)))
        if (len(ids), hashlib.sha1(" ".join(ids).encode()).hexdigest()) != (int(n), sha):
            bad.append((pos, d1, d2))
    assert bad == []


def test_legal_step_accepts_exactly_the_steps_single_steps_lists() -> None:
    checked = 0
    for me, opp, _d1, _d2 in random_cases(11, 400):
        for die in range(1, 7):
            listed = {(s[0], s[1]): s for s in single_steps(me, opp, die)}
            for src in range(0, 27):
                for dst in range(-1, 26):
                    assert legal_step(me, opp, src, dst, die) == listed.get((src, dst))
            checked += len(listed)
    assert checked > 1000  # many legal steps among the cases, bear-offs and bars included
