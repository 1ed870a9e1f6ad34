"""The kernel against forged witnesses of partial-knowledge claims.

The spec: the geometric count (α = 1/2) of 2 records uniform on {0, 1}, clamped to 0..2; the
attacker knows record 0 and targets record 1; at ε = ln(3/2) < ln(1/α) and δ = 0 every
notion fails. Its conditional laws are not point masses and an output appears under both
background values, so the noiseless law (the background summed out) is a true mixture. Each
forged witness must be rejected with the message naming what is wrong.
"""

from __future__ import annotations

import copy
import json
from fractions import Fraction

import pytest

from verifier.certificates.emit import certify_check
from verifier.kernel.verify import verify_certificate
from verifier.reports.json_out import dumps
from verifier.specs.check import parse_spec

GEO = {"data": {"records": 2, "values": [0, 1], "prior": ["1/2", "1/2"]},
       "mechanism": {"kind": "geometric_count", "alpha": "1/2"},
       "attacker": {"target": 1, "known": [0]},
       "query": {"epsilon": "ln(3/2)", "delta": "0",
                 "notions": ["apkdp", "ppkdp", "noiseless"]}}


@pytest.fixture(scope="module")
def geo() -> dict:
    _, cert = certify_check(parse_spec(GEO))
    return json.loads(dumps(cert))


def reason(cert: dict) -> str:
    out = verify_certificate(cert)
    assert out.status[0] == 2, out.status
    return out.reason or ""


def edit(cert: dict, name: str, **changes) -> dict:
    out = copy.deepcopy(cert)
    out["evidence"]["witnesses"][name].update(changes)
    return out


def test_the_honest_certificate_verifies(geo):
    assert verify_certificate(geo).status == (1, "certificate verified: the claim does not hold")
    # the kernel recomputed every law itself (4 databases): the engine's witnesses agree
    assert set(geo["evidence"]["witnesses"]) == {"apkdp", "ppkdp", "noiseless"}


@pytest.mark.parametrize("value", [1, "0", -1])
def test_a_witness_table_outside_the_domain(geo, value):
    assert reason(edit(geo, "apkdp", table=value)).startswith(
        f"evidence.witnesses.apkdp.table: {value!r} is not a table of the domain")


def test_a_witness_of_another_target(geo):
    assert reason(edit(geo, "apkdp", target=0)) == \
        "evidence.witnesses.apkdp.target: 0, but table 0 is of target 1"


def test_a_witness_pair_not_compared(geo):
    assert reason(edit(geo, "apkdp", values=[0, 0])) == \
        "evidence.witnesses.apkdp.values: [0, 0] is not a compared pair"


def test_a_noiseless_witness_has_no_background(geo):
    bg = geo["evidence"]["witnesses"]["apkdp"]["background"]
    assert reason(edit(geo, "noiseless", background=bg)) == \
        "evidence.witnesses.noiseless.background: noiseless privacy has no background"


def _shifted(w: dict, p_a: Fraction) -> dict:
    """``p_a`` changed, δ changed with it (so that only the masses are wrong)."""
    return {"p_a": str(p_a), "delta": str(p_a - Fraction(3, 2) * Fraction(w["p_b"]))}


@pytest.mark.parametrize("name", ["apkdp", "noiseless"])
def test_masses_the_laws_do_not_give(geo, name):
    w = geo["evidence"]["witnesses"][name]
    text = reason(edit(geo, name, **_shifted(w, Fraction(w["p_a"]) + Fraction(1, 7))))
    bg = json.dumps(w["background"], sort_keys=True)
    assert text.startswith(f"evidence.witnesses.{name} (background {bg}): P[S|a], P[S|b] = "
                           f"{Fraction(w['p_a']) + Fraction(1, 7)}, {w['p_b']} in the "
                           f"certificate, {w['p_a']}, {w['p_b']} from the tables"), text


@pytest.mark.parametrize("field", ["p_a", "p_b", "p_background"])
def test_a_ppk_part_that_is_not_a_number(geo, field):
    forged = copy.deepcopy(geo)
    forged["evidence"]["witnesses"]["ppkdp"]["parts"][0][field] = "x"
    assert reason(forged).startswith("evidence.witnesses.ppkdp: 'x' is not an exact rational")


def test_a_ppk_part_with_another_weight(geo):
    forged = copy.deepcopy(geo)
    part = forged["evidence"]["witnesses"]["ppkdp"]["parts"][0]
    part["p_background"] = str(Fraction(part["p_background"]) / 2)
    text = reason(forged)
    assert f"P[B | a] = {part['p_background']} in the certificate, not from the tables" in text


def test_a_ppk_part_listed_twice(geo):
    forged = copy.deepcopy(geo)
    parts = forged["evidence"]["witnesses"]["ppkdp"]["parts"]
    parts.append(copy.deepcopy(parts[0]))
    assert reason(forged) == "evidence.witnesses.ppkdp.parts: a background is listed twice"


def test_a_ppk_witness_over_three_values_verifies():
    # three values, the count of 1s: P[B | a] sums the rows of value a alone (a sum over the
    # rows of the other values would count each background twice)
    raw = {**GEO, "data": {"records": 2, "values": [0, 1, 2], "prior": ["1/3", "1/3", "1/3"]},
           "mechanism": {"kind": "geometric_count", "counts": [1], "alpha": "1/2"},
           "query": {"epsilon": "ln(3/2)", "delta": "0", "notions": ["ppkdp"]}}
    _, cert = certify_check(parse_spec(raw))
    cert = json.loads(dumps(cert))
    assert len(cert["evidence"]["witnesses"]["ppkdp"]["parts"]) >= 1
    assert verify_certificate(cert).status == (1, "certificate verified: the claim does not hold")
