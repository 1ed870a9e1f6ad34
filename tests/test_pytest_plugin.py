"""The pytest plugin (verifier.testing): its registration, its assertions' verdicts and
messages, and the example project of examples/pytest_plugin run by pytest's own `pytester`.

Expected values are derived by hand in the comments (randomized response, geometric noise,
discrete Laplace noise), never copied from plrv's output."""

from importlib.metadata import entry_points
from pathlib import Path

import mpmath
import pytest

from verifier import (
    Dist,
    InvalidArgument,
    add_remove_one,
    discrete_laplace,
    iid,
    known_indices,
    noisy_max,
    randomized_response,
    replace_one,
    threshold_count,
    vector_relation,
    vectors,
)
from verifier.testing import (
    PrivacyAssertionError,
    assert_apkdp,
    assert_dp,
    assert_not_dp,
    assert_ppkdp,
    assert_rdp,
    assert_zcdp,
)

pytest_plugins = ["pytester"]

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "pytest_plugin"
BITS = [0, 1]
RR = randomized_response("3/4", BITS)


def test_the_plugin_is_registered_as_an_entry_point():
    found = [e.value for e in entry_points(group="pytest11") if e.name == "plrv"]
    assert found == ["verifier.testing"], "reinstall plrv (pip install -e .) to register it"


# ------------------------------------------------------------ the assertions, directly


def test_a_kept_claim_returns_its_result():
    # one record, truth 3/4: the ratio of the answers' probabilities is 3, so ε = ln 3 at δ = 0
    r = assert_dp(RR, replace_one(BITS, 1), "ln(3)")
    assert r.holds is True and str(r.epsilon) == "ln(3)"


def test_a_failed_claim_shows_the_tight_delta_the_pair_and_the_outputs():
    # two records, truth 3/4, (0, 0) against (1, 0): outputs (0, 0) with P = 9/16, Q = 3/16 and
    # (0, 1) with P = 3/16, Q = 1/16 (ratio 3 both); δ(ln 2) = 3/16 + 1/16 = 1/4 and
    # ε(1/8) = ln((12/16 − 2/16)/(4/16)) = ln(5/2)
    with pytest.raises(PrivacyAssertionError) as info:
        assert_dp(RR, replace_one(BITS, 2), "ln(2)", "1/8")
    message = str(info.value)
    assert message.splitlines() == [
        "(dp at ε = ln(2), δ = 1/8) does not hold: randomized_response(truth=3/4, "
        "values=[0, 1]) under replace-one over databases of 2 records over 2 values",
        "  tight δ at ε = ln(2): 1/4 > claimed δ = 1/8",
        "  tight ε at δ = 1/8: ln(5/2) ≈ 0.91629 > claimed ε = ln(2)",
        "  witness: databases [0, 0] vs [1, 0] (differing in record 0)",
        "  outputs with privacy loss > ε (P under the first, Q under the second):",
        "    (0, 0): loss ln(3), P = 9/16, Q = 3/16",
        "    (0, 1): loss ln(3), P = 3/16, Q = 1/16",
        "  8 comparisons",
    ]
    assert info.value.undecided is False and info.value.result.holds is False
    assert isinstance(info.value, AssertionError)


def test_a_plain_function_is_a_mechanism():
    # the exact sum of two bits: (0, 0) gives 0 surely, (1, 0) never → δ = 1 at any ε
    with pytest.raises(PrivacyAssertionError, match="tight δ at ε = ln\\(2\\): 1 > claimed"):
        assert_dp(lambda db: sum(db), replace_one(BITS, 2), "ln(2)")
    assert_dp(lambda db: Dist({db[0]: "3/4", 1 - db[0]: "1/4"}), replace_one(BITS, 1), "ln(3)")


def test_assert_not_dp():
    assert_not_dp(RR, replace_one(BITS, 1), "ln(2)")
    with pytest.raises(PrivacyAssertionError, match="holds, expected not to") as info:
        assert_not_dp(RR, replace_one(BITS, 1), "ln(3)")
    assert "tight ε at δ = 0: ln(3) ≈ 1.09861 ≤ claimed ε = ln(3)" in str(info.value)


