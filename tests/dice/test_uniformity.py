"""χ² over 100,000 derived chance events of one seed: each die face, the 36 ordered pairs
and the choices of a Spectrangle draw are uniform (at p > 1e-4, so a fair scheme fails
one in ten thousand runs; the seed is fixed, so a run that passes always passes)."""

from __future__ import annotations

from collections import Counter

import pytest

from door.games import fairdice
from door.games.registry import build_registry
from tests.dice.chisq import chi2_sf, chi2_statistic

EVENTS = 100_000
SIGNIFICANCE = 1e-4
SEED = bytes.fromhex("d1ce" * 16)
GAME_ID = 20
WORDS = ("north", "south")


def _p(counts: Counter[int], bins: int) -> float:
    observed = [counts.get(i, 0) for i in range(bins)]
    return chi2_sf(chi2_statistic(observed), bins - 1)


@pytest.fixture(scope="module")
def rolls() -> list[tuple[int, int]]:
    return [fairdice.dice(SEED, GAME_ID, k, WORDS) for k in range(EVENTS)]


def test_the_p_value_is_the_chi_square_tail() -> None:
    # textbook 5% and 0.01% critical values
    assert chi2_sf(3.841459, 1) == pytest.approx(0.05, rel=1e-5)
    assert chi2_sf(11.070498, 5) == pytest.approx(0.05, rel=1e-5)
    assert chi2_sf(49.801850, 35) == pytest.approx(0.05, rel=1e-5)
    assert chi2_sf(25.744832, 5) == pytest.approx(1e-4, rel=1e-5)
    assert chi2_sf(0.0, 5) == 1.0


def test_the_p_value_agrees_with_scipy_where_it_is_installed() -> None:
    stats = pytest.importorskip("scipy.stats")
    for df in (1, 5, 34, 35, 1259):
        for x in (0.5, df * 0.8, df, df * 1.3, df * 2.0):
            expected = float(stats.chi2.sf(x, df))
            assert chi2_sf(x, df) == pytest.approx(expected, rel=1e-9, abs=1e-300)


def test_the_test_catches_modulo_bias() -> None:
    """Dice made by ``b mod 6`` without dropping bytes ≥ 252 fail it: the test has power."""
    biased: Counter[int] = Counter()
    for k in range(EVENTS):
        d = fairdice.event_digest(SEED, GAME_ID, k, WORDS)
        biased.update((d[0] % 6, d[1] % 6))
    assert _p(biased, 6) < SIGNIFICANCE


def test_each_die_face_is_uniform(rolls: list[tuple[int, int]]) -> None:
    first = Counter(a - 1 for a, _ in rolls)
    second = Counter(b - 1 for _, b in rolls)
    both = first + second
    assert set(both) == set(range(6))
    assert _p(first, 6) > SIGNIFICANCE
    assert _p(second, 6) > SIGNIFICANCE
    assert _p(both, 6) > SIGNIFICANCE


def test_the_36_ordered_pairs_are_uniform(rolls: list[tuple[int, int]]) -> None:
    pairs = Counter((a - 1) * 6 + (b - 1) for a, b in rolls)
    assert len(pairs) == 36
    assert _p(pairs, 36) > SIGNIFICANCE


def test_the_choices_of_a_spectrangle_draw_are_uniform() -> None:
    """The starting draw of two seats: the first piece among the 36, the second among
    the 35 left, each uniform, through the rules' own draw."""
    rules = build_registry()["spectrangle"]
    state = rules.new_game(2, {})
    first: Counter[int] = Counter()
    second: Counter[int] = Counter()
    for k in range(EVENTS):
        draw = rules.chance_from_bytes(state, fairdice.event_stream(SEED, GAME_ID, k, WORDS))
        a, b = draw.pieces
        first[a] += 1
        second[b - (b > a)] += 1  # its place among the 35 left
    assert _p(first, 36) > SIGNIFICANCE
    assert _p(second, 35) > SIGNIFICANCE
