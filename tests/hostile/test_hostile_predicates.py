"""PSO predicates written by the user (issue item 5).

Predicates are read by a small parser (no ``eval``). Values of the wrong type (``x < [1]``),
sequence repetition (``[0] * 99999999999``), size or depth beyond a limit (100,000 nested
``not``, a 10,000-term sum, a megabyte of constants) must be clear errors (exit 2 naming the
key), not MemoryError, RecursionError or a CPU hang. Injection attempts must be refused — and
must have no effect.
"""

from __future__ import annotations

import pytest
from harness import (
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

KEY = "mechanism.predicate"


def _spec(tmp_path, predicate: str, key: str = "predicate", base=PSO_TRIVIAL):
    return write(tmp_path, mutate(base, f"mechanism.{key}", predicate))


# ---------------------------------------------------------------- wrong types (in-process)

WRONG_TYPES = [
    pytest.param("x < [1]", id="int<list"),
    pytest.param("[1] < x", id="list<int"),
    pytest.param("-[1] < x", id="negated-list"),
    pytest.param("x in 5", id="in-int"),
    pytest.param("x + [1] == 0", id="int+list"),
    pytest.param("x in [1] + [2]", id="list-concatenation"),
    pytest.param("x in [1, 2] * 3", id="small-repetition"),
    pytest.param("x in 3 * [1, 2]", id="small-repetition-left"),
    pytest.param("x // [2] == 0", id="floordiv-by-list"),
    pytest.param("x % [2] == 0", id="mod-by-list"),
    pytest.param("[x] < [1]", id="list<list"),
    pytest.param("x in [[1], 2]", id="nested-list"),
]


@pytest.mark.parametrize("predicate", WRONG_TYPES)
def test_wrong_types(tmp_path, predicate):
    spec = _spec(tmp_path, predicate)
    assert_error(invoke(["pso", spec]), KEY, file=spec)


# ---------------------------------------------------------------- not allowed (in-process)

REFUSED = [
    pytest.param("x.__class__ == 1", id="attribute"),
    pytest.param("x.real < 3", id="attribute-real"),
    pytest.param("(lambda: 1)() == 1", id="lambda"),
    pytest.param("x in [y for y in [1, 2]]", id="list-comprehension"),
    pytest.param("x in {y for y in [1, 2]}", id="set-comprehension"),
    pytest.param("any(y for y in [x])", id="generator-and-call"),
    pytest.param("(y := x) < 3", id="walrus"),
    pytest.param("x if x else 0", id="conditional-expression"),
    pytest.param("f'{x}' == '1'", id="f-string"),
    pytest.param("open('/etc/passwd')", id="call-open"),
    pytest.param("x ** 2 == 4", id="power"),
    pytest.param("x << 1 == 2", id="shift"),
    pytest.param("x < 1.5", id="float-constant"),
    pytest.param("'a' == 'a'", id="string-constant"),
    pytest.param("True", id="bool-constant"),
    pytest.param("None == None", id="none-constant"),
    pytest.param("b9 == 1", id="unknown-name"),
    pytest.param("__builtins__ == 1", id="builtins-name"),
    pytest.param("x <", id="syntax-error"),
    pytest.param("", id="empty"),
    pytest.param("x < 3; import os", id="statement"),
    pytest.param("x % 0 == 0", id="modulo-zero"),
    pytest.param("x[0] == 1", id="subscript"),
    pytest.param("{x: 1} == 1", id="dict-display"),
    pytest.param("*x", id="starred"),
]


@pytest.mark.parametrize("predicate", REFUSED)
@pytest.mark.slow
def test_refused_syntax(tmp_path, predicate):
    spec = _spec(tmp_path, predicate)
    assert_error(invoke(["pso", spec]), KEY, file=spec)


INJECTION = [
    pytest.param("__import__('os').system('touch {marker}')", id="import-os-system"),
    pytest.param("[c for c in ().__class__.__base__.__subclasses__()] == 0 or "
                 "__import__('os').system('touch {marker}')", id="subclasses-walk"),
    pytest.param("exec(\"open('{marker}', 'w')\")", id="exec"),
    pytest.param("eval(\"__import__('os').system('touch {marker}')\")", id="eval"),
]


@pytest.mark.parametrize("predicate", INJECTION)
def test_injection_refused_without_effect(tmp_path, predicate):
    marker = tmp_path / "PWNED"
    spec = _spec(tmp_path, predicate.replace("{marker}", str(marker)))
    assert_error(run(["pso", spec], cwd=tmp_path), KEY, file=spec)
    assert not marker.exists(), "the injected code ran"


# ---------------------------------------------------------------- sizes and depths (subprocess)

HUGE = [
    pytest.param("[0] * 99999999999", id="repetition-10^11"),
    pytest.param("x in [0] * 99999999999", id="in-repetition-10^11"),
    pytest.param("x in [0, 1] * 99999999999 * 99999999999", id="repetition-10^22"),
    pytest.param("not " * 100_000 + "x < 1", id="100000-nested-not"),
    pytest.param("- " * 100_000 + "x < 1", id="100000-nested-minus"),
    pytest.param("(" * 10_000 + "x" + ")" * 10_000 + " < 1", id="10000-nested-parentheses"),
    pytest.param("x in " + "[" * 10_000 + "]" * 10_000, id="10000-nested-lists"),
    pytest.param("x + " * 10_000 + "x > 0", id="10000-term-sum"),
    pytest.param(" and ".join(["x < 9"] * 50_000), id="50000-term-and"),
    pytest.param("x < " + " < ".join(["9"] * 50_000), id="50000-term-comparison-chain"),
    pytest.param("x in [" + ", ".join(str(i) for i in range(150_000)) + "]",
                 id="megabyte-of-constants"),
    pytest.param("x == " + "9" * 100_000, id="100000-digit-constant"),
    pytest.param("x * " + " * ".join(["99999999999999999999"] * 20_000) + " > 0",
                 id="20000-factor-product"),
]


@pytest.mark.parametrize("predicate", HUGE)
@pytest.mark.slow
def test_size_and_depth_limits(tmp_path, predicate):
    spec = _spec(tmp_path, predicate)
    assert_error(run(["pso", spec], timeout=15), KEY, file=spec, max_len=600)


@pytest.mark.parametrize("key, value, needle", [
    pytest.param("base", "x < [1]", "mechanism.base", id="base-wrong-type"),
    pytest.param("base", "not " * 100_000 + "x < 1", "mechanism.base", id="base-100000-not"),
    pytest.param("base", "__import__('os')", "mechanism.base", id="base-injection"),
])
@pytest.mark.slow
def test_composition_base(tmp_path, key, value, needle):
    spec = _spec(tmp_path, value, key, PSO_COMPOSITION)
    assert_error(run(["pso", spec], timeout=15), needle, file=spec, max_len=600)


@pytest.mark.parametrize("value", [
    pytest.param(["x < 3", "x < [1]"], id="wrong-type-element"),
    pytest.param(["x < 3", "[0] * 99999999999"], id="repetition-element"),
    pytest.param("x < 3", id="a-string-not-a-list"),
    pytest.param(["x < 3", 5], id="int-element"),
])
@pytest.mark.slow
def test_counts_predicates(tmp_path, value):
    doc = mutate(PSO_TRIVIAL, "mechanism", {"kind": "counts", "predicates": value})
    spec = write(tmp_path, doc)
    assert_error(run(["pso", spec], timeout=15), "mechanism.predicates", file=spec, max_len=600)


# ---------------------------------------------------------------- controls

@pytest.mark.parametrize("base, predicate, key, code", [
    pytest.param(PSO_COUNT, "x < 3", "predicate", 0, id="x<3-holds"),
    pytest.param(PSO_COUNT, "x in [0, 1, 2]", "predicate", 0, id="x-in-list-holds"),
    pytest.param(PSO_COUNT, "not x >= 3", "predicate", 0, id="not-holds"),
    pytest.param(PSO_COUNT, "(x + 1) // 2 < 2 and x != 3", "predicate", 0,
                 id="arithmetic-holds"),
    pytest.param(PSO_COUNT, "((((x < 3))))", "predicate", 0, id="parentheses-holds"),
    pytest.param(PSO_COMPOSITION, "x < 4", "base", 1, id="composition-x<4-fails"),
    pytest.param(PSO_COMPOSITION, "b0 == 0 and b1 == 0", "base", 1, id="composition-bits-fails"),
    pytest.param(PSO_COMPOSITION, "x % 4 == 0 or x in [1, 2, 3] and x < 3 or x == 3", "base", 1,
                 id="composition-mixed-fails"),
])
def test_control_predicates(tmp_path, base, predicate, key, code):
    assert_verdict(invoke(["pso", _spec(tmp_path, predicate, key, base)]), code)
