"""Predicate singling out: hand-derived values and an independent direct enumeration."""

import json
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest
from gmpy2 import mpq
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from verifier.cli import app
from verifier.core.distribution import Dist
from verifier.core.errors import InvalidArgument, InvalidDistribution, SpecError, UnknownName
from verifier.pso.attacks import count_mechanism, interval_attack, interval_buckets
from verifier.pso.predicates import Predicate, Universe, parse_predicate
from verifier.pso.success import (
    Admissible,
    PSOMechanism,
    baseline,
    isolation_probability,
    optimal_adversary,
    success,
)
from verifier.specs.pso import load_pso_spec

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


def test_composition_example_acceptance():
    out = runner.invoke(app, ["pso", str(ROOT / "examples" / "pso_composition.toml"), "--json"])
    assert out.exit_code == 1  # the claim success ≤ baseline fails: the attack singles out
    data = json.loads(out.stdout)
    # success = P[#p = 1] with w(p) = 1/4: B(4, 1/4) = 4·(1/4)·(3/4)^3 = 27/64
    assert data["success"] == "27/64"
    b = Fraction(4) * Fraction(1, 64) * Fraction(63, 64) ** 3
    assert data["baseline"] == f"{b.numerator}/{b.denominator}"
    r = Fraction(27, 64) / b
    assert data["ratio"] == f"{r.numerator}/{r.denominator}"
    assert data["predicate_weights"] == {"0": "37/64", "1/64": "27/64"}


def independent_optimal(values, n, members_of_count, bound):
    """Direct: for each count c, the best predicate is the admissible subset maximising
    Σ_{x : count(x) = c} P[x]·[exactly one row of x in p] — all sequences, all subsets."""
    values = list(values)
    subsets = [frozenset(v for j, v in enumerate(values) if m >> j & 1)
               for m in range(2 ** len(values))]
    subsets = [s for s in subsets if Fraction(len(s), len(values)) <= bound]
    by_count: dict = {}
    for rows in product(values, repeat=n):
        c = sum(1 for u in rows if u in members_of_count)
        by_count.setdefault(c, []).append(rows)
    total = Fraction(0)
    for group in by_count.values():
        total += max(sum(Fraction(1, len(values) ** n) for rows in group
                         if sum(1 for u in rows if u in s) == 1) for s in subsets)
    return total


def test_optimal_against_one_count_respects_proposition_42():
    u = Universe.of_values(range(8))
    q = parse_predicate("x < 3", u)
    adm = Admissible(at_most=mpq(1, 4))
    res = optimal_adversary(u, 3, count_mechanism(q), adm)
    base, w, _ = baseline(u, 3, adm)
    assert base == isolation_probability(3, mpq(1, 4)) == mpq(27, 64)  # 3·(1/4)·(3/4)²
    assert res.success <= 4 * base  # |codomain| = n + 1 = 4
    direct = independent_optimal(range(8), 3, {0, 1, 2}, Fraction(1, 4))
    assert Fraction(int(res.success.numerator), int(res.success.denominator)) == direct


def test_full_singling_out_claim_48():
    data = json.loads(runner.invoke(app, ["pso", str(ROOT / "examples" / "pso_full.toml"),
                                          "--json"]).stdout)
    assert data["success"] == "21/32"  # 8·7·6 / 8³: all three rows distinct


def test_interval_buckets_against_direct_enumeration():
    u = Universe.of_values(range(16))
    res = success(u, 4, interval_buckets(2), interval_attack, Admissible(at_most=mpq(1, 16)))
    direct = sum((Fraction(1, 16 ** 4) for rows in product(range(16), repeat=4)
                  if rows.count(min(rows)) == 1), Fraction(0))
    assert Fraction(int(res.success.numerator), int(res.success.denominator)) == direct


def test_trivial_adversary_achieves_the_baseline():
    u = Universe.of_values(range(6), ["1/3", "1/6", "1/6", "1/6", "1/12", "1/12"])
    adm = Admissible(at_most=mpq(1, 4))
    base, w, members = baseline(u, 3, adm)
    mech = count_mechanism(parse_predicate("x < 2", u))
    res = success(u, 3, mech, lambda o: Predicate(members), adm)
    assert res.success == base == isolation_probability(3, w)


