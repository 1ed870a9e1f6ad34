"""The flat API (``from verifier import …``), readable results, and the privacy loss read both
ways. Expected values are derived by hand (randomized response) or computed by mpmath at 50
digits, never taken from plrv's own output."""

import math
import numbers
import re
import subprocess
import sys
from fractions import Fraction
from importlib import import_module
from pathlib import Path

import mpmath
import pytest
from gmpy2 import mpq

import verifier
from verifier import (
    Delta,
    Dist,
    Epsilon,
    InvalidNumber,
    check_dp,
    check_partial,
    compose_mechanisms,
    discrete_laplace,
    iid,
    known_indices,
    parse_epsilon,
    privacy_loss,
    randomized_response,
    replace_one,
    threshold_count,
)

mpmath.mp.dps = 50

# Where each public name is defined: written out here, independently of the lazy table in
# verifier/__init__.py, so a name pointing at the wrong module fails.
DEFINED_IN = {
    "verifier.core.numbers": "rational",
    "verifier.core.epsilon": "Epsilon parse_epsilon",
    "verifier.core.delta": "Delta",
    "verifier.core.binary64": "F64 f64",
    "verifier.core.budget": "Budget",
    "verifier.core.errors": "BudgetExceeded InvalidArgument InvalidDistribution InvalidNumber "
                            "NullEvent OutOfRange SpecError Undecided UnknownName UserCodeError "
                            "VerifierError UndecidableComparison NotComparable "
                            "InexactArithmetic",
    "verifier.core.distribution": "BOTTOM Dist",
    "verifier.model.mechanisms": "Mechanism count geometric_count identity mean_query mechanism "
                                 "randomized_response sum_query threshold_count",
    "verifier.model.noise": "Noisy geometric noisy_sum",
    "verifier.model.expnoise": "ExpNoise discrete_gaussian discrete_laplace",
    "verifier.core.ratfunc": "RatFunc",
    "verifier.model.expnoise_zoo": "NoisyChoice noisy_max above_threshold",
    "verifier.model.data": "DataModel explicit iid independent",
    "verifier.model.knowledge": "Knowledge knowledge known_indices no_knowledge",
    "verifier.notions.dp.neighbours": "Relation add_remove_one check_relation explicit_pairs "
                                      "predicate_relation replace_one vector_relation vectors",
    "verifier.notions.dp.api": "check_dp",
    "verifier.notions.dp.noise_check": "NoiseResult check_noise_dp",
    "verifier.notions.dp.noise_zoo": "check_choice_dp",
    "verifier.notions.loss": "Loss PrivacyLoss privacy_loss",
    "verifier.notions.check": "NOTIONS Analysis Report analyse check_notions check_partial",
    "verifier.notions.result": "NotionResult",
    "verifier.notions.partial.reducible": "is_theta_reducible reducibility_witness",
    "verifier.notions.composition.exact": "LossDistribution compose_mechanisms",
    "verifier.notions.composition.adaptive": "Step adaptive_step compose_adaptive",
    "verifier.notions.composition.enclosure": "CompositionEnclosure enclose_composition",
    "verifier.notions.renyi.check": "OrderValue RdpResult RenyiReport ZcdpResult check_renyi",
    "verifier.notions.renyi.compose": "compose_renyi",
    "verifier.specs.check": "Spec load_spec parse_spec run_spec",
}
EXPECTED = {name: module for module, names in DEFINED_IN.items() for name in names.split()}

# the names the deep imports of the README and of earlier versions needed
MUST_BE_FLAT = ["compose_mechanisms", "replace_one", "add_remove_one", "geometric",
                "check_renyi", "compose_renyi", "discrete_laplace", "discrete_gaussian", "f64",
                "check_relation", "PrivacyLoss", "NotionResult", "Report", "RenyiReport"]


def rr_loss():
    """One record, truth 3/4: output 1 has ratio (3/4)/(1/4) = 3, output 0 ratio 1/3."""
    return privacy_loss(Dist({1: "3/4", 0: "1/4"}), Dist({1: "1/4", 0: "3/4"}))


# ------------------------------------------------------------------------ the names


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_public_name_is_the_object_of_its_module(name):
    module = import_module(EXPECTED[name])
    assert getattr(verifier, name) is getattr(module, name)
    namespace: dict = {}
    exec(f"from verifier import {name}", namespace)
    assert namespace[name] is getattr(module, name)


