"""Rényi DP and zCDP of compositions: against the product laws built by Dist and closed forms."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest
from gmpy2 import mpq
from typer.testing import CliRunner

from verifier.cli import app
from verifier.core.distribution import Dist
from verifier.core.errors import InvalidArgument, VerifierError
from verifier.model.mechanisms import mechanism, randomized_response
from verifier.notions.dp.neighbours import replace_one
from verifier.notions.renyi.compose import compose_renyi
from verifier.notions.renyi.divergence import renyi, terms_of
from verifier.notions.renyi.zcdp import sup_ratio, sup_ratio_sum

RR = randomized_response("3/4", [0, 1])
RR2 = randomized_response("2/3", [0, 1])


def _mp(x) -> mpmath.mpf:
    return mpmath.mpf(int(x.numerator)) / int(x.denominator)


@pytest.mark.parametrize("k", [1, 2, 5, 40])
@pytest.mark.parametrize("alpha", [2, 3, 7])
def test_k_fold_randomized_response_is_the_closed_form(k, alpha):
    # S_α = ((3^α + 3^{1−α})/4)^k: a hand derivation, raised to the k-th power
    s = (Fraction(3 ** alpha, 4) + Fraction(1, 4 * 3 ** (alpha - 1))) ** k
    r = compose_renyi([RR] * k, replace_one([0, 1], 1), orders=[alpha], rho="1000")
    v = r.results["rdp"].orders[0].value
    assert isinstance(v.moment, type(mpq(0))) and v.moment == mpq(s.numerator, s.denominator)


def test_a_heterogeneous_list_equals_the_divergence_of_the_product_laws():
    """Three different mechanisms composed: plrv multiplies the parts' moments; the reference
    builds the product laws with Dist and takes the divergence of those."""
    third = mechanism(lambda d: Dist({d[0]: "1/2", 1 - d[0]: "1/3", 2: "1/6"}), "third")
    mechs = [RR, RR2, third]
    r = compose_renyi(mechs, replace_one([0, 1], 1), orders=[2, 3, 5], rho="100")
    for row in r.results["rdp"].orders:
        worst = max(renyi(RR((x,)) * RR2((x,)) * third((x,)),
                           RR((1 - x,)) * RR2((1 - x,)) * third((1 - x,)), row.order).moment
                     for x in (0, 1))
        assert row.value.moment == worst


def test_zcdp_of_k_runs_is_k_times_the_kl_divergence():
    # randomized response's ρ* is its KL divergence ln(3)/2 (attained as α → 1); k runs: k·that
    r = compose_renyi([RR] * 10, replace_one([0, 1], 1), ["zcdp"], rho="6")
    z = r.results["zcdp"]
    ref = 10 * mpmath.log(3) / 2
    assert z.holds is True and _mp(z.lo) <= ref <= _mp(z.hi)
    assert compose_renyi([RR] * 10, replace_one([0, 1], 1), ["zcdp"],
                         rho="27/5").results["zcdp"].holds is False  # 5.4 < 5.493


def test_the_summed_search_agrees_with_the_search_on_the_product_law():
    """Two certified enclosures of the same number — one from the parts, one from the product
    law built by Dist — must overlap."""
    third = mechanism(lambda d: Dist({d[0]: "5/8", 1 - d[0]: "1/4", 2: "1/8"}), "third")
    p = RR((0,)) * third((0,)) * third((0,))
    q = RR((1,)) * third((1,)) * third((1,))
    whole = sup_ratio(terms_of(p, q), None)
    parts = sup_ratio_sum([(1, terms_of(RR((0,)), RR((1,)))),
                           (2, terms_of(third((0,)), third((1,))))], None)
    assert max(whole.lo, parts.lo) <= min(whole.hi, parts.hi)


def test_an_impossible_output_in_one_part_is_infinite():
    sure = mechanism(lambda d: Dist({d[0]: 1}), "identity")
    r = compose_renyi([RR, sure], replace_one([0, 1], 1), ["rdp", "zcdp"], orders=[2],
                      rho="100")
    assert r.results["rdp"].orders[0].value.infinite and r.results["rdp"].holds is False
    assert r.results["zcdp"].infinite and r.results["zcdp"].holds is False


@pytest.mark.parametrize("kwargs, argument", [
    ({"notions": ["rdp"]}, "orders"),                       # rdp without orders: not vacuous
    ({"notions": ["zcdp"]}, "rho"),
    ({"notions": ["dp"], "orders": [2], "rho": "1"}, "notions"),
    ({"notions": ["rdp", "rdp"], "orders": [2], "rho": "1"}, "notions"),
    ({"notions": ["zcdp"], "orders": [2], "rho": "1"}, "orders"),
    ({"notions": ["rdp"], "orders": [1], "rho": "1"}, "orders"),
])
def test_bad_claims_are_refused_naming_the_argument(kwargs, argument):
    kwargs = dict(kwargs)  # the parameters are shared between runs: never consume them
    notions = kwargs.pop("notions")
    with pytest.raises(InvalidArgument) as e:
        compose_renyi([RR] * 2, replace_one([0, 1], 1), notions, **kwargs)
    assert e.value.argument == argument


def test_a_moment_too_large_is_refused_before_it_is_built():
    with pytest.raises(VerifierError, match="bits"):
        compose_renyi([RR] * 10**6, replace_one([0, 1], 1), orders=[1024], rho="1")


# ------------------------------------------------------------------ plrv compose

SPEC = """[data]
records = 1
values = [0, 1]
[mechanism]
kind = "randomized_response"
truth = "3/4"
[query]
notions = {notions}
orders = [2]
rho = "{rho}"
delta = "1/1000"
"""


def _spec(tmp_path: Path, notions: str = '["rdp", "zcdp"]', rho: str = "28",
          extra: str = "") -> str:
    p = tmp_path / "s.toml"
    p.write_text(SPEC.format(notions=notions, rho=rho) + extra)
    return str(p)


def test_plrv_compose_rdp_exit_codes(tmp_path):
    runner = CliRunner()
    ok = runner.invoke(app, ["compose", "--json", _spec(tmp_path), "--k", "50"])
    assert ok.exit_code == 0, ok.output
    out = json.loads(ok.stdout)
    assert out["k"] == 50 and out["rdp"]["orders"][0]["value"] == \
        f"ln({Fraction(7, 3) ** 50})".replace("Fraction", "")
    # 50·ln(3)/2 ≈ 27.47 > 27: zcdp fails; D_2 = 50·ln(7/3) ≈ 42.4 ≤ 54: rdp holds
    bad = runner.invoke(app, ["compose", "--json", _spec(tmp_path, rho="27"), "--k", "50"])
    assert bad.exit_code == 1, bad.output
    assert json.loads(bad.stdout)["zcdp"]["holds"] is False


@pytest.mark.parametrize("args, key", [
    (["--k", "2", "--accounting"], "--accounting"),
    (["--k", "2", "--grid", "ln(2)"], "--grid"),
    (["--k", "2", "--enclosure", "always"], "--enclosure"),
    (["--k", "2", "--max-values", "10"], "--max-values"),
    ([], "--k"),
])
def test_plrv_compose_rdp_refuses_what_it_does_not_apply(tmp_path, args, key):
    out = CliRunner().invoke(app, ["compose", "--json", _spec(tmp_path), *args])
    assert out.exit_code == 2 and key in out.output


def test_a_composition_table_beside_rdp_is_refused(tmp_path):
    spec = _spec(tmp_path, extra='[composition]\nenclosure = "never"\n')
    out = CliRunner().invoke(app, ["compose", "--json", spec, "--k", "2"])
    assert out.exit_code == 2 and "composition" in out.output
