"""Conjectures about composition under partial knowledge, and their records.

Hand derivations (two i.i.d. records, P[1] = 1/2, target 0, nothing known):

* the differencing pair. The count C = x0 + x1 given x0 = 0 is 0 or 1, given x0 = 1 it is 1 or
  2 (1/2 each): at ε = 0 (E = 1) δ = total variation = 1/2. The count without the target,
  x1, does not depend on x0: δ = 0. Together (C, x1) gives x0 = C − x1: δ = 1 at 2ε = 0, more
  than 1/2 + 0.
* two runs of randomized response (truth 3/4) of x0 OR x1. One run: P[0 | x0 = 0] =
  1/2·3/4 + 1/2·1/4 = 1/2 and P[0 | x0 = 1] = 1/4, ratio 2; P[1 | ·] = 1/2 and 3/4, ratio
  2/3 or 3/2: δ(ln 2) = 0 both ways. Two runs, output (0, 0): P[· | x0 = 0] = 1/2·9/16 +
  1/2·1/16 = 5/16, P[· | x0 = 1] = 1/16, ratio 5 > 4 = e^{2 ln 2}: δ(ln 4) ≥ 5/16 − 4/16 =
  1/16, and the other outputs have ratio ≤ 4 ((0,1): 3/16·… = (1/2·3/16 + 1/2·3/16)/(3/16)
  = 1; (1,1): (1/2·1/16 + 1/2·9/16)/(9/16) = 5/9), so δ(ln 4) = 1/16 > 2·0.
"""

from __future__ import annotations

import json

from gmpy2 import mpq
from typer.testing import CliRunner

from verifier.cli import app
from verifier.search.composition import adds_up, pair_mechanism, parts, runs_add_up
from verifier.search.conjectures import SearchBudget, conjecture, search
from verifier.search.small_families import build

runner = CliRunner()
IID = {db: mpq(1, 4) for db in ((0, 0), (0, 1), (1, 0), (1, 1))}
NOTHING = lambda db: {(): 1}  # noqa: E731


def test_the_differencing_pair_is_found_by_plrv_search():
    run = runner.invoke(app, ["search", "noiseless-composes", "--json", "--examples", "0"])
    assert run.exit_code == 1, run.output
    out = json.loads(run.stdout)
    assert out["counterexample_found"] is True
    assert "count and count without record 0" in out["counterexample"]["label"]
    assert (out["recheck"]["noiseless_first"], out["recheck"]["noiseless_second"],
            out["recheck"]["noiseless_composed"]) == ("1/2", "0", "1")
    assert out["size"]["records"] == 2


def test_the_differencing_pair_by_hand():
    count = lambda db: {sum(db): 1}  # noqa: E731
    rest = lambda db: {db[1]: 1}  # noqa: E731
    inst = build((0, 1), 2, IID, pair_mechanism(count, rest), NOTHING, 0, 1)
    first, second = parts(inst)
    assert first.deltas["noiseless"] == mpq(1, 2) and second.deltas["noiseless"] == 0
    assert inst.deltas["noiseless"] == 1  # the composition at 2ε = 0
    assert not adds_up("noiseless")(inst) and not adds_up("apk")(inst)


def test_two_runs_of_rr_of_an_or_do_not_add_up_by_hand():
    rr_or = lambda db: {int(any(db)): mpq(3, 4), 1 - int(any(db)): mpq(1, 4)}  # noqa: E731
    inst = build((0, 1), 2, IID, pair_mechanism(rr_or, rr_or), NOTHING, 0, 2)
    one, _ = parts(inst)
    assert one.deltas["ppk"] == 0
    twice = build((0, 1), 2, IID, pair_mechanism(rr_or, rr_or), NOTHING, 0, 4)
    assert twice.deltas["ppk"] == mpq(1, 16)
    assert not runs_add_up("ppk")(inst)
    res = search(conjecture("ppk-runs-add-up"), SearchBudget(examples=0))
    assert res.found and res.deltas["ppk_first"] == 0 and res.deltas["ppk_composed"] == \
        mpq(1, 16)


def test_a_non_product_instance_is_no_counterexample():
    # two equal bits (marginals uniform, the product would give all four pairs): no pair of
    # independent releases, as after a shrinking move that merges outputs
    joint = lambda db: {(0, 0): mpq(1, 2), (1, 1): mpq(1, 2)}  # noqa: E731
    inst = build((0, 1), 2, IID, joint, NOTHING, 0, 1)
    assert parts(inst) is None and adds_up("noiseless")(inst)


def test_every_composition_record_gives_its_verdict():
    from proofs.composition_partial_records import COMPOSITION_PARTIAL_RECORDS
    from proofs.record import run_record

    statuses = {t.name: run_record(t)[1] for t in COMPOSITION_PARTIAL_RECORDS}
    assert statuses == {
        "composition-full-knowledge": "holds",
        "composition-histograms": "holds",
        "composition-noiseless-adds": "refuted, as the seeds say",
        "composition-apk-adds": "refuted, as the seeds say",
        "composition-ppk-runs-add": "refuted, as the seeds say",
    }
