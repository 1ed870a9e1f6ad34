"""Every spec key against values of the wrong shape: strings where numbers, booleans or lists are
expected, lists where scalars are expected, tables where lists are expected, missing and extra
keys. Each must end as exit 2 naming the file and the key, never as a traceback and never as a
verdict computed from a coerced value (issue item 1: ``symmetric = "false"`` read with
``bool()`` reversed a verdict).

These inputs cannot make plrv hang, so they run in-process (CliRunner).
"""

from __future__ import annotations

import pytest
from harness import (
    DROP,
    FAMILIES,
    GEOMETRIC,
    GUESS,
    GUESS_GRID,
    GUESS_VALUES,
    PARTIAL,
    PARTIAL_HOLDS,
    PSO_BITS,
    PSO_COMPOSITION,
    PSO_COUNT,
    PSO_RR,
    PSO_TRIVIAL,
    RR,
    RR_HOLDS,
    SUPPORT,
    USER,
    assert_error,
    assert_verdict,
    invoke,
    mutate,
    with_user_module,
    write,
)


def case(command, base, key, value, label, needle=None):
    """One malformed spec: ``key`` of ``base`` set to ``value`` (DROP: removed)."""
    return pytest.param(command, base, key, value, needle or key, id=f"{command}:{key}={label}")


