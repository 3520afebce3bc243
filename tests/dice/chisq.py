"""Pearson's χ² test with a stdlib-only p-value (the regularized upper incomplete gamma
function, by its series or its continued fraction as Numerical Recipes gives them)."""

from __future__ import annotations

import math
from collections.abc import Sequence


def chi2_statistic(counts: Sequence[int]) -> float:
    """Pearson's χ² of ``counts`` against equal expected counts."""
    expected = sum(counts) / len(counts)
    return sum((c - expected) ** 2 / expected for c in counts)


def chi2_sf(x: float, df: int) -> float:
    """P(χ²_df ≥ x): the chance of a statistic at least this large from a fair source."""
    return gamma_q(df / 2, x / 2)


def gamma_q(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x) = Γ(a, x) / Γ(a)."""
    if x < 0 or a <= 0:
        raise ValueError("Q(a, x) needs a > 0 and x ≥ 0")
    if x == 0:
        return 1.0
    log_prefix = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:  # the series of P(a, x) converges fast here
        term = total = 1.0 / a
        n = a
        for _ in range(10_000):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return 1.0 - total * math.exp(log_prefix)
    # the continued fraction of Q(a, x), by the modified Lentz method
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        step = d * c
        h *= step
        if abs(step - 1) < 1e-15:
            break
    return math.exp(log_prefix) * h
