"""Hypothesis strategies for small exact objects."""

from fractions import Fraction

from gmpy2 import mpq
from hypothesis import strategies as st

from verifier.core.distribution import Dist


@st.composite
def distributions(draw, outcomes=(0, 1, 2, 3), allow_zero=True):
    """A random distribution over (a subset of) ``outcomes`` with small rational weights."""
    low = 0 if allow_zero else 1
    weights = draw(st.lists(st.integers(low, 6), min_size=len(outcomes), max_size=len(outcomes))
                   .filter(lambda w: sum(w) > 0))
    total = sum(weights)
    return Dist({o: mpq(w, total) for o, w in zip(outcomes, weights, strict=True)})


rates = st.fractions(min_value=1, max_value=12, max_denominator=7).map(
    lambda f: mpq(f.numerator, f.denominator))
deltas = st.fractions(min_value=0, max_value=1, max_denominator=50).map(
    lambda f: mpq(f.numerator, f.denominator))


def frac(x) -> Fraction:
    return Fraction(int(x.numerator), int(x.denominator))
