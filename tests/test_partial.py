"""APK-DP, PPK-DP and noiseless privacy against an independent direct computation."""

import json
import textwrap
from fractions import Fraction
from itertools import product

import pytest
from gmpy2 import mpq
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import apk_delta, joint, ppk_delta
from strategies import distributions, frac
from typer.testing import CliRunner

from verifier import (
    Dist,
    check_dp,
    check_partial,
    count,
    geometric_count,
    iid,
    independent,
    knowledge,
    known_indices,
    mechanism,
    replace_one,
    threshold_count,
)
from verifier.cli import app
from verifier.core.errors import InvalidArgument, SpecError
from verifier.engines.known_counts import KnownCounts
from verifier.specs.check import load_spec

MPQ = type(mpq(0))
runner = CliRunner()


def binom(n, k):
    from math import comb
    return comb(n, k)


def test_threshold_spec_by_hand():
    """8 i.i.d. records, P[1] = 1/5, threshold 3, target 7, known {0, 1}, ε = ln 2.

    Let X ~ Bin(5, 1/5) be the count of the five unknown non-target records:
    P[X = j] = C(5, j)·4^(5−j)/5^5 = (1024, 1280, 640, 160, 20, 1)/3125.

    Active, B̂ = (1, 1), a = 0, b = 1: under a the count is 2 + X, released iff X ≥ 1, so
    ⊥ has probability P[X = 0] = 1024/3125; under b the count 3 + X is always released, so ⊥
    has loss +∞. Released outputs 2 + X have ratio P[X=j]/P[X=j−1] = (6−j)/(4j) ≤ 5/4 < 2.
    APK δ = 1024/3125.
    """
    x = [Fraction(binom(5, j) * 4 ** (5 - j), 5 ** 5) for j in range(6)]
    assert x[0] == Fraction(1024, 3125)
    r = check_partial(threshold_count([1], 3), iid(["4/5", "1/5"], [0, 1], 8),
                      knowledge=known_indices([0, 1]), targets=7, epsilon="ln(2)",
                      delta="1/100", notions=["apkdp", "ppkdp"])
    apk = r.results["apkdp"]
    assert type(apk.delta.value) is MPQ
    assert frac(apk.delta.value) == x[0]
    # the count engine names the class "both known records are 1"; brute force the tuple
    assert apk.witness["background"] == KnownCounts((0, 1), (0, 2))
    assert apk.witness["values"] == [0, 1]
    brute = check_partial(threshold_count([1], 3), iid(["4/5", "1/5"], [0, 1], 8),
                          knowledge=known_indices([0, 1]), targets=7, epsilon="ln(2)",
                          notions=["apkdp"], engine="brute")
    assert brute.results["apkdp"].witness["background"] == (1, 1)
    assert brute.results["apkdp"].delta == apk.delta


def test_threshold_spec_against_direct_computation():
    """The same instance, APK and PPK from the seed's definitions in plain Fractions."""
    E = Fraction(2)
    mech = threshold_count([1], 3)
    priors = [{0: Fraction(4, 5), 1: Fraction(1, 5)}] * 8
    J = joint(mech, priors, lambda db: (db[0], db[1]), 7)
    backgrounds = {B for t in J for B in J[t]}
    apk = max(apk_delta(J, a, b, B, E) for a, b in [(0, 1), (1, 0)] for B in backgrounds)
    ppk = max(ppk_delta(J, a, b, E) for a, b in [(0, 1), (1, 0)])
    assert (apk, ppk) == (Fraction(1024, 3125), Fraction(459, 3125))
    result = load_and_run("threshold_partial.toml")
    assert result["apkdp"]["delta"] == "1024/3125"
    assert result["ppkdp"]["delta"] == "459/3125"
    # per background: only "both known records are 1" exceeds the passive δ. By hand, with
    # k known 1s (k ≤ 1), a = 1, b = 0: the released counts c = k+1+X against k+X have ratios
    # 4, 8, 20, ∞ (×3125: 640−2·160 + 160−2·20 + 20−2·1 + 1 = 459) and ⊥ a ratio below 1;
    # the other direction gives 0 — so those classes have APK δ = 459/3125 = PPK δ.
    sides = {json.dumps(row["background"]): row["vs_ppk"] for row in result["apkdp"]["backgrounds"]}
    assert sides == {'{"known_counts": {"0": 2, "1": 0}, "stands_for": 1}': "equal",
                     '{"known_counts": {"0": 1, "1": 1}, "stands_for": 2}': "equal",
                     '{"known_counts": {"0": 0, "1": 2}, "stands_for": 1}': "above"}


def load_and_run(name):
    from pathlib import Path
    path = Path(__file__).resolve().parent.parent / "examples" / name
    out = runner.invoke(app, ["check", str(path), "--json", "--full"])
    assert out.exit_code in (0, 1), out.stderr
    return json.loads(out.stdout)