CHECK = [
    # [data]
    case("check", RR, "data.records", "3", "str"),
    case("check", RR, "data.records", True, "bool"),
    case("check", RR, "data.records", [3], "list"),
    case("check", RR, "data.records", {"n": 3}, "table"),
    case("check", RR, "data.records", 0, "zero"),
    case("check", RR, "data.records", -1, "negative"),
    case("check", RR, "data.records", DROP, "missing"),
    case("check", RR, "data.values", "01", "str"),
    case("check", RR, "data.values", 5, "int"),
    case("check", RR, "data.values", {"a": 1, "b": 2}, "table"),
    case("check", RR, "data.values", [[0], [1]], "nested-lists"),
    case("check", RR, "data.values", [], "empty"),
    case("check", RR, "data.values", True, "bool"),
    case("check", RR, "data.values", DROP, "missing"),
    case("check", PARTIAL, "data.prior", "4/5,1/5", "str"),
    case("check", PARTIAL, "data.prior", ["4/5"], "too-short"),
    case("check", PARTIAL, "data.prior", {"0": "4/5", "1": "1/5"}, "table"),
    case("check", PARTIAL, "data.prior", [["4/5"], ["1/5"]], "nested-lists"),
    case("check", PARTIAL, "data.prior", [True, False], "bools"),
    case("check", PARTIAL, "data.prior", 5, "int"),
    case("check", PARTIAL, "data.priors", "x", "str"),
    case("check", PARTIAL, "data.priors", [["1/2", "1/2"]], "one-prior-for-8-records"),
    case("check", PARTIAL, "data.priors", [["1/2", "1/2"]] * 7 + ["x"], "str-element"),
    case("check", PARTIAL, "data.priors", {"a": ["1/2", "1/2"]}, "table"),
    case("check", SUPPORT, "data.support", "x", "str"),
    case("check", SUPPORT, "data.support", [[0, 0], [0, 1], [1, 0]], "shorter-than-weights"),
    case("check", SUPPORT, "data.support", [[0, 0], [0, 1], [1, 0], 5], "int-database"),
    case("check", SUPPORT, "data.support", [[0, 0], [0, 1], [1, 0], [1, 2]], "value-not-in-values"),
    case("check", SUPPORT, "data.support", [[0, 0], [0, 1], [1, 0], [1, 1, 1]], "ragged"),
    case("check", SUPPORT, "data.support", {"a": [0, 0]}, "table"),
    case("check", SUPPORT, "data.weights", "x", "str"),
    case("check", SUPPORT, "data.weights", ["1/4", "1/4", "1/4", "x"], "str-element"),
    case("check", SUPPORT, "data.weights", ["1/2", "1/2", "1/2", "-1/2"], "negative"),
    case("check", SUPPORT, "data.weights", DROP, "missing"),
    case("check", FAMILIES, "data.models", {"prior": ["1/2", "1/2"]}, "table"),
    case("check", FAMILIES, "data.models", [], "empty"),
    case("check", FAMILIES, "data.models", ["x"], "str-element"),
    case("check", FAMILIES, "data.models", [{"prior": "x"}], "bad-prior", "data.models[0].prior"),
    case("check", FAMILIES, "data.models", [{"foo": 1}], "unknown-key", "data.models[0].foo"),
    case("check", FAMILIES, "data.models", [{}], "empty-model", "data.models[0]"),
    # [mechanism]
    case("check", RR, "mechanism.kind", 5, "int"),
    case("check", RR, "mechanism.kind", ["randomized_response"], "list"),
    case("check", RR, "mechanism.kind", {"a": 1}, "table"),
    case("check", RR, "mechanism.kind", True, "bool"),
    case("check", RR, "mechanism.kind", DROP, "missing"),
    case("check", RR, "mechanism.truth", "abc", "str"),
    case("check", RR, "mechanism.truth", ["3/4"], "list"),
    case("check", RR, "mechanism.truth", {"a": 1}, "table"),
    case("check", RR, "mechanism.truth", True, "bool"),
    case("check", RR, "mechanism.truth", "3/2", "above-1"),
    case("check", RR, "mechanism.truth", DROP, "missing"),
    case("check", RR, "mechanism.laplace", 1, "unknown-key"),
    case("check", PARTIAL, "mechanism.threshold", "3", "str"),
    case("check", PARTIAL, "mechanism.threshold", True, "bool"),
    case("check", PARTIAL, "mechanism.threshold", [3], "list"),
    case("check", PARTIAL, "mechanism.threshold", {"a": 1}, "table"),
    case("check", PARTIAL, "mechanism.counts", "1", "str"),
    case("check", PARTIAL, "mechanism.counts", 1, "int"),
    case("check", PARTIAL, "mechanism.counts", [[1]], "nested-list"),
    case("check", PARTIAL, "mechanism.counts", {"a": 1}, "table"),
    case("check", PARTIAL, "mechanism.counts", True, "bool"),
    case("check", GEOMETRIC, "mechanism.alpha", "2", "above-1"),
    case("check", GEOMETRIC, "mechanism.alpha", "0", "zero"),
    case("check", GEOMETRIC, "mechanism.alpha", True, "bool"),
    case("check", GEOMETRIC, "mechanism.alpha", ["1/2"], "list"),
    # [attacker]
    case("check", PARTIAL, "attacker.target", "7", "str"),
    case("check", PARTIAL, "attacker.target", True, "bool"),
    case("check", PARTIAL, "attacker.target", [True], "list-of-bool"),
    case("check", PARTIAL, "attacker.target", [7, "x"], "str-element"),
    case("check", PARTIAL, "attacker.target", {"a": 7}, "table"),
    case("check", PARTIAL, "attacker.target", -1, "negative"),
    case("check", PARTIAL, "attacker.target", 8, "out-of-range"),
    case("check", PARTIAL, "attacker.target", [], "empty"),
    case("check", PARTIAL, "attacker.known", "0,1", "str"),
    case("check", PARTIAL, "attacker.known", 0, "int"),
    case("check", PARTIAL, "attacker.known", [True], "list-of-bool"),
    case("check", PARTIAL, "attacker.known", {"a": 0}, "table"),
    case("check", PARTIAL, "attacker.known", [0, 0], "repeated"),
    case("check", PARTIAL, "attacker.known", [7], "is-the-target", "attacker."),
    case("check", PARTIAL, "attacker.known", [99], "out-of-range"),
    case("check", FAMILIES, "attacker.known", [[0], "x"], "family-with-str"),
    case("check", PARTIAL, "attacker.pairs", "01", "str"),
    case("check", PARTIAL, "attacker.pairs", [[0]], "one-element"),
    case("check", PARTIAL, "attacker.pairs", [[0, 1, 0]], "three-elements"),
    case("check", PARTIAL, "attacker.pairs", [0, 1], "flat-list"),
    case("check", PARTIAL, "attacker.pairs", {"a": [0, 1]}, "table"),
    case("check", PARTIAL, "attacker.pairs", [[[0], [1]]], "nested-lists"),
    case("check", PARTIAL, "attacker.pairs", [[0, 5]], "value-not-in-values"),
    case("check", PARTIAL, "attacker.pairs", [["0", "1"]], "str-values"),
    case("check", PARTIAL, "attacker.knowledge", "m:f", "with-known", "attacker.knowledge"),
    case("check", RR, "attacker.knowledge", 5, "int"),
    case("check", PARTIAL, "attacker.spy", 1, "unknown-key"),
    # [query]
    case("check", RR, "query.epsilon", True, "bool"),
    case("check", RR, "query.epsilon", ["ln(2)"], "list"),
    case("check", RR, "query.epsilon", {"a": 1}, "table"),
    case("check", RR, "query.epsilon", "ln(0)", "ln-0"),
    case("check", RR, "query.epsilon", "ln(1/2)", "ln-below-1"),
    case("check", RR, "query.epsilon", "-1", "negative"),
    case("check", RR, "query.epsilon", DROP, "missing"),
    case("check", RR, "query.delta", True, "bool"),
    case("check", RR, "query.delta", ["0"], "list"),
    case("check", RR, "query.delta", {"a": 1}, "table"),
    case("check", RR, "query.delta", "-1/2", "negative"),
    case("check", RR, "query.delta", "abc", "str"),
    case("check", RR, "query.notions", "dp", "str"),
    case("check", RR, "query.notions", [], "empty"),
    case("check", RR, "query.notions", [1], "int-element"),
    case("check", RR, "query.notions", [["dp"]], "nested-list"),
    case("check", RR, "query.notions", {"dp": True}, "table"),
    # [limits]
    case("check", RR, "limits", {"databases": "10"}, "databases-str", "limits.databases"),
    case("check", RR, "limits", {"databases": True}, "databases-bool", "limits.databases"),
    case("check", RR, "limits", {"databases": [10]}, "databases-list", "limits.databases"),
    case("check", RR, "limits", {"databases": {"a": 1}}, "databases-table", "limits.databases"),
    case("check", RR, "limits", {"databases": -1}, "databases-negative", "limits.databases"),
    case("check", RR, "limits", {"combinations": "10"}, "combinations-str",
         "limits.combinations"),
    case("check", RR, "limits", {"combinations": True}, "combinations-bool",
         "limits.combinations"),
    case("check", RR, "limits", {"combinations": 0}, "combinations-zero", "limits.combinations"),
    case("check", RR, "limits", {"engine": 5}, "engine-int", "limits.engine"),
    case("check", RR, "limits", {"engine": ["brute"]}, "engine-list", "limits.engine"),
    case("check", RR, "limits", {"engine": "fast"}, "engine-unknown", "limits.engine"),
    case("check", RR, "limits", {"engine": True}, "engine-bool", "limits.engine"),
    case("check", RR, "limits", {"budget": 10}, "unknown-key", "limits.budget"),
    # tables
    case("check", RR, "data", 5, "not-a-table", "data"),
    case("check", RR, "query", ["dp"], "list-not-table", "query"),
    case("check", RR, "data", DROP, "missing-table", "[data]"),
    case("check", RR, "mechanism", DROP, "missing-table", "[mechanism]"),
    case("check", RR, "query", DROP, "missing-table", "[query]"),
    case("check", RR, "extras", {"a": 1}, "unknown-table", "[extras]"),
    case("check", RR, "records", 3, "top-level-key", "records"),
]

