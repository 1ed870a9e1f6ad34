"""δ(E) as an exact piecewise function of E = e^ε, and the Example 7 / Proposition 28 closed form.

Expected values: hand derivations (randomized response, a two-curve envelope, the tiny
thresholded count), the other engine (count engine against brute force), and the thresholded
count's closed form against the count engine.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
import sympy
from gmpy2 import mpq
from typer.testing import CliRunner

from verifier.cli import app
from verifier.core.errors import InvalidArgument, VerifierError
from verifier.model.data import iid
from verifier.model.knowledge import known_indices
from verifier.model.mechanisms import randomized_response, threshold_count
from verifier.notions.check import analyse, check_partial
from verifier.specs.check import load_spec
from verifier.symbolic.closed_form import (
    EXP_EPS,
    Curve,
    delta_at,
    envelope,
    notion_curves,
    piece_rows,
    spec_curves,
    to_sympy,
)
from verifier.symbolic.threshold_form import apk_delta, evaluate, ppk_delta

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
q = mpq


def _rr_curve() -> Curve:
    mech = randomized_response("3/4", [0, 1])
    return notion_curves(analyse(mech, values=[0, 1], records=2), ["dp"])["dp"]


def test_randomized_response_by_hand():
    # neighbours differ in one record; its report has laws (3/4, 1/4) and (1/4, 3/4), the
    # others cancel: δ(E) = max(0, 3/4 − E/4) + max(0, 1/4 − 3E/4) = 3/4 − E/4 below E = 3
    curve = _rr_curve()
    assert curve.pieces == ((q(1), q(3, 4), q(1, 4)), (q(3), q(0), q(0)))
    assert all(type(x) is type(q(1)) for piece in curve.pieces for x in piece)
    assert str(to_sympy(curve)) == "Piecewise((3/4 - exp_eps/4, exp_eps < 3), (0, True))"
    assert to_sympy(curve).subs(EXP_EPS, 2) == sympy.Rational(1, 4)
    assert curve(2) == q(1, 4) and curve(5) == 0
    assert piece_rows(curve) == [
        {"from": "1", "to": "3", "a": "3/4", "c": "1/4", "delta": "3/4 - exp_eps/4"},
        {"from": "3", "to": None, "a": "0", "c": "0", "delta": "0"}]


def test_envelope_by_hand():
    # f1 = 1/2 − E/4 until 2, f2 = 3/10 − E/10 until 3; f1 leads at E = 1 (1/4 > 1/5) and
    # they cross where 1/5 = 3E/20, at E = 4/3
    f1 = Curve.make([(q(1), q(1, 2), q(1, 4)), (q(2), q(0), q(0))])
    f2 = Curve.make([(q(1), q(3, 10), q(1, 10)), (q(3), q(0), q(0))])
    env = envelope([f1, f2])
    assert env.pieces == ((q(1), q(1, 2), q(1, 4)), (q(4, 3), q(3, 10), q(1, 10)),
                          (q(3), q(0), q(0)))
    for x in (q(1), q(7, 6), q(4, 3), q(2), q(5, 2), q(3), q(9)):
        assert env(x) == max(f1(x), f2(x))
    assert envelope([]).pieces == ((q(1), q(0), q(0)),)


@pytest.mark.parametrize("bad", [
    [(q(2), q(1), q(0))],                           # does not start at E = 1
    [(q(1), q(1, 2), q(1, 4))],                     # does not end constant
], ids=["start", "end"])
def test_curve_rejects_malformed(bad):
    with pytest.raises(InvalidArgument):
        Curve.make(bad)


@pytest.mark.parametrize("name", ["threshold_partial.toml", "referendum_tally.toml"])
def test_count_engine_agrees_with_brute_force(name):
    spec = load_spec(EXAMPLES / name)
    counts = spec_curves(replace(spec, engine="counts"))
    brute = spec_curves(replace(spec, engine="brute"))
    assert counts == brute


@pytest.mark.parametrize("rate", ["1", "3/2", "2", "4", "7", "100"])
def test_curve_matches_the_check_at_each_epsilon(rate):
    spec = load_spec(EXAMPLES / "referendum_tally.toml")
    curves = spec_curves(spec)
    analysis = analyse(spec.mechanism, values=spec.values, records=spec.records,
                       models=spec.model, knowledge=spec.knowledge, targets=spec.targets,
                       budget=spec.budget)
    report = analysis.report(spec.notions, f"ln({rate})", "0")
    for name, curve in curves.items():
        assert curve(q(rate)) == report.results[name].delta.value


# (n, m, p, T, E): Example 7's shape at sizes the count engine checks in milliseconds
POINTS = [(2, 0, "1/2", 2, "1"), (8, 2, "1/5", 3, "2"), (6, 3, "1/3", 4, "3/2"),
          (7, 1, "2/5", 2, "3"), (5, 4, "1/2", 5, "1"), (6, 0, "1/4", 7, "2"),
          (8, 3, "1/10", 6, "5/4"), (4, 1, "3/4", 1, "2"), (5, 2, "1/2", 0, "1")]


@pytest.mark.parametrize("n,m,p,t,rate", POINTS)
@pytest.mark.slow
def test_threshold_closed_form_matches_count_engine(n, m, p, t, rate):
    report = check_partial(threshold_count((1,), t), iid([1 - q(p), q(p)], [0, 1], n),
                           knowledge=known_indices(list(range(m))), targets=[n - 1],
                           epsilon=f"ln({rate})", delta="0", engine="counts")
    apk = evaluate(apk_delta(), n=n, m=m, p=p, threshold=t, rate=rate)
    ppk = evaluate(ppk_delta(), n=n, m=m, p=p, threshold=t, rate=rate)
    assert type(apk) is type(q(1)) and type(ppk) is type(q(1))
    assert apk == report.results["apkdp"].delta.value
    assert ppk == report.results["ppkdp"].delta.value


@pytest.mark.slow
def test_threshold_closed_form_tiny_case_by_hand():
    # module docstring: n = 2, m = 0, T = 2, p = 1/2 gives APK = PPK = 1/2 at every ε
    for rate in ("1", "2", "10"):
        assert evaluate(apk_delta(), n=2, m=0, p="1/2", threshold=2, rate=rate) == q(1, 2)
        assert evaluate(ppk_delta(), n=2, m=0, p="1/2", threshold=2, rate=rate) == q(1, 2)


@pytest.mark.parametrize("kwargs,message", [
    ({"m": 2}, "m = 2 known records must leave the target"),
    ({"p": 0.5}, "p = 0.5 is a float, which is not exact"),
    ({"rate": True}, "rate = True is a bool"),
], ids=["m", "float", "bool"])
def test_threshold_evaluate_rejects(kwargs, message):
    args = {"n": 2, "m": 0, "p": "1/2", "threshold": 1, "rate": "1"} | kwargs
    with pytest.raises(VerifierError, match=message):
        evaluate(apk_delta(), **args)


def test_cli_closed_form():
    runner = CliRunner()
    path = str(EXAMPLES / "randomized_response.toml")
    out = runner.invoke(app, ["check", path, "--closed-form", "--json"])
    assert out.exit_code == 0
    form = json.loads(out.stdout)["closed_form"]["dp"]
    assert form["piecewise"] == "Piecewise((3/4 - exp_eps/4, exp_eps < 3), (0, True))"
    assert form["variable"] == "exp_eps"
    # sympify reads the variable as a free symbol, not Euler's number E
    expr = sympy.sympify(form["piecewise"])
    assert {str(x) for x in expr.free_symbols} == {"exp_eps"}
    assert expr.subs(sympy.Symbol("exp_eps"), 2) == sympy.Rational(1, 4)
    # the evaluator: δ = 3/4 − e^ε/4 below ln(3) (by hand), exact at every kind of ε
    assert delta_at(form, "ln(2)") == q(1, 4) and delta_at(form, "ln(5)") == 0
    half = delta_at(form, "1/2")
    assert (half.a, half.c, str(half)) == (q(3, 4), q(1, 4), "3/4 - 1/4*exp(1/2)")
    text = runner.invoke(app, ["check", path, "--closed-form"])
    assert text.exit_code == 0
    assert "dp: δ = 3/4 - exp_eps/4  for 1 ≤ exp_eps < 3" in text.stdout
    assert "dp: δ = 0  for exp_eps ≥ 3" in text.stdout


def test_worst_class_cases_give_the_same_envelope():
    # with ε given, the count engine folds a pair's background classes into one WorstClass
    # case; its curve is the envelope of the classes, so the notion's curve is unchanged
    from verifier.core.epsilon import Epsilon
    from verifier.notions.partial.cases import apk_cases
    from verifier.notions.partial.shift_loss import WorstClass
    from verifier.symbolic.closed_form import curve_of

    spec = load_spec(EXAMPLES / "threshold_partial.toml")
    analysis = analyse(spec.mechanism, values=spec.values, records=spec.records,
                       models=spec.model, knowledge=spec.knowledge, targets=spec.targets,
                       budget=spec.budget, engine="counts")
    cases = [c for t in analysis.tables or () for c in
             apk_cases(t, analysis.pairs or (), Epsilon.log(2))]
    assert cases and all(isinstance(c.loss, WorstClass) for c in cases)
    assert envelope(curve_of(c.loss) for c in cases) == spec_curves(spec)["apkdp"]


# ---------------------------------------------------------------- neighbouring relations

def _reference_dp(mech, pairs, rate) -> mpq:
    """max over the listed ordered pairs of Σ_O max(0, P[M(x)=O] − E·P[M(y)=O]), in plain
    Fractions (tests/reference.py), the pairs written out by the test itself."""
    from fractions import Fraction

    from reference import kernel

    E_ = Fraction(rate)
    best = Fraction(0)
    for x, y in pairs:
        p, r = kernel(mech, x), kernel(mech, y)
        best = max(best, sum((max(Fraction(0), p.get(o, 0) - E_ * r.get(o, 0))
                              for o in set(p) | set(r)), Fraction(0)))
    return q(best.numerator, best.denominator)


def _relation_spec(tmp_path, input_, neighbours, mechanism):
    path = tmp_path / "spec.toml"
    path.write_text(f"{input_}\n[neighbours]\n{neighbours}\n[mechanism]\n{mechanism}\n"
                    '[query]\nepsilon = "ln(2)"\nnotions = ["dp"]\n')
    return load_spec(path)


GEOMETRIC = 'kind = "geometric_count"\nalpha = "1/2"'
SQUARE = [(0, 0), (0, 1), (1, 0), (1, 1)]
RATES = ["1", "5/4", "3/2", "2", "9/4", "3", "4", "100"]


def test_closed_form_under_l1_by_hand_and_against_the_engines(tmp_path):
    # l1 distance 1 on {0, 1}^2 moves the count by one (n = 2, α = 1/2): laws (2/3, 1/6, 1/6)
    # at count 0 and (1/3, 1/3, 1/3) at count 1, so δ(E) = 2/3 − E/3 below E = 2, then 0
    from verifier.notions.dp.neighbours import check_relation

    spec = _relation_spec(tmp_path, "[input]\ncoordinates = 2\nrange = [0, 1]",
                          'relation = "l1"', GEOMETRIC)
    curve = spec_curves(spec)["dp"]
    assert curve.pieces == ((q(1), q(2, 3), q(1, 3)), (q(2), q(0), q(0)))
    pairs = [(x, y) for x in SQUARE for y in SQUARE
             if sum(abs(a - b) for a, b in zip(x, y, strict=True)) == 1]
    assert len(pairs) == 8
    for rate in RATES:
        exact = check_relation(spec.mechanism, spec.relation, f"ln({rate})").delta.value
        assert curve(q(rate)) == exact == _reference_dp(spec.mechanism, pairs, rate)
    out = CliRunner().invoke(app, ["check", str(tmp_path / "spec.toml"), "--closed-form",
                                   "--json"])
    assert out.exit_code == 0, out.output
    form = json.loads(out.stdout)["closed_form"]["dp"]
    assert form["piecewise"] == "Piecewise((2/3 - exp_eps/3, exp_eps < 2), (0, True))"


@pytest.mark.parametrize("neighbours, pairs", [
    ('relation = "add-remove-one"',
     [(d, d[:i] + d[i + 1:]) for d in SQUARE for i in range(2)]
     + [(d[:i] + d[i + 1:], d) for d in SQUARE for i in range(2)]),
    ('relation = "replace-one"',
     [(x, y) for x in SQUARE for y in SQUARE
      if sum(a != b for a, b in zip(x, y, strict=True)) == 1]),
], ids=["add-remove-one", "replace-one"])
def test_closed_form_over_databases_against_a_reference(tmp_path, neighbours, pairs):
    spec = _relation_spec(tmp_path, "[data]\nrecords = 2\nvalues = [0, 1]", neighbours,
                          'kind = "randomized_response"\ntruth = "3/4"')
    curve = spec_curves(spec)["dp"]
    for rate in RATES:
        assert curve(q(rate)) == _reference_dp(spec.mechanism, pairs, rate)
    if neighbours == 'relation = "add-remove-one"':
        # by hand: M((a,)) puts its whole mass on reports of length 1, never given by a
        # database of 2 records: δ = 1 at every E
        assert curve.pieces == ((q(1), q(1), q(0)),)


def test_closed_form_of_noisy_max_under_linf(tmp_path):
    # the zoo's report_noisy_max on {0, 1, 2}^3 with linf neighbours, against a reference
    # over the 316 ordered pairs written out here; its tight ε is ln(376/103) (README), so
    # the curve is 0 from E = 376/103 on and positive just below
    from itertools import product

    from verifier.specs.check import load_spec as load
    spec = load(EXAMPLES / "zoo" / "report_noisy_max.toml")
    curve = spec_curves(spec)["dp"]
    inputs = list(product(range(3), repeat=3))
    pairs = [(x, y) for x in inputs for y in inputs
             if x != y and max(abs(a - b) for a, b in zip(x, y, strict=True)) <= 1]
    assert len(pairs) == 316
    assert curve.pieces[-1] == (q(376, 103), q(0), q(0))
    for rate in ["1", "2", "3", "376/103", "4"]:
        assert curve(q(rate)) == _reference_dp(spec.mechanism, pairs, rate)


def test_closed_form_text_of_numbers_beyond_pythons_digit_limit():
    # a δ with 5000-digit terms (Example 7 at n = 1000 has them): the text is written, not
    # refused by int → str's default limit of 4300 digits
    import sys

    from verifier.symbolic.closed_form import describe

    big = q(1, 3**10500)  # a denominator of 5010 digits
    curve = Curve.make([(q(1), 2 * big, big), (q(2), q(0), q(0))])
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(4300)
    try:
        rows = piece_rows(curve)
        assert len(describe(curve)) == 2
    finally:
        sys.set_int_max_str_digits(before)
    assert rows[0]["c"] == f"1/{3**10500}" and len(rows[0]["c"]) == 5012
