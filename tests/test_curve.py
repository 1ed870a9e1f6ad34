"""plrv curve: the exact δ(ε) of each notion as pieces δ = a − c·e^ε between breakpoints ln(q).

Expected values: hand derivations (randomized response), the seed's definitions written in
plain Fractions (tests/reference.py: dp over replace-one, APK and PPK of the thresholded count)
at rational e^ε inside and at the ends of every piece, mpmath at 50 digits where ε is a
rational number of nats (e^ε irrational), plrv check's own summation at the claimed ε, the other
engine (brute force against the count engine), and dp_accounting's pessimistic δ (never below
the exact one).
"""

from __future__ import annotations

import csv
import json
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest
from gmpy2 import mpq
from reference import apk_delta, dp_delta, joint, ppk_delta
from typer.testing import CliRunner

from verifier.cli import app
from verifier.core.delta import Delta
from verifier.core.epsilon import Epsilon, parse_epsilon
from verifier.core.errors import InvalidArgument
from verifier.model.mechanisms import randomized_response, threshold_count
from verifier.symbolic.closed_form import delta_at

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
RR = str(EXAMPLES / "randomized_response.toml")
TP = str(EXAMPLES / "threshold_partial.toml")
runner = CliRunner()
mpmath.mp.dps = 50


def _json(*args: str, code: int = 0) -> dict:
    out = runner.invoke(app, ["curve", *args, "--json"])
    assert out.exit_code == code, out.output
    return json.loads(out.stdout)


def _rates(form: dict) -> list[Fraction]:
    """Rational e^ε where the curve is tested: 1, every breakpoint, a point inside every
    piece, and one beyond the last breakpoint."""
    starts = [Fraction(str(parse_epsilon(p["from"]).rate)) for p in form["pieces"]]
    inside = [(x + y) / 2 for x, y in zip(starts, starts[1:], strict=False)]
    return sorted({*starts, *inside, starts[-1] * 2})


def test_randomized_response_by_hand():
    # each record's report has laws (3/4, 1/4) and (1/4, 3/4): δ(ε) = 3/4 − e^ε/4 below
    # ln(3), then 0; at ε = ln(2) the claim δ ≤ 1/4 is tight
    out = _json(RR)
    dp = out["notions"]["dp"]
    assert dp["pieces"] == [{"from": "0", "to": "ln(3)", "a": "3/4", "c": "1/4"},
                            {"from": "ln(3)", "to": "inf", "a": "0", "c": "0"}]
    assert dp["breakpoints"] == ["ln(3)"] and dp["variable"] == "epsilon"
    assert dp["at_claim"] == {"delta": "1/4", "delta_approx": "0.25", "holds": True}
    assert out["holds"] is True and out["query"] == {"epsilon": "ln(2)", "delta": "1/4"}


def test_the_exit_status_is_the_claims_verdict():
    # δ(ln 2) = 1/4 > 1/5
    out = _json(RR, "--delta", "1/5", code=1)
    assert out["holds"] is False and out["notions"]["dp"]["at_claim"]["holds"] is False
    assert _json(RR, "--epsilon", "ln(3)", "--delta", "0")["holds"] is True


def test_dp_against_the_definition_at_every_piece():
    # the reference sums max(0, P − E·Q) over the replace-one pairs of randomized response on
    # 3 records, written out independently of plrv
    form = _json(RR)["notions"]["dp"]
    mech = randomized_response("3/4", [0, 1])
    for rate in _rates(form):
        got = delta_at(form, Epsilon.log(mpq(rate.numerator, rate.denominator)))
        assert got.is_rational and Fraction(str(got.value)) == dp_delta(mech, [0, 1], 3, rate)


def test_partial_notions_against_the_definitions():
    # seed 003 Definitions 6 and 7 summed directly (tests/reference.py) at rational e^ε
    out = _json(TP, code=1)
    mech = threshold_count([1], 3)
    priors = [{0: Fraction(4, 5), 1: Fraction(1, 5)}] * 8
    J = joint(mech, priors, lambda db: (db[0], db[1]), 7)
    backgrounds = {B for t in J for B in J[t]}
    pairs = [(0, 1), (1, 0)]
    apk, ppk = out["notions"]["apkdp"], out["notions"]["ppkdp"]
    # the active attacker's curve has a crossing of two backgrounds' lines as a breakpoint
    assert apk["breakpoints"] == ["ln(1077/821)"]
    assert ppk["breakpoints"] == ["ln(2)", "ln(4)", "ln(1167/175)"]
    for rate in _rates(apk) + _rates(ppk):
        eps = Epsilon.log(mpq(rate.numerator, rate.denominator))
        assert Fraction(str(delta_at(apk, eps).value)) == max(
            apk_delta(J, a, b, B, rate) for a, b in pairs for B in backgrounds)
        assert Fraction(str(delta_at(ppk, eps).value)) == max(
            ppk_delta(J, a, b, rate) for a, b in pairs)