@st.composite
def instances(draw):
    """A random small instance: n ≤ 3 records over 2–3 values, random independent priors, a
    random kernel on every database, random known indices, a target outside them."""
    k = draw(st.sampled_from([2, 3]))
    n = draw(st.integers(2, 3 if k == 2 else 2))
    values = list(range(k))
    priors = [draw(distributions(tuple(values), allow_zero=True)) for _ in range(n)]
    table = {db: draw(distributions((0, 1, 2))) for db in product(values, repeat=n)}
    target = draw(st.integers(0, n - 1))
    others = [j for j in range(n) if j != target]
    known = draw(st.lists(st.sampled_from(others), unique=True)) if others else []
    E = draw(st.sampled_from([Fraction(1), Fraction(3, 2), Fraction(2), Fraction(5)]))
    return values, priors, table, target, sorted(known), E


@settings(max_examples=150, deadline=None)
@given(instances())
@pytest.mark.slow
def test_engine_matches_definitions(inst):
    values, priors, table, target, known, E = inst
    mech = mechanism(lambda db: table[db])
    r = check_partial(mech, independent(priors, values), knowledge=known_indices(known),
                      targets=target, epsilon=f"ln({E.numerator}/{E.denominator})",
                      notions=["apkdp", "ppkdp", "noiseless"])
    ref_priors = [{v: frac(p[v]) for v in values} for p in priors]
    J = joint(mech, ref_priors, lambda db: tuple(db[j] for j in known), target)
    J0 = joint(mech, ref_priors, lambda db: (), target)
    pairs = [(a, b) for a in values for b in values if a != b]
    bgs = {B for t in J for B in J[t]}
    assert frac(r.results["apkdp"].delta.value) == max(
        apk_delta(J, a, b, B, E) for a, b in pairs for B in bgs)
    assert frac(r.results["ppkdp"].delta.value) == max(ppk_delta(J, a, b, E) for a, b in pairs)
    assert frac(r.results["noiseless"].delta.value) == max(
        ppk_delta(J0, a, b, E) for a, b in pairs)


@pytest.mark.parametrize("n", [2, 3])
def test_full_knowledge_apk_equals_classical_dp(n):
    """With B = D_{−i} and a full-support prior, APK is classical DP (seed 003 §4.2)."""
    for mech in (geometric_count([1], "1/3"), threshold_count([1], 1), count([1])):
        dp = check_dp(mech, replace_one([0, 1], n), "ln(2)", "0")
        worst = None
        for i in range(n):
            r = check_partial(mech, iid(["1/3", "2/3"], [0, 1], n),
                              knowledge=known_indices([j for j in range(n) if j != i]),
                              targets=i, epsilon="ln(2)", notions=["apkdp"])
            d = r.results["apkdp"].delta
            worst = d if worst is None or d > worst else worst
        assert worst == dp.delta


def test_noiseless_equals_apk_and_ppk_without_knowledge():
    r = check_partial(threshold_count([1], 2), iid(["2/3", "1/3"], [0, 1], 4),
                      epsilon="ln(3/2)", notions=["apkdp", "ppkdp", "noiseless"])
    res = r.results
    assert res["noiseless"].delta == res["apkdp"].delta == res["ppkdp"].delta
    assert res["noiseless"].epsilon == res["apkdp"].epsilon


def test_randomized_knowledge():
    """ζ reveals record 0 with probability 1/2, else nothing; mechanism: the identity of
    record 1 XOR record 0 under uniform priors. Knowing record 0 the XOR reveals record 1
    (APK δ = 1 on that background), knowing nothing it reveals nothing (δ = 0). The passive
    attacker gets each with probability 1/2: PPK δ = 1/2."""
    zeta = knowledge(lambda db: Dist({("saw", db[0]): "1/2", "nothing": "1/2"}))
    xor = mechanism(lambda db: db[0] ^ db[1])
    r = check_partial(xor, iid(["1/2", "1/2"], [0, 1], 2), knowledge=zeta, targets=1,
                      epsilon="0", notions=["apkdp", "ppkdp"])
    assert r.results["apkdp"].delta == 1
    assert r.results["ppkdp"].delta == mpq(1, 2)


SPEC = """
[data]
records = 4
values = [0, 1]
prior = ["1/2", "1/2"]
[mechanism]
kind = "count"
[attacker]
target = 3
known = [0, 1]
[query]
epsilon = "ln(2)"
notions = ["apkdp"]
"""

