"""Meaningless claims must not be reported as holding (issue item 6), and a vacuous claim is
decided, not refused (issue item 8).

* PSO: a negative ``weight_at_most``, an empty weight window, a negative ``factor`` or
  ``slack``, ``limits.datasets <= 0``, ``bits = 2`` with 2 weights (for 4 values);
* ``plrv family``: ``--timeout <= 0``, and everything it does not support — ``notions`` other
  than dp, an ``[attacker]``, a prior — is refused (exit 2) instead of silently ignored;
* ``[attacker] pairs`` naming only values the target never takes: δ = 0, "holds" (exit 0)
  with a note.
"""

from __future__ import annotations

import json

import pytest
from harness import (
    FAMILY,
    PSO_COMPOSITION,
    PSO_COUNT,
    PSO_TRIVIAL,
    assert_error,
    assert_verdict,
    invoke,
    mutate,
    run,
    write,
)

# ---------------------------------------------------------------- PSO

PSO_MEANINGLESS = [
    pytest.param(mutate(PSO_TRIVIAL, "adversary.weight_at_most", "-1"),
                 "adversary.weight_at_most", id="weight_at_most=-1"),
    pytest.param(mutate(PSO_COUNT, "adversary.weight_at_most", "-1/4"),
                 "adversary.weight_at_most", id="weight_at_most=-1/4-optimal"),
    pytest.param(mutate(PSO_TRIVIAL, "adversary.weight_at_least", "1/2"),
                 ("adversary.weight_at_least", "adversary.weight_at_most"),
                 id="empty-window-1/2..1/4"),
    pytest.param(mutate(mutate(PSO_COUNT, "adversary.weight_at_least", "3/4"),
                        "adversary.weight_at_most", "1/8"),
                 ("adversary.weight_at_least", "adversary.weight_at_most"),
                 id="empty-window-3/4..1/8-optimal"),
    pytest.param(mutate(PSO_COUNT, "claim.factor", "-1"), "claim.factor", id="factor=-1"),
    pytest.param(mutate(PSO_COUNT, "claim.slack", "-1/2"), "claim.slack", id="slack=-1/2"),
    pytest.param(mutate(PSO_TRIVIAL, "limits", {"datasets": 0}), "limits.datasets",
                 id="datasets=0"),
    pytest.param(mutate(PSO_TRIVIAL, "limits", {"datasets": -5}), "limits.datasets",
                 id="datasets=-5"),
    pytest.param({"universe": {"bits": 2, "weights": ["1/2", "1/2"]}, "rows": {"n": 2},
                  "mechanism": {"kind": "identity"},
                  "adversary": {"kind": "trivial", "weight_at_most": "1/2"}},
                 "universe.weights", id="bits=2-with-2-weights"),
    pytest.param({"universe": {"bits": 3, "weights": ["1/8"] * 8 + ["0"]}, "rows": {"n": 2},
                  "mechanism": {"kind": "identity"},
                  "adversary": {"kind": "trivial", "weight_at_most": "1/2"}},
                 "universe.weights", id="bits=3-with-9-weights"),
]


@pytest.mark.parametrize("doc, needle", PSO_MEANINGLESS)
def test_pso_meaningless_claim(tmp_path, doc, needle):
    spec = write(tmp_path, doc)
    assert_error(invoke(["pso", spec]), needle, file=spec)


@pytest.mark.parametrize("doc, code", [
    pytest.param(PSO_COUNT, 0, id="count-optimal-factor-4-holds"),
    pytest.param(mutate(PSO_COUNT, "claim.factor", 1), 1, id="count-optimal-factor-1-fails"),
    pytest.param(mutate(PSO_COUNT, "claim.slack", "1"), 0, id="slack-1-holds"),
    pytest.param(mutate(mutate(PSO_COUNT, "adversary.weight_at_least", "1/8"),
                        "adversary.weight_at_most", "1/8"), 0, id="window-1/8..1/8"),
    pytest.param(PSO_COMPOSITION, 1, id="composition-fails"),
    pytest.param({"universe": {"bits": 2, "weights": ["1/2", "1/4", "1/8", "1/8"]},
                  "rows": {"n": 2}, "mechanism": {"kind": "identity"},
                  "adversary": {"kind": "trivial", "weight_at_most": "1/2"}}, 0,
                 id="bits=2-with-4-weights-trivial-holds"),
])
def test_pso_controls(tmp_path, doc, code):
    assert_verdict(invoke(["pso", write(tmp_path, doc)]), code)


# ---------------------------------------------------------------- plrv family

RANGE = ["--param", "truth", "--range", "1/2..3/4"]