PSO = [
    case("pso", PSO_COMPOSITION, "universe.bits", "4", "str"),
    case("pso", PSO_COMPOSITION, "universe.bits", True, "bool"),
    case("pso", PSO_COMPOSITION, "universe.bits", [4], "list"),
    case("pso", PSO_COMPOSITION, "universe.bits", 0, "zero"),
    case("pso", PSO_COMPOSITION, "universe.bits", {"d": 4}, "table"),
    case("pso", PSO_TRIVIAL, "universe.values", "01234567", "str"),
    case("pso", PSO_TRIVIAL, "universe.values", 8, "int"),
    case("pso", PSO_TRIVIAL, "universe.values", [], "empty"),
    case("pso", PSO_TRIVIAL, "universe.values", [0, 0, 1], "repeated"),
    case("pso", PSO_TRIVIAL, "universe.values", {"a": 1, "b": 2}, "table"),
    case("pso", PSO_TRIVIAL, "universe.values", [[0], [1]], "nested-lists"),
    case("pso", PSO_TRIVIAL, "universe.weights", "x", "str"),
    case("pso", PSO_TRIVIAL, "universe.weights", 5, "int"),
    case("pso", PSO_TRIVIAL, "universe.weights", ["1/2", "1/2"], "too-short"),
    case("pso", PSO_TRIVIAL, "universe.weights", {"0": "1"}, "table"),
    case("pso", PSO_TRIVIAL, "universe", {}, "neither-bits-nor-values"),
    case("pso", PSO_TRIVIAL, "universe", {"bits": 3, "values": [0, 1]}, "both-bits-and-values"),
    case("pso", PSO_TRIVIAL, "rows.n", "3", "str"),
    case("pso", PSO_TRIVIAL, "rows.n", True, "bool"),
    case("pso", PSO_TRIVIAL, "rows.n", [3], "list"),
    case("pso", PSO_TRIVIAL, "rows.n", 0, "zero"),
    case("pso", PSO_TRIVIAL, "rows.n", DROP, "missing"),
    case("pso", PSO_TRIVIAL, "rows", 3, "not-a-table", "rows"),
    case("pso", PSO_TRIVIAL, "rows.m", 3, "unknown-key"),
    case("pso", PSO_TRIVIAL, "mechanism.kind", 5, "int"),
    case("pso", PSO_TRIVIAL, "mechanism.kind", ["count"], "list"),
    case("pso", PSO_TRIVIAL, "mechanism.kind", "laplace", "unknown"),
    case("pso", PSO_TRIVIAL, "mechanism.kind", DROP, "missing"),
    case("pso", PSO_TRIVIAL, "mechanism.predicate", 5, "int"),
    case("pso", PSO_TRIVIAL, "mechanism.predicate", ["x < 3"], "list"),
    case("pso", PSO_TRIVIAL, "mechanism.predicate", DROP, "missing"),
    case("pso", PSO_BITS, "mechanism.k", "2", "str"),
    case("pso", PSO_BITS, "mechanism.k", True, "bool"),
    case("pso", PSO_BITS, "mechanism.k", [2], "list"),
    case("pso", PSO_BITS, "mechanism.k", 0, "zero"),
    case("pso", PSO_BITS, "mechanism.k", -1, "negative"),
    case("pso", PSO_RR, "mechanism.truth", "abc", "str"),
    case("pso", PSO_RR, "mechanism.truth", True, "bool"),
    case("pso", PSO_RR, "mechanism.truth", "3/2", "above-1"),
    case("pso", PSO_RR, "mechanism.truth", ["2/5"], "list"),
    case("pso", PSO_TRIVIAL, "mechanism.symmetric", "false", "str"),
    case("pso", PSO_TRIVIAL, "adversary.kind", 5, "int"),
    case("pso", PSO_TRIVIAL, "adversary.kind", ["optimal"], "list"),
    case("pso", PSO_TRIVIAL, "adversary.kind", "oracle", "unknown"),
    case("pso", PSO_TRIVIAL, "adversary.weight_at_most", True, "bool"),
    case("pso", PSO_TRIVIAL, "adversary.weight_at_most", ["1/4"], "list"),
    case("pso", PSO_TRIVIAL, "adversary.weight_at_most", "abc", "str"),
    case("pso", PSO_TRIVIAL, "adversary.weight_at_most", {"a": 1}, "table"),
    case("pso", PSO_TRIVIAL, "adversary.weight_at_least", True, "bool"),
    case("pso", PSO_COUNT, "claim.factor", "abc", "str"),
    case("pso", PSO_COUNT, "claim.factor", True, "bool"),
    case("pso", PSO_COUNT, "claim.factor", [4], "list"),
    case("pso", PSO_COUNT, "claim.slack", True, "bool"),
    case("pso", PSO_COUNT, "claim.slack", "x", "str"),
    case("pso", PSO_COUNT, "claim.foo", 1, "unknown-key"),
    case("pso", PSO_TRIVIAL, "limits", {"datasets": "10"}, "datasets-str", "limits.datasets"),
    case("pso", PSO_TRIVIAL, "limits", {"datasets": True}, "datasets-bool", "limits.datasets"),
    case("pso", PSO_TRIVIAL, "limits", {"datasets": [10]}, "datasets-list", "limits.datasets"),
    case("pso", PSO_TRIVIAL, "limits", {"datasets": {"a": 1}}, "datasets-table",
         "limits.datasets"),
]

