"""The testing literature's algorithms (examples/zoo): plrv's verdicts against the literature's.

Independent sources: the literature's verdicts (cited in examples/zoo/zoo_algorithms.py);
hand derivations for two tight ε; a truncated double sum with a bounded remainder for the
exact noisy-max law; and a direct max-ratio computation for its tight ε at δ = 0 (Lemma 1
with δ = 0: ε is the log of the largest likelihood ratio over ordered neighbours).
"""

from __future__ import annotations

import importlib
import json
import re
import sys
from itertools import product
from pathlib import Path

import pytest
from gmpy2 import mpq
from typer.testing import CliRunner

from verifier.cli import app
from verifier.core.epsilon import Epsilon, parse_epsilon
from verifier.specs.check import load_spec, run_spec

ZOO = Path(__file__).resolve().parent.parent / "examples" / "zoo"
# the table of verdicts in the docs (docs/how-to/testing-zoo.md)
ZOO_DOC = Path(__file__).resolve().parent.parent / "docs" / "how-to" / "testing-zoo.md"

# the literature's verdict at the claimed ε (True: ε-DP)
LITERATURE = {
    "report_noisy_max": True,
    "noisy_max_with_value": False,
    "sparse_vector": True,
    "svt_no_query_noise": False,
    "svt_no_threshold_noise": False,
    "svt_wrong_scale": False,
    "svt_returns_noisy_value": False,
}


@pytest.fixture(scope="module")
def zoo():
    sys.path.insert(0, str(ZOO))
    try:
        yield importlib.import_module("zoo_algorithms")
    finally:
        sys.path.remove(str(ZOO))
        sys.modules.pop("zoo_algorithms", None)


def run(name: str):
    spec = load_spec(ZOO / f"{name}.toml")
    return spec, run_spec(spec).results["dp"]


@pytest.mark.parametrize("name", sorted(LITERATURE))
def test_verdict_matches_the_literature(name):
    spec, r = run(name)
    assert r.holds is LITERATURE[name]
    assert r.witness["relation"] == "linf" and len(r.witness["inputs"]) == 2
    if not r.holds:  # refuted with a witness and a tight ε above the claim
        assert r.epsilon.compare(spec.epsilon) > 0 and r.witness["outputs"]
    else:
        assert r.epsilon.compare(spec.epsilon) <= 0


def test_no_query_noise_is_infinitely_private_loss():
    """q = (0,0,0,0,1) against (0,0,0,0,0): "first ⊤ at the fifth query" needs
    0 < T + ρ ≤ 1 under the first (probable: ρ = 0) and T + ρ ≤ 0 < T + ρ under the second
    (impossible): L = +∞, so the tight ε is ∞ at δ = 0."""
    assert run("svt_no_query_noise")[1].epsilon == Epsilon.INF


def test_no_threshold_noise_costs_ln2_per_answer():
    """With ρ = 0 each answer is a factor P[q + ν ≤ 0] (⊥) or P[q + ν ≥ 1] (⊤); between
    q = 0 and q = 1 these are 2/3 against 1/3 (α = 1/2: P[Z ≤ 0] = 1/(1+α), P[Z ≤ −1] =
    α/(1+α)), ratio 2. Five ⊥ answers from (0,…,0) against (1,…,1) give 2⁵ = 32, and no
    output has more than five factors: tight ε = ln 32."""
    assert run("svt_no_threshold_noise")[1].epsilon == Epsilon.log(32)


def _truncated_argmax(q, alpha, width):
    """P[argmax = i] with every noise cut to |Z| ≤ width (first index on ties)."""
    k = (1 - alpha) / (1 + alpha)
    out = [mpq(0)] * len(q)
    zs = range(-width, width + 1)
    for z in product(zs, repeat=len(q)):
        w = mpq(1)
        for zi in z:
            w *= k * alpha ** abs(zi)
        xs = [a + b for a, b in zip(q, z, strict=True)]
        out[xs.index(max(xs))] += w
    return out


def test_noisy_max_law_against_a_truncated_sum(zoo):
    """The mass left out by the truncation is P[some |Z_j| > w] ≤ 2·len(q)·α^{w+1}/(1+α)."""
    alpha, width = mpq(1, 2), 9
    for q in [(0, 0), (0, 1), (2, 0)]:
        exact = zoo.report_noisy_max(q)
        approx = _truncated_argmax(q, alpha, width)
        bound = 2 * len(q) * alpha ** (width + 1) / (1 + alpha)
        for i in range(len(q)):
            assert abs(exact[i] - approx[i]) <= bound


def test_noisy_max_spec_through_the_cli(zoo):
    """The issue's spec form: plrv check --json reports holds and the tight ε, which at
    δ = 0 is ln of the largest ratio P[M(x) = i]/P[M(y) = i] over ‖x − y‖∞ ≤ 1."""
    xs = list(product(range(3), repeat=3))
    laws = {x: zoo.report_noisy_max(x) for x in xs}
    worst = max(laws[x][i] / laws[y][i] for x in xs for y in xs
                if x != y and max(abs(a - b) for a, b in zip(x, y, strict=True)) <= 1
                for i in range(3))
    result = CliRunner().invoke(app, ["check", str(ZOO / "report_noisy_max.toml"), "--json"])
    assert result.exit_code == 0, result.output
    dp = json.loads(result.output)["dp"]
    assert dp["holds"] is True
    assert parse_epsilon(dp["epsilon"]) == Epsilon.log(worst)
    assert dp["worst_case"]["relation"] == "linf"


def test_docs_table_lists_every_algorithm_with_both_verdicts():
    rows = {m.group(1): (m.group(2), m.group(3)) for m in re.finditer(
        r"^\| `(\w+)` \|[^|]*\| (ε-DP|not ε-DP) \| (holds|fails)",
        ZOO_DOC.read_text(encoding="utf-8"), re.MULTILINE)}
    assert set(rows) == set(LITERATURE)
    for name, (literature, plrv) in rows.items():
        assert (literature == "ε-DP") is LITERATURE[name]
        assert (plrv == "holds") is run(name)[1].holds