BAD = [
    ("target-known", SPEC.replace("target = 3", "target = 1"), "attacker.target",
     "target 1 is among the known indices [0, 1]: the attacker would already know the value "
     "it attacks"),
    ("target-range", SPEC.replace("target = 3", "target = 4"), "attacker.target",
     "target 4 is out of range for 4 records (indices are 0..3)"),
    ("known-range", SPEC.replace("known = [0, 1]", "known = [0, 7]"), "attacker.known",
     "known index 7 is out of range for 4 records (indices are 0..3)"),
    ("prior-sum", SPEC.replace('prior = ["1/2", "1/2"]', 'prior = ["1/2", "1/3"]'),
     "data.prior", "prior sums to 5/6, not 1"),
    ("pair-domain", SPEC.replace("known = [0, 1]", "known = [0, 1]\npairs = [[0, 2]]"),
     "attacker.pairs", "pair value 2 is not in values = [0, 1]"),
    ("no-prior", SPEC.replace('prior = ["1/2", "1/2"]\n', ""), "data.prior",
     "notion 'apkdp' needs a data model: give prior, priors, or support and weights"),
    ("prior-length", SPEC.replace('prior = ["1/2", "1/2"]', 'prior = ["1"]'), "data.prior",
     "prior has 1 weight for 2 values [0, 1]"),
]


@pytest.mark.parametrize("name, text, key, message", BAD, ids=[b[0] for b in BAD])
def test_bad_partial_specs(tmp_path, name, text, key, message):
    path = tmp_path / "s.toml"
    path.write_text(textwrap.dedent(text))
    with pytest.raises(SpecError) as info:
        load_spec(path)
    assert (info.value.key, info.value.detail) == (key, message)


def test_pairs_restrict_the_comparison(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(SPEC.replace("values = [0, 1]", "values = [0, 1, 2]")
                    .replace('prior = ["1/2", "1/2"]', 'prior = ["1/2", "1/4", "1/4"]')
                    .replace("known = [0, 1]", "known = [0, 1]\npairs = [[0, 2]]")
                    .replace('kind = "count"', 'kind = "count"\ncounts = [1]'))
    out = json.loads(runner.invoke(app, ["check", str(path), "--json"]).stdout)
    # values 0 and 2 are both uncounted: the count cannot tell them apart
    assert out["apkdp"]["delta"] == "0" and out["apkdp"]["holds"] is True


def test_target_all_and_python_errors():
    with pytest.raises(InvalidArgument):
        check_partial(count([1]), iid(["1/2", "1/2"], [0, 1], 3), targets=[5])
    r = check_partial(count([1]), iid(["1/2", "1/2"], [0, 1], 3), targets="all",
                      epsilon="0", notions=["ppkdp"])
    # no knowledge, 2 other fair records: ratio P[c|a=1]/P[c|b=0] at c = 3 is ∞ (1/4 mass),
    # at c = 2 is (2/4)/(1/4) = 2, at c = 1 is (1/4)/(2/4); δ(0) = 1/4 + (1/2)(1 − 1/2) = 1/2
    assert r.results["ppkdp"].delta == mpq(1, 2)
    assert r.results["ppkdp"].cases == 6  # 3 targets × 2 ordered pairs


def test_user_functions_example_by_hand():
    """examples/user_functions.toml: the largest of 4 records (P[1] = 1/3), target 3, the
    attacker learning record 0 right with probability 3/4, ε = ln 2.

    a = 0, b = 1: under b the output is always 1; under a it is 0 iff the other three are 0,
    probability (2/3)³ = 8/27, with loss +∞. So noiseless δ = 8/27, and PPK — the average of
    APK over what the attacker learns — is the same 8/27. Having learnt "record 0 is 0",
    P[record 0 = 0] = (2/3·3/4)/(2/3·3/4 + 1/3·1/4) = 6/7, so APK δ = 6/7·(2/3)² = 8/21.
    Classical DP: (0,0,0,0) and (1,0,0,0) have disjoint outputs, δ = 1.
    """
    out = runner.invoke(app, ["check", str(ROOT_EXAMPLES / "user_functions.toml"), "--json"])
    data = json.loads(out.stdout)
    assert [data[k]["delta"] for k in ("dp", "apkdp", "ppkdp", "noiseless")] == \
        ["1", "8/21", "8/27", "8/27"]
    assert data["dp"]["engine"].startswith("dp:") and data["apkdp"]["engine"].startswith("brute")


ROOT_EXAMPLES = __import__("pathlib").Path(__file__).resolve().parent.parent / "examples"


def test_families_are_the_worst_member():
    """A family Θ × Z is decided by its worst member: compare with each member alone."""
    from verifier.specs.check import load_spec, run_spec
    spec = load_spec(ROOT_EXAMPLES / "families.toml")
    assert isinstance(spec.model, tuple) and isinstance(spec.knowledge, tuple)
    fam = run_spec(spec)
    for notion in ("apkdp", "ppkdp"):
        single = [check_partial(spec.mechanism, m, knowledge=k, targets=3, epsilon="ln(2)",
                                notions=[notion]).results[notion].delta
                  for m in spec.model for k in spec.knowledge]
        assert fam.results[notion].delta == max(single, key=lambda d: d.value)
        w = fam.results[notion].witness
        assert single[2 * w["model"] + w["knowledge"]] == fam.results[notion].delta