GUESS_CASES = [
    case("guess", GUESS, "domain.range", [0], "one-element"),
    case("guess", GUESS, "domain.range", "0..20", "str"),
    case("guess", GUESS, "domain.range", [0, "20"], "str-element"),
    case("guess", GUESS, "domain.range", [20, 0], "empty"),
    case("guess", GUESS, "domain.range", [0, 10, 20], "three-elements"),
    case("guess", GUESS, "domain.range", {"lo": 0, "hi": 20}, "table"),
    case("guess", GUESS, "domain.range", 5, "int"),
    case("guess", GUESS, "domain.range", [True, 5], "bool-element"),
    case("guess", GUESS_VALUES, "domain.values", "01234", "str"),
    case("guess", GUESS_VALUES, "domain.values", 5, "int"),
    case("guess", GUESS_VALUES, "domain.values", [0, 0, 1, 2, 3], "repeated"),
    case("guess", GUESS_VALUES, "domain.values", ["a", "b", "c", "d", "e"], "strs"),
    case("guess", GUESS_VALUES, "domain.values", {"a": 1}, "table"),
    case("guess", GUESS_GRID, "domain.grid", 5, "int"),
    case("guess", GUESS_GRID, "domain.grid", [5], "list-of-int"),
    case("guess", GUESS_GRID, "domain.grid", [[0, 1], "ab"], "str-attribute"),
    case("guess", GUESS_GRID, "domain.grid", {"a": [0, 1]}, "table"),
    case("guess", GUESS, "domain", {"range": [0, 20], "values": [0, 1]}, "range-and-values",
         "domain"),
    case("guess", GUESS, "prior.weights", 5, "int"),
    case("guess", GUESS, "prior.weights", "x", "str"),
    case("guess", GUESS, "prior.weights", ["1/2", "1/2"], "too-short"),
    case("guess", GUESS, "prior.weights", {"a": 1}, "table"),
    case("guess", GUESS_VALUES, "prior.weights", [True, False, False, False, False], "bools"),
    case("guess", GUESS, "mechanism.kind", 5, "int"),
    case("guess", GUESS, "mechanism.kind", ["identity"], "list"),
    case("guess", GUESS, "mechanism.kind", "laplace", "unknown"),
    case("guess", GUESS, "mechanism.alpha", "2", "above-1"),
    case("guess", GUESS, "mechanism.alpha", True, "bool"),
    case("guess", GUESS, "mechanism.alpha", ["1/2"], "list"),
    case("guess", GUESS, "mechanism.alpha", DROP, "missing"),
    case("guess", GUESS_VALUES, "mechanism.beta", True, "bool"),
    case("guess", GUESS_VALUES, "mechanism.beta", "abc", "str"),
    case("guess", GUESS, "goal.precision", "0", "zero"),
    case("guess", GUESS, "goal.precision", "-1", "negative"),
    case("guess", GUESS, "goal.precision", True, "bool"),
    case("guess", GUESS, "goal.precision", "abc", "str"),
    case("guess", GUESS, "goal.precision", [1, 1], "two-for-one-attribute"),
    case("guess", GUESS, "goal.precision", {"a": 1}, "table"),
    case("guess", GUESS_GRID, "goal.mode", "xor", "unknown"),
    case("guess", GUESS_GRID, "goal.mode", 5, "int"),
    case("guess", GUESS_GRID, "goal.mode", True, "bool"),
    case("guess", GUESS, "query.targets", 5, "int"),
    case("guess", GUESS, "query.targets", "x", "str"),
    case("guess", GUESS, "query.targets", [99], "not-in-domain"),
    case("guess", GUESS, "query.targets", {"a": 1}, "table"),
    case("guess", GUESS, "query.targets", [True], "bool-element"),
    case("guess", GUESS, "query.eta", "0", "zero"),
    case("guess", GUESS, "query.eta", "1", "one"),
    case("guess", GUESS, "query.eta", True, "bool"),
    case("guess", GUESS, "query.eta", ["1/2"], "list"),
    case("guess", GUESS_VALUES, "query.epsilon", True, "bool"),
    case("guess", GUESS_VALUES, "query.epsilon", "abc", "str"),
    case("guess", GUESS_VALUES, "query.epsilon", ["ln(2)"], "list"),
    case("guess", GUESS, "query.tolerance", "0", "zero"),
    case("guess", GUESS, "query.tolerance", "-1", "negative"),
    case("guess", GUESS, "query.tolerance", True, "bool"),
    case("guess", GUESS, "query.foo", 1, "unknown-key"),
]


