"""dp_accounting's discrete Laplace event and its SelfComposedDpEvent, against closed forms
evaluated with mpmath (independent of plrv's composition engines).

With sensitivity 1 the pair Z against 1 + Z, P[Z = z] = tanh(a/2)·e^{−a|z|}, has privacy
loss +a on z ≤ 0 (P-mass 1/(1+β), β = e^{−a}) and −a on z ≥ 1: the loss of binary randomized
response with truth t = 1/(1+β). k runs then have (Meiser and Mohammadi 2018)

    δ(ε) = Σ_{j : (2j−k)a > ε} C(k,j) (t^j (1−t)^(k−j) − e^ε t^(k−j) (1−t)^j).

With sensitivity 2 one run has losses 2a (z ≤ 0, mass 1/(1+β)), 0 (z = 1) and −2a; at ε = 0,
δ = (1 − β²)/(1 + β) = 1 − β.
"""

from __future__ import annotations

import pytest

from verifier.audit.runner import run_audit
from verifier.specs.audit import read_audit_config

pytest.importorskip("dp_accounting")
mpmath = pytest.importorskip("mpmath")


def _run(case: dict):
    c = read_audit_config({"case": [case]}, "c.toml")
    return run_audit(c.cases, c.file).rows[0]


def _dl(a: str, s: int, k: int, **kw) -> dict:
    return {"library": "dp_accounting", "constructor": "DiscreteLaplaceDpEvent",
            "args": {"noise_parameter": {"f64": a}, "sensitivity": s}, "compose": k, **kw}


def _binomial_delta(t, a, k: int, eps):
    mpmath.mp.dps = 60
    total = mpmath.mpf(0)
    for j in range(k + 1):
        if (2 * j - k) * a > eps:
            total += mpmath.binomial(k, j) * (t ** j * (1 - t) ** (k - j)
                                              - mpmath.e ** eps * t ** (k - j) * (1 - t) ** j)
    return total


def _mp(x):
    """An exact rational, or an exact δ = A − C·e^ε, at 60 digits."""
    from verifier.core.delta import Delta

    if isinstance(x, Delta):
        e = x.epsilon
        rate = mpmath.mpf(_mp(e.base)) if e.base is not None else mpmath.e ** _mp(e.nats)
        return _mp(x.a) - _mp(x.c) * rate
    return mpmath.mpf(int(x.numerator)) / int(x.denominator)


def _inside(enclosure, x) -> bool:
    lo, hi = (enclosure.lower, enclosure.upper)
    return _mp(lo) - mpmath.mpf(10) ** -30 <= x <= _mp(hi) + mpmath.mpf(10) ** -30


def test_ten_runs_at_sensitivity_one_match_the_binomial_closed_form() -> None:
    row = _run(_dl("0.5", 1, 10, delta="1/1000"))
    mpmath.mp.dps = 60
    a = mpmath.mpf(0.5)
    t = 1 / (1 + mpmath.e ** -a)
    claim = _mp(row.claim_epsilon.exact)
    exact = _binomial_delta(t, a, 10, claim)
    assert _inside(row.tight_delta, exact)
    assert (row.verdict == "sound") == (exact <= _mp(row.claim_delta.exact))


def test_one_run_at_sensitivity_two_delta_at_zero_is_one_minus_beta() -> None:
    """The library returns the double nearest 1 − e^(−1/2), which is below it (by 1.7·10⁻¹⁸
    relative): its "pessimistic" δ is not rounded up, and the claim is short by that much."""
    row = _run(_dl("0.5", 2, 1, epsilon="0"))
    mpmath.mp.dps = 60
    exact = 1 - mpmath.e ** mpmath.mpf(-0.5)
    assert _inside(row.tight_delta, exact)
    claimed = _mp(row.claim_delta.exact)
    assert claimed < exact < claimed * (1 + mpmath.mpf(10) ** -17)
    assert row.verdict == "unsound"


def test_self_composed_event_drops_the_count_like_compose_count() -> None:
    """dp_accounting 0.6's _maybe_compose turns SelfComposedDpEvent(e, k) into
    compose(e, count=k), which for randomized response composes the PLD once: the claim at
    k = 100 is the library's ε of one run, while 100 runs of truth 3/4 have δ near 1 there."""
    base = {"library": "dp_accounting", "constructor": "RandomizedResponseDpEvent",
            "args": {"noise_parameter": {"f64": "0.5"}, "num_buckets": 2},
            "delta": "1/1000"}
    one = _run({**base, "options": {"accountant": "pld", "composition": "repeat"},
                "compose": 1})
    hundred = _run({**base, "options": {"accountant": "pld", "composition": "self_composed"},
                    "compose": 100})
    assert hundred.claim_epsilon == one.claim_epsilon
    assert hundred.verdict == "unsound"
    mpmath.mp.dps = 60
    exact = _binomial_delta(mpmath.mpf(3) / 4, mpmath.log(3), 100,
                            _mp(hundred.claim_epsilon.exact))
    assert exact > mpmath.mpf("0.99")


def test_refusals_name_the_key() -> None:
    from verifier.core.errors import SpecError

    for case, key in ((_dl("0.5", 1, 1, delta="1/1000", options={"accountant": "rdp"}),
                       "options.accountant"),
                      (_dl("0.5", 1, 1, delta="1/1000", options={"composition": "twice"}),
                       "options.composition"),
                      (_dl("0.5", 101, 1, delta="1/1000"), "args.sensitivity"),
                      (_dl("-0.5", 1, 1, delta="1/1000"), "args.noise_parameter")):
        with pytest.raises(SpecError, match=key.replace(".", r"\.")):
            _run(case)
