"""OpenDP's ``make_gaussian_threshold`` against a hand derivation and the library's own draws.

At σ = 1, T = 3, d_in = (1, 1, 1) the key of {a: 1} is released when 1 + Z ≥ 3, Z the discrete
Gaussian: P[Z ≥ 2] = Σ_{z≥2} e^{−z²/2} / Σ_z e^{−z²/2}, computed below with mpmath at 50 digits
from that closed form (not by plrv), ≈ 0.0585581; the library's map claims δ = P[N(0,1) > 2]
≈ 0.02275 (the continuous tail one step further out).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from gmpy2 import mpq
from typer.testing import CliRunner

from verifier.audit.adapters.opendp import ADAPTER
from verifier.audit.adapters.opendp_gauss_threshold import release_delta
from verifier.audit.adapters.opendp_sample import law, sample
from verifier.audit.case import AuditCase
from verifier.audit.conformance import goodness_of_fit
from verifier.cli import app
from verifier.core.epsilon import Epsilon
from verifier.core.errors import InvalidArgument
from verifier.model.expnoise import discrete_gaussian

pytest.importorskip("opendp")
mpmath = pytest.importorskip("mpmath")

EXAMPLE = str(Path(__file__).resolve().parents[1] / "examples" / "audit"
              / "opendp_gaussian_threshold.toml")


def case(args: dict, d_in: object = (1, 1, 1)) -> AuditCase:
    return AuditCase("opendp", "make_gaussian_threshold", args, d_in, None, None, None, None, 0)


def _tail(sigma: int, m: int):
    """P[Z ≥ m] of the discrete Gaussian, by mpmath (terms beyond |z| = 60 are < e^−1800)."""
    mpmath.mp.dps = 50
    w = [mpmath.e ** (-mpmath.mpf(z * z) / (2 * sigma * sigma)) for z in range(-60, 61)]
    return sum(w[60 + m:]) / sum(w)


def test_release_probability_by_hand() -> None:
    lo, hi = release_delta(discrete_gaussian(1), 3, 1).enclose(200)
    exact = _tail(1, 2)
    assert mpmath.mpf(int(lo.numerator)) / int(lo.denominator) <= exact + mpmath.mpf(10) ** -40
    assert mpmath.mpf(int(hi.numerator)) / int(hi.denominator) >= exact - mpmath.mpf(10) ** -40
    assert abs(exact - mpmath.mpf("0.0585581")) < mpmath.mpf(10) ** -7


def test_claim_is_the_continuous_tail_and_the_release_exceeds_it() -> None:
    row = ADAPTER.constructors["make_gaussian_threshold"](case({"scale": 1, "threshold": 3}))
    assert row.verdict == "unsound" and row.exactness == "exact"
    assert row.claim_epsilon.exact == mpq(1, 2)  # ρ = d²/(2σ²)
    mpmath.mp.dps = 30
    claimed = row.claim_delta.exact
    got = mpmath.mpf(int(claimed.numerator)) / int(claimed.denominator)
    # the map's P[N(0,1) > 2], rounded up to 24 bits (12213887/2^29)
    assert mpmath.ncdf(-2) <= got < mpmath.ncdf(-2) * (1 + mpmath.mpf(10) ** -6)
    assert _tail(1, 2) > 2 * mpmath.ncdf(-2)
    assert row.tight_delta == 1 and row.tight_epsilon == Epsilon.INF
    assert row.witness["inputs"] == ({"a": 1}, {})
    assert "exceeded by this pair alone" in row.notes[2]


def test_library_draws_release_the_key_more_often_than_claimed() -> None:
    """20000 of the library's own draws at {a: 1}: the release frequency is ≈ 0.0586 (mean
    1171, sd 33); the claimed 0.02275 would give 455 ± 21, so 800 separates them by > 10 sd."""
    import opendp.prelude as dp
    dp.enable_features("contrib")
    meas = dp.m.make_gaussian_threshold(
        dp.map_domain(dp.atom_domain(T=str), dp.atom_domain(T=int)),
        dp.l02inf_distance(dp.absolute_distance(T=int)), scale=1.0, threshold=3)
    released = Counter("a" in meas({"a": 1}) for _ in range(20_000))[True]
    assert released > 800


def test_conformance_fits_the_law() -> None:
    c = case({"scale": 1, "threshold": 3})
    fit = goodness_of_fit(sample(c, {"a": 1}, 20_000), law(c, {"a": 1}), {"a": 1})
    assert fit.passed


def test_distance_zero_pair_and_vacuous_delta() -> None:
    row = ADAPTER.constructors["make_gaussian_threshold"](case({"scale": 1, "threshold": 3},
                                                               (1, 0, 0)))
    assert row.claim_delta.exact == 0 and row.verdict == "unsound"
    assert row.witness["inputs"] == ({"a": 0}, {})  # released with P[Z ≥ 3] > 0


def test_refusals_name_the_key() -> None:
    with pytest.raises(InvalidArgument, match="d_in"):
        ADAPTER.constructors["make_gaussian_threshold"](case({"scale": 1, "threshold": 3}, 1))
    with pytest.raises(InvalidArgument, match="k"):
        ADAPTER.constructors["make_gaussian_threshold"](
            case({"scale": 1, "threshold": 3, "k": -2}))
    with pytest.raises(InvalidArgument, match="threshold"):
        ADAPTER.constructors["make_gaussian_threshold"](case({"scale": 1, "threshold": 1},
                                                             (1, 2, 2)))


def test_example_exits_one() -> None:
    result = CliRunner().invoke(app, ["audit", EXAMPLE])
    assert result.exit_code == 1, result.output