def test_baseline_realizable_weights():
    u = Universe.of_values("abc", ["1/2", "1/4", "1/4"])
    # realizable weights 0, 1/4, 1/2, 3/4, 1; n = 3 so 1/n = 1/3
    assert baseline(u, 3, Admissible(at_most=mpq(1, 4)))[:2] == (mpq(27, 64), mpq(1, 4))
    # weights ≥ 1/3: 1/2 gives 3·(1/2)(1/2)² = 3/8
    assert baseline(u, 3, Admissible(at_least=mpq(1, 3)))[:2] == (mpq(3, 8), mpq(1, 2))
    assert isolation_probability(4, mpq(1, 4)) == mpq(27, 64)


def test_predicate_parser():
    u = Universe.bit_strings(6)
    assert len(parse_predicate("x < 16", u).members) == 16
    assert parse_predicate("x < 16", u).members == parse_predicate(
        "b0 == 0 and b1 == 0", u).members
    assert parse_predicate("x in [1, 5]", u).members == {1, 5}
    assert u.show(5) == "000101"


@pytest.mark.parametrize("text, error, message", [
    ("__import__('os')", InvalidArgument, "predicate \"__import__('os')\": Call is not allowed"),
    ("y < 3", UnknownName, "unknown name 'y' in a predicate (use x, or b0.. for bits)"),
    ("x <", InvalidArgument, "predicate 'x <' does not parse: invalid syntax"),
    ("x.real", InvalidArgument, "predicate 'x.real': Attribute is not allowed"),
], ids=["call", "name", "syntax", "attribute"])
def test_bad_predicates(text, error, message):
    with pytest.raises(error) as info:
        parse_predicate(text, Universe.bit_strings(3))
    assert str(info.value) == message


@pytest.mark.parametrize("text, key, message", [
    ("[universe]\nbits = 40\n[rows]\nn = 2\n[mechanism]\nkind = \"identity\"\n", "universe.bits",
     "bits = 40 must be an integer from 1 to 16"),
    ("[universe]\nbits = 3\n[rows]\nn = 0\n[mechanism]\nkind = \"identity\"\n", "rows.n",
     "n = 0 is not a positive integer"),
    ("[universe]\nbits = 3\n[rows]\nn = 2\n[mechanism]\nkind = \"laplace\"\n", "mechanism.kind",
     "kind = 'laplace' is not one of count, counts, composition_counts, predicate, "
     "bit_predicates, bit_suppression, interval_buckets, randomized_response, identity, "
     "function"),
    ("[universe]\nvalues = [1, 2]\nweights = [\"1/2\", \"1/3\"]\n[rows]\nn = 2\n[mechanism]\n"
     "kind = \"identity\"\n", "universe.weights", "distribution sums to 5/6, not 1"),
    ("[universe]\nbits = 3\n[rows]\nn = 2\n[mechanism]\nkind = \"count\"\npredicate = \"z\"\n",
     "mechanism.predicate", "unknown name 'z' in a predicate (use x, or b0.. for bits)"),
], ids=["bits", "rows", "kind", "distribution", "predicate"])
def test_bad_pso_specs(tmp_path, text, key, message):
    path = tmp_path / "p.toml"
    path.write_text(text)
    with pytest.raises(SpecError) as info:
        load_pso_spec(path)
    assert (info.value.key, info.value.detail) == (key, message)
    assert runner.invoke(app, ["pso", str(path)]).exit_code == 2


@pytest.mark.slow
def test_examples_run():
    for name in ("pso_count_optimal", "pso_bit_suppression", "pso_interval_buckets", "pso_dp"):
        out = runner.invoke(app, ["pso", str(ROOT / "examples" / f"{name}.toml")])
        assert out.exit_code in (0, 1), (name, out.stderr)
        assert "success" in out.stdout


def test_user_mechanism_is_a_plain_kernel():
    u = Universe.of_values(range(4))
    mech = PSOMechanism("first row", lambda rows: rows[0])
    res = success(u, 2, mech, lambda o: Predicate(frozenset({o})), Admissible())
    # the first row is isolated unless the second equals it: 1 − 1/4
    assert res.success == mpq(3, 4)


def test_distribution_errors():
    with pytest.raises(InvalidDistribution):
        Universe.of_values([1, 2], ["1/2", "1/3"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=2, max_size=4), st.integers(1, 3), st.data())