@pytest.mark.parametrize("nats", ["1/3", "1", "1/10000", "7/2"])
def test_irrational_e_to_the_epsilon_against_mpmath(nats):
    # ε in nats: δ = 3/4 − e^ε/4 kept exactly, its decimal certified (mpmath, 50 digits)
    form = _json(RR)["notions"]["dp"]
    d = delta_at(form, nats)
    x = mpmath.mpf(Fraction(nats).numerator) / Fraction(nats).denominator
    expected = max(mpmath.mpf(0), mpmath.mpf(3) / 4 - mpmath.e**x / 4)
    assert isinstance(d, Delta)
    if expected == 0:
        assert d == 0
    else:
        assert (d.a, d.c) == (mpq(3, 4), mpq(1, 4))
        lo, hi = d.bounds(100)  # an enclosure ~1e-30 wide; mpmath is good to 1e-50
        assert mpmath.mpf(lo.numerator) / lo.denominator <= expected
        assert expected <= mpmath.mpf(hi.numerator) / hi.denominator


def test_the_curve_meets_plrv_check_at_the_claim_and_is_continuous():
    # check sums over the outputs at ε itself; the curve comes from the breakpoints
    for spec in (RR, TP, str(EXAMPLES / "zoo" / "report_noisy_max.toml")):
        checked = json.loads(runner.invoke(app, ["check", spec, "--json"]).stdout)
        out = runner.invoke(app, ["curve", spec, "--json"])
        for name, form in json.loads(out.stdout)["notions"].items():
            assert form["at_claim"]["delta"] == checked[name]["delta"]
            assert form["at_claim"]["holds"] == checked[name]["holds"]
            ps = form["pieces"]
            for left, right in zip(ps, ps[1:], strict=False):  # δ is continuous in ε
                s = parse_epsilon(right["from"]).rate
                assert mpq(left["a"]) - mpq(left["c"]) * s == mpq(right["a"]) - mpq(
                    right["c"]) * s
                assert left["to"] == right["from"]
            assert ps[-1]["to"] == "inf" and ps[-1]["c"] == "0"


def test_both_engines_give_the_same_curve():
    brute = _json(TP, "--engine", "brute", code=1)["notions"]
    counts = _json(TP, "--engine", "counts", code=1)["notions"]
    assert brute == counts


