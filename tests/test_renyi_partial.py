"""APK-RDP, PPK-RDP, noiseless RDP and their zCDP forms (REFERENCE.md §8), against
independent hand derivations in plain ``Fraction``."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from gmpy2 import mpq

from verifier import BOTTOM, Dist, explicit, geometric_count, iid, known_indices
from verifier.core.errors import VerifierError
from verifier.model.mechanisms import Mechanism, randomized_response, threshold_count
from verifier.notions.dp.neighbours import replace_one
from verifier.notions.renyi.check import check_renyi
from verifier.notions.renyi.divergence import moment
from verifier.notions.renyi.partial import apk_terms, check_renyi_partial, ppk_terms

ROOT = Path(__file__).resolve().parent.parent
MPQ = type(mpq(0))
ALL = ["apkrdp", "ppkrdp", "noiselessrdp", "apkzcdp", "ppkzcdp", "noiselesszcdp"]


# ---------------------------------------------------------------- randomized response


def test_randomized_response_on_one_record_every_form_is_rdp():
    """One record, no others: every conditional law is RR(a) itself, so every form is rdp.
    By hand, S_2 = (3/4)²/(1/4) + (1/4)²/(3/4) = 7/3 and S_3 = (3/4)³/(1/4)² + (1/4)³/(3/4)²
    = 61/9."""
    rr = randomized_response("3/4", [0, 1])
    rdp = check_renyi(rr, replace_one([0, 1], 1), ["rdp", "zcdp"], orders=[2, 3], rho="1")
    part = check_renyi_partial(rr, iid(["1/3", "2/3"], [0, 1], 1), ALL, orders=[2, 3],
                               rho="1")
    assert rdp.holds is True and part.holds is True
    for name in ("apkrdp", "ppkrdp", "noiselessrdp"):
        values = [o.value for o in part.results[name].orders]
        assert [str(v) for v in values] == ["ln(7/3)", "ln(61/9)/2"]
        assert [v.moment for v in values] == [Fraction(7, 3), Fraction(61, 9)]
        assert all(type(v.moment) is MPQ for v in values)
        assert [str(o.value) for o in rdp.results["rdp"].orders] == [str(v) for v in values]
    z = rdp.results["zcdp"]
    for name in ("apkzcdp", "ppkzcdp", "noiselesszcdp"):
        r = part.results[name]
        assert (r.lo, r.hi, r.holds) == (z.lo, z.hi, z.holds)
        assert type(r.lo) is MPQ and type(r.hi) is MPQ


@pytest.mark.parametrize("notions", [["apkzcdp", "ppkzcdp", "noiselesszcdp"],
                                     ["noiselesszcdp", "apkrdp"], ["ppkzcdp", "apkzcdp"]])
def test_a_zcdp_form_before_another_form_is_decided(notions):
    """A zCDP form asked before a form not yet computed (here, the first one listed): the
    second form's cases were built from the first one's list of laws in place of the value
    pairs (TypeError: unhashable type: 'dict', exit 2 from ``plrv check``). One record, so
    every form is RR(3/4)'s own divergence: by hand D_2 = ln(7/3) ≈ 0.847 > 2·(1/100), so
    ρ = 1/100 fails for each form, and S_2 = 7/3 for apkrdp."""
    rr = randomized_response("3/4", [0, 1])
    orders = [2] if "apkrdp" in notions else []
    r = check_renyi_partial(rr, iid(["1/3", "2/3"], [0, 1], 1), notions, orders=orders,
                            rho="1/100")
    assert sorted(r.results) == sorted(notions)
    assert all(res.holds is False for res in r.results.values())
    if "apkrdp" in notions:
        assert r.results["apkrdp"].orders[0].value.moment == Fraction(7, 3)


# ---------------------------------------------------------------- a noisy thresholded count


def _noisy_law(c: int, n: int) -> dict:
    """The count ``c`` plus two-sided geometric noise P[z] = (1−a)/(1+a)·a^|z| (a = 1/2),
    clamped to 0..n: the tails beyond sum to a^c/(1+a) at 0 and a^(n−c)/(1+a) at n; released
    if at least 3, else ⊥ (written out by hand, not from the library)."""
    a = Fraction(1, 2)
    out: dict = {}
    for j in range(n + 1):
        if j == 0:
            p = a ** c / (1 + a)
        elif j == n:
            p = a ** (n - c) / (1 + a)
        else:
            p = (1 - a) / (1 + a) * a ** abs(j - c)
        o = j if j >= 3 else "bottom"
        out[o] = out.get(o, Fraction(0)) + p
    return out


def _conditional(t: int, k: int) -> dict:
    """P[O | target = t, k ones among the two known]: the two other records are i.i.d.
    with P[1] = 1/4, so u ones among them with probability C(2, u)·(1/4)^u·(3/4)^(2−u)."""
    binom = {0: Fraction(9, 16), 1: Fraction(6, 16), 2: Fraction(1, 16)}
    out: dict = {}
    for u, pu in binom.items():
        for o, p in _noisy_law(t + k + u, 5).items():
            out[o] = out.get(o, Fraction(0)) + pu * p
    return out


def _s(p: dict, q: dict, alpha: int) -> Fraction:
    return sum((p[o] ** alpha / q[o] ** (alpha - 1) for o in p), Fraction(0))


def _noisy_threshold() -> Mechanism:
    noisy = geometric_count([1], "1/2")

    def release(d: Dist) -> Dist:
        out: dict = {}
        for c, p in d.items():
            o = c if c >= 3 else BOTTOM
            out[o] = out.get(o, 0) + p
        return Dist(out)
    assert noisy.on_counts is not None
    on_counts = noisy.on_counts
    return Mechanism("noisy threshold", lambda db: release(noisy.kernel(db)), {},
                     lambda counts, n: release(on_counts(counts, n)))


@pytest.fixture(scope="module")
def noisy_report():
    return check_renyi_partial(_noisy_threshold(), iid(["3/4", "1/4"], [0, 1], 5),
                               ["apkrdp", "ppkrdp", "noiselessrdp"],
                               knowledge=known_indices([0, 1]), targets=4, orders=[2, 3],
                               rho="1")


@pytest.mark.parametrize("alpha", [2, 3])
def test_noisy_threshold_moments_against_hand_enumeration(noisy_report, alpha):
    """APK: the largest S over both ordered pairs and the three known counts k; PPK: the
    largest Σ_k P[k]·S(k) over the pairs, with P[k] = C(2, k)(1/4)^k(3/4)^(2−k) — and the
    passive attacker's is strictly smaller."""
    pk = {0: Fraction(9, 16), 1: Fraction(6, 16), 2: Fraction(1, 16)}
    apk = {(a, b, k): _s(_conditional(a, k), _conditional(b, k), alpha)
           for a, b in ((0, 1), (1, 0)) for k in pk}
    ppk = {(a, b): sum(pk[k] * apk[(a, b, k)] for k in pk) for a, b in ((0, 1), (1, 0))}
    i = [2, 3].index(alpha)
    apk_row = noisy_report.results["apkrdp"].orders[i]
    ppk_row = noisy_report.results["ppkrdp"].orders[i]
    assert apk_row.value.moment == max(apk.values())
    assert ppk_row.value.moment == max(ppk.values())
    assert type(apk_row.value.moment) is MPQ and type(ppk_row.value.moment) is MPQ
    assert ppk_row.value.compare(apk_row.value) < 0
    worst = max(apk, key=lambda key: apk[key])
    assert apk_row.witness["values"] == list(worst[:2])
    assert apk_row.witness["target"] == 4
    assert apk_row.witness["background"].counts == (2 - worst[2], worst[2])