def test_a_composition_is_a_list():
    # three runs, one record: the outputs with j ones have ratio 3^(2j−3) and mass
    # C(3, j)·3^j/64, so δ(ln 2) = (27 − 2)/64 + 3·(9 − 6)/64 = 17/32
    assert_dp([RR] * 3, replace_one(BITS, 1), "ln(2)", "17/32")
    with pytest.raises(PrivacyAssertionError, match="17/32 > claimed δ = 1/2"):
        assert_dp([RR] * 3, replace_one(BITS, 1), "ln(2)", "1/2")


def test_a_noise_law_on_a_sum():
    # discrete Laplace of scale 2: P(z) ∝ e^{−|z|/2}, so a shift by one changes every mass by
    # a factor of at most e^{1/2}: (1/2, 0)-DP and no better at δ = 0
    assert_dp(discrete_laplace("2"), replace_one(BITS, 2), "1/2")
    with pytest.raises(PrivacyAssertionError) as info:
        assert_dp(discrete_laplace("2"), replace_one(BITS, 2), "1/4")
    assert "  tight ε(δ): 1/2 ≈ 0.5" in str(info.value).splitlines()
    with pytest.raises(InvalidArgument, match="replace-one, not 'add-remove-one'"):
        assert_dp(discrete_laplace("2"), add_remove_one(BITS, 2), "1/2")


def test_a_noisy_choice_over_query_vectors():
    # report noisy max, discrete Laplace of scale 2 on two queries of ℓ∞ sensitivity 1:
    # 2/b = 1 suffices (Dwork and Roth 2014, "The Algorithmic Foundations of Differential
    # Privacy", §3.3), and at ε = 0 the released index must not depend on the input
    relation = vector_relation("linf", 1, vectors(2, 0, 1))
    assert assert_dp(noisy_max("2"), relation, "1").holds is True
    with pytest.raises(PrivacyAssertionError) as info:
        assert_dp(noisy_max("2"), relation, "0")
    assert str(info.value).startswith("(dp at ε = 0, δ = 0) does not hold: noisy_max(")
    assert_not_dp(noisy_max("2"), relation, "0")


def test_partial_knowledge():
    # threshold count (released when ≥ 3, else ⊥) of 8 i.i.d. bits with P[1] = 1/5, records 0
    # and 1 known, target 7: with both known records 1, ⊥ has probability (4/5)^5 when the
    # target is 0 and none when it is 1, and the released counts' ratios are at most 5/4 < 2;
    # so APK δ(ln 2) = (4/5)^5 = 1024/3125
    model, count = iid(["4/5", "1/5"], BITS, 8), threshold_count([1], threshold=3)
    with pytest.raises(PrivacyAssertionError) as info:
        assert_apkdp(count, model, "ln(2)", "1/100", knowledge=known_indices([0, 1]),
                     targets=7)
    lines = str(info.value).splitlines()
    assert lines[1] == "  tight δ at ε = ln(2): 1024/3125 > claimed δ = 1/100"
    assert "    ⊥: loss +inf" in lines
    # DP implies APK- and PPK-DP: randomized response is ln(3)-DP
    assert_apkdp(RR, iid(["1/2", "1/2"], BITS, 3), "ln(3)")
    assert_ppkdp(RR, iid(["1/2", "1/2"], BITS, 3), "ln(3)")