@pytest.mark.parametrize("command, base, key, value, needle", CHECK + PSO + GUESS_CASES)
@pytest.mark.slow
def test_malformed_key(tmp_path, command, base, key, value, needle):
    spec = write(tmp_path, mutate(base, key, value) if value is not DROP else mutate(base, key))
    assert_error(invoke([command, spec]), needle, file=spec)


# ---------------------------------------------------------------- booleans must be booleans

# Issue item 1: symmetric = "false" was read with bool() as true, which let the count engine
# run a non-symmetric function and reversed the verdict.
SYMMETRIC = [pytest.param(v, id=f"symmetric={label}") for v, label in
             [("false", "str-false"), ("true", "str-true"), (0, "int-0"), (1, "int-1"),
              (["true"], "list"), ({"a": True}, "table"), ("", "empty-str")]]


@pytest.mark.parametrize("value", SYMMETRIC)
def test_symmetric_must_be_a_boolean(tmp_path, value):
    spec = with_user_module(tmp_path, mutate(USER, "mechanism.symmetric", value))
    assert_error(invoke(["check", spec]), "mechanism.symmetric", file=spec)


@pytest.mark.parametrize("value", [5, ["hostile_user_functions:largest_record"], {"a": 1}, True],
                         ids=["int", "list", "table", "bool"])