def test_noisy_threshold_noiseless_against_hand_enumeration(noisy_report):
    """Noiseless: the four other records binomial, P[O | t] compared directly."""
    binom = {u: Fraction(__import__("math").comb(4, u)) * Fraction(1, 4) ** u
             * Fraction(3, 4) ** (4 - u) for u in range(5)}

    def law(t: int) -> dict:
        out: dict = {}
        for u, pu in binom.items():
            for o, p in _noisy_law(t + u, 5).items():
                out[o] = out.get(o, Fraction(0)) + pu * p
        return out
    expected = max(_s(law(0), law(1), 2), _s(law(1), law(0), 2))
    assert noisy_report.results["noiselessrdp"].orders[0].value.moment == expected


# ---------------------------------------------------------------- conventions and identity


def _household():
    """Two records always equal: the known record 0 reveals the target record 1."""
    return explicit({(0, 0): "2/3", (1, 1): "1/3"}, [0, 1])


def test_background_impossible_under_b_has_loss_zero():
    """Definition 5, convention 1: B̂ = (a) is impossible under b, so L = 0 and S = 1
    (D_α = 0) for APK and PPK; with no knowledge (noiseless) the laws are point masses on
    different counts, D_α = +∞."""
    r = check_renyi_partial(threshold_count([1], 0), _household(),
                            ["apkrdp", "ppkrdp", "noiselessrdp"],
                            knowledge=known_indices([0]), targets=1, orders=[2], rho="0")
    assert str(r.results["apkrdp"].orders[0].value) == "0"
    assert str(r.results["ppkrdp"].orders[0].value) == "0"
    assert r.results["apkrdp"].holds is True and r.results["ppkrdp"].holds is True
    assert r.results["noiselessrdp"].orders[0].value.infinite
    assert r.results["noiselessrdp"].holds is False