def test_renyi():
    # D_2 = ln Σ P²/Q = ln((9/16)/(1/4) + (1/16)/(3/4)) = ln(7/3) ≈ 0.8473 for one record
    assert_rdp(RR, replace_one(BITS, 1), [2], budgets=["ln(7/3)"])
    with pytest.raises(PrivacyAssertionError) as info:
        assert_rdp(RR, replace_one(BITS, 1), [2], rho="1/4")  # bound ρ·α = 1/2
    lines = str(info.value).splitlines()
    assert lines[1:3] == ["  D_2: ln(7/3) ≈ 0.847297 > 1/2",
                          "  witness: databases [0] vs [1] (differing in record 0) (α = 2)"]
    # ρ* ≥ KL / 1 at α → 1: KL = (3/4 − 1/4)·ln 3 = ln(3)/2 ≈ 0.5493 > 1/4
    with pytest.raises(PrivacyAssertionError, match="does not hold"):
        assert_zcdp(RR, replace_one(BITS, 1), "1/4")


@pytest.mark.slow
def test_an_undecided_comparison_fails_never_passes():
    # ρ = ln(3)/2 to 45 digits: the certified search for ρ* (= ln(3)/2, reached as α → 1)
    # cannot separate it from the claim, so zCDP is undecided — and the assertion fails
    mpmath.mp.dps = 60
    rho = mpmath.nstr(mpmath.log(3) / 2, 45, strip_zeros=False)
    with pytest.raises(PrivacyAssertionError, match="is undecided") as info:
        assert_zcdp(RR, replace_one(BITS, 1), rho)
    assert info.value.undecided is True and info.value.result.holds is None


# ------------------------------------------------------ the plugin, inside pytest itself


# pytest runs in a subprocess: an in-process run would drop the modules it imported from
# sys.modules afterwards, and later tests would meet second copies of plrv's classes

def _example(pytester: pytest.Pytester) -> None:
    for name in ("mechanisms.py", "pyproject.toml", "tests/test_privacy.py"):
        target = pytester.path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text((EXAMPLE / name).read_text(encoding="utf-8"), encoding="utf-8")


@pytest.mark.slow
def test_the_example_project(pytester: pytest.Pytester):
    """Six tests pass; test_fast_count_is_dp fails with the witness. Hand derivation:
    fast_count releases 0 surely on (0, 0); on (0, 1) the count 1 plus geometric noise
    (α = 1/2, masses (1/3)·2^−|z|) clamped to 0..3 gives 0, 1, 2, 3 with probabilities 1/3,
    1/3, 1/6, 1/6. Against (0, 0) the outputs 1, 2, 3 have loss +∞: δ = 2/3 at every ε."""
    _example(pytester)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=6, failed=1)
    result.stdout.fnmatch_lines([
        "*test_fast_count_is_dp*",
        ">*privacy.assert_dp(fast_count, replace_one(BITS, 2), \"ln(2)\", \"1/100\")",
        "E*PrivacyAssertionError: (dp at ε = ln(2), δ = 1/100) does not hold: fast_count()*",
        "E*tight δ at ε = ln(2): 2/3 > claimed δ = 1/100",
        "E*tight ε at δ = 1/100: inf > claimed ε = ln(2)",
        "E*witness: databases [[]0, 1[]] vs [[]0, 0[]] (differing in record 1)",
        "E*1: loss +inf, P = 1/3, Q = 0",
        "E*2: loss +inf, P = 1/6, Q = 0",
        "E*3: loss +inf, P = 1/6, Q = 0",
        "tests/test_privacy.py:*: PrivacyAssertionError",
    ])
    # the failure points at the test's line: no frame of the plugin is shown
    assert "verifier/testing.py" not in result.stdout.str()


@pytest.mark.slow
def test_the_budget_fixture_is_honoured(pytester: pytest.Pytester):
    _example(pytester)
    pytester.makeconftest("""
        import pytest
        from verifier import Budget

        @pytest.fixture
        def plrv_budget():
            return Budget(max_databases=1)
    """)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-k", "vote_is_ln3")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*BudgetExceeded*"])


@pytest.mark.slow
def test_the_plugin_can_be_turned_off(pytester: pytest.Pytester):
    pytester.makepyfile("def test_uses_it(privacy):\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:plrv")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*fixture 'privacy' not found*"])
    pytester.makepyfile("def test_uses_it(privacy, plrv_budget):\n    pass\n")
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)
