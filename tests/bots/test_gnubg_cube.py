"""bench/gnubg_cube.py's gnubg adapter reads cube decisions the right way round: the
board from the player on roll's side, money play with Jacoby off, equities per cube for
the doubler, and the losses it charges for a wrong action."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from door.games.backgammon.position import Side, start_side

BENCH = Path(__file__).resolve().parents[2] / "bench" / "gnubg_cube.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gnubg_cube_bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


BENCH_MODULE = _bench()

pytestmark = pytest.mark.skipif(
    BENCH_MODULE.gnubg_path() is None,
    reason="GNU Backgammon is not installed (apt-get install gnubg puts it in /usr/games)",
)


def side(points: dict[int, int]) -> Side:
    """One seat's 25 counts from {point (1..24, 25 the bar): checkers}."""
    counts = [0] * 25
    for point, n in points.items():
        counts[point - 1] = n
    return tuple(counts)


# The player on roll has all 15 checkers on his 1-3 points; the opponent has borne none
# off and has all 15 on his 18-20 points: a sure win and a near-sure gammon.
HOME_BOARD = side({1: 5, 2: 5, 3: 5})
FAR_BACK = side({18: 5, 19: 5, 20: 5})


@pytest.fixture(scope="module")
def gnubg() -> Iterator[Any]:
    with BENCH_MODULE.Gnubg() as g:
        yield g


def test_the_opening_position_is_no_double_take(gnubg: Any) -> None:
    start = start_side()
    for plies, verdict in gnubg.cube(start, start, 1, -1, (0, 2)).items():
        assert verdict.words == "No double, take", plies
        assert not verdict.double_right and verdict.take_right
        assert 0.0 < verdict.nd < 0.2  # the side on roll is a small favourite


def test_a_huge_race_lead_is_too_good_to_double(gnubg: Any) -> None:
    verdict = gnubg.cube(HOME_BOARD, FAR_BACK, 1, -1, (0, 2))[2]
    assert verdict.words == "Too good to double, pass"
    assert not verdict.double_right and not verdict.take_right
    # Jacoby is off: the gammon counts without the cube being turned.
    assert verdict.nd == pytest.approx(2.0, abs=0.05)
    assert verdict.dp == 1.0


def test_the_board_is_read_from_the_side_on_roll(gnubg: Any) -> None:
    # The same checkers, but the player on roll is the one far behind.
    verdict = gnubg.cube(FAR_BACK, HOME_BOARD, 1, -1, (2,))[2]
    assert not verdict.double_right
    assert verdict.nd == pytest.approx(-2.0, abs=0.05)


def test_a_redouble_of_an_owned_cube_is_judged_too(gnubg: Any) -> None:
    verdict = gnubg.cube(HOME_BOARD, FAR_BACK, 2, 0, (2,))[2]
    assert verdict.words == "Too good to redouble, pass"


def test_doubling_a_position_too_good_to_double_costs_the_gammon(gnubg: Any) -> None:
    verdict = gnubg.cube(HOME_BOARD, FAR_BACK, 1, -1, (2,))[2]
    assert verdict.doubler_loss(False) == 0.0
    assert verdict.doubler_loss(True) == pytest.approx(verdict.nd - 1.0)
    assert verdict.doubler_loss(True) > 0.9
    # Doubled anyway, the taker loses nothing by dropping and about 3 points by taking.
    assert verdict.taker_loss(False) == 0.0
    assert verdict.taker_loss(True) == pytest.approx(verdict.dt - 1.0)