def test_plot(tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "c.png"
    out = runner.invoke(app, ["curve", RR, "--plot", str(png)]
                        + (["--accounting"] if _has("dp_accounting") else []))
    assert out.exit_code in (0, 1), out.output
    assert f"wrote {png} (--plot)" in out.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _has(module: str) -> bool:
    from importlib.util import find_spec
    return find_spec(module) is not None


def test_csv(tmp_path):
    path = tmp_path / "c.csv"
    out = runner.invoke(app, ["curve", TP, "--csv", str(path), "--points", "8"])
    assert out.exit_code == 1, out.output
    assert f"wrote {path} (--csv)" in out.output
    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    forms = _json(TP, code=1)["notions"]
    for name, form in forms.items():
        mine = [r for r in rows if r["notion"] == name]
        # 9 grid points, the claimed ε ln(2), every breakpoint (ln(2) is one of PPK's)
        marks = set(form["breakpoints"])
        assert {r["epsilon"] for r in mine if r["breakpoint"] == "True"} == marks
        assert {"0", "ln(2)"} | marks <= {r["epsilon"] for r in mine}
        for r in mine:
            assert r["delta"] == str(delta_at(form, r["epsilon"]))
    # sorted by ε: the decimals ascend within a notion
    eps = [float(r["epsilon_approx"]) for r in rows if r["notion"] == "apkdp"]
    assert eps == sorted(eps) and len(eps) == len(set(eps))


def test_accountant_is_never_below_the_exact_curve(tmp_path):
    pytest.importorskip("dp_accounting")
    out = _json(RR, "--accounting", "--points", "10")
    samples = out["accountant"]["samples"]
    assert len(samples) == 11 + 2  # the grid, ln(2) and ln(3)
    for s in samples:
        exact = delta_at(out["notions"]["dp"], s["epsilon"])
        theirs = mpq(s["delta"])
        assert exact.compare(theirs) <= 0  # pessimistic: at least the exact δ
        assert (theirs - exact.bounds(64)[1]) < mpq(1, 1000)  # and close (interval 1e-4)
        assert s["exact_delta"] == str(exact)


@pytest.mark.parametrize("args, key", [
    (["examples/opendp_discrete_laplace.toml"], "plrv curve does not decide"),
    (["examples/renyi_randomized_response.toml"], "Rényi"),
    ([TP, "--accounting"], "--accounting"),
    ([RR, "--points", "0"], "--points"),
    ([RR, "--points", "5"], "--points sets the samples"),
    ([RR, "--plot", "x.txt"], "--plot"),
    ([RR, "--epsilon", "ln(1/2)"], "--epsilon"),
    ([RR, "--csv", RR], "--csv"),
    ([RR, "--budget", "1"], "limits.databases"),
    ([str(EXAMPLES / "pso_full.toml")], "run plrv pso"),
])
def test_refusals_exit_2(args, key):
    out = runner.invoke(app, ["curve", *args])
    assert out.exit_code == 2, out.output
    assert key in out.output


def test_symbolic_spec_at_a_point():
    # randomized response with truth t on independent records: only the target's own report
    # tells its value apart, with laws (t, 1 − t) and (1 − t, t); at t = 2/3 APK and PPK are
    # both 2/3 − e^ε/3 below ln(2), then 0
    out = runner.invoke(app, ["curve", str(EXAMPLES / "rr_symbolic.toml"), "--at", "t=2/3",
                              "--json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    assert "t = 2/3" in doc["parameters"]
    for name in ("apkdp", "ppkdp"):
        assert doc["notions"][name]["pieces"] == [
            {"from": "0", "to": "ln(2)", "a": "2/3", "c": "1/3"},
            {"from": "ln(2)", "to": "inf", "a": "0", "c": "0"}]


def test_delta_at_refuses_what_is_not_a_curve():
    form = {"variable": "E", "pieces": []}
    with pytest.raises(InvalidArgument, match="variable"):
        delta_at(form, "ln(2)")
    broken = {"variable": "epsilon", "pieces": [
        {"from": "0", "to": "ln(2)", "a": "1", "c": "1/2"},
        {"from": "ln(3)", "to": "inf", "a": "0", "c": "0"}]}
    with pytest.raises(InvalidArgument, match="to"):
        delta_at(broken, "ln(2)")


def test_a_missing_extra_is_named(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "dp_accounting", None)  # import raises ImportError
    out = runner.invoke(app, ["curve", RR, "--accounting"])
    assert out.exit_code == 2 and "dp_accounting" in out.output
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    out = runner.invoke(app, ["curve", RR, "--plot", "c.png"])
    assert out.exit_code == 2 and "matplotlib" in out.output


# ------------------------------------------------------- the envelope found by support lines

def _both_envelopes(cases):
    """The notion's curve as notion_curves builds it (support-line queries) and as the
    envelope of every case's full curve (every case's δ at every one of its ratios)."""
    from verifier.symbolic.closed_form import Curve, _lazy, curve_of, envelope
    from verifier.symbolic.envelope import upper_envelope

    lazy = Curve.make(upper_envelope([x for c in cases for x in _lazy(c)]))
    return lazy, envelope(curve_of(c) for c in cases)


@pytest.mark.parametrize("seed", range(40))
def test_support_line_envelope_equals_the_full_envelope_on_random_laws(seed):
    # random pairs of laws on up to 6 outputs (some outputs impossible under one side), up to
    # 12 cases: crossings, ties and dominated cases all occur
    import random

    from verifier.core.distribution import Dist
    from verifier.notions.loss import privacy_loss

    rng = random.Random(seed)

    def law(outputs: int) -> Dist:
        w = [rng.choice([0, 0, 1, 2, 3, 5, 8]) for _ in range(outputs)]
        if not any(w):
            w[0] = 1
        return Dist({o: Fraction(x, sum(w)) for o, x in enumerate(w) if x})

    cases = []
    for _ in range(rng.randint(1, 12)):
        k = rng.randint(1, 6)
        cases.append(privacy_loss(law(k), law(k)))
    lazy, full = _both_envelopes(cases)
    assert lazy == full


@pytest.mark.parametrize("spec", ["threshold_partial.toml", "referendum_tally.toml",
                                  "example7_small.toml", "zoo/report_noisy_max.toml"])
def test_support_line_envelope_equals_the_full_envelope_on_examples(spec):
    from verifier.notions.check import analyse
    from verifier.notions.partial.cases import apk_cases, ppk_cases
    from verifier.specs.check import load_spec

    s = load_spec(EXAMPLES / spec)
    a = analyse(s.mechanism, values=s.values, records=s.records,
                models=s.model if s.notions != ("dp",) else None, knowledge=s.knowledge,
                targets=s.targets, pairs=s.pairs, budget=s.budget, engine=s.engine,
                relation=s.relation)
    pairs = a.pairs or ()
    groups = ([[c.loss for c in a._dp()]] if "dp" in s.notions else []) + (
        [[c.loss for t in a.tables or () for c in apk_cases(t, pairs)],
         [c.loss for t in a.tables or () for c in ppk_cases(t, pairs)]] if a.tables else [])
    assert groups
    for losses in groups:
        lazy, full = _both_envelopes(losses)
        assert lazy == full


def test_accountant_in_the_text_report():
    pytest.importorskip("dp_accounting")
    out = runner.invoke(app, ["curve", RR, "--accounting", "--points", "2"])
    assert out.exit_code == 0, out.output
    # the grid 0, 69/100, 69/50, the claimed ε ln(2) and the breakpoint ln(3), in order
    rows = [line for line in out.stdout.splitlines() if line.startswith("  ε = ")]
    assert [r.split()[2] for r in rows] == ["0", "69/100", "ln(2)", "ln(3)", "69/50"]
    assert "exact 0.25, dp_accounting 0.25" in rows[2]
