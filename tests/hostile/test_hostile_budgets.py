"""Budgets that must stop work before it starts (issue item 2).

Each case runs in a subprocess under 2 GiB / 20 s CPU / 30 s wall: an input that makes plrv
allocate a billion records, list 2^32 predicates or print a 6000-digit count must be refused
while reading (exit 2 naming the key or the budget), or finish within the limits with a verdict.
A budget error is short: sizes are printed as ``2^20000``, never as thousands of digits.
"""

from __future__ import annotations

import re

import pytest
from harness import (
    FAMILY,
    GUESS,
    PARTIAL,
    PSO_COUNT,
    PSO_TRIVIAL,
    RR,
    SWEEP,
    assert_error,
    assert_verdict,
    assert_verdict_or_error,
    error_line,
    mutate,
    run,
    write,
)

BUDGET = ("budget", "limits")  # a budget refusal names the budget or a [limits] key
REFUSAL_SECONDS = 5  # a refusal comes from an estimate made before the work: it is immediate


def _refused_before_working(o) -> None:
    if o.seconds >= REFUSAL_SECONDS:
        pytest.fail(f"refused only after {o.seconds:.1f} s: the budget must stop the work "
                    f"before it starts\n{o.describe()}", pytrace=False)


def _spread_weights(size: int) -> list[str]:
    """``size`` weights of 1000 different sizes, summing to 1."""
    nums = [j % 1000 + 1 for j in range(size)]
    total = sum(nums)  # once: summed per weight, 2^16 weights took half of the suite's collection
    return [f"{k}/{total}" for k in nums]


def _records(base, n):
    return mutate(base, "data.records", n)


# ---------------------------------------------------------------- sizes refused while reading

HUGE_SIZES = [
    pytest.param("check", _records(RR, 1_000_000_000), ("data.records", "limits"),
                 id="check:rr-records=10^9"),
    pytest.param("check", _records(PARTIAL, 1_000_000_000), ("data.records", "limits"),
                 id="check:iid-prior-records=10^9"),
    pytest.param("check", _records(PARTIAL, 2 ** 63 - 1), ("data.records", "limits"),
                 id="check:iid-prior-records=2^63-1"),
    pytest.param("check", _records(RR, 10 ** 18), ("data.records", "limits"),
                 id="check:rr-records=10^18"),
    pytest.param("check", mutate(RR, "data.values", list(range(100_000))),
                 ("data.values", "limits", "budget"), id="check:rr-100000-values"),
    pytest.param("pso", mutate(PSO_TRIVIAL, "rows.n", 1_000_000_000),
                 ("rows.n", "limits.datasets"), id="pso:rows.n=10^9"),
    pytest.param("pso", mutate(PSO_TRIVIAL, "rows.n", 2 ** 62), ("rows.n", "limits.datasets"),
                 id="pso:rows.n=2^62"),
    pytest.param("pso", mutate(mutate(PSO_COUNT, "universe", {"bits": 5}), "mechanism.predicate",
                               "x < 3"), ("adversary", "limits", "universe"),
                 id="pso:optimal-adversary-bits=5"),
    pytest.param("pso", mutate(PSO_COUNT, "universe.values", list(range(10_000))),
                 ("adversary", "limits", "universe"), id="pso:optimal-adversary-10000-values"),
    pytest.param("pso", {"universe": {"bits": 16}, "rows": {"n": 3},
                         "mechanism": {"kind": "identity"},
                         "adversary": {"kind": "trivial", "weight_at_most": "1/65536"}},
                 ("rows.n", "limits.datasets", "universe"), id="pso:identity-bits=16-rows=3"),
    pytest.param("family", mutate(FAMILY, "data.records", 30), ("data.records", "limits"),
                 id="family:records=30"),
    # 2^20 databases within limits.databases, but each law has 2^20 outputs: the work
    # estimate must come from the mechanism's definition, not from evaluating one law
    pytest.param("check", _records(RR, 20), ("limits.work",), id="check:rr-dp-records=20"),
    # 65,536 weights of 1000 sizes: up to 2·10^7 distinct subset weights for the baseline,
    # bounded before any is built
    pytest.param("pso", {"universe": {"bits": 16, "weights": _spread_weights(1 << 16)},
                         "rows": {"n": 1}, "mechanism": {"kind": "identity"},
                         "adversary": {"kind": "trivial"}},
                 ("limits.predicates",), id="pso:bits=16-distinct-weights"),
]


@pytest.mark.parametrize("command, doc, needle", HUGE_SIZES)
@pytest.mark.slow
def test_huge_size_refused(tmp_path, command, doc, needle):
    spec = write(tmp_path, doc)
    args = [command, spec] + (["--param", "truth", "--range", "1/2..3/4"]
                              if command == "family" else [])
    o = run(args)
    line = assert_error(o, needle, file=spec, max_len=400)
    assert not re.search(r"\d{60}", line), f"a number of 60+ digits in the message: {line}"
    _refused_before_working(o)


# ---------------------------------------------------------------- short budget messages

LONG_COUNTS = [
    pytest.param(["--engine", "brute"], _records(PARTIAL, 20_000), id="brute-engine-20000-records"),
    pytest.param([], _records(RR, 20_000), id="rr-20000-records"),
    pytest.param([], mutate(_records(RR, 5_000), "data.values", [0, 1, 2]),
                 id="rr-3-values-5000-records"),
    pytest.param(["--budget", "10"], _records(RR, 4_000), id="rr-4000-records-budget-10"),
]


