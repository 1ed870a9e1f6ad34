"""PipelineDP's NaiveBudgetAccountant against its source's formula, re-derived by hand.

``compute_budgets`` gives each of n equal-weight Laplace slots ``ε_i = (total·1)/n`` in
floating point. With total = 1: fl(1/5) = 3602879701896397/2^54, so five of them are
18014398509481985/2^54 = 1 + 2^-54 > 1; fl(1/3) = 6004799503160661/2^54, three of them
1 − 2^-54 < 1. At δ = 0 the composition of ε_i-DP slots has tight ε exactly Σ ε_i (randomized
response at each ε_i reaches its largest loss with positive probability).

With δ = 10⁻⁶ over five Gaussian slots each is (fl(0.2), fl(2·10⁻⁷)); the 5-fold composition
of that dominating pair (mass δ_i on an output only one side gives, the rest randomized
response scaled by 1 − δ_i) has, computed below with mpmath,
δ(1) = 1 − (1 − δ_i)^5 + (1 − δ_i)^5·δ_RR(1), δ_RR the 5-fold randomized response's, whose
only loss above 1 is 5·ε_i = 1 + 2^-54.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gmpy2 import mpq
from typer.testing import CliRunner

from verifier.audit.runner import run_audit
from verifier.cli import app
from verifier.specs.audit import read_audit_config

pytest.importorskip("pipeline_dp")
mpmath = pytest.importorskip("mpmath")

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "audit" / "pipeline_dp.toml"


def _run(args: dict):
    c = read_audit_config({"case": [{"library": "pipeline_dp",
                                     "constructor": "NaiveBudgetAccountant", "args": args}]},
                          "c.toml")
    return run_audit(c.cases, c.file).rows[0]


def test_five_laplace_slots_exceed_the_total_by_two_to_minus_54() -> None:
    row = _run({"total_epsilon": {"f64": "1.0"}, "total_delta": 0,
                "mechanisms": ["LAPLACE"] * 5})
    assert row.verdict == "unsound"
    assert row.tight_epsilon.nats == 1 + mpq(1, 2 ** 54)
    assert mpq(5 * 3602879701896397, 2 ** 54) == 1 + mpq(1, 2 ** 54)


def test_three_laplace_slots_stay_below() -> None:
    row = _run({"total_epsilon": {"f64": "1.0"}, "total_delta": 0,
                "mechanisms": ["LAPLACE"] * 3})
    assert row.verdict == "sound" and row.tight_epsilon.nats == 1 - mpq(1, 2 ** 54)


def test_weights_and_counts_enter_the_split() -> None:
    """weights [1, 3], counts [2, 1]: W = 1·2 + 3·1 = 5, ε = fl(1/5) and fl(3/5) (the source's
    total·w/W in doubles, recomputed here), Σ = 2·fl(1/5) + fl(3/5)."""
    row = _run({"total_epsilon": {"f64": "1.0"}, "total_delta": 0,
                "mechanisms": ["LAPLACE", "LAPLACE"], "weights": [1, 3], "counts": [2, 1]})
    expected = 2 * mpq(0.2) + mpq(3 * 1.0 / 5)
    assert row.tight_epsilon.nats == expected
    assert row.verdict == ("sound" if expected <= 1 else "unsound")


def test_gaussian_slots_are_covered_by_the_exact_composition() -> None:
    row = _run({"total_epsilon": {"f64": "1.0"}, "total_delta": {"f64": "1e-6"},
                "mechanisms": ["GAUSSIAN"] * 5})
    assert row.verdict == "sound"
    mpmath.mp.dps = 50
    e_i, d_i = mpmath.mpf(0.2), mpmath.mpf(2e-07)
    t = mpmath.e ** e_i / (1 + mpmath.e ** e_i)
    rr = sum(mpmath.binomial(5, j) * (t ** j * (1 - t) ** (5 - j)
                                      - mpmath.e * t ** (5 - j) * (1 - t) ** j)
             for j in range(6) if (2 * j - 5) * e_i > 1)
    exact = 1 - (1 - d_i) ** 5 + (1 - d_i) ** 5 * rr
    assert exact <= mpmath.mpf(1e-06)
    for end in (row.tight_delta.lower, row.tight_delta.upper):  # δ = A − C·e^1 at ε = 1
        assert end.epsilon.nats == 1
        value = _mp(end.a) - _mp(end.c) * mpmath.e
        assert abs(value - exact) < mpmath.mpf(10) ** -20


def _mp(x: mpq):
    return mpmath.mpf(int(x.numerator)) / int(x.denominator)


def test_refusals_name_the_key() -> None:
    from verifier.core.errors import SpecError

    for args, key in (({"total_epsilon": {"f64": "1.0"}, "total_delta": 0,
                        "mechanisms": ["LAPLAS"]}, "args.mechanisms"),
                      ({"total_epsilon": {"f64": "1.0"}, "total_delta": 0,
                        "mechanisms": ["LAPLACE"], "weights": [1, 2]}, "args.weights"),
                      ({"total_epsilon": {"f64": "1.0"}, "total_delta": 0,
                        "mechanisms": ["LAPLACE"], "noise": 1}, "args.noise")):
        with pytest.raises(SpecError, match=key.replace(".", r"\.")):
            _run(args)


def test_example_exits_one() -> None:
    r = CliRunner().invoke(app, ["audit", str(EXAMPLE), "--json"])
    assert r.exit_code == 1, r.output
    assert [c["verdict"] for c in json.loads(r.output)["cases"]] == ["unsound", "sound",
                                                                     "sound"]
