"""docs/how-to/audit-findings.md is generated from the audits of examples/audit/ and their
``--report`` files, and its findings agree with computations that do not use plrv.

* prv-accountant: the exact δ(ε) of k-fold randomized response with ratio e^d (d the double
  ln 3 handed to the library, truth t = e^d/(1 + e^d)) is
  Σ_i C(k, i)·[t^{k−i}(1−t)^i − e^ε·t^i(1−t)^{k−i}]₊ (Kairouz, Oh and Viswanath 2015),
  evaluated with mpmath at 60 digits: at the library's own ε at δ = 10⁻³ it is ≤ 10⁻³ for
  k = 26 and > 10⁻³ for k = 27, the page's boundary.
* OpenDP's bounded geometric: α from its source's formula (as in test_audit_findings.py), the
  tight ε min(d_in, 3)·ln(1/α) against the library's map, at each of the page's 1000 scales
  and at d_in from 1 to 10.
* the Gaussian threshold's release probability P[Z ≥ 2] of the discrete Gaussian of σ = 1,
  Σ_{z≥2} e^{−z²/2} / Σ_z e^{−z²/2} by mpmath.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from verifier.reports.findings import FINDINGS, markdown, run_all

pytestmark = pytest.mark.slow
for _module in {f.module for f in FINDINGS}:
    pytest.importorskip(_module)
mpmath = pytest.importorskip("mpmath")

DOC = Path(__file__).resolve().parent.parent / "docs" / "how-to" / "audit-findings.md"


@pytest.fixture(scope="module")
def page() -> str:
    return markdown(run_all())


def test_docs_audit_findings_md_is_up_to_date(page) -> None:
    assert DOC.read_text(encoding="utf-8") == page, (
        "docs/how-to/audit-findings.md is stale: regenerate it with "
        "python -m verifier.reports.findings > docs/how-to/audit-findings.md")


def test_every_finding_has_its_report_and_commands(page) -> None:
    for finding in FINDINGS:
        section = page.split(f"## {finding.title}\n", 1)[1].split("\n## ", 1)[0]
        assert section.count("$ plrv audit examples/audit/") == len(finding.runs)
        assert "— claim exceeded" in section and "#### Reproduction (the library only)" \
            in section
        assert f"<!-- test: slow, needs {finding.module} -->\n```python" in section


def _rr_delta(k: int, d: float, eps: float):
    with mpmath.workdps(60):
        e = mpmath.exp(mpmath.mpf(d))
        t = e / (1 + e)
        total = mpmath.mpf(0)
        for i in range(k + 1):
            term = mpmath.binomial(k, i) * (t ** (k - i) * (1 - t) ** i
                                            - mpmath.exp(mpmath.mpf(eps)) * t ** i
                                            * (1 - t) ** (k - i))
            total += max(term, 0)
        return total


def test_prv_accountant_boundary_by_the_closed_form(page) -> None:
    from prv_accountant import PRVAccountant, PureDPMechanism

    d = float.fromhex("0x1.193ea7aad030bp+0")  # the double nearest ln 3
    assert d == math.log(3)
    verdicts = {}
    for k in (26, 27):
        acc = PRVAccountant(prvs=[PureDPMechanism(d)], eps_error=0.01, delta_error=1e-6,
                            max_self_compositions=[k])
        eps = acc.compute_epsilon(delta=1e-3, num_self_compositions=[k])[2]
        verdicts[k] = _rr_delta(k, d, eps) <= mpmath.mpf(1e-3)
    assert verdicts == {26: True, 27: False}
    assert "first unsound compose = 27 (last sound before it: 26)" in page


def _alpha(scale: float):
    """α = 1 − p, p = 1 − E rounded down, E = e^(−fl(1/scale)) rounded up (OpenDP's source)."""
    x = 1.0 / scale
    e_true = mpmath.exp(-mpmath.mpf(x))
    e = float(e_true)
    while mpmath.mpf(e) < e_true:
        e = math.nextafter(e, 2.0)
    while mpmath.mpf(math.nextafter(e, 0.0)) >= e_true:
        e = math.nextafter(e, 0.0)
    p_true = 1 - mpmath.mpf(e)
    p = float(p_true)
    while mpmath.mpf(p) > p_true:
        p = math.nextafter(p, 0.0)
    return 1 - mpmath.mpf(p)


def test_geometric_grid_and_d_in_by_the_source_formula(page) -> None:
    import opendp.prelude as dp

    dp.enable_features("contrib")

    def meas(scale: float):
        return dp.m.make_geometric(dp.atom_domain(T=int), dp.absolute_distance(T=int),
                                   scale=scale, bounds=(0, 3))

    with mpmath.workprec(300):
        unsound = []
        for j in range(1000):
            scale = float(1 + mpmath.mpf(10) * j / 999)  # the grid 1..11/1000, nearest doubles
            if 3 * mpmath.log(1 / _alpha(scale)) > mpmath.mpf(meas(scale).map(3)):
                unsound.append(scale)
        first = unsound[0]
        by_d = [d for d in range(1, 11)
                if min(d, 3) * mpmath.log(1 / _alpha(first)) > mpmath.mpf(meas(first).map(d))]
    assert [s.hex() for s in unsound] == ["0x1.9c50fa1b29c51p+0", "0x1.4941db9c92942p+3"]
    assert by_d == [3]
    assert "**2** are unsound: 1.6106106106106106 (0x1.9c50fa1b29c51p+0) and " \
           "10.28928928928929 (0x1.4941db9c92942p+3)" in page
    assert "only d_in = 3 is unsound" in page


def test_gaussian_threshold_release_probability(page) -> None:
    with mpmath.workdps(30):
        weights = {z: mpmath.exp(-mpmath.mpf(z) ** 2 / 2) for z in range(-60, 61)}
        tail = sum(w for z, w in weights.items() if z >= 2) / sum(weights.values())
    shown = re.search(r"P\[Z ≥ 2\] ≈ \*\*([0-9.]+)\*\*", page).group(1)
    assert len(shown) == len("0.0585581")  # six significant digits, truncated
    assert mpmath.mpf(shown) <= tail < mpmath.mpf(shown) + mpmath.mpf(10) ** -7
