"""plrv audit's accountant adapters against hand derivations and an independent mpmath
evaluation of the binomial closed form.

k runs of binary randomized response with truth t (ε₀ = ln(t/(1−t))) under replace-one:
the privacy loss is (2j − k)·ε₀ with P-mass C(k,j) t^j (1−t)^(k−j) (j truthful answers),
and (Meiser and Mohammadi 2018; seed 003, Lemma 1)

    δ(ε) = Σ_{j : (2j−k)ε₀ > ε} C(k,j) (t^j (1−t)^(k−j) − e^ε t^(k−j) (1−t)^j).

At k = 1 the tight ε at δ is ln((t − δ)/(1 − t)), e.g. ln(3 − 4δ) for t = 3/4.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from gmpy2 import mpq

from verifier.audit.runner import run_audit
from verifier.core.binary64 import F64
from verifier.core.epsilon import Epsilon
from verifier.specs.audit import load_audit_config, read_audit_config

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "audit"
DELTA = F64(0.001)  # the double an accountant is handed for delta = "1/1000"


def _run(case: dict):
    c = read_audit_config({"case": [case]}, "c.toml")
    return run_audit(c.cases, c.file).rows[0]


def _binomial_epsilon(t, eps0, k: int, delta) -> object:
    """Tight ε at δ of k-fold randomized response, by bisection on the closed form
    (mpmath, 80 digits); independent of plrv's composition engines."""
    import mpmath

    mpmath.mp.dps = 80

    def d(eps):
        total = mpmath.mpf(0)
        for j in range(k + 1):
            if (2 * j - k) * eps0 > eps:
                total += mpmath.binomial(k, j) * (t ** j * (1 - t) ** (k - j)
                                                  - mpmath.e ** eps * t ** (k - j)
                                                  * (1 - t) ** j)
        return total

    lo, hi = mpmath.mpf(0), mpmath.mpf(k) * eps0
    for _ in range(300):
        mid = (lo + hi) / 2
        if d(mid) > delta:
            lo = mid
        else:
            hi = mid
    return hi


def _approx(e: Epsilon):
    import mpmath
    if e.base is not None:
        return mpmath.log(mpmath.mpf(int(e.base.numerator)) / int(e.base.denominator))
    return mpmath.mpf(int(e.nats.numerator)) / int(e.nats.denominator)


# ------------------------------------------------------------------ dp_accounting


def test_dp_accounting_one_run_by_hand():
    pytest.importorskip("dp_accounting")
    row = _run({"library": "dp_accounting", "constructor": "RandomizedResponseDpEvent",
                "args": {"noise_parameter": {"f64": "0.5"}, "num_buckets": 2},
                "options": {"accountant": "pld"}, "compose": 1, "delta": "1/1000"})
    # noise 1/2 over 2 buckets: truth 1 − 1/2 + 1/4 = 3/4, so ε(δ) = ln(3 − 4δ) exactly
    assert row.tight_epsilon == Epsilon.log(3 - 4 * DELTA.exact)
    assert row.exactness == "exact" and row.claim_delta == DELTA
    assert row.verdict == "sound"
    assert isinstance(row.claim_epsilon, F64)
    # the claim exceeds the tight ε, by less than 10⁻³ relative (PLD discretisation 10⁻⁴)
    assert math.log(3 - 4 * 0.001) < row.claim_epsilon.double < 1.001 * math.log(2.996)


def test_dp_accounting_k_ary_one_run_by_hand():
    """Three buckets, noise 3/4: the input with 1 − 3/4 + 1/4 = 1/2, the others 1/4 each;
    against a neighbour the loss is ln 2 on two outputs (P 1/2 vs 1/4; 1/4 vs 1/4 is 0), so
    δ(ε) = 1/2 − e^ε/4 and ε(δ) = ln(2 − 4δ)."""
    pytest.importorskip("dp_accounting")
    row = _run({"library": "dp_accounting", "constructor": "RandomizedResponseDpEvent",
                "args": {"noise_parameter": {"f64": "0.75"}, "num_buckets": 3},
                "options": {"accountant": "rdp"}, "compose": 1, "delta": "1/1000"})
    assert row.tight_epsilon == Epsilon.log(2 - 4 * DELTA.exact)
    assert row.verdict == "sound"


def test_dp_accounting_a_trillion_buckets_by_hand():
    """m = 10^12 buckets, noise 1/2: the input with 1/2 + 1/(2m), each other 1/(2m). Only
    output 0 has a ratio above 1 (against input 1), so δ(ε) = 1/2 + 1/(2m) − e^ε/(2m) and
    ε(δ) = ln(m + 1 − 2mδ) — computed on three outputs (the m − 2 buckets of ratio 1 are
    merged), where the m-output pair exhausted the memory."""
    pytest.importorskip("dp_accounting")
    m = 10 ** 12
    row = _run({"library": "dp_accounting", "constructor": "RandomizedResponseDpEvent",
                "args": {"noise_parameter": {"f64": "0.5"}, "num_buckets": m},
                "options": {"accountant": "rdp"}, "compose": 1, "delta": "1/1000"})
    assert row.tight_epsilon == Epsilon.log(m + 1 - 2 * m * DELTA.exact)
    assert row.exactness == "exact"