def test_function_reference_must_be_a_string(tmp_path, value):
    spec = with_user_module(tmp_path, mutate(USER, "mechanism.function", value))
    assert_error(invoke(["check", spec]), "mechanism.function", file=spec)


# ---------------------------------------------------------------- controls: still decided

CONTROLS = [
    pytest.param("check", RR, 1, id="check-rr-delta0-fails"),
    pytest.param("check", RR_HOLDS, 0, id="check-rr-delta-1/4-holds"),
    pytest.param("check", PARTIAL, 1, id="check-threshold-partial-fails"),
    pytest.param("check", PARTIAL_HOLDS, 0, id="check-threshold-partial-holds"),
    pytest.param("check", SUPPORT, 1, id="check-explicit-support-fails"),
    pytest.param("check", GEOMETRIC, 0, id="check-geometric-holds"),
    pytest.param("check", FAMILIES, 1, id="check-families-fails"),
    pytest.param("check", mutate(RR_HOLDS, "limits", {"databases": 8, "engine": "brute"}), 0,
                 id="check-rr-limits-exact-budget-holds"),
    pytest.param("check", mutate(PARTIAL, "attacker.target", [6, 7]), 1,
                 id="check-target-list-fails"),
    pytest.param("check", mutate(PARTIAL, "attacker", {"target": "all"}), 1,
                 id="check-target-all-no-knowledge-fails"),
    pytest.param("pso", PSO_COUNT, 0, id="pso-count-optimal-holds"),
    pytest.param("pso", PSO_COMPOSITION, 1, id="pso-composition-fails"),
    pytest.param("pso", PSO_RR, 0, id="pso-rr-holds"),
    pytest.param("guess", GUESS, 0, id="guess-geometric"),
    pytest.param("guess", GUESS_VALUES, 0, id="guess-exponential-values"),
    pytest.param("guess", GUESS_GRID, 0, id="guess-grid"),
]