FAMILY_UNSUPPORTED = [
    pytest.param(mutate(mutate(FAMILY, "query.notions", ["apkdp"]), "data.prior",
                        ["1/2", "1/2"]), "query.notions", id="notions=apkdp-with-prior"),
    pytest.param(mutate(mutate(FAMILY, "query.notions", ["dp", "ppkdp"]), "data.prior",
                        ["1/2", "1/2"]), "query.notions", id="notions=dp,ppkdp-with-prior"),
    pytest.param(mutate(mutate(FAMILY, "query.notions", ["noiseless"]), "data.prior",
                        ["1/2", "1/2"]), "query.notions", id="notions=noiseless-with-prior"),
    pytest.param(mutate(FAMILY, "attacker", {"target": 1, "known": [0]}), "attacker",
                 id="with-attacker"),
    pytest.param(mutate(FAMILY, "attacker", {"pairs": [[0, 1]]}), "attacker",
                 id="with-attacker-pairs"),
    pytest.param(mutate(FAMILY, "data.prior", ["9/10", "1/10"]), "data.prior",
                 id="with-prior"),
    pytest.param(mutate(mutate(FAMILY, "data.prior"), "data.priors",
                        [["1/2", "1/2"], ["1/3", "2/3"]]), "data.priors", id="with-priors"),
]


@pytest.mark.parametrize("doc, needle", FAMILY_UNSUPPORTED)
@pytest.mark.slow
def test_family_refuses_what_it_ignores(tmp_path, doc, needle):
    spec = write(tmp_path, doc)
    assert_error(run(["family", spec, *RANGE]), needle, file=spec)


@pytest.mark.parametrize("timeout", ["0", "-1", "-100"])
def test_family_timeout_must_be_positive(tmp_path, timeout):
    spec = write(tmp_path, FAMILY)
    assert_error(run(["family", spec, *RANGE, "--timeout", timeout]), "--timeout")


@pytest.mark.slow
def test_family_timeout_is_honoured_end_to_end(tmp_path):
    """5 records over 3 values: 2430 pairs of 243-output laws make a formula whose building
    alone takes about a minute; --timeout 1 covers the building too, and the answer is
    unknown (exit 3), never a verdict reached after the limit."""
    doc = mutate(mutate(mutate(FAMILY, "data.records", 5), "data.values", [0, 1, 2]),
                 "query.delta", "1/100")
    o = run(["family", write(tmp_path, doc), "--param", "truth", "--range", "1/2..9/10",
             "--timeout", "1"])
    assert_verdict(o, 3)
    assert "out of time" in o.stdout
    assert o.seconds < 20, f"--timeout 1 took {o.seconds:.1f} s"


@pytest.mark.parametrize("range_, code, status", [
    pytest.param("1/2..3/4", 0, "holds", id="truth-1/2..3/4-holds"),
    pytest.param("1/2..4/5", 1, "fails", id="truth-1/2..4/5-fails"),
])
@pytest.mark.slow
def test_family_controls(tmp_path, range_, code, status):
    o = run(["family", write(tmp_path, FAMILY), "--param", "truth", "--range", range_, "--json"])
    assert_verdict(o, code)
    assert json.loads(o.stdout)["status"] == status


# ---------------------------------------------------------------- vacuous pairs (item 8)

VACUOUS = {
    "data": {"records": 3, "values": [0, 1, 2, 3], "prior": ["1/2", "1/2", "0", "0"]},
    "mechanism": {"kind": "count", "counts": [1]},
    "attacker": {"target": 2, "known": [0], "pairs": [[2, 3]]},
    "query": {"epsilon": "ln(2)", "delta": "0", "notions": ["apkdp", "ppkdp", "noiseless"]},
}
VACUOUS_PRIORS = mutate(mutate(VACUOUS, "data.prior"), "data.priors",
                        [["1/2", "1/2", "0", "0"], ["1/3", "1/3", "1/3", "0"],
                         ["1/2", "1/2", "0", "0"]])


@pytest.mark.parametrize("doc", [pytest.param(VACUOUS, id="iid-prior"),
                                 pytest.param(VACUOUS_PRIORS, id="per-record-priors")])
def test_vacuous_pairs_hold_with_a_note(tmp_path, doc):
    spec = write(tmp_path, doc)
    text = invoke(["check", spec])
    assert_verdict(text, 0)
    assert "note" in text.stdout.lower() or "note" in text.stderr.lower(), \
        f"no note that the claim is vacuous:\n{text.describe()}"
    js = invoke(["check", spec, "--json"])
    assert_verdict(js, 0)
    out = json.loads(js.stdout)
    for notion in ("apkdp", "ppkdp", "noiseless"):
        assert out[notion]["delta"] == "0" and out[notion]["holds"] is True, out[notion]


def test_control_pairs_with_a_taken_value(tmp_path):
    """The same spec comparing values the target does take: decided, δ > 0 (exit 1)."""
    spec = write(tmp_path, mutate(VACUOUS, "attacker.pairs", [[0, 1]]))
    assert_verdict(invoke(["check", spec]), 1)