def test_multisets_agree_with_sequences(weights, n, data):
    """The multinomial weights of multiset enumeration against plain sequence enumeration."""
    total = sum(weights)
    u = Universe.of_values(range(len(weights)), [f"{w}/{total}" for w in weights])
    q = frozenset(data.draw(st.sets(st.sampled_from(range(len(weights))))))
    target = Predicate(frozenset(data.draw(st.sets(st.sampled_from(range(len(weights)))))))
    count = lambda rows: sum(1 for x in rows if x in q)  # noqa: E731
    adv = lambda o: target if o % 2 else None  # noqa: E731
    a = success(u, n, PSOMechanism("c", count, True), adv, Admissible())
    b = success(u, n, PSOMechanism("c", count, False), adv, Admissible())
    assert a.success == b.success and a.weights == b.weights
    assert optimal_adversary(u, n, PSOMechanism("c", count, True), Admissible()).success == \
        optimal_adversary(u, n, PSOMechanism("c", count, False), Admissible()).success


def test_composition_example_is_lumped():
    """Theorem 4.6's instance: the 48 values outside p are one class, the 16 in p one each:
    17 classes, C(17 + 4 − 1, 4) = 4845 multisets instead of C(64 + 4 − 1, 4) = 766480."""
    from verifier.pso.attacks import composition_attack, composition_counts
    u = Universe.bit_strings(6)
    mech = composition_counts(u, parse_predicate("x < 16", u))
    adm = Admissible(at_most=mpq(1, 64))
    res = success(u, 4, mech, composition_attack(u), adm)
    assert (res.datasets, res.classes) == (4845, 17)
    assert res.success == isolation_probability(4, mpq(1, 4)) == mpq(27, 64)
    assert isinstance(res.success, type(mpq(1)))


def _adversary(kind: int, u: Universe, q: frozenset, drawn: frozenset):
    """Adversaries that respect the classes of a count of q (unions of q and its complement)
    and ones that split them (a drawn set, a single value), to force the value-by-value path."""
    outside = frozenset(u.values) - q
    if kind == 0:
        return lambda o: Predicate(q) if o == 1 else Predicate(outside)
    if kind == 1:
        return lambda o: Predicate(drawn) if o % 2 else None
    if kind == 2:
        mixed: dict = {Predicate(q): mpq(1, 3)}
        mixed[Predicate(outside)] = mixed.get(Predicate(outside), 0) + mpq(2, 3)
        return lambda o: Dist(mixed)
    return lambda o: (Predicate(frozenset(u.values[:1])), Predicate(q))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from([1, 1, 2, 3]), min_size=2, max_size=6), st.integers(1, 4),
       st.integers(0, 3), st.booleans(), st.data())
def test_lumped_enumeration_equals_value_by_value(weights, n, kind, symmetric, data):
    """Differential: lumped classes against plain enumeration of every value, on random
    universes, counted sets, adversaries and both dataset forms (sequences, multisets)."""
    total = sum(weights)
    u = Universe.of_values(range(len(weights)), [f"{w}/{total}" for w in weights])
    q = frozenset(data.draw(st.sets(st.sampled_from(range(len(weights))))))
    drawn = frozenset(data.draw(st.sets(st.sampled_from(range(len(weights))))))
    base = count_mechanism(Predicate(q, "q"))
    mech = PSOMechanism("count", base.kernel, symmetric, base.classes)
    adv = _adversary(kind, u, q, drawn)
    adm = data.draw(st.sampled_from([Admissible(), Admissible(at_most=mpq(1, 2))]))
    lumped = success(u, n, mech, adv, adm)
    plain = success(u, n, mech, adv, adm, lump=False)
    assert lumped.success == plain.success and lumped.weights == plain.weights
    assert all(isinstance(v, type(mpq(1))) for v in (lumped.success, *lumped.weights.values()))
    assert plain.classes is None


def test_lumping_falls_back_when_a_predicate_splits_a_class():
    u = Universe.of_values(range(4))
    q = frozenset({0, 1})
    mech = count_mechanism(Predicate(q, "q"))
    kept = success(u, 3, mech, _adversary(0, u, q, frozenset()), Admissible())
    split = success(u, 3, mech, _adversary(1, u, q, frozenset({0})), Admissible())
    # {0, 1} and {2, 3}: 2 classes, C(2 + 3 − 1, 3) = 4 multisets; split: C(4 + 3 − 1, 3) = 20
    assert (kept.classes, kept.datasets) == (2, 4)
    assert (split.classes, split.datasets) == (None, 20)
    # {0} is isolated when exactly one of 3 uniform rows is 0 and the count of q is odd:
    # count 1: the q-row is 0 (3·(1/4)·(2/4)² = 3/16); count 3: one 0 and two 1s (3/64)
    assert split.success == mpq(3, 16) + mpq(3, 64)
