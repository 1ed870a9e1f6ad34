"""python-dp's LaplaceMechanism against its source's formulas, re-derived by hand here, and
against the library's own draws.

From ``cc/algorithms/distributions.cc`` (commit e59bbcf, the one python-dp 1.1.5 builds):
granularity ``g = pow(2, ceil(log2(fl(Δ/ε)/2^40)))``, ``λ = fl(fl(g·ε)/fl(Δ + g))``, noise
``Z·g`` with ``P(Z = k) = (1 − β)/(1 + β)·β^|k|``, ``β = e^−λ``; the input is rounded to
``g·⌊x/g + 1/2⌋`` (``util.cc``). Each expected value below is written out with Python's
``Fraction`` (whose conversion to float rounds to nearest, like the C++ arithmetic), never
taken from plrv's output.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from verifier.audit.runner import run_audit
from verifier.cli import app
from verifier.core.errors import SpecError
from verifier.specs.audit import read_audit_config

pydp_mechanisms = pytest.importorskip("pydp.algorithms.numerical_mechanisms")

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "audit"
SCHEMA = Path(__file__).resolve().parents[1] / "schemas" / "audit-output.v1.json"


def _fl(q: Fraction) -> Fraction:
    """The double nearest to q, as a Fraction."""
    return Fraction(float(q))


def _case(args: dict, **keys: object) -> dict:
    return {"library": "pydp", "constructor": "LaplaceMechanism", "args": args, **keys}


def _run(args: dict, **keys: object):
    c = read_audit_config({"case": [_case(args, **keys)]}, "c.toml")
    return run_audit(c.cases, c.file).rows[0]


def test_unit_epsilon_and_sensitivity_by_hand() -> None:
    """ε = Δ = 1: fl(1/1)/2^40 = 2^-40 is a power of two, so g = 2^-40; λ = fl(2^-40 /
    fl(1 + 2^-40)) = fl(1/(2^40 + 1)) = 2^-40 − 2^-80 (1/(2^40 + 1) = 2^-40·(1 − 2^-40 +
    2^-80 − …), whose 53-bit rounding drops the 2^-120 term); inputs 0 and 1 are 2^40 steps
    apart, so the tight ε is 2^40·λ = 1 − 2^-40."""
    g = Fraction(1, 2 ** 40)
    lam = _fl(_fl(g * 1) / _fl(1 + g))
    assert lam == Fraction(1, 2 ** 40) - Fraction(1, 2 ** 80)
    assert float(lam).hex() == "0x1.fffffffffe000p-41"
    row = _run({"epsilon": {"f64": "1.0"}, "sensitivity": {"f64": "1.0"}})
    assert Fraction(str(row.tight_epsilon.nats)) == 2 ** 40 * lam == 1 - Fraction(1, 2 ** 40)
    assert row.verdict == "unknown" and row.exactness == "proxy"
    assert [x.exact for x in row.witness["inputs"]] == [0, 1]


def test_a_sensitivity_off_the_lattice_costs_a_step_more() -> None:
    """Δ = fl(0.1) = 3602879701896397/2^55, ε = 1: Δ/2^40 lies in (2^-44, 2^-43), so
    g = 2^-43; Δ/g = 3602879701896397/2^12 is not an integer, and two doubles Δ apart can round
    ⌈Δ/g⌉ = 879609302221 steps apart — Δ + (c·g − Δ) — with λ = fl(g / fl(Δ + g))."""
    delta = Fraction(3602879701896397, 2 ** 55)
    assert delta == Fraction(0.1)
    g = Fraction(1, 2 ** 43)
    assert g / 2 < delta / 2 ** 40 <= g
    c = math.ceil(delta / g)
    assert c == 879609302221 and c * g > delta
    lam = _fl(g / _fl(delta + g))
    row = _run({"epsilon": {"f64": "1.0"}, "sensitivity": {"f64": "0.1"}})
    assert Fraction(str(row.tight_epsilon.nats)) == lam * c
    assert lam * c < 1 and row.verdict == "unknown"
    x, y = (Fraction(str(v.exact)) for v in row.witness["inputs"])
    assert y - x <= delta  # neighbours …
    assert round_half_up(y / g) - round_half_up(x / g) == c  # … c steps apart on the lattice


def test_a_tie_in_delta_plus_g_loses_the_slack() -> None:
    """ε = 20000, Δ = 3: fl(3/20000)/2^40 ≈ 1.36·10^-16 lies in (2^-53, 2^-52], so g = 2^-52;
    3 + 2^-52 is halfway between the doubles 3 and 3 + 2^-51 and rounds to even, 3; so
    λ = fl(fl(20000·2^-52)/3) carries no slack for the lattice, and Δ/g = 3·2^52 steps give
    ε = λ·3·2^52, above 20000 by the rounding of λ."""
    g = Fraction(1, 2 ** 52)
    assert g / 2 < _fl(_fl(Fraction(3, 20000)) / 2 ** 40) <= g
    assert _fl(3 + g) == 3
    lam = _fl(_fl(20000 * g) / 3)
    tight = lam * 3 * 2 ** 52
    assert tight - 20000 == Fraction(1, 2 ** 40)
    row = _run({"epsilon": {"f64": "20000"}, "sensitivity": {"f64": "3"}})
    assert Fraction(str(row.tight_epsilon.nats)) == tight
    assert row.verdict == "unknown"  # 2^-40 nats: within what the sampler's rounding may move


def round_half_up(t: Fraction) -> int:
    return math.floor(t + Fraction(1, 2))


def test_inputs_limit_the_pairs() -> None:
    """inputs 0 and 1/2 with Δ = 1: 2^39 steps apart, tight ε = 2^39·λ."""
    lam = Fraction(1, 2 ** 40) - Fraction(1, 2 ** 80)
    row = _run({"epsilon": {"f64": "1.0"}}, inputs=[{"f64": "0"}, {"f64": "0.5"}])
    assert Fraction(str(row.tight_epsilon.nats)) == 2 ** 39 * lam


def test_inputs_on_one_lattice_point_share_one_law() -> None:
    """Δ = 1e300, ε = 1: fl(1e300)/2^40 lies in (2^956, 2^957], so g = 2^957, and 1/3, 2/3
    (as doubles) are both below g/2: each rounds to 0, the releases have one law, ε = 0."""
    delta = Fraction(1e300)
    g = Fraction(2) ** 957
    assert g / 2 < delta / 2 ** 40 <= g
    assert round_half_up(Fraction(1, 3) / g) == round_half_up(Fraction(2, 3) / g) == 0
    row = _run({"epsilon": {"f64": "1.0"}, "sensitivity": {"f64": "1e300"}},
               inputs=["1/3", "2/3"])
    assert row.verdict == "sound" and row.exactness == "exact"
    assert row.tight_epsilon.base == 1  # ε = ln 1 = 0


def test_the_library_draws_on_the_lattice_with_the_source_parameter() -> None:
    """The library's own draws at ε = Δ = 1: every output of input 0 is a multiple of
    g = 2^-40, and of input x = 0.3 (not on the lattice) one of g·⌊x/g + 1/2⌋ + gℤ, not of
    x + gℤ; the share of |noise| ≥ 1 (2^40 steps) is 2β^(2^40)/(1 + β), ≈ e^-1, within five
    standard deviations of 2000 draws."""
    mech = pydp_mechanisms.LaplaceMechanism(epsilon=1.0, sensitivity=1.0)
    g = Fraction(1, 2 ** 40)
    n = 2000
    outs = [Fraction(mech.add_noise(0.0)) for _ in range(n)]
    assert all((o / g).denominator == 1 for o in outs)
    x = Fraction(0.3)
    centre = g * round_half_up(x / g)
    assert centre != x
    assert all(((Fraction(mech.add_noise(0.3)) - centre) / g).denominator == 1
               for _ in range(200))
    lam = float(Fraction(1, 2 ** 40) - Fraction(1, 2 ** 80))
    beta = math.exp(-lam)
    expected = 2 * math.exp(-lam * 2 ** 40) / (1 + beta)
    share = sum(abs(o) >= 1 for o in outs) / n
    assert abs(share - expected) < 5 * math.sqrt(expected * (1 - expected) / n)


def test_subnormal_sensitivity_rounds_lambda_up_by_a_third() -> None:
    """ε = 1.5, Δ = 1.5·2^-1034 = 3·2^-1035: Δ/ε = 2^-1034 and /2^40 = 2^-1074, so
    g = 2^-1074; g·ε = 1.5·2^-1074 is not a double and rounds to even, 2^-1073; λ =
    fl(2^-1073/(3·2^-1035 + 2^-1074)) = fl(2/(3·2^39 + 1)), 4/3 of the intended ratio. Inputs
    0 and Δ are 3·2^39 steps apart: ε = λ·3·2^39 ≈ 2 > 1.5. The library's draws confirm the
    rounded λ: the share of |noise| ≥ m steps, m = ⌈1/λ⌉, is ≈ e^-1, where the intended λ
    would give ≈ e^-3/4."""
    g = Fraction(1, 2 ** 1074)
    eps, delta = Fraction(3, 2), 3 * Fraction(1, 2 ** 1035)
    assert _fl(g * eps) == 2 * g
    lam = _fl(2 * g / (delta + g))
    assert lam == _fl(Fraction(2, 3 * 2 ** 39 + 1))
    steps = delta / g
    assert steps == 3 * 2 ** 39
    row = _run({"epsilon": {"f64": "1.5"}, "sensitivity": {"f64": "0x0.0018000000000p-1022"}})
    assert Fraction(str(row.tight_epsilon.nats)) == lam * steps > Fraction(199, 100)
    assert row.verdict == "unsound" and row.exactness == "proxy"
    mech = pydp_mechanisms.LaplaceMechanism(epsilon=1.5, sensitivity=float(delta))
    n = 2000
    ks = [abs(Fraction(mech.add_noise(0.0)) / g) for _ in range(n)]
    assert all(k.denominator == 1 for k in ks)
    m = math.ceil(1 / lam)
    share = sum(k >= m for k in ks) / n
    lf = float(lam)
    expected = 2 * math.exp(-lf * m) / (1 + math.exp(-lf))
    intended = 2 * math.exp(-0.75 * lf * m) / (1 + math.exp(-0.75 * lf))
    sd = math.sqrt(expected * (1 - expected) / n)
    assert abs(share - expected) < 5 * sd < abs(share - intended)


def test_granularity_zero_releases_the_input() -> None:
    """Δ = 2^-1074, ε = 1: Δ/ε/2^40 underflows to 0, log2(0) = −∞, g = 0: no noise."""
    assert _fl(Fraction(1, 2 ** 1074) / 2 ** 40) == 0
    row = _run({"epsilon": {"f64": "1.0"}, "sensitivity": {"f64": "0x0.0000000000001p-1022"}})
    assert row.verdict == "unsound" and row.exactness == "exact"
    assert row.tight_epsilon.infinite
    mech = pydp_mechanisms.LaplaceMechanism(epsilon=1.0, sensitivity=5e-324)
    for x in (0.0, 5e-324, 0.1, -3.5):
        assert all(mech.add_noise(x) == x for _ in range(50))


@pytest.mark.parametrize(("case", "key"), [
    (_case({"epsilon": {"f64": "1.0"}, "noise": 1}), "args.noise"),
    (_case({"epsilon": {"f64": "0x1p-51"}}), "args.epsilon"),
    (_case({"epsilon": {"f64": "1.0"}, "sensitivity": 0}), "args.sensitivity"),
    (_case({"epsilon": {"f64": "0x1p-50"}, "sensitivity": {"f64": "1e308"}}),
     "args.sensitivity"),  # Δ/ε beyond the largest double
    (_case({"epsilon": {"f64": "1.0"}}, inputs=[True, {"f64": "0"}]), "inputs"),
    (_case({"epsilon": {"f64": "0x1p-50"}, "sensitivity": {"f64": "0x1.0000000000001p+0"}}),
     "args.sensitivity"),  # diversity/2^40 just above 2^10: libm's log2 decides
    (_case({"epsilon": {"f64": "1.0"}}, inputs=[0, 1]), "inputs"),  # the integer path
    (_case({"epsilon": {"f64": "1.0"}}, inputs=[{"f64": "0"}, {"f64": "2"}]), "inputs"),
    (_case({"epsilon": {"f64": "1.0"}}, d_in=1), "d_in"),
    (_case({"epsilon": {"f64": "1.0"}}, compose=2), "compose"),
    ({"library": "pydp", "constructor": "GaussianMechanism",
      "args": {"epsilon": {"f64": "1.0"}, "delta": {"f64": "1e-5"}}}, "constructor"),
    ({"library": "pydp", "constructor": "Count", "args": {}}, "constructor"),
    ({"library": "pydp", "constructor": "BoundedSum", "args": {}}, "constructor"),
])
def test_refusals_name_the_key(case: dict, key: str) -> None:
    c = read_audit_config({"case": [case]}, "c.toml")
    with pytest.raises(SpecError) as info:
        run_audit(c.cases, c.file)
    assert info.value.key.startswith(f"case[0].{key}")


def test_examples_exit_statuses() -> None:
    r = CliRunner().invoke(app, ["audit", str(EXAMPLES / "python_dp_laplace.toml"), "--json"])
    assert r.exit_code == 3, r.output
    assert [c["verdict"] for c in json.loads(r.output)["cases"]] == ["unknown"] * 3
    r = CliRunner().invoke(app, ["audit", str(EXAMPLES / "python_dp_laplace_subnormal.toml"),
                                 "--json"])
    assert r.exit_code == 1, r.output
    out = json.loads(r.output)
    assert [c["verdict"] for c in out["cases"]] == ["unsound", "unsound"]
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(out, json.loads((SCHEMA).read_text(encoding="utf-8")))


def test_report_reproduces_with_the_library_alone(tmp_path: Path) -> None:
    from importlib.metadata import version

    r = CliRunner().invoke(app, ["audit", str(EXAMPLES / "python_dp_laplace_subnormal.toml"),
                                 "--report", str(tmp_path)])
    assert r.exit_code == 1, r.output
    text = (tmp_path / "case-0-LaplaceMechanism.md").read_text(encoding="utf-8")
    assert f"# pydp {version('python-dp')}:" in text
    script = text.split("```python\n")[1].split("```")[0]
    assert "from pydp.algorithms.numerical_mechanisms import LaplaceMechanism" in script
    assert "verifier" not in script
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120, check=True)
    lines = run.stdout.splitlines()  # no noise: each input is its only output, every draw
    assert lines[0] == "claim: epsilon = 1.0"
    assert lines[1:] == ["0.0 [(0.0, 5000)]", "5e-324 [(5e-324, 5000)]"]


def test_conformance_says_why_it_does_not_apply() -> None:
    c = read_audit_config({"case": [_case({"epsilon": {"f64": "1.0"}})]}, "c.toml")
    row = run_audit(c.cases, c.file, conformance=100).rows[0]
    assert any(n.startswith("conformance: does not apply (pydp draws on a lattice")
               for n in row.notes)
