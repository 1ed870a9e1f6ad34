"""Example 7 at full size and threshold sweeps, against closed forms derived by hand."""

import csv
import json
from math import comb
from pathlib import Path

from gmpy2 import mpq, mpz
from typer.testing import CliRunner

from verifier import check_partial, iid, known_indices, threshold_count
from verifier.cli import app
from verifier.notions.sweep import parse_range, threshold_sweep
from verifier.specs.check import load_spec

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()
MPQ = type(mpq(0))


def test_example7_full_size_by_hand():
    """n = 1000, p = 10^-6, T = 100, 100 votes known, target another, ε = ln 2.

    Active, all known votes yes, a = 0, b = 1: the count is 100 + X (X ~ Bin(899, p), the
    other voters) under a and 101 + X under b; both are always released. Output 100 has
    probability P[X = 0] = (1 − p)^899 under a and 0 under b: loss +∞. For c > 100 the ratio
    P[X = j]/P[X = j − 1] = (900 − j)/j · p/(1 − p) < 2. So APK δ = (1 − p)^899 exactly.

    Passive, ε = ln 2: ⊥ has ratio within (1/2, 2) of 1 (either hypothesis releases with
    probability ≤ P[≥ 99 yes among 999 voters]) so only released outputs contribute, and PPK δ
    ≤ P[released | a] ≤ P[≥ 99 of the other 999 vote yes] ≤ C(999, 99)·p^99 < 10^-100.
    """
    p = mpq(1, 10**6)
    result = runner.invoke(app, ["check", str(ROOT / "examples" / "example7.toml"), "--json"])
    assert result.exit_code == 1  # the active attacker breaks the claim
    out = json.loads(result.stdout)
    apk, ppk = mpq(out["apkdp"]["delta"]), mpq(out["ppkdp"]["delta"])
    assert apk == (1 - p) ** 899
    assert out["apkdp"]["approx"]["delta"] == "0.999101"
    assert 0 < ppk <= comb(999, 99) * p ** 99 < mpq(1, 10**100)
    assert out["ppkdp"]["holds"] is True and out["apkdp"]["holds"] is False
    assert len(out["ppkdp"]["delta"]) > 4300  # beyond Python's default int-to-str limit


def test_parse_range():
    assert parse_range("2..5") == [2, 3, 4, 5]
    assert parse_range("3,7") == [3, 7]