def test_deterministic_threshold_count_is_infinite_and_refuted():
    r = check_renyi_partial(threshold_count([1], 2), iid(["1/2", "1/2"], [0, 1], 3),
                            ["apkrdp", "ppkzcdp"], knowledge=known_indices([0]), targets=2,
                            orders=[2], rho="100")
    assert r.results["apkrdp"].orders[0].value.infinite
    assert r.results["apkrdp"].holds is False
    assert r.results["ppkzcdp"].infinite and r.results["ppkzcdp"].holds is False


def _f(x) -> Fraction:
    return Fraction(int(x.numerator), int(x.denominator))


def test_moment_identity_on_randomized_knowledge():
    """S^PPK_α = Σ_B P[B | a]·S^APK_α(B), the APK moments by hand: one record behind
    randomized response 3/4, the attacker sees the other through randomized response 2/3."""
    from verifier.engines.choice import joint_tables
    from verifier.model.knowledge import knowledge

    model = iid(["1/2", "1/2"], [0, 1], 2)
    know = knowledge(lambda db: Dist({db[0]: "2/3", 1 - db[0]: "1/3"}), "noisy record 0")
    tables, _ = joint_tables(model, randomized_response("3/4", [0, 1]), know, [1])
    jt = tables[1]
    for a, b in ((0, 1), (1, 0)):
        total = Fraction(0)
        for bg in jt.backgrounds():
            w = _f(jt.p_background(a, bg)) / _f(jt.p_value(a))
            total += w * _f(moment(apk_terms(jt, a, b, bg), 2))  # type: ignore[arg-type]
        code = moment(ppk_terms(jt, a, b), 2)  # type: ignore[arg-type]
        assert type(code) is MPQ and _f(code) == total
    # by hand: the output (r0, r1) has record 1's report independent of B given D(1), and
    # record 0's report and B both depend on D(0) only: the ratio is RR's on r1, S_2 = 7/3
    assert moment(ppk_terms(jt, 0, 1), 2) == Fraction(7, 3)


# ---------------------------------------------------------------- the command