@pytest.mark.parametrize("options, doc", LONG_COUNTS)
@pytest.mark.slow
def test_budget_message_is_short(tmp_path, options, doc):
    """Issue: printing 2^20000 in full needs 6021 digits (and crashed on the digit limit)."""
    spec = write(tmp_path, doc)
    line = assert_error(run(["check", spec, *options]), "budget", file=spec, max_len=400)
    assert not re.search(r"\d{60}", line), f"a number of 60+ digits in the message: {line}"
    assert re.search(r"\d+\s*\^\s*\d+", line), f"the size is not written as a power: {line}"


# ---------------------------------------------------------------- finish or refuse

FINISH_OR_REFUSE = [
    pytest.param(["check"], _records(RR, 10), (1,), id="check:rr-brute-records=10"),
    pytest.param(["check"], _records(RR, 11), (1,), id="check:rr-brute-records=11"),
    pytest.param(["check"], mutate(mutate(_records(PARTIAL, 1_000_000), "attacker.target",
                                          999_999), "attacker.known", list(range(100))),
                 (0, 1), id="check:count-engine-records=10^6"),
    pytest.param(["guess"], mutate(GUESS, "domain.range", [0, 199]), (0,),
                 id="guess:200-values"),
    pytest.param(["guess"], mutate(GUESS, "domain.range", [0, 999]), (0,),
                 id="guess:1000-values"),
    pytest.param(["guess"], {"domain": {"grid": [list(range(100)), list(range(100))]},
                             "mechanism": {"kind": "identity"},
                             "goal": {"precision": [1, 1]}}, (0,), id="guess:grid-100x100"),
]


@pytest.mark.parametrize("args, doc, verdicts", FINISH_OR_REFUSE)
@pytest.mark.slow
def test_finishes_or_is_refused_by_the_budget(tmp_path, args, doc, verdicts):
    spec = write(tmp_path, doc)
    o = run([*args, spec])
    assert_verdict_or_error(o, verdicts, BUDGET, file=spec, max_len=400)
    if o.exit_code == 2:
        _refused_before_working(o)


@pytest.mark.slow
def test_compose_k_runs_refused_from_an_estimate(tmp_path):
    """500,000 runs of randomized response would take minutes and gigabytes exactly: the
    polynomial route's work is estimated from the laws of one run (k + 1 loss values,
    integers growing by a few bits a run) and refused before the first product."""
    doc = mutate(mutate(RR, "data.records", 1), "query.delta", "1/2")
    spec = write(tmp_path, doc)
    o = run(["compose", "--json", spec, "--k", "500000"])
    assert_error(o, "limits.work", file=spec, max_len=400)
    _refused_before_working(o)
    assert_verdict(run(["compose", "--json", spec, "--k", "50"]), (0, 1))


PROVE_EVERY_SET = {
    "parameters": {"p": {"gt": "0", "lt": "1"}},
    "data": {"records": 10, "values": [0, 1], "prior": ["1 - p", "p"]},
    "mechanism": {"kind": "threshold_count", "counts": [1], "threshold": 2},
    "attacker": {"target": 9},
    "query": {"epsilon": "ln(2)", "delta": "1/10", "notions": ["apkdp", "ppkdp"]},
}


@pytest.mark.slow
def test_prove_every_known_set_counts_its_instances_first(tmp_path):
    """Target 9 of 10 records: 2^9 = 512 sets of known records, each a solver call; more
    than --max-instances (256) is refused before the first."""
    spec = write(tmp_path, PROVE_EVERY_SET)
    o = run(["prove", spec, "--claim", "lemma5", "--every-known-set"])
    line = assert_error(o, "--max-instances", file=spec, max_len=400)
    assert "512 instances" in line
    _refused_before_working(o)


@pytest.mark.slow
def test_prove_every_known_set_is_refused_for_dp(tmp_path):
    doc = mutate(mutate(mutate(PROVE_EVERY_SET, "query.notions", ["dp"]), "attacker"),
                 "data.prior")  # dp reads neither an attacker nor a data model
    spec = write(tmp_path, doc)
    assert_error(run(["prove", spec, "--claim", "dp <= 1", "--every-known-set"]),
                 "--every-known-set")


def test_sweep_huge_threshold_range_refused(tmp_path):
    spec = write(tmp_path, SWEEP)
    assert_error(run(["sweep", spec, "--threshold", "0..99999999999"]), "--threshold",
                 max_len=400)


# ---------------------------------------------------------------- controls

def test_control_budget_refusal_is_exit_2(tmp_path):
    """records = 25 over the default budget: a clean refusal that names the budget."""
    spec = write(tmp_path, _records(RR, 25))
    line = assert_error(run(["check", spec]), "budget", file=spec, max_len=400)
    assert "--budget" in line


def test_control_raised_budget_decides(tmp_path):
    spec = write(tmp_path, _records(RR, 4))
    assert_verdict(run(["check", spec, "--budget", "16"]), 1)
    assert_error(run(["check", spec, "--budget", "15"]), "budget", file=spec)


def test_control_count_engine_scales(tmp_path):
    """1000 records by counts, the thesis's Example 7 shape: decided within the limits."""
    doc = mutate(mutate(PARTIAL, "data.records", 1000), "attacker.target", 999)
    doc = mutate(doc, "data.prior", ["999999/1000000", "1/1000000"])
    doc = mutate(doc, "mechanism.threshold", 100)
    doc = mutate(doc, "attacker.known", list(range(100)))
    doc = mutate(doc, "query.delta", "1e-100")
    o = run(["check", write(tmp_path, doc)])
    assert_verdict(o, 1)
    assert error_line(o) == ""