@pytest.mark.parametrize("command, doc, code", CONTROLS)
def test_valid_control(tmp_path, command, doc, code):
    assert_verdict(invoke([command, write(tmp_path, doc)]), code)


@pytest.mark.parametrize("symmetric, code", [(True, 1), (False, 1)], ids=["true", "false"])
def test_symmetric_boolean_control(tmp_path, symmetric, code):
    spec = with_user_module(tmp_path, mutate(USER, "mechanism.symmetric", symmetric))
    assert_verdict(invoke(["check", spec]), code)


@pytest.mark.parametrize("key", ["re\u202ecords", "rec\u0000ords", "rec\u200bords",
                                 "rec\x1b[31mords"], ids=["bidi", "nul", "zero-width", "ansi"])
def test_invisible_characters_in_a_key_are_shown_escaped(tmp_path, key):
    """A key with a right-to-left override, a NUL, a zero-width space or a terminal escape is
    named in the error with those characters escaped (it cannot reorder or hide the line)."""
    doc = dict(RR)
    doc["data"] = {**RR["data"], key: 3}
    path = write(tmp_path, doc)
    line = assert_error(invoke(["check", path]), "unknown key")
    assert all(c.isprintable() for c in line), repr(line)
    escaped = "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in key)
    assert f"data.{escaped}" in line


# ---------------------------------------------------------------- refused, not crashed

REFUSED_SPECS = [
    pytest.param({"data": {"records": 2, "values": [0, 1]}, "mechanism": {"kind": "count"},
                  "query": {"epsilon": "ln(2)", "notions": ["dp", "dp"]}},
                 "query.notions", id="notion-twice"),
    pytest.param({"data": {"records": 2, "values": [0, 1]}, "mechanism": {"kind": "count"},
                  "query": {"epsilon": "ln(2)", "notions": []}},
                 "query.notions", id="no-notion"),
    pytest.param({"data": {"records": 1, "values": [0, 1]},
                  "neighbours": {"relation": "add-remove-one"}, "mechanism": {"kind": "mean"},
                  "query": {"epsilon": "ln(2)", "notions": ["dp"]}},
                 "neighbours.relation", id="mean-add-remove-one-1-record"),
    pytest.param({"input": {"coordinates": 2, "range": [0, 1]},
                  "mechanism": {"kind": "count"},
                  "query": {"epsilon": "ln(2)", "notions": ["dp"]}},
                 "neighbours.relation", id="input-without-a-relation"),
]


@pytest.mark.parametrize("doc, key", REFUSED_SPECS)
def test_specs_refused_with_the_key(tmp_path, doc, key):
    spec = write(tmp_path, doc)
    assert_error(invoke(["check", spec]), key, file=spec)


def test_a_huge_parameter_bound_is_refused_with_its_key(tmp_path):
    """A 5,001-digit bound: beyond the solver's input (and Python's int-to-string limit)."""
    doc = {"parameters": {"p": {"gt": "0", "lt": "1/1" + "0" * 5000}},
           "data": {"records": 3, "values": [0, 1], "prior": ["1 - p", "p"]},
           "mechanism": {"kind": "threshold_count", "counts": [1], "threshold": 2},
           "attacker": {"target": 2, "known": [0]},
           "query": {"epsilon": "ln(2)", "delta": "1/10", "notions": ["apkdp", "ppkdp"]}}
    spec = write(tmp_path, doc)
    for command in (["prove", spec, "--claim", "lemma5"], ["reducible", spec]):
        assert_error(invoke(command), "parameters.p.lt", file=spec)


def test_reducible_refuses_a_dp_only_input_spec(tmp_path):
    doc = {"input": {"coordinates": 2, "range": [0, 1]},
           "neighbours": {"relation": "linf", "distance": 1},
           "mechanism": {"kind": "count"}, "query": {"epsilon": "ln(2)", "notions": ["dp"]}}
    spec = write(tmp_path, doc)
    assert_error(invoke(["reducible", spec]), "input", file=spec)
