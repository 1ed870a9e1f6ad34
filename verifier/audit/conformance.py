"""``--conformance N``: do the library's own draws fit the law plrv decided the case on?

An audit decides a claim on a law built from the library's source; a goodness-of-fit test
of the library's draws against that law ties the model to the code as installed. Pearson's
χ² test (scipy.stats.chisquare; Pearson, "On the criterion that a given system of
deviations…", 1900): the cells are the law's outcomes, those with an expected count below 5
pooled into one cell (the χ² approximation needs expected counts of about 5 or more), and
every draw outside the law's support is its own evidence against the fit (p = 0). With two
cells the exact two-sided binomial test (scipy.stats.binomtest) replaces the χ²
approximation. The test fails when ``p < CONFORMANCE_ALPHA``.

The p-value is a floating-point statistic and is shown as one: it never makes a case
``sound`` — a failed fit only turns a case ``unknown``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from gmpy2 import mpq

from verifier.core.distribution import Dist
from verifier.core.errors import UnknownName

__all__ = ["Fit", "goodness_of_fit", "CONFORMANCE_ALPHA", "MIN_EXPECTED"]

CONFORMANCE_ALPHA = 0.001  # the test's level: a fit is rejected when p < this
MIN_EXPECTED = 5  # expected draws per cell; smaller cells are pooled


@dataclass(frozen=True, slots=True)
class Fit:
    """One goodness-of-fit test at one input: ``p_value`` (approximate), the χ² statistic,
    the number of cells after pooling, and draws that fell outside the law's support."""

    input: object
    draws: int
    cells: int
    statistic: float
    p_value: float
    outside: int
    tested: bool = True

    @property
    def passed(self) -> bool:
        return self.outside == 0 and self.p_value >= CONFORMANCE_ALPHA

    def note(self) -> str:
        if not self.tested:
            return (f"conformance at input {self.input!r}: {self.draws} draws are too few for "
                    f"a test (all but one outcome expected fewer than {MIN_EXPECTED} times); "
                    f"not tested")
        verdict = "fit" if self.passed else "do not fit"
        extra = f", {self.outside} draws outside the law's support" if self.outside else ""
        test = "exact binomial test" if self.cells == 2 else f"chi-square over {self.cells} cells"
        return (f"conformance at input {self.input!r}: {self.draws} draws {verdict} the law "
                f"({test}, p ≈ {self.p_value:.4g}{extra}; "
                f"rejected below {CONFORMANCE_ALPHA})")


def _stats():  # scipy.stats: an optional extra
    try:
        from scipy import stats
    except ModuleNotFoundError:
        raise UnknownName("--conformance needs scipy: pip install -e '.[conformance]'",
                          argument="--conformance") from None
    return stats


def _cells(law: Dist, counts: Counter, n: int) -> tuple[list[int], list[mpq]]:
    """Observed counts and exact expected masses, cells of expected count < MIN_EXPECTED
    pooled (the pool joined to the smallest other cell if it is still too small)."""
    items = sorted(law.items(), key=lambda kv: kv[1])
    observed: list[int] = []
    expected: list[mpq] = []
    pool_o, pool_e = 0, mpq(0)
    for outcome, mass in items:
        if mass * n < MIN_EXPECTED:
            pool_o += counts.get(outcome, 0)
            pool_e += mass
        else:
            observed.append(counts.get(outcome, 0))
            expected.append(mass)
    if pool_e > 0:
        if pool_e * n < MIN_EXPECTED and expected:
            observed[0] += pool_o
            expected[0] += pool_e
        else:
            observed.append(pool_o)
            expected.append(pool_e)
    return observed, expected


def _float(x: mpq) -> float:
    """An expected count as a float, for the χ² statistic only (never a verdict)."""
    return int(x.numerator) / int(x.denominator)


def goodness_of_fit(draws: Sequence[Hashable], law: Dist, at: object) -> Fit:
    """Test ``draws`` (from the library at input ``at``) against the exact ``law``."""
    n = len(draws)
    counts = Counter(draws)
    outside = sum(c for o, c in counts.items() if law[o] == 0)
    if n == 0:
        return Fit(at, 0, 0, 0.0, 1.0, 0)
    if len(law.items()) == 2:  # two outcomes: no pooling, the exact binomial test
        observed = [counts.get(o, 0) for o, _ in law.items()]
        expected = [m for _, m in law.items()]
    else:
        observed, expected = _cells(law, counts, n)
    if outside:
        # float ok: a goodness-of-fit statistic; a failed fit can only make a case unknown
        return Fit(at, n, len(observed), float("inf"), 0.0, outside)  # float ok: as above
    if len(observed) < 2:  # one outcome (reproduced exactly), or too few draws to test
        return Fit(at, n, len(observed), 0.0, 1.0, 0, tested=len(law.items()) < 2)
    stats = _stats()
    if len(observed) == 2:  # two cells: the exact binomial test (two-sided)
        e0 = _float(expected[0])
        test = stats.binomtest(observed[0], n, e0)
        stat = (observed[0] - n * e0) ** 2 / (n * e0 * (1 - e0))
        return Fit(at, n, 2, float(stat), float(test.pvalue), 0)  # float ok: as above
    stat, p = stats.chisquare(observed, [_float(e * n) for e in expected])
    return Fit(at, n, len(observed), float(stat), float(p), 0)  # float ok: as above
