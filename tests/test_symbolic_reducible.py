"""Θ-reducibility with certificates (thesis Definition 59), concrete and for every p."""

from gmpy2 import mpq

from verifier.specs.symbolic import load_symbolic, parse_symbolic
from verifier.symbolic.reducibility import decide_reducible

P = {"p": {"gt": "0", "lt": "1"}}


def _ones(background) -> int:
    """The number of known 1s of a background value (a tuple or a count class)."""
    if isinstance(background, tuple):
        return sum(background)
    return background.counts[1]


def test_referendum_tally_has_the_shift_bijection():
    """A count with known votes b: c ↦ c − Σb1 + Σb2 (hand derivation: the released count is
    the known ones plus the unknown ones, whose law does not depend on the background)."""
    res = decide_reducible(load_symbolic("examples/referendum_tally.toml"))
    assert res.reducible is True
    (cert,) = res.certificates
    assert len(cert.bijections) == 4  # five classes of backgrounds: 0..4 known ones
    for b in cert.bijections:
        assert b.shift == _ones(b.target) - _ones(b.source)
        assert all(v == o + b.shift for o, v in b.mapping.items())


def test_threshold_partial_has_backgrounds_without_a_bijection():
    """Hand derivation: 5 unknown records, X ~ Bin(5, 1/5). With both known records 1 and the
    target 0, ⊥ is released iff X = 0: P = (4/5)^5 = 1024/3125; with the target 1, never."""
    res = decide_reducible(load_symbolic("examples/threshold_partial.toml"))
    assert res.reducible is False
    w = res.witness
    assert w["target"] == 7
    assert [_ones(b) for b in w["backgrounds"]] == [2, 1]
    first = dict(w["unmatched"]["first"])
    bottom = next(o for o in first if str(o) == "⊥")
    assert first[bottom] == (mpq(1024, 3125), mpq(0))
    assert all(type(x) is type(mpq(0)) for x in first[bottom])


def test_symbolic_tally_is_reducible_for_every_p():
    res = decide_reducible(load_symbolic("examples/tally_symbolic.toml"))
    assert res.reducible is True
    assert "numerator 0" in res.method
    (cert,) = res.certificates
    assert {(b.source, b.target): b.shift for b in cert.bijections} == {
        ((0, 0), (0, 1)): 1, ((0, 0), (1, 0)): 1, ((0, 0), (1, 1)): 2}


def test_symbolic_threshold_is_not_reducible_with_an_exact_witness():
    """With 3 records, threshold 2 and record 0 known: for target value 0 and the known record
    0 nothing is released unless D1 = 1 … the profiles differ as functions of p."""
    raw = {"parameters": P, "data": {"records": 3, "values": [0, 1], "prior": ["1 - p", "p"]},
           "mechanism": {"kind": "threshold_count", "threshold": 2},
           "attacker": {"target": 2, "known": [0]},
           "query": {"epsilon": "ln(2)", "notions": ["apkdp"]}}
    res = decide_reducible(parse_symbolic(raw))
    assert res.reducible is False
    assert 0 < res.point["p"] < 1
    assert res.witness["unmatched"]["first"] or res.witness["unmatched"]["second"]


def test_randomized_knowledge_is_decided_exactly():
    """No parameters: the exact tables decide (RR with two known records is reducible: the
    known records' reports do not depend on the target)."""
    res = decide_reducible(load_symbolic("examples/rr_symbolic.toml"))
    assert res.reducible is True