def test_all_lists_exactly_the_expected_names_once():
    assert len(verifier.__all__) == len(set(verifier.__all__))
    assert set(verifier.__all__) == set(EXPECTED)
    assert set(MUST_BE_FLAT) <= set(verifier.__all__)
    assert set(verifier.__all__) <= set(dir(verifier))


def _documented_names() -> set[str]:
    """The names the API reference pages render: each ``::: module`` block's ``members``,
    or the module's ``__all__`` when the block lists none."""
    names: set[str] = set()
    pages = Path(__file__).resolve().parents[1] / "docs" / "reference" / "api"
    for page in pages.glob("*.md"):
        for block in re.finditer(r"^::: ([\w.]+)\n((?:    .*\n)*)", page.read_text(), re.M):
            options = block.group(2)
            members = re.search(r"members:\n((?:\s+- \w+\n)+)", options)
            if members:
                names |= set(re.findall(r"- (\w+)", members.group(1)))
            elif "members: false" not in options:
                names |= set(import_module(block.group(1)).__all__)
    return names


def test_dir_shows_the_public_api_only_and_each_name_is_documented():
    """No ``TYPE_CHECKING``, ``annotations`` or ``importlib`` (nor a subpackage imported on
    the way): every public name of ``dir(verifier)`` is in ``__all__`` and on a reference
    page."""
    verifier.check_dp  # noqa: B018 - imports verifier.notions and verifier.core
    public = {name for name in dir(verifier) if not name.startswith("_")}
    assert public == set(verifier.__all__)
    assert not {"TYPE_CHECKING", "annotations", "importlib", "core", "notions"} & public
    assert set(verifier.__all__) - _documented_names() == set()


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'compose_mechanism'"):
        verifier.compose_mechanism  # noqa: B018
    with pytest.raises(ImportError):
        exec("from verifier import no_such_name", {})


