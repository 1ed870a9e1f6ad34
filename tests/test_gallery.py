"""docs/gallery.md is generated from examples/gallery/, and its values are right.

The expected values are derived by hand below (not read off the page): randomized response
and the clamped geometric count in closed form, the unnoised suppression from an output one
target value cannot give, and APK = PPK from Θ-reducibility (thesis Proposition 26).
"""

from pathlib import Path

import pytest
from gmpy2 import mpq

from verifier.core.epsilon import Epsilon
from verifier.reports.gallery import EXAMPLES, FORMS, GALLERY, gallery_row, markdown

DOC = Path(__file__).resolve().parent.parent / "docs" / "gallery.md"
_MPQ = type(mpq(0))
NAMES = [f[0] for f in FORMS]


@pytest.fixture(scope="module")
def rows():
    from verifier.reports.gallery import gallery_rows
    return {r.spec: r for r in gallery_rows()}


def test_docs_gallery_md_is_up_to_date(rows):
    assert DOC.read_text(encoding="utf-8") == markdown(list(rows.values())), (
        "docs/gallery.md is stale: regenerate it with "
        "python -m verifier.reports.gallery > docs/gallery.md")


def test_every_gallery_spec_is_on_the_page():
    assert sorted(name for name, _ in GALLERY) == sorted(p.name for p in EXAMPLES.glob("*.toml"))


def _log(row_values: dict, name: str) -> mpq:
    value = row_values[name]
    e = value if isinstance(value, Epsilon) else value.value.scaled  # D_2 = ln(S_2)/1
    assert not e.infinite and isinstance(e.base, _MPQ), (name, value)
    return e.base


def test_randomized_response_by_hand(rows):
    """Each record's report depends on that record alone, so under every form the target's
    own report decides: P = (3/4, 1/4) against Q = (1/4, 3/4).
    δ(E) = 3/4 − E/4 below E = 3, so δ = 10⁻⁶ at E = 3 − 4·10⁻⁶ = 749999/250000;
    S_2 = (3/4)²/(1/4) + (1/4)²/(3/4) = 9/4 + 1/12 = 7/3 (the issue's ln(7/3))."""
    r = rows["randomized_response.toml"]
    for name in NAMES:
        assert _log(r.epsilon, name) == mpq(749999, 250000)
        assert r.d2[name].order == 2 and _log(r.d2, name) == mpq(7, 3)
    assert not r.apk_differs


def test_geometric_count_dp_by_hand(rows):
    """Counts c and c + 1, noise P[k] ∝ (1/2)^|k| (normaliser 3): the ratio P/Q is 2 on
    k ≤ c (mass 2/3 under P, 1/3 under Q) and 1/2 on k > c (1/3 and 2/3). Clamping to 0..n
    merges only outputs of one ratio, so nothing changes: δ(E) = 2/3 − E/3 below E = 2, and
    δ = 10⁻⁶ at E = 2 − 3·10⁻⁶; S_2 = 2·(2/3) + (1/2)·(1/3) = 3/2."""
    r = rows["geometric_count.toml"]
    assert _log(r.epsilon, "DP") == mpq(1999997, 1000000)
    assert _log(r.d2, "DP") == mpq(3, 2)


def test_reducible_mechanisms_have_apk_equal_to_ppk(rows):
    """A mean over independent records with known record values is Θ-reducible (thesis
    Proposition 26, Theorem 2). For the clamped geometric count, known count s: the unclamped
    law is s + t + U + Z, so its loss law does not depend on s; clamping to 0..n merges only
    outputs below s + t + U's range (loss ln 2 each) or above it (loss −ln 2 each), which
    changes no loss. Randomized response reports the target alone. In all three every
    background has the same APK δ and moment, so PPK (their average) equals APK; the three
    others are not reducible and differ here."""
    for spec in ("geometric_count.toml", "mean.toml", "randomized_response.toml"):
        assert not rows[spec].apk_differs, spec
    for spec in ("thresholded_count.toml", "top1.toml", "sampling.toml"):
        assert rows[spec].apk_differs, spec
        assert "**yes**" in next(line for line in markdown(list(rows.values())).splitlines()
                                 if f"`{spec}`" in line)


def test_suppression_without_noise_is_infinite_everywhere(rows):
    """The count released only if ≥ 3, 8 records with P[1] = 1/5: the output 8 needs every
    record to be 1, so it is impossible when the target is 0 and has probability
    (1/5)^7 = 1/78125 > 10⁻⁶ when it is 1 (the other records drawn, known or not): δ at any
    finite ε is at least that, so ε = ∞ and D_2 = ∞ under every form (DP: counts 2 and 3)."""
    assert mpq(1, 5) ** 7 > mpq(1, 10**6)
    r = rows["suppression.toml"]
    for name in NAMES:
        assert r.epsilon[name].infinite and r.d2[name].infinite, name


def test_one_row_alone(tmp_path):
    """gallery_row reads a spec anywhere, with its own claim ε (the values do not depend on
    it): randomized response on one record is the issue's ln(7/3) at α = 2."""
    spec = tmp_path / "rr.toml"
    spec.write_text('[data]\nrecords = 1\nvalues = [0, 1]\nprior = ["1/2", "1/2"]\n'
                    '[mechanism]\nkind = "randomized_response"\ntruth = "3/4"\n'
                    '[attacker]\ntarget = 0\n'
                    '[query]\nnotions = ["dp"]\nepsilon = "ln(2)"\n', encoding="utf-8")
    r = gallery_row(spec)
    assert [str(r.d2[n]) for n in NAMES] == ["ln(7/3)"] * 4
