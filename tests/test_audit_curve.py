"""``plrv audit --conformance`` on accountants: the library's one-run PLD or Rényi curve against
the exact one, point by point.

Expected values are derived by hand: dp_accounting's randomized response with
noise_parameter 1/2 over 3 buckets answers the true bucket with 1 − 1/2 + 1/6 = 2/3 and each
other with 1/6, so its privacy loss (REPLACE_ONE, inputs 0 and 1) is ln 4 with mass 2/3,
−ln 4 with 1/6 and 0 with 1/6 (the third bucket); rounded up to multiples of v = 10⁻⁴ (the
library's pessimistic discretisation) these sit at ⌈±ln 4·10⁴⌉ = 13863 and −13862 (ln 4 =
1.3862943…, by mpmath). Its Rényi moment at order 2 is (2/3)²/(1/6) + (1/6)²/(2/3) + 1/6 =
23/8, and autodp's randomized response with truth 3/4 has (3/4)²/(1/4) + (1/4)²/(3/4) = 7/3.
"""

from __future__ import annotations

import json

import pytest
from gmpy2 import mpq
from typer.testing import CliRunner

from verifier.audit.case import Enclosure
from verifier.audit.curve_check import pld_points, rdp_points
from verifier.cli import app
from verifier.core.binary64 import F64
from verifier.core.distribution import Dist

RR3 = ('[[case]]\nlibrary = "dp_accounting"\nconstructor = "RandomizedResponseDpEvent"\n'
       'args = {{ noise_parameter = {{ f64 = "0.5" }}, num_buckets = 3 }}\n'
       'options = {{ accountant = "{acc}" }}\ncompose = 1\ndelta = "1/1000"\n')
AUTODP = ('[[case]]\nlibrary = "autodp"\nconstructor = "RandresponseMechanism"\n'
          'args = { p = { f64 = "0.75" } }\noptions = { accountant = "rdp" }\ncompose = 10\n'
          'delta = "1/1000"\n')
P3 = Dist({0: mpq(2, 3), 1: mpq(1, 6), "others": mpq(1, 6)})
Q3 = Dist({0: mpq(1, 6), 1: mpq(2, 3), "others": mpq(1, 6)})


def _audit(tmp_path, config: str) -> tuple[int, dict]:
    cfg = tmp_path / "c.toml"
    cfg.write_text(config)
    r = CliRunner().invoke(app, ["audit", str(cfg), "--json", "--conformance", "1"])
    return r.exit_code, json.loads(r.output)


def _frac(text: str) -> mpq:
    return mpq(text)


def _near(mpmath, x: mpq, expected) -> bool:
    """|x − expected| < 2^-180, mpmath at 300 bits."""
    with mpmath.workprec(300):
        return abs(mpmath.mpf(int(x.numerator)) / int(x.denominator) - expected) < \
            mpmath.mpf(2) ** -180


def test_dp_accounting_pld_atoms_by_hand(tmp_path) -> None:
    pytest.importorskip("dp_accounting")
    mpmath = pytest.importorskip("mpmath")
    with mpmath.workprec(300):
        up = int(mpmath.ceil(mpmath.log(4) * 10**4))
        down = int(mpmath.ceil(-mpmath.log(4) * 10**4))
    assert (up, down) == (13863, -13862)
    code, out = _audit(tmp_path, RR3.format(acc="pld"))
    assert code == 0
    (row,) = out["cases"]
    points = {p["point"]: p for p in row["curve"]}
    assert sorted(points) == sorted([f"loss {down}·v", "loss 0·v", f"loss {up}·v",
                                     "mass at +inf"])
    assert _frac(points[f"loss {up}·v"]["exact"]["value"]) == mpq(2, 3)
    assert _frac(points[f"loss {down}·v"]["exact"]["value"]) == mpq(1, 6)
    assert _frac(points["loss 0·v"]["exact"]["value"]) == mpq(1, 6)
    assert _frac(points["mass at +inf"]["exact"]["value"]) == 0
    assert all(p["passed"] is True for p in points.values())
    assert "4 of 4 points within tolerance" in " ".join(row["notes"])


def test_dp_accounting_rdp_order_2_is_ln_23_over_8(tmp_path) -> None:
    pytest.importorskip("dp_accounting")
    mpmath = pytest.importorskip("mpmath")
    code, out = _audit(tmp_path, RR3.format(acc="rdp"))
    assert code == 0
    (row,) = out["cases"]
    points = {p["point"]: p for p in row["curve"]}
    assert len(points) == 156  # the RdpAccountant's default orders
    two = points["order 2.0"]
    lo, hi = (_frac(e) for e in two["exact"]["enclosure"])
    assert hi - lo < mpq(1, 2**200)
    with mpmath.workprec(300):
        assert _near(mpmath, lo, mpmath.log(mpmath.mpf(23) / 8))
    assert all(p["passed"] is True for p in points.values())