def test_importing_verifier_loads_no_submodule():
    """The names are imported on first use: ``import verifier`` (and so ``plrv --help``)
    loads none of the library, not even gmpy2."""
    code = ("import sys, verifier; print(sorted(m for m in sys.modules "
            "if m.startswith('verifier.') or m == 'gmpy2'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


# --------------------------------------------------------------- float approximations


def test_float_of_epsilon_is_the_nearest_double():
    cases = [("ln(3)", float(mpmath.log(3))), ("ln(3/2)", float(mpmath.log(mpmath.mpf(3) / 2))),
             ("ln(1000001/1000000)", float(mpmath.log(mpmath.mpf(1000001) / 1000000))),
             ("1/4", 0.25), ("1/3", 1 / 3), ("0", 0.0), ("inf", math.inf)]
    for text, expected in cases:
        value = float(parse_epsilon(text))
        assert type(value) is float
        assert value == expected, text


def test_float_of_delta_is_the_nearest_double():
    # 3/4 − e^{1/2}/4, the tight δ of randomized response (truth 3/4) at ε = 1/2 nats
    irrational = Delta.make(mpq(3, 4), mpq(1, 4), parse_epsilon("1/2"))
    reference = mpmath.mpf(3) / 4 - mpmath.exp(mpmath.mpf(1) / 2) / 4
    assert float(irrational) == float(reference)
    assert type(float(irrational)) is float
    assert float(Delta.make(mpq(1, 4), mpq(0), parse_epsilon("ln(2)"))) == 0.25
    # a rational δ at ε = ln(2): 3/4 − 2/4 collapses to the rational 1/4
    assert float(Delta.make(mpq(3, 4), mpq(1, 4), parse_epsilon("ln(2)"))) == 0.25


def test_the_float_approximation_never_enters_an_exact_path():
    irrational = Delta.make(mpq(3, 4), mpq(1, 4), parse_epsilon("1/2"))
    for value in (irrational, parse_epsilon("ln(3)")):
        with pytest.raises(TypeError):
            mpq(value)
        with pytest.raises(TypeError):
            Fraction(value)
        with pytest.raises(InvalidNumber, match="is not a number"):
            verifier.rational(value)


def test_float_is_never_taken_as_a_number():
    with pytest.raises(InvalidNumber, match="float"):
        rr_loss().delta(0.5)
    with pytest.raises(InvalidNumber, match="float"):
        rr_loss().epsilon(0.25)


# ----------------------------------------------------------------------------- reprs


def test_reprs_of_the_exact_types():
    assert repr(parse_epsilon("ln(3)")) == "Epsilon('ln(3)')"
    assert repr(Delta.make(mpq(3, 4), mpq(1, 4), parse_epsilon("1/2"))) == \
        "Delta('3/4 - 1/4*exp(1/2)')"
    # ln 3 = 1.098612288…, truncated to six significant digits
    assert parse_epsilon("ln(3)")._repr_html_() == "<code>ε = ln(3)</code> (≈ 1.09861)"
    assert parse_epsilon("inf")._repr_html_() == "<code>ε = inf</code>"
    assert Delta.make(mpq(0), mpq(0), parse_epsilon("0"))._repr_html_() == "<code>δ = 0</code>"
    # 3/4 − e^{1/2}/4 = 0.33781968…
    assert Delta.make(mpq(3, 4), mpq(1, 4), parse_epsilon("1/2"))._repr_html_() == \
        "<code>δ = 3/4 - 1/4*exp(1/2)</code> (≈ 0.337819)"


def test_repr_of_a_failing_dp_result_shows_verdict_tight_values_and_witness():
    # one record, truth 3/4: δ(ε) = 3/4 − e^ε/4, so δ(ln 2) = 1/4 > 1/8; ε(δ) = ln(3 − 4δ),
    # so ε(1/8) = ln(5/2) = 0.916290731…; the output with loss ln 3 is the witness
    r = check_dp(randomized_response("3/4", [0, 1]), replace_one([0, 1], 1), epsilon="ln(2)",
                 delta="1/8")
    text = repr(r)
    assert text.startswith("NotionResult(dp FAILS at ε = ln(2), δ = 1/8: ")
    assert "tight δ(ε) = 1/4 > 1/8" in text
    assert "tight ε(δ) = ln(5/2) ≈ 0.91629;" in text
    assert "witness: databases [0] vs [1] (differing in record 0), outputs (0,): ln(3)" in text
    assert "mpq(" not in text and "Delta(" not in text and "Epsilon(" not in text


def test_repr_of_a_holding_result_and_an_irrational_delta():
    r = check_dp(randomized_response("3/4", [0, 1]), replace_one([0, 1], 1), epsilon="ln(3)",
                 delta="0")
    assert repr(r).startswith("NotionResult(dp holds at ε = ln(3), δ = 0: tight δ(ε) = 0 ≤ 0, "
                              "tight ε(δ) = ln(3) ≈ 1.09861; worst case: ")
    r = check_dp(randomized_response("3/4", [0, 1]), replace_one([0, 1], 1), epsilon="1/2",
                 delta="1/10")
    assert "tight δ(ε) = 3/4 - 1/4*exp(1/2) ≈ 0.337819 > 1/10" in repr(r)


def test_html_of_a_result_is_the_report_template():
    # randomized response 3/4, one record, ε = ln 2, δ = 1/8: tight δ = 3/4 − 2·(1/4) = 1/4,
    # tight ε at 1/8 = ln((3/4 − 1/8)/(1/4)) = ln(5/2), witness [0] vs [1] with output 0
    # (loss ln 3), by hand
    r = check_dp(randomized_response("3/4", [0, 1]), replace_one([0, 1], 1), epsilon="ln(2)",
                 delta="1/8")
    html = r._repr_html_()
    assert html.startswith('<div class="plrv-report"><style>') and html.endswith("</div>")
    assert '<h2>plrv check: <b class="fails">FAILS</b></h2>' in html
    approx = '<span class="approx" title="certified decimal, an approximation">'
    assert f"<code>1/4</code> {approx}≈ 0.25 (approx.)</span>" in html
    assert f"<code>ln(5/2)</code> {approx}≈ 0.91629 (approx.)</span>" in html
    assert "<td>databases</td><td><code>[0] vs [1]</code></td>" in html
    assert f"<td><code>(0,)</code></td><td><code>ln(3)</code> {approx}≈ 1.09861" in html
    assert html.count("<section>") == 2  # the verdicts, one witness


def test_report_repr_and_html_list_every_notion():
    # threshold count (released when ≥ 3, else ⊥) of 8 i.i.d. bits with P[1] = 1/5, records 0
    # and 1 known, target 7. Background "both known records are 1", target 0 against 1, X the
    # count of ones among the 5 others (Binomial(5, 1/5)): ⊥ has P = P[X = 0] = (4/5)^5 and
    # Q = 0 (loss +∞); a released count 2 + k has ratio P[X = k]/P[X = k − 1] = (6 − k)/(4k)
    # ≤ 5/4 < 2 — so APK δ(ln 2) = (4/5)^5 = 1024/3125, by hand
    report = check_partial(threshold_count([1], threshold=3), iid(["4/5", "1/5"], [0, 1], 8),
                           knowledge=known_indices([0, 1]), targets=7, epsilon="ln(2)",
                           delta="1/100", notions=["apkdp", "ppkdp"])
    text = repr(report)
    assert text.startswith("Report(holds=False,\n  NotionResult(apkdp FAILS")
    assert "tight δ(ε) = 1024/3125 > 1/100" in text
    assert "NotionResult(ppkdp FAILS" in text
    assert "mpq(" not in text
    html = report._repr_html_()
    assert html.count("<h3>Verdicts</h3>") == 1 and html.count("<section>") == 3
    assert "<h3>apkdp: witness</h3>" in html and "<h3>ppkdp: witness</h3>" in html


def _parity(db):
    return sum(db) % 2


def _rr(db):
    from verifier.program import flip
    return tuple(x if flip("3/4") else 1 - x for x in db)


def test_mechanisms_and_noise_laws_show_their_name_and_parameters():
    from verifier import mechanism, noisy_max
    from verifier.program import program

    shown = [repr(randomized_response("3/4", [0, 1])), repr(mechanism(_parity)),
             repr(mechanism(_parity, "parity", symmetric=True)), repr(program(_rr)),
             repr(discrete_laplace("2")), repr(noisy_max("5/2"))]
    assert shown == ["Mechanism(randomized_response(truth=3/4, values=[0, 1]))",
                     "Mechanism(_parity())", "Mechanism(parity(), symmetric)", "Mechanism(_rr())",
                     "ExpNoise(discrete_laplace(scale=2))",
                     "NoisyChoice(noisy_max(discrete_laplace, scale=5/2))"]
    assert not any("0x" in text or "<function" in text for text in shown)


def test_privacy_loss_repr():
    assert repr(rr_loss()) == "PrivacyLoss(ratio 3: P 3/4, Q 1/4; P[r = +inf] = 0)"


# ------------------------------------------------------- the privacy loss, both ways


@pytest.mark.parametrize("eps", ["ln(2)", parse_epsilon("ln(2)"), Epsilon.log(2)],
                         ids=["str", "Epsilon", "Epsilon.log"])
def test_delta_accepts_text_and_exact_epsilon(eps):
    # δ(ε) = 3/4 − e^ε/4 = 1/4 at e^ε = 2
    d = rr_loss().delta(eps)
    # a rational δ is a Delta and a numbers.Rational (its class is Delta's rational subclass)
    assert isinstance(d, Delta) and isinstance(d, numbers.Rational) and d == mpq(1, 4)


@pytest.mark.parametrize("eps", ["1/2", Fraction(1, 2), mpq(1, 2), Epsilon.of_nats("1/2")],
                         ids=["str", "Fraction", "mpq", "Epsilon"])
def test_delta_at_a_rational_number_of_nats(eps):
    d = rr_loss().delta(eps)
    assert (d.a, d.c, d.epsilon) == (mpq(3, 4), mpq(1, 4), Epsilon.of_nats("1/2"))


def test_delta_at_zero_and_infinity_and_beyond_the_ratio():
    loss = rr_loss()
    assert loss.delta(0) == mpq(1, 2)  # total variation: 3/4 − 1/4
    assert loss.delta("ln(3)") == 0 and loss.delta("inf") == 0 and loss.delta("ln(4)") == 0


@pytest.mark.parametrize("delta", ["1/4", "0.25", Fraction(1, 4), mpq(1, 4), 0,
                                   Delta.make(mpq(1, 4), mpq(0), parse_epsilon("ln(2)"))],
                         ids=["fraction-text", "decimal-text", "Fraction", "mpq", "int",
                              "Delta"])
def test_epsilon_accepts_text_fractions_and_exact_delta(delta):
    # ε(δ) = ln(3 − 4δ): ln 2 at δ = 1/4, ln 3 at δ = 0
    expected = Epsilon.log(3) if delta == 0 else Epsilon.log(2)
    e = rr_loss().epsilon(delta)
    assert type(e) is Epsilon and e == expected


def test_epsilon_refuses_an_irrational_delta():
    irrational = Delta.make(mpq(3, 4), mpq(1, 4), parse_epsilon("1/2"))
    with pytest.raises(InvalidNumber, match="irrational"):
        rr_loss().epsilon(irrational)


def test_round_trip_and_a_composed_loss():
    loss = rr_loss()
    assert loss.epsilon(loss.delta("ln(2)")) == Epsilon.log(2)
    # three runs: outputs with j ones have ratio 3^(2j−3) and mass C(3,j)·3^j/64, so
    # δ(ln 2) = (27 − 2)/64 + 3·(9 − 2·3)/64 = 17/32 (hand derivation)
    rr = randomized_response("3/4", [0, 1])
    r = compose_mechanisms([rr] * 3, replace_one([0, 1], 1), "ln(2)", "17/32")
    assert r.holds and r.delta == mpq(17, 32) and r.epsilon == Epsilon.log(2)
    from verifier.notions.composition.exact import compose_law, pair_laws
    law, _ = compose_law(pair_laws([rr] * 3, (1,), (0,)))
    assert law.delta("ln(2)") == mpq(17, 32)
    assert law.epsilon("17/32") == Epsilon.log(2)


# ------------------------------------------- the other results: Rényi, noise, enclosures


def test_renyi_results_repr():
    # one record, truth 3/4: S_2 = (3/4)²/(1/4) + (1/4)²/(3/4) = 7/3 and
    # S_3 = (3/4)³/(1/4)² + (1/4)³/(3/4)² = 61/9, so D_2 = ln(7/3) = 0.8472978…,
    # D_3 = ln(61/9)/2 = 0.9568246…; claimed ρ = 1/4 bounds them by 1/2 and 3/4
    from verifier import check_renyi
    report = check_renyi(randomized_response("3/4", [0, 1]), replace_one([0, 1], 1),
                         ["rdp", "zcdp"], orders=[2, 3], rho="1/4")
    text = repr(report)
    assert text.startswith("RenyiReport(holds=False,\n  RdpResult(rdp FAILS; ")
    assert "D_2: ln(7/3) ≈ 0.847297 > 1/2; D_3: ln(61/9)/2 ≈ 0.956824 > 3/4; " \
           "witness: databases [0] vs [1] (differing in record 0) (α = 2); cases: 2)" in text
    # ρ* = sup_α D_α/α: mpmath gives D_α/α = 0.54930 (α = 1.0001), 0.53899 (1.1),
    # 0.42365 (2), 0.10666 (10), decreasing to the KL divergence (3/4 − 1/4)·ln 3 = ln(3)/2
    # = 0.5493061… as α → 1
    assert "ZcdpResult(zcdp FAILS; claimed ρ: 1/4; tight ρ*: ≈ 0.549306 (an enclosure); " \
           "attained at: α → 1" in text
    assert "mpq(" not in text
    html = report._repr_html_()
    assert html.count("<table>") == 2 and "<b>FAILS</b>" in html


def test_noise_result_repr():
    # discrete Laplace of scale 2 on a sum: shifts by one change masses by at most e^{1/2}
    from verifier import check_noise_dp, rational
    r = check_noise_dp(discrete_laplace("2"), [0, 1], 2, parse_epsilon("1/2"), rational(0))
    assert repr(r) == ("NoiseResult(dp holds; tight δ(ε): 0; tight ε(δ): 1/2 ≈ 0.5; "
                       "worst case: -1 vs 0; pairs: 2)")
    assert "<td>tight ε(δ)</td><td><code>1/2 ≈ 0.5</code></td>" in r._repr_html_()


def test_enclosure_repr_encloses_the_exact_value():
    # three runs of randomized response (truth 3/4), one record: ratios 27 (P 27/64, Q 1/64)
    # and 3 (P 27/64, Q 9/64) exceed e^{1/2}, so δ(1/2) = (54 − 10·e^{1/2})/64 = 0.5861…
    from verifier import enclose_composition
    r = enclose_composition([randomized_response("3/4", [0, 1])] * 3, replace_one([0, 1], 1),
                            "1/2", "1/10", mode="always")
    text = repr(r)
    assert text.startswith("CompositionEnclosure(dp FAILS; claim: ε = 1/2, δ = 1/10; "
                           "tight δ(ε): in [≈ ")
    lo, hi = (float(x) for x in text.split("tight δ(ε): in [≈ ")[1].split("]")[0]
              .split(", ≈ "))
    exact = (54 - 10 * mpmath.exp(mpmath.mpf(1) / 2)) / 64
    assert lo <= exact <= hi + 1e-6  # the upper end is truncated to six digits
    assert "(an enclosure)" in text and "grid: ln(" in text


def test_dir_offers_only_the_public_names():
    """Completion on ``verifier.`` offers what it exports, not ``TYPE_CHECKING``,
    ``annotations`` or ``importlib``."""
    import verifier

    extra = {n for n in dir(verifier) if not n.startswith("__")} - set(verifier.__all__)
    assert extra == set()