@pytest.mark.slow
def test_dp_accounting_example_all_sound_and_count_path_unsound():
    pytest.importorskip("dp_accounting")
    c = load_audit_config(EXAMPLES / "dp_accounting.toml")
    result = run_audit(c.cases, c.file)
    assert len(result.rows) >= 20 and result.holds is True
    c = load_audit_config(EXAMPLES / "dp_accounting_count.toml")
    rows = run_audit(c.cases, c.file).rows
    assert [r.verdict for r in rows] == ["sound", "unsound", "sound"]
    # k = 100 through compose(event, count=100): the one-run ε, against the k-fold's
    assert rows[1].claim_epsilon.double < 1.1
    assert float(_approx(rows[1].tight_epsilon)) > 81


# ------------------------------------------------------------------ prv_accountant


@pytest.mark.slow
def test_prv_accountant_finding_against_the_closed_form():
    pytest.importorskip("prv_accountant")
    import mpmath

    c = load_audit_config(EXAMPLES / "prv_accountant.toml")
    rows = run_audit(c.cases, c.file).rows
    assert [r.case.compose for r in rows] == [26, 27, 50, 100, 1000, 1, 100]
    assert [r.verdict for r in rows] == ["sound"] + ["unsound"] * 4 + ["sound", "unsound"]
    mpmath.mp.dps = 80
    d = mpmath.mpf(math.log(3))  # the double handed to the library
    t = mpmath.e ** d / (1 + mpmath.e ** d)
    for row in rows[:4]:
        k = row.case.compose
        truth = _binomial_epsilon(t, d, k, mpmath.mpf(0.001))
        lo, hi = _approx(row.tight_epsilon.lower), _approx(row.tight_epsilon.upper)
        assert row.exactness == "enclosure"
        assert lo - mpmath.mpf(10) ** -20 <= truth <= hi + mpmath.mpf(10) ** -20
    assert abs(float(_approx(rows[3].tight_epsilon.lower)) - 81.266) < 1e-3
    assert 65.8 < rows[3].claim_epsilon.double < 66.0  # the 65.90 (upper 65.905)


def test_prv_accountant_pure_dp_one_run_by_hand():
    """One run: ε(δ) = ln(e^d − δ(1 + e^d)) for the double d; the enclosure brackets it."""
    pytest.importorskip("prv_accountant")
    import mpmath

    row = _run({"library": "prv_accountant", "constructor": "PureDPMechanism",
                "args": {"eps": {"f64": "1.0"}}, "compose": 1, "delta": "1/1000",
                "options": {"eps_error": {"f64": "0.01"}, "delta_error": {"f64": "1e-6"}}})
    mpmath.mp.dps = 60
    e = mpmath.e
    truth = mpmath.log(e - mpmath.mpf(0.001) * (1 + e))
    assert _approx(row.tight_epsilon.lower) <= truth <= _approx(row.tight_epsilon.upper)
    assert row.verdict == "sound"


def test_prv_accountant_approximate_dp_one_run_by_hand():
    """(ε, δ₀)-DP's dominating pair, one run: δ(ε') = δ₀ + (1 − δ₀)(t − e^ε'(1 − t)) with
    t = e^ε/(1 + e^ε), so ε(δ) = ln((t − (δ − δ₀)/(1 − δ₀))/(1 − t))."""
    pytest.importorskip("prv_accountant")
    import mpmath

    row = _run({"library": "prv_accountant", "constructor": "ApproximateDPMechanism",
                "args": {"epsilon": {"f64": "1.0"}, "delta": {"f64": "1e-5"}}, "compose": 1,
                "delta": "1/1000",
                "options": {"eps_error": {"f64": "0.01"}, "delta_error": {"f64": "1e-7"}}})
    mpmath.mp.dps = 60
    t = mpmath.e / (1 + mpmath.e)
    d0, d = mpmath.mpf(1e-5), mpmath.mpf(0.001)
    truth = mpmath.log((t - (d - d0) / (1 - d0)) / (1 - t))
    assert _approx(row.tight_epsilon.lower) <= truth <= _approx(row.tight_epsilon.upper)
    assert row.verdict == "sound"


def test_prv_accountant_refuses_unknown_and_missing_options():
    pytest.importorskip("prv_accountant")
    from verifier.core.errors import SpecError

    base = {"library": "prv_accountant", "constructor": "PureDPMechanism",
            "args": {"eps": "ln(3)"}, "compose": 2, "delta": "1/1000",
            "options": {"eps_error": {"f64": "0.01"}}}
    with pytest.raises(SpecError) as err:
        _run(base)
    assert err.value.key == "case[0].options.delta_error"
    with pytest.raises(SpecError) as err:
        _run({**base, "d_in": 1})
    assert err.value.key == "case[0].d_in"
    with pytest.raises(SpecError) as err:
        _run({**base, "epsilon": "1", "options": {"eps_error": {"f64": "0.01"},
                                                  "delta_error": {"f64": "1e-6"}}})
    assert err.value.key == "case[0].delta"  # both delta and epsilon: one is refused


