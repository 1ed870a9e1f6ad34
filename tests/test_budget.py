"""Budgets: every limit refuses before the work starts, names its key and prints a short size.

Expected sizes are worked out by hand from the estimate formulas in ``verifier.core.budget``
(e.g. randomized response on 10 records: 2^10 databases × 2^10 outputs × 1 background × 10
targets = 10·2^20 = 10485760 table updates).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from gmpy2 import mpq

from verifier.core.budget import Budget, budget_from_limits, format_power, format_size
from verifier.core.distribution import Dist
from verifier.core.errors import BudgetExceeded, SpecError
from verifier.engines import choice
from verifier.engines.choice import joint_tables
from verifier.guessing.metric import tight_epsilon
from verifier.model.data import iid
from verifier.model.knowledge import known_indices, no_knowledge
from verifier.model.mechanisms import build_mechanism, randomized_response
from verifier.notions.dp.api import check_dp
from verifier.notions.dp.neighbours import replace_one
from verifier.pso.attacks import count_mechanism, identity_mechanism
from verifier.pso.predicates import Predicate, Universe, parse_predicate
from verifier.pso.success import Admissible, baseline, optimal_adversary, success
from verifier.specs.check import parse_spec

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("n, text", [
    (1 << 20, "2^20"), (1024, "2^10"), (1023, "1023"), (1000, "1000"), (5_000_000, "5000000"),
    (10**9 + 1, "≈10^9"), (10**600, "≈10^600"), (3 * 10**600, "≈10^600"),
    (10**600 - 1, "≈10^599"), (1 << 20000, "2^20000"),
], ids=lambda v: v if isinstance(v, str) else f"{v.bit_length()}-bits")
def test_format_size(n, text):
    assert format_size(n) == text


@pytest.mark.parametrize("base, exponent, text", [
    (2, 20, "2^20"), (2, 20000, "2^20000"), (4, 10**9, "2^2000000000"), (10, 600, "≈10^600"),
    # 10^9·log10(3) = 477121254.7…
    (3, 10**9, "≈10^477121254"),
])
def test_format_power(base, exponent, text):
    assert format_power(base, exponent) == text


def _rr(n: int) -> dict:
    return {"data": {"records": n, "values": [0, 1], "prior": ["1/2", "1/2"]},
            "mechanism": {"kind": "randomized_response", "truth": "3/4"},
            "query": {"epsilon": "ln(3)", "notions": ["ppkdp"]},
            "limits": {"engine": "brute"}}


def _refused(call) -> BudgetExceeded:
    with pytest.raises(BudgetExceeded) as info:
        call()
    return info.value


def _forbid(monkeypatch, module, name):
    def boom(*args, **kwargs):
        raise AssertionError(f"{name} ran although the budget refuses the instance")
    monkeypatch.setattr(module, name, boom)


# (id, call, key, size): each call must be refused by limit `key` with the size printed so
REFUSALS = [
    ("databases", lambda: check_dp(randomized_response("3/4", [0, 1]), replace_one([0, 1], 30),
                                   "ln(3)"),
     "limits.databases", "2^30"),
    ("work-brute", lambda: joint_tables(iid(["1/2", "1/2"], [0, 1], 10),
                                        randomized_response("3/4", [0, 1]), no_knowledge(),
                                        tuple(range(10)), engine="brute"),
     "limits.work", "10485760"),
    # dp by brute force: 2^10 databases × 10 neighbours × 2^10 outputs = 10·2^20
    ("work-dp", lambda: check_dp(randomized_response("3/4", [0, 1]), replace_one([0, 1], 10),
                                 "ln(3)"),
     "limits.work", "10485760"),
    # counts over 3 values (the general route): 1 target × 3 values × 1 known class
    # × C(199 + 2, 2) = 20100 count vectors of the other records = 60300
    ("combinations", lambda: joint_tables(iid(["1/3", "1/3", "1/3"], [0, 1, 2], 200),
                                          build_mechanism("count", {}, (0, 1, 2)),
                                          no_knowledge(), (0,), Budget(max_combinations=60299)),
     "limits.combinations", "60300"),
    ("records-counts", lambda: joint_tables(iid(["1/2", "1/2"], [0, 1], 2000),
                                            build_mechanism("count", {}, (0, 1)),
                                            no_knowledge(), (0,), Budget(max_records=1999)),
     "limits.records", "2000"),
    ("datasets", lambda: success(Universe.bit_strings(4), 12, identity_mechanism(),
                                 lambda o: None, Admissible()),
     "limits.datasets", "2^48"),  # 16^12 sequences
    ("predicates", lambda: optimal_adversary(Universe.bit_strings(5), 3,
                                             count_mechanism(Predicate(frozenset({0}))),
                                             Admissible()),
     "limits.predicates", "2^32"),  # 2^|X| predicates, |X| = 32
    ("rows", lambda: baseline(Universe.bit_strings(3), 10**9, Admissible()),
     "limits.records", "≈10^9"),
    ("work-guess", lambda: tight_epsilon(lambda x: _spread(x, 300), range(300),
                                         lambda x, y: mpq(abs(x - y))),
     "limits.work", "27000000"),  # 300² × 300
]


def _spread(x: int, k: int) -> Dist:
    return Dist.uniform(range(k))


@pytest.mark.parametrize("call, key, size", [r[1:] for r in REFUSALS],
                         ids=[r[0] for r in REFUSALS])
def test_each_limit_refuses_with_its_key_and_a_short_size(call, key, size):
    exc = _refused(call)
    text = str(exc)
    assert exc.key == key and exc.size == size
    assert text.startswith(f"{key}: ") and f": {size}, over the limit of " in text
    assert f"raise it with {key} in the spec" in text
    assert len(text) < 300


def test_refusals_say_which_flag_raises_the_limit():
    assert "or --budget," in str(_refused(REFUSALS[0][1]))
    assert "or --budget-counts" in str(_refused(REFUSALS[3][1]))


def test_refused_before_any_enumeration(monkeypatch):
    from verifier.pso import success as mod
    _forbid(monkeypatch, choice, "brute_force_tables")
    _forbid(monkeypatch, choice, "count_tables")
    _forbid(monkeypatch, mod, "weighted_datasets")
    for call in (REFUSALS[1][1], REFUSALS[3][1], REFUSALS[4][1], REFUSALS[5][1],
                 REFUSALS[6][1]):
        _refused(call)


@pytest.mark.slow
def test_just_fitting_instances_run():
    # one target, one background value per database: 2^10 databases × 2^10 outputs = 2^20
    tables, info = joint_tables(iid(["1/2", "1/2"], [0, 1], 10),
                                randomized_response("3/4", [0, 1]), known_indices([0]),
                                (9,), Budget(max_work=1 << 20))
    assert info == "brute force: 2^10 databases enumerated" and 9 in tables
    _refused(lambda: joint_tables(iid(["1/2", "1/2"], [0, 1], 10),
                                  randomized_response("3/4", [0, 1]), known_indices([0]),
                                  (9,), Budget(max_work=(1 << 20) - 1)))
    joint_tables(iid(["1/3", "1/3", "1/3"], [0, 1, 2], 200),
                 build_mechanism("count", {}, (0, 1, 2)), no_knowledge(), (0,),
                 Budget(max_combinations=60300))
    u = Universe.of_values(range(4))
    # C(4 + 3 − 1, 3) = 20 multisets of 3 rows over 4 values
    success(u, 3, count_mechanism(parse_predicate("x < 1", u)), lambda o: None, Admissible(),
            Budget(max_datasets=20))


def test_count_engine_memory_is_estimated():
    exc = _refused(lambda: joint_tables(iid(["1/3", "1/3", "1/3"], [0, 1, 2], 200),
                                        build_mechanism("count", {}, (0, 1, 2)),
                                        no_knowledge(), (0,), Budget(max_memory=10**6)))
    assert exc.key == "limits.memory" and exc.size.isdigit() and int(exc.size) > 10**6


def test_spec_limits_are_read_strictly_and_named():
    assert budget_from_limits({"databases": 16, "engine": "brute"}).max_databases == 16
    for bad in ("16", 16.0, True, 0, -1):
        with pytest.raises(SpecError) as info:
            budget_from_limits({"work": bad})
        assert info.value.key == "limits.work"
    with pytest.raises(SpecError) as info:
        budget_from_limits({"datasets": 5}, ("records", "work"))
    assert info.value.key == "limits.datasets"


def test_records_refused_before_the_data_model_is_built(monkeypatch):
    from verifier.specs import check as spec_module
    _forbid(monkeypatch, spec_module, "iid")
    with pytest.raises(SpecError) as info:
        parse_spec(_rr(10**9))
    assert info.value.key == "data.records"
    assert "limits.records: records: ≈10^9, over the limit of 1000000" in str(info.value)
    raw = _rr(10**9)
    raw["limits"]["records"] = 10**6
    with pytest.raises(SpecError):
        parse_spec(raw)


def test_spec_raises_a_limit():
    raw = _rr(10)
    raw["limits"]["work"] = 1 << 24
    assert parse_spec(raw).budget.max_work == 1 << 24


def _cli(tmp_path: Path, command: str, text: str, *args: str) -> tuple[int, str, float]:
    spec = tmp_path / "spec.toml"
    spec.write_text(text)
    start = time.monotonic()
    out = subprocess.run([sys.executable, "-m", "verifier.cli", command, str(spec), *args],
                         capture_output=True, text=True, timeout=60, cwd=ROOT)
    return out.returncode, out.stderr, time.monotonic() - start


CHECK = """[data]
records = {n}
values = [0, 1]
prior = ["1/2", "1/2"]
[mechanism]
kind = "{kind}"
truth = "3/4"
[query]
epsilon = "ln(3)"
notions = ["ppkdp"]
"""
PSO = """[universe]
bits = {bits}
[rows]
n = {n}
[mechanism]
kind = "count"
predicate = "x < 2"
"""
GUESS = """[domain]
range = [0, {hi}]
[mechanism]
kind = "truncated_geometric"
alpha = "1/2"
"""

FAST = [
    ("check", CHECK.format(n=10**9, kind="randomized_response"), (), "limits.records", "≈10^9"),
    ("check", CHECK.format(n=20000, kind="randomized_response"), ("--engine", "brute"),
     "limits.databases", "2^20000"),
    ("check", CHECK.format(n=10, kind="randomized_response"), (), "limits.work", "10485760"),
    ("pso", PSO.format(bits=3, n=10**9), (), "limits.records", "≈10^9"),
    ("pso", PSO.format(bits=5, n=3), (), "limits.predicates", "2^32"),
    ("guess", GUESS.format(hi=10**9), (), "limits.work", "≈10^18"),
    ("guess", GUESS.format(hi=999), (), "limits.work", "≈10^9"),
]


@pytest.mark.parametrize("command, text, args, key, size", FAST,
                         ids=["records", "brute-20000", "rr-10", "pso-rows", "pso-bits-5",
                              "guess-range", "guess-1000"])
@pytest.mark.slow
def test_cli_refuses_fast(tmp_path, command, text, args, key, size):
    code, err, seconds = _cli(tmp_path, command, text, *args)
    assert code == 2, err
    assert f"{key}: " in err and f": {size}, over the limit of " in err
    assert "Traceback" not in err and len(err) < 400
    assert seconds < 15  # start-up included; the refused work would take minutes or hang
