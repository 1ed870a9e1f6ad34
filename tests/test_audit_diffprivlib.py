"""plrv audit's diffprivlib adapter against hand derivations.

diffprivlib draws ``u = k·2^-53`` (k uniform below 2^53). Binary keeps its input unless
``fl(u·fl(e^ε + 1)) > fl(e^ε)``; the threshold is found here independently, by bisection on
Python's own double arithmetic (the adapter computes it in exact rationals), and the kept
probability ``k₀/2^53`` gives the exact ε ``ln(k₀/(2^53 − k₀))``. GeometricTruncated at
ε = 1: the smallest non-zero ``|u'|`` is ``fl(2^-53·fl(1 + e^-1)) ≥ 2^-53``, whose noise is
``floor(53·ln 2) = 36``; input 0 reaches -36, input 1 does not.
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

pytest.importorskip("diffprivlib")

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "audit"
DRAWS = 2 ** 53


def _run(case: dict, conformance: int | None = None):
    c = read_audit_config({"case": [case]}, "c.toml")
    return run_audit(c.cases, c.file, conformance).rows[0]


def _threshold_by_floats(eps: float) -> int:
    import numpy as np

    e = float(np.exp(eps))
    lo, hi = 0, DRAWS  # the least k with (k·2^-53)·(e + 1) > e
    while lo < hi:
        mid = (lo + hi) // 2
        if (mid * 2.0 ** -53) * (e + 1) > e:
            hi = mid
        else:
            lo = mid + 1
    return lo


@pytest.mark.parametrize("eps", [1.0, 0.1, 0.001])
def test_binary_exact_epsilon_by_hand(eps):
    row = _run({"library": "diffprivlib", "constructor": "Binary",
                "args": {"epsilon": {"f64": repr(eps)}, "value0": "a", "value1": "b"}})
    k0 = _threshold_by_floats(eps)
    assert row.tight_epsilon == Epsilon.log(mpq(k0, DRAWS - k0))
    assert row.exactness == "exact" and row.claim_epsilon == F64(eps)
    # the law's ε exceeds the claim, and by less than 10⁻¹² relative
    assert row.verdict == "unsound"
    import mpmath

    mpmath.mp.dps = 50
    gap = mpmath.log(mpmath.mpf(k0) / (DRAWS - k0)) / mpmath.mpf(eps) - 1
    assert 0 < gap < mpmath.mpf("1e-12")


def test_binary_small_epsilon_gap_is_3e_13():
    row = _run({"library": "diffprivlib", "constructor": "Binary",
                "args": {"epsilon": {"f64": "0.001"}, "value0": "a", "value1": "b"}})
    import mpmath

    mpmath.mp.dps = 50
    base = row.tight_epsilon.base
    exact = mpmath.log(mpmath.mpf(int(base.numerator)) / int(base.denominator))
    gap = exact / mpmath.mpf(0.001) - 1
    assert mpmath.mpf("3.1e-13") < gap < mpmath.mpf("3.3e-13")


def test_truncated_geometric_wide_bounds_is_infinite():
    row = _run({"library": "diffprivlib", "constructor": "GeometricTruncated",
                "args": {"epsilon": {"f64": "1.0"}, "lower": -100, "upper": 100},
                "inputs": [0, 1]})
    assert row.verdict == "unsound" and row.tight_epsilon == Epsilon.INF
    assert row.exactness == "proxy"
    assert row.witness["inputs"] == [0, 1] and row.witness["outputs"] == [-36]
    assert row.witness["draw"] == 2 ** 52 - 1
    assert math.floor(53 * math.log(2)) == 36


@pytest.mark.slow
def test_geometric_sensitivity_two_reach_by_hand():
    """ε = 1/2, sensitivity 2: noise steps of 1/4 nat; the largest noise is
    floor(-ln(2^-53·fl(1 + e^-1/4))/(1/4)) = 144 (hand: 4·(53 ln 2 − ln 1.7788) = 144.6)."""
    row = _run({"library": "diffprivlib", "constructor": "Geometric",
                "args": {"epsilon": {"f64": "0.5"}, "sensitivity": 2}, "inputs": [0, 2]})
    assert math.floor(4 * (53 * math.log(2) - math.log(1 + math.exp(-0.25)))) == 144
    assert row.verdict == "unsound" and row.witness["outputs"] == [-144]
    with pytest.raises(Exception, match="lower"):
        _run({"library": "diffprivlib", "constructor": "Geometric",
              "args": {"epsilon": {"f64": "0.5"}, "lower": 0}, "inputs": [0, 2]})


def test_truncated_geometric_narrow_bounds_is_unknown_never_sound():
    row = _run({"library": "diffprivlib", "constructor": "GeometricTruncated",
                "args": {"epsilon": {"f64": "1.0"}, "lower": 0, "upper": 10},
                "inputs": [4, 5]})
    assert row.verdict == "unknown" and row.exactness == "proxy"


def test_conformance_passes_on_the_library_as_installed(monkeypatch):
    """The library's own samplers, drawing from a seeded generator (its secure default would
    make the test fail at random, at the goodness-of-fit's level, one run in a few hundred)."""
    pytest.importorskip("scipy")
    import numpy as np

    from verifier.audit.adapters import diffprivlib as adapter

    real, seeded = adapter.quiet, np.random.RandomState(20261127)

    def quiet(f, *args, **kwargs):
        if "random_state" in kwargs and kwargs["random_state"] is None:
            kwargs["random_state"] = seeded
        return real(f, *args, **kwargs)

    monkeypatch.setattr(adapter, "quiet", quiet)
    row = _run({"library": "diffprivlib", "constructor": "Binary",
                "args": {"epsilon": {"f64": "1.0"}, "value0": "a", "value1": "b"}}, 4000)
    assert row.verdict == "unsound"
    assert sum("draws fit the law" in n for n in row.notes) == 2
    row = _run({"library": "diffprivlib", "constructor": "GeometricTruncated",
                "args": {"epsilon": {"f64": "1.0"}, "lower": 0, "upper": 10},
                "inputs": [4, 5]}, 4000)
    assert sum("draws fit the law" in n for n in row.notes) == 2


def test_refusals_name_the_key():
    from verifier.core.errors import SpecError

    for case, key in (
        ({"args": {"epsilon": {"f64": "1.0"}, "value0": "a", "value1": "a"}},
         "case[0].args.value0"),
        ({"args": {"epsilon": {"f64": "1.0"}, "value0": "a", "value1": "b", "x": 1}},
         "case[0].args.x"),
        ({"args": {"epsilon": {"f64": "1.0"}, "value0": "a", "value1": "b"},
          "inputs": ["a"]}, "case[0].inputs"),
    ):
        with pytest.raises(SpecError) as err:
            _run({"library": "diffprivlib", "constructor": "Binary", **case})
        assert err.value.key == key
    with pytest.raises(SpecError) as err:
        _run({"library": "diffprivlib", "constructor": "GeometricTruncated",
              "args": {"epsilon": {"f64": "1.0"}, "lower": 0, "upper": 10},
              "inputs": [4, 50]})
    assert err.value.key == "case[0].inputs"


def test_example_config():
    c = load_audit_config(EXAMPLES / "diffprivlib.toml")
    rows = run_audit(c.cases, c.file).rows
    assert [r.verdict for r in rows] == ["unsound"] * 5 + ["unknown"]