@pytest.mark.parametrize(("options", "key", "message"), [
    ({"eps_max": -5}, "options.eps_max", "options.eps_max = -5.0 must be > 0"),
    ({"eps_max": 1}, "options.eps_max", "options.eps_max = 1.0 must be > 1.0986122886681098"),
    ({"eps_error": 0}, "options.eps_error", "options.eps_error = 0.0 must be > 0"),
    ({"delta_error": 1}, "options.delta_error",
     "options.delta_error = 1.0 must be > 0 and < 1"),
    ({"delta_error": "1/1000"}, "options.delta_error",
     "options.delta_error = 0.001 must be below delta = 0.001"),
])
def test_prv_accountant_options_checked_before_the_library(monkeypatch, options, key,
                                                           message):
    """eps_max = −5 reached PRVAccountant, whose error ("Number of samples, -9642, must be
    non-negative") named no key. Each option's range is checked first (eps_max above the
    one-run loss ln 3 = 1.0986…: the domain [−eps_max, eps_max] must hold it; delta_error
    below the δ the ε is read at): the accountant is never built."""
    prv_accountant = pytest.importorskip("prv_accountant")
    from verifier.core.errors import SpecError

    def never(*args, **kwargs):
        raise AssertionError("the library saw the value")

    monkeypatch.setattr(prv_accountant, "PRVAccountant", never)
    case = {"library": "prv_accountant", "constructor": "PureDPMechanism",
            "args": {"eps": "ln(3)"}, "compose": 2, "delta": "1/1000",
            "options": {"eps_error": {"f64": "0.01"}, "delta_error": {"f64": "1e-6"},
                        **options}}
    with pytest.raises(SpecError) as err:
        _run(case)
    assert err.value.key == f"case[0].{key}"
    assert message in str(err.value)


# ------------------------------------------------------------------ autodp


def test_autodp_phi_returns_negative_values():
    pytest.importorskip("autodp")
    c = load_audit_config(EXAMPLES / "autodp.toml")
    rows = run_audit(c.cases, c.file).rows
    phi = [r for r in rows if r.case.options["accountant"] == "phi"]
    assert phi and all(r.verdict == "unsound" for r in phi)
    assert any(isinstance(r.claim_epsilon, F64) and r.claim_epsilon.double < 0 for r in phi)
    assert any(isinstance(r.claim_delta, F64) and r.claim_delta.double < 0 for r in phi)


def test_autodp_rdp_one_run_by_hand():
    """autodp's RDP route on one run returns the optimal ε of randomized response computed
    in floating point; the exact tight value is ln(3 − 4δ) for the double δ."""
    pytest.importorskip("autodp")
    row = _run({"library": "autodp", "constructor": "RandresponseMechanism",
                "args": {"p": {"f64": "0.75"}}, "options": {"accountant": "rdp"},
                "compose": 1, "delta": "1/1000"})
    assert row.tight_epsilon == Epsilon.log(3 - 4 * DELTA.exact)
    # the verdict is decided exactly either way; the claim is within 10⁻¹² of the truth
    assert abs(row.claim_epsilon.double - math.log(2.996)) < 1e-12
    assert row.verdict in ("sound", "unsound")
    assert (row.verdict == "sound") == (row.tight_delta.compare(DELTA.exact) <= 0)


def test_autodp_rdp_k100_is_sound():
    pytest.importorskip("autodp")
    row = _run({"library": "autodp", "constructor": "RandresponseMechanism",
                "args": {"p": {"f64": "0.75"}}, "options": {"accountant": "rdp"},
                "compose": 100, "delta": "1/1000"})
    assert row.verdict == "sound"
    assert abs(float(_approx(row.tight_epsilon)) - 81.266) < 1e-3
    assert row.tight_delta.compare(mpq(1, 1000)) < 0


@pytest.mark.parametrize("name, library, code", [
    ("dp_accounting.toml", "dp_accounting", 0),
    ("dp_accounting_count.toml", "dp_accounting", 1),
    ("dp_accounting_events.toml", "dp_accounting", 1),
    ("autodp.toml", "autodp", 1),
])
@pytest.mark.slow
def test_examples_exit_codes(name, library, code):
    pytest.importorskip(library)
    import json

    from typer.testing import CliRunner

    from verifier.cli import app

    out = CliRunner().invoke(app, ["audit", str(EXAMPLES / name), "--json"])
    assert out.exit_code == code, out.stderr
    assert json.loads(out.stdout)["soundness"] == {0: "sound", 1: "unsound"}[code]
    assert json.loads(out.stdout)["verdict"] == {0: "holds", 1: "fails"}[code]