def _run(spec: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    path = tmp_path / "spec.toml"
    path.write_text(spec)
    return subprocess.run([sys.executable, "-m", "verifier.cli", "check", str(path), *args],
                          capture_output=True, text=True, cwd=ROOT)


RR_SPEC = """
[data]
records = 1
values = [0, 1]
prior = ["1/2", "1/2"]
[mechanism]
kind = "randomized_response"
truth = "3/4"
[query]
notions = ["rdp", "apkrdp", "ppkzcdp"]
orders = [2]
rho = "{rho}"
"""


def test_cli_json_holds_and_fails(tmp_path):
    ok = _run(RR_SPEC.format(rho="1"), tmp_path, "--json")
    assert ok.returncode == 0, ok.stderr
    out = json.loads(ok.stdout)
    assert out["apkrdp"]["orders"][0]["value"] == out["rdp"]["orders"][0]["value"] == "ln(7/3)"
    assert out["ppkzcdp"]["holds"] is True
    schema = json.loads((ROOT / "schemas" / "check-output.v1.json").read_text())
    import jsonschema
    jsonschema.validate(out, schema)
    bad = _run(RR_SPEC.format(rho="1/4"), tmp_path)  # ln(7/3) ≈ 0.847 > 2·(1/4)
    assert bad.returncode == 1, bad.stderr
    assert "apkrdp     does not hold" in bad.stdout


def test_cli_zcdp_form_before_another_form(tmp_path):
    # a zcdp form asked before a form of the other attacker: the second used to be computed
    # over the first's (label, terms) list instead of the value pairs (internal error). RR
    # with truth 3/4, record 1 known: every conditional law is RR's own, so PPK D_2 =
    # ln((3/4)²/(1/4) + (1/4)²/(3/4)) = ln(7/3), and APK ρ* = sup_α D_α/α = the KL
    # divergence (3/4 − 1/4)·ln 3 = ln(3)/2 ≈ 0.549 > 1/2 (its limit at α → 1)
    spec = RR_SPEC.replace("records = 1", "records = 2").replace(
        '[query]', '[attacker]\ntarget = 0\nknown = [1]\n[query]').replace(
        '"rdp", "apkrdp", "ppkzcdp"', '"apkzcdp", "ppkrdp"').format(rho="1/2")
    r = _run(spec, tmp_path, "--json")
    assert r.returncode == 1, r.stderr
    out = json.loads(r.stdout)
    assert out["ppkrdp"]["orders"][0]["value"] == "ln(7/3)" and out["ppkrdp"]["holds"]
    lo, hi = (mpq(x) for x in out["apkzcdp"]["enclosure"])
    # ln(3)/2 = 0.54930614…
    assert out["apkzcdp"]["holds"] is False and lo > mpq(1, 2)
    assert lo <= mpq(5493062, 10 ** 7) and hi >= mpq(5493061, 10 ** 7)


@pytest.mark.parametrize("extra, key", [
    ('notions = ["apkzcdp"]\nrho = "1"\norders = [2]', "orders"),
    ('notions = ["apkrdp"]\norders = [2]', "rho"),
])
def test_cli_refuses_keys_by_name(tmp_path, extra, key):
    spec = ("[data]\nrecords = 2\nvalues = [0, 1]\nprior = [\"1/2\", \"1/2\"]\n"
            "[mechanism]\nkind = \"count\"\n[query]\n" + extra + "\n")
    r = _run(spec, tmp_path)
    assert r.returncode == 2
    assert f"query.{key}" in r.stderr or f"[query] {key}" in r.stderr or key in r.stderr


def test_cli_partial_form_needs_a_prior(tmp_path):
    spec = ("[data]\nrecords = 2\nvalues = [0, 1]\n[mechanism]\nkind = \"count\"\n"
            "[query]\nnotions = [\"ppkrdp\"]\norders = [2]\nrho = \"1\"\n")
    r = _run(spec, tmp_path)
    assert r.returncode == 2 and "prior" in r.stderr


def test_python_api_refuses_unknown_and_repeated_notions():
    rr = randomized_response("3/4", [0, 1])
    with pytest.raises(VerifierError, match="once"):
        check_renyi_partial(rr, iid(["1/2", "1/2"], [0, 1], 1), ["apkrdp", "apkrdp"],
                            orders=[2], rho="1")
    with pytest.raises(VerifierError, match="partial-knowledge"):
        check_renyi_partial(rr, iid(["1/2", "1/2"], [0, 1], 1), ["rdp"], orders=[2],
                            rho="1")


# ---------------------------------------------------------------- the converse, searched


def _instance_moments(inst, a, b) -> tuple[Fraction, Fraction]:
    """Worst-background APK and PPK S_2 of ``(a, b)`` from the instance's own tables, in
    plain Fraction (``P[O | t, B]`` summed over the databases by hand)."""
    cells: dict = {}
    for db, p in inst.prior:
        mech, know = dict(inst.mechanism)[db], dict(inst.knowledge)[db]
        for bg, pb in know:
            for o, po in mech:
                row = cells.setdefault(db[inst.target], {}).setdefault(bg, {})
                row[o] = row.get(o, Fraction(0)) + _f(p) * _f(pb) * _f(po)

    def cond(t, bg):
        row = cells.get(t, {}).get(bg, {})
        z = sum(row.values(), Fraction(0))
        return {o: w / z for o, w in row.items()} if z else None
    pa = sum((sum(r.values(), Fraction(0)) for r in cells[a].values()), Fraction(0))
    apk, ppk = Fraction(0), Fraction(0)
    for bg, row in cells[a].items():
        p, q = cond(a, bg), cond(b, bg)
        s = Fraction(1) if q is None else _s(p, q, 2)  # type: ignore[arg-type]
        apk = max(apk, s)
        ppk += sum(row.values(), Fraction(0)) / pa * s
    return apk, ppk


def test_search_refutes_ppkrdp_implies_apkrdp_with_exact_moments():
    from verifier.search.conjectures import SearchBudget, conjecture, search

    res = search(conjecture("ppkrdp-implies-apkrdp"), SearchBudget(max_records=2, examples=0))
    assert res.found and res.counterexample is not None
    inst = res.counterexample
    pairs = [(a, b) for a in inst.values for b in inst.values if a != b
             and any(db[inst.target] == a for db, _ in inst.prior)]
    moments = [_instance_moments(inst, a, b) for a, b in pairs]
    assert res.deltas["apk_S2"] == max(m[0] for m in moments)
    assert res.deltas["ppk_S2"] == max(m[1] for m in moments)
    assert res.deltas["apk_S2"] > res.deltas["ppk_S2"]


# ---------------------------------------------------------------- shift tables (O(1) per class)


def _middle_count(n: int) -> Mechanism:
    """The count if it is in 2..n−2, else "edge": a run of singletons and one other output,
    finite for some classes and pairs and infinite for others."""
    def f(c: int) -> Dist:
        return Dist.point(c if 2 <= c <= n - 2 else "edge")
    return Mechanism("middle count", lambda db: f(sum(db)), {},
                     lambda counts, m: f(counts.get(1, 0)))


@pytest.mark.parametrize("known", [[], [0, 1], [0, 1, 2]])
def test_shift_table_moments_equal_brute_force(known):
    """The moments read off the shift table (prefix sums of T(x), groups by interval sums)
    equal those of the joint table built by enumerating every database."""
    from verifier.engines.choice import joint_tables
    from verifier.engines.shift_table import ShiftTable
    from verifier.notions.partial.cases import Table, ordered_pairs
    from verifier.notions.renyi.partial import partial_cases

    n = 7
    model, mech = iid(["2/3", "1/3"], [0, 1], n), _middle_count(n)
    know = known_indices(known)
    fast, engine = joint_tables(model, mech, know, [6])
    slow, _ = joint_tables(model, mech, know, [6], engine="brute")
    assert isinstance(fast[6], ShiftTable)
    pairs = ordered_pairs((0, 1))
    for form in ("apk", "ppk", "noiseless"):
        got = partial_cases([Table(0, 0, fast[6], engine)], pairs, form)
        want = partial_cases([Table(0, 0, slow[6], "brute")], pairs, form)
        for alpha in (2, 3, 5):
            # a count class stands for the known records' tuples with that many ones:
            # the same moment, so compare the moments each pair reaches
            g = {(tuple(c.label["values"]), c.moment(alpha)) for c in got}
            w = {(tuple(c.label["values"]), c.moment(alpha)) for c in want}
            assert g == w
            assert all(m is None or type(m) is MPQ for _, m in g)
        assert {c.terms() is None for c in got} == {c.terms() is None for c in want}
    apk = partial_cases([Table(0, 0, fast[6], engine)], pairs, "apk")
    finite = [c for c in apk if c.moment(2) is not None]
    assert finite and len(finite) < len(apk) if known else True


@pytest.mark.slow
def test_thresholded_count_at_ten_thousand_records():
    """Example 7's shape at n = 10⁴: every form is +∞ (a released edge count is impossible
    under the other value), decided without building a row."""
    import time
    start = time.perf_counter()
    r = check_renyi_partial(threshold_count([1], 100), iid(["999999/1000000", "1/1000000"],
                                                          [0, 1], 10_000),
                            ["apkrdp", "ppkrdp", "apkzcdp"],
                            knowledge=known_indices(list(range(100))), targets=9_999,
                            orders=[2, 3], rho="1")
    assert time.perf_counter() - start < 60
    assert r.results["apkrdp"].orders[0].value.infinite
    assert r.results["ppkrdp"].orders[0].value.infinite
    assert r.results["apkzcdp"].infinite and r.holds is False


def test_spec_features_are_honoured(tmp_path):
    """A family Θ (two priors), a family Z (two known sets) and restricted pairs over three
    values: the worst case names the model and knowledge it comes from, and the pairs given
    are the only ones compared (both directions)."""
    spec = """
[data]
records = 3
values = [0, 1, 2]
models = [{prior = ["1/3", "1/3", "1/3"]}, {prior = ["1/2", "1/4", "1/4"]}]
[mechanism]
kind = "geometric_count"
counts = [1, 2]
alpha = "1/2"
[attacker]
target = 2
known = [[], [0]]
pairs = [[0, 1]]
[query]
notions = ["apkrdp", "ppkrdp"]
orders = [2]
rho = "10"
"""
    r = _run(spec, tmp_path, "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    worst = out["apkrdp"]["orders"][0]["worst_case"]
    assert worst["values"] in ([0, 1], [1, 0]) and worst["model"] in (0, 1)
    # models × directions × background values (none known: 1; record 0 known: 3 values)
    assert out["apkrdp"]["cases"] == 2 * 2 * (1 + 3)
    assert out["ppkrdp"]["cases"] == 2 * 2 * 2  # models × knowledges × directions
    every = _run(spec.replace("pairs = [[0, 1]]\n", ""), tmp_path, "--json")
    assert every.returncode == 0, every.stderr
    assert json.loads(every.stdout)["apkrdp"]["cases"] == 2 * 6 * (1 + 3)


def test_compose_refuses_the_partial_forms():
    r = subprocess.run([sys.executable, "-m", "verifier.cli", "compose",
                        "examples/renyi_partial.toml", "--k", "2"],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2
    assert "query.notions" in r.stderr and "not apkrdp" in r.stderr