def test_sweep_matches_direct_checks(tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text("""
[data]
records = 30
values = [0, 1]
prior = ["19/20", "1/20"]
[mechanism]
kind = "threshold_count"
counts = [1]
threshold = 3
[attacker]
target = 29
known = [0, 1]
[query]
epsilon = "ln(2)"
delta = "1/1000"
notions = ["apkdp", "ppkdp"]
""")
    csv_path, json_path, png = tmp_path / "s.csv", tmp_path / "s.json", tmp_path / "s.png"
    result = runner.invoke(app, ["sweep", str(spec), "--threshold", "2..4", "--p", "1/20,1/10",
                                 "--csv", str(csv_path), "--json-file", str(json_path),
                                 "--plot", str(png)])
    rows = list(csv.DictReader(csv_path.open()))
    # a sweep's claim holds when every point holds (exit 0), else exit 1
    assert result.exit_code == (0 if all(r["holds"] == "True" for r in rows) else 1), \
        result.stderr
    assert len(rows) == 2 * 3 * 2 and json.loads(json_path.read_text()) == [
        {**r, "threshold": int(r["threshold"]), "holds": r["holds"] == "True"} for r in rows]
    assert png.stat().st_size > 10_000
    for row in rows:
        p = row["p"]
        direct = check_partial(threshold_count([1], int(row["threshold"])),
                               iid([str(1 - mpq(p)), p], [0, 1], 30),
                               knowledge=known_indices([0, 1]), targets=29, epsilon="ln(2)",
                               delta="1/1000", notions=[row["notion"]])
        r = direct.results[row["notion"]]
        assert row["delta"] == str(r.delta) and row["epsilon"] == str(r.epsilon)


def test_sweep_refuses_other_mechanisms():
    spec = load_spec(ROOT / "examples" / "referendum_tally.toml")
    import pytest

    from verifier.core.errors import InvalidArgument
    with pytest.raises(InvalidArgument) as info:
        threshold_sweep(spec, [1, 2])
    assert str(info.value) == 'a threshold sweep needs kind = "threshold_count", not \'count\''


def _reference():
    import sys
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import reference_example7
    return reference_example7


def test_linear_route_matches_the_reference_closed_form():
    """The count engine against benchmarks/reference_example7.py (an independent integer
    prefix/suffix-sum implementation of Example 7's closed form): worst APK δ, PPK δ and the
    APK δ of every background class (k known ones), exactly."""
    from fractions import Fraction

    from verifier.engines.known_counts import KnownCounts
    ref = _reference()
    for n, p in ((40, "1/10"), (120, "1/1000"), (300, "1/1000000")):
        t = m = n // 10
        report = check_partial(threshold_count([1], t), iid([str(1 - mpq(p)), p], [0, 1], n),
                               knowledge=known_indices(range(m)), targets=n - 1,
                               epsilon="ln(2)", notions=["apkdp", "ppkdp"])
        r = ref.example7_reference(n, Fraction(p), t, m, 2)
        apk, ppk = report.results["apkdp"], report.results["ppkdp"]
        assert isinstance(apk.delta.value, MPQ)
        assert Fraction(str(apk.delta)) == r.apk_worst()[0]
        assert Fraction(str(ppk.delta)) == r.ppk_worst()[0]
        rows = {row["background"]: row["delta"] for row in apk.details}
        for k in range(m + 1):
            assert Fraction(str(rows[KnownCounts((0, 1), (m - k, k))])) == r.apk_by_k(k)[0]
        assert apk.cases == 2 * (m + 1)  # one APK comparison per pair and class


def test_count_estimate_includes_the_digits():
    """Example 7 at 10,000 and 100,000 records fits the default memory limit, at 10^6 it
    does not: the streamed count law keeps the prefix sums next to the threshold for each of
    the m + 1 background classes, m = n/10 numbers of u·log2(10^6) > 19u bits (or as many
    as fit in its cap), and its checkpoints."""
    from verifier.core.budget import Budget
    from verifier.engines.counts import count_estimate
    limit = Budget().max_memory
    for n, fits in ((10_000, True), (100_000, True), (1_000_000, False)):
        model = iid(["999999/1000000", "1/1000000"], [0, 1], n)
        work, memory = count_estimate(model, threshold_count([1], n // 10),
                                      known_indices(range(n // 10)), [n - 1])
        u = n - 1 - n // 10
        assert memory >= min((n // 10) * (u * 19 // 8), 2 << 30)  # kept: at most 3 GiB a side
        assert (memory <= limit) is fits
        assert work < 64 * n  # linear in n


def test_a_streamed_count_law_gives_the_same_exact_deltas(monkeypatch):
    """Every law streamed (tiny blocks, two kept, parts never kept) against the closed-form
    reference: worst APK δ, PPK δ and every class's APK δ, exactly."""
    from collections import OrderedDict
    from fractions import Fraction

    from verifier.engines import count_law
    from verifier.engines.known_counts import KnownCounts
    from verifier.notions.partial import shift_loss
    monkeypatch.setattr(count_law, "LAZY_BITS", 1)
    monkeypatch.setattr(count_law, "BLOCK", 3)
    monkeypatch.setattr(count_law, "_KEEP_BYTES", 1)
    monkeypatch.setattr(count_law, "_CACHE", OrderedDict())
    monkeypatch.setattr(shift_loss, "_KEEP_BITS", 1)
    ref = _reference()
    for n, p, t in ((40, "1/10", 4), (120, "1/1000", 12), (90, "1/3", 30), (90, "1/3", 70)):
        m = n // 10
        report = check_partial(threshold_count([1], t), iid([str(1 - mpq(p)), p], [0, 1], n),
                               knowledge=known_indices(range(m)), targets=n - 1,
                               epsilon="ln(2)", notions=["apkdp", "ppkdp"])
        r = ref.example7_reference(n, Fraction(p), t, m, 2)
        apk, ppk = report.results["apkdp"], report.results["ppkdp"]
        assert Fraction(str(apk.delta)) == r.apk_worst()[0]
        assert Fraction(str(ppk.delta)) == r.ppk_worst()[0]
        rows = {row["background"]: row["delta"] for row in apk.details}
        for k in range(m + 1):
            assert Fraction(str(rows[KnownCounts((0, 1), (m - k, k))])) == r.apk_by_k(k)[0]


def test_streamed_laws_and_weighted_sums_by_hand():
    """The streamed binomial law, read in any order, equals the binomial coefficients
    written out here; its weighted sum (binary splitting) equals the plain sum."""
    import random

    from verifier.core.distribution import Dist
    from verifier.engines import count_law
    rng = random.Random(5)
    for u, s, r in ((0, 1, 1), (1, 1, 2), (7, 2, 5), (130, 1, 9), (300, 3, 4)):
        law = count_law._TwoSided(u, mpz(s), mpz(r))
        mass = [comb(u, x) * s ** x * r ** (u - x) for x in range(u + 1)]
        order = list(range(u + 1))
        rng.shuffle(order)
        assert all(law.mass(x) == mass[x] for x in order)
        assert all(law.prefix(x) == sum(mass[:x]) for x in order + [u + 1])
        assert law.prefix(u + 5) == (s + r) ** u and law.prefix(-1) == 0
        spans = [(a, b) for a in range(u + 1) for b in range(a + 1, u + 2)]
        for a, b in rng.sample(spans, min(400, len(spans))) + [(0, u + 1), (u, u + 1)]:
            assert law.range_sum(a, b) == sum(mass[a:b])
    for m, prior in ((0, "1/3"), (5, "2/7"), (40, "1/1000")):
        dist = Dist({0: str(1 - mpq(prior)), 1: prior})
        iid_law = count_law.ones_law([dist] * m, (0, 1))
        mixed = count_law.ones_law([dist, Dist({0: "1/2", 1: "1/2"})] * m, (0, 1))
        for law in (iid_law, mixed):
            values = [mpz(rng.randint(-10 ** 30, 10 ** 30)) for _ in range(law.size + 1)]
            assert law.weighted(iter(values)) == sum(w * v for w, v in zip(law.mass, values,
                                                                          strict=True))


def test_streamed_laws_agree_with_brute_force_on_tight_epsilon(monkeypatch):
    """Every law streamed, parts never kept: δ at ε and the tight ε at δ of APK, PPK and
    noiseless privacy equal brute force's over every database (small n, several priors)."""
    from collections import OrderedDict

    from verifier.engines import count_law
    from verifier.notions.partial import shift_loss
    monkeypatch.setattr(count_law, "LAZY_BITS", 1)
    monkeypatch.setattr(count_law, "BLOCK", 2)
    monkeypatch.setattr(count_law, "_KEEP_BYTES", 1)
    monkeypatch.setattr(count_law, "_CACHE", OrderedDict())
    monkeypatch.setattr(shift_loss, "_KEEP_BITS", 1)
    notions = ["apkdp", "ppkdp", "noiseless"]
    for n, p, t, known in ((6, "1/3", 2, 2), (7, "1/10", 3, 3), (8, "2/5", 5, 1)):
        model = iid([str(1 - mpq(p)), p], [0, 1], n)
        for eps, delta in (("ln(2)", "1/100"), ("1/2", "1/3"), ("0", "0")):
            a, b = (check_partial(threshold_count([1], t), model,
                                  knowledge=known_indices(range(known)), targets=n - 1,
                                  epsilon=eps, delta=delta, notions=notions, engine=engine)
                    for engine in ("brute", "counts"))
            for notion in notions:
                assert a.results[notion].delta == b.results[notion].delta, (n, eps, notion)
                assert a.results[notion].epsilon == b.results[notion].epsilon, (n, eps, notion)
