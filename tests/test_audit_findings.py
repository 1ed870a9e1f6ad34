"""The findings the scans bring out (docs/how-to/audit.md#findings), each against an
independent computation: the library's own floating-point arithmetic, or its source's formula
evaluated with mpmath.

* diffprivlib ``Binary`` flips its input iff ``fl(u·fl(e^ε + 1)) > fl(e^ε)``, ``u = k/2^53``.
  With ``E = fl(e^ε)`` just below 2^52 (ulp 1/2) exactly one draw flips — the largest,
  ``u(E + 1) = E + 1/2 + tiny`` rounds to ``E + 1/2`` — so the tight ε is ``ln(2^53 − 1)``;
  from ``E ≥ 2^52`` (ulp ≥ 1) ``u(E + 1) < E + 1/2`` rounds to at most ``E``: no draw flips,
  ε = ∞. The boundary is the first double with numpy's ``exp ≥ 2^52``, 0x1.205966f2b4f13p+5
  ≈ 36.0437 (52·ln 2), not 36.7 (53·ln 2).
* OpenDP's bounded ``make_geometric`` samples with ``α = 1 − p``, ``p = 1 ⊖ e^(−fl(1/scale))``
  rounded up then down: ``α`` can fall below ``e^(−1/scale)``, and the clamped law on
  ``[0, 3]`` at ``d_in = 3`` has tight ε ``3·ln(1/α)`` (the pair 0, 3 at the clamped ends),
  above the map's ``d_in/scale`` rounded up for some scales.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from verifier.cli import app

BINARY = ('[[case]]\nlibrary = "diffprivlib"\nconstructor = "Binary"\n'
          'args = { epsilon = { f64 = "1.0" }, value0 = "0", value1 = "1" }\n')
GEOMETRIC = ('[[case]]\nlibrary = "opendp"\nconstructor = "make_geometric"\n'
             'args = { scale = { f64 = "1.0" }, bounds = [0, 3] }\nd_in = 3\n')
BELOW, AT = "0x1.205966f2b4f12p+5", "0x1.205966f2b4f13p+5"


def _scan(tmp_path, config: str, scan: str) -> tuple[int, dict]:
    cfg = tmp_path / "c.toml"
    cfg.write_text(config)
    r = CliRunner().invoke(app, ["audit", str(cfg), "--json", "--scan", scan])
    return r.exit_code, json.loads(r.output)


def test_binary_boundary_is_fl_exp_at_least_2_to_52(tmp_path) -> None:
    np = pytest.importorskip("numpy")
    pytest.importorskip("diffprivlib")
    below, at = float.fromhex(BELOW), float.fromhex(AT)
    # the library's own arithmetic: np.exp, then u·(E + 1) > E at the largest draw
    assert np.exp(below) < 2.0 ** 52 <= np.exp(at)
    u = (2 ** 53 - 1) / 2 ** 53
    assert u * (np.exp(below) + 1) > np.exp(below)
    assert not u * (np.exp(at) + 1) > np.exp(at)
    assert (2 ** 53 - 2) / 2 ** 53 * (np.exp(below) + 1) <= np.exp(below)  # one draw only
    code, out = _scan(tmp_path, BINARY, f"args.epsilon=36.0,{BELOW},{AT},36.7")
    assert code == 1
    tight = [p["tight_epsilon"]["value"] for p in out["scans"][0]["points"]]
    assert tight == ["ln(9007199254740991)"] * 2 + ["inf"] * 2  # ln(2^53 − 1), then ∞
    assert out["scans"][0]["changes"] == [
        f"{below!r} ({BELOW}) → {at!r} ({AT}): tight ε becomes ∞"]


def _alpha(scale: float):
    """α = 1 − p of OpenDP's bounded geometric, from its source's formula with mpmath:
    x = fl(1/scale), E = e^(−x) rounded up to a double, p = 1 − E rounded down to a double."""
    import math

    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.prec = 300
    x = 1.0 / scale  # a correctly rounded double division
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
    return 1 - mpmath.mpf(p), mpmath


@pytest.mark.parametrize("hex_scale", ["0x1.9c50fa1b29c51p+0", "0x1.bc14e5e0a72f0p+0"])
def test_bounded_geometric_alpha_below_the_claim_at_d_in_3(tmp_path, hex_scale) -> None:
    pytest.importorskip("opendp")
    import opendp.prelude as dp

    dp.enable_features("contrib")
    scale = float.fromhex(hex_scale)
    meas = dp.m.make_geometric(dp.atom_domain(T=int), dp.absolute_distance(T=int),
                               scale=scale, bounds=(0, 3))
    alpha, mpmath = _alpha(scale)
    claim = mpmath.mpf(meas.map(3))
    assert 3 * mpmath.log(1 / alpha) > claim  # the source's law exceeds the library's map
    assert mpmath.mpf(meas.map(1)) >= mpmath.log(1 / alpha)  # absorbed at d_in = 1
    code, out = _scan(tmp_path, GEOMETRIC, f"args.scale={hex_scale}")
    assert code == 1 and out["scans"][0]["first_unsound"].endswith(f"({hex_scale})")


def test_bounded_geometric_grid_agrees_with_the_formula_at_every_point(tmp_path) -> None:
    """50 scales from 1 to 2: the points the scan finds unsound are exactly those where
    mpmath's 3·ln(1/α) exceeds the library's map (here one, 1 + 36/49)."""
    pytest.importorskip("opendp")
    import opendp.prelude as dp

    dp.enable_features("contrib")
    code, out = _scan(tmp_path, GEOMETRIC, "args.scale=1..2/50")
    assert code == 1
    expected = []
    for p in out["scans"][0]["points"]:
        scale = float.fromhex(p["value"].split("(")[1].rstrip(")"))
        meas = dp.m.make_geometric(dp.atom_domain(T=int), dp.absolute_distance(T=int),
                                   scale=scale, bounds=(0, 3))
        alpha, mpmath = _alpha(scale)
        expected.append("unsound" if 3 * mpmath.log(1 / alpha) > mpmath.mpf(meas.map(3))
                        else "sound")
    assert [p["verdict"] for p in out["scans"][0]["points"]] == expected
    assert expected.count("unsound") == 1
    assert out["scans"][0]["first_unsound"] == "1.7346938775510203 (0x1.bc14e5e0a72f0p+0)"