def test_autodp_renyi_order_2_is_ln_7_over_3(tmp_path) -> None:
    pytest.importorskip("autodp")
    mpmath = pytest.importorskip("mpmath")
    code, out = _audit(tmp_path, AUTODP)
    assert code == 1  # the k = 10 claim stays unsound (docs/how-to/audit.md#findings)
    (row,) = out["cases"]
    points = {p["point"]: p for p in row["curve"]}
    lo, hi = (_frac(e) for e in points["order 2.0"]["exact"]["enclosure"])
    assert hi - lo < mpq(1, 2**200)
    with mpmath.workprec(300):
        assert _near(mpmath, lo, mpmath.log(mpmath.mpf(7) / 3))
    assert len(points) == 16 and all(p["passed"] is True for p in points.values())


def test_phi_accountant_has_no_curve_and_says_so(tmp_path) -> None:
    pytest.importorskip("autodp")
    code, out = _audit(tmp_path, AUTODP.replace('"rdp"', '"phi"'))
    (row,) = out["cases"]
    assert "curve" not in row
    assert any("no curve to check" in n for n in row["notes"])


def test_optimistic_rounding_of_a_loss_fails() -> None:
    """ln 4 rounded down to 13862·v (what an optimistic PLD does) is outside the library's
    stated pessimistic discretisation: the point fails and ln 4 is left uncovered."""
    v = F64(1e-4)
    atoms = {13862: F64(2 / 3), 0: F64(1 / 6), -13863: F64(1 / 6)}
    points = pld_points(P3, Q3, atoms, v, F64(0.0))
    failed = {p.point for p in points if p.passed is False}
    assert failed == {"loss 13862·v", "loss -13863·v", "loss ln(4)", "loss ln(1/4)"}


def test_a_mass_off_by_more_than_the_tolerance_fails() -> None:
    v = F64(1e-4)
    good = {13863: F64(2 / 3), 0: F64(1 / 6), -13862: F64(1 / 6)}
    assert all(p.passed for p in pld_points(P3, Q3, good, v, F64(0.0)))
    bad = dict(good)
    bad[0] = F64(1 / 6 * (1 + 2.0 ** -30))
    (point,) = [p for p in pld_points(P3, Q3, bad, v, F64(0.0)) if p.passed is not True]
    assert point.point == "loss 0·v"
    inf = pld_points(P3, Q3, good, v, F64(2.0 ** -60))
    assert [p.point for p in inf if p.passed is False] == ["mass at +inf"]


def test_a_renyi_value_off_by_more_than_the_tolerance_fails() -> None:
    """D_2 of P3 against Q3 is ln(23/8); a value 2^-30 relative below it fails, one at the
    nearest double passes (both decided on a certified enclosure)."""
    import math

    near = F64(math.log(23 / 8))
    (ok,) = rdp_points(P3, Q3, [(F64(2.0), near)])
    assert ok.passed is True and isinstance(ok.exact, Enclosure)
    (off,) = rdp_points(P3, Q3, [(F64(2.0), F64(math.log(23 / 8) * (1 - 2.0 ** -30)))])
    assert off.passed is False and "below" in off.detail


PRV = ('[[case]]\nlibrary = "prv_accountant"\nconstructor = "PureDPMechanism"\n'
       'args = { eps = "ln(3)" }\noptions = { eps_error = { f64 = "0.01" }, '
       'delta_error = { f64 = "1e-6" } }\ncompose = 27\ndelta = "1/1000"\n')


def test_prv_accountant_discretised_prv_by_hand(tmp_path) -> None:
    """PureDPMechanism(d), d the double nearest ln 3: losses ±d with masses e^d/(1+e^d) ≈ 3/4
    and 1/(1+e^d) ≈ 1/4 (mpmath). The library's grid for k = 27 has cells of width
    0.01/√(13.5·ln(1.2·10⁷)) (its Theorem 5.5 mesh, recomputed here with mpmath); each of its
    two nodes lies within a cell of ±d and holds that mass."""
    pytest.importorskip("prv_accountant")
    mpmath = pytest.importorskip("mpmath")
    code, out = _audit(tmp_path, PRV)
    assert code == 1  # k = 27 is the first unsound k (docs/how-to/audit-findings.md)
    (row,) = out["cases"]
    points = row["curve"]
    assert len(points) == 2 and all(p["passed"] is True for p in points)
    with mpmath.workprec(200):
        d = mpmath.mpf(float.fromhex("0x1.193ea7aad030bp+0"))
        width = mpmath.mpf(0.01) / mpmath.sqrt(mpmath.mpf(27) / 2 * mpmath.log(12 / 1e-6))
        for p, sign, mass in zip(points, (-1, 1), (1 / (1 + mpmath.e ** d),
                                                   mpmath.e ** d / (1 + mpmath.e ** d)),
                                 strict=True):
            node = mpmath.mpf(p["point"].removeprefix("node "))
            assert abs(node - sign * d) <= width
            lib = _frac(p["library"]["value"])
            assert abs(mpmath.mpf(int(lib.numerator)) / int(lib.denominator) - mass) \
                < mass * 2 ** -40


def test_a_node_two_cells_off_fails() -> None:
    from verifier.audit.curve_check import prv_points

    one = (mpq(1), mpq(3, 4), mpq(3, 4))
    assert prv_points([one], {mpq(1) + mpq(1, 100): mpq(3, 4)}, mpq(1, 100))[0].passed is True
    off = prv_points([one], {mpq(1) + mpq(2, 100): mpq(3, 4)}, mpq(1, 100))
    assert [p.passed for p in off] == [False, False]  # the node holds nothing; 1 is uncovered
