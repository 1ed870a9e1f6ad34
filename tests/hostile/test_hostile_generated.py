"""Generated hostile specs (Hypothesis), run in-process through the CLI.

Valid specs of every command are mutated — keys set to values of the wrong type, extreme
numbers, NaN and infinities, keys and tables dropped or added, tables replaced by scalars —
and whatever comes out, plrv must exit 0, 1, 2 or 3 without a traceback, and an error must be
ONE ``error:`` line. Unmutated specs must keep their known verdict.

Positive integers are kept small (≤ 4) so that a mutation cannot turn a small valid spec into
a legitimately huge computation; sizes are the subject of test_hostile_budgets.py (subprocesses).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from harness import (
    FAMILIES,
    GEOMETRIC,
    GUESS_GRID,
    GUESS_VALUES,
    PARTIAL,
    PARTIAL_HOLDS,
    PSO_COUNT,
    PSO_RR,
    PSO_TRIVIAL,
    RR,
    RR_HOLDS,
    SUPPORT,
    assert_contract,
    assert_verdict,
    deep_copy,
    dumps,
    invoke,
    write,
)
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

BASES = [  # (command, spec, exit status of the unmutated spec)
    ("check", RR, 1), ("check", RR_HOLDS, 0), ("check", PARTIAL, 1),
    ("check", PARTIAL_HOLDS, 0), ("check", SUPPORT, 1), ("check", GEOMETRIC, 0),
    ("check", FAMILIES, 1), ("pso", PSO_TRIVIAL, 0), ("pso", PSO_COUNT, 0), ("pso", PSO_RR, 0),
    ("guess", GUESS_VALUES, 0), ("guess", GUESS_GRID, 0),
]

SETTINGS = settings(max_examples=60, deadline=None, derandomize=False,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

NUMBER_TEXT = st.one_of(
    st.sampled_from(["0", "1", "-1", "1/2", "3/4", "-3/4", "1/0", "0/0", "2", "0.5", ".5",
                     "5.", "1e-6", "1e50", "1e-50", "-1e-50", "1E+3", "ln(2)", "ln(1)", "ln(0)",
                     "ln(-2)", "ln(1/2)", "ln(1e50)", "inf", "-inf", "+inf", "∞", "nan", "NaN",
                     "infinity", "", " ", "1/2/3", "0x10", "1_000", "١", "½", "²", "1 /2",
                     "ln( 2 )", "ln(2", "exp(1)", "e", "9" * 30, f"1/{'7' * 30}",
                     f"{'9' * 29}/{'1' + '0' * 29}", "0." + "0" * 40 + "1"]),
    st.builds(lambda a, b: f"{a}/{b}", st.integers(-10**6, 10**6), st.integers(-10, 10**6)),
    st.builds(lambda m, e: f"{m}e{e}", st.integers(-99, 99), st.integers(-60, 60)),
)
SAFE_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
SCALARS = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2 ** 63), max_value=4),
    st.sampled_from([-(10 ** 30), -(2 ** 64), -1, 0]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 0.5, 1e-300, 1e300]),
    NUMBER_TEXT,
    SAFE_TEXT,
    st.sampled_from(["all", "dp", "apkdp", "ppkdp", "noiseless", "count", "identity", "brute",
                     "counts", "auto", "optimal", "trivial", "and", "or", "x < 3", "x <",
                     "threshold_count", "randomized_response", "truncated_geometric",
                     "exponential", "function", "os:system", "..m:f"]),
)
KEY_NAMES = st.one_of(st.sampled_from(["records", "values", "prior", "truth", "kind", "n",
                                       "bits", "weights", "target", "known", "pairs", "epsilon",
                                       "delta", "notions", "databases", "engine", "datasets",
                                       "range", "grid", "precision", "mode", "eta", "tolerance",
                                       "extra", "__class__", ""]),
                      st.text(st.characters(blacklist_categories=("Cs",)), min_size=1,
                              max_size=8))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4),
    st.dictionaries(KEY_NAMES, inner, max_size=3)), max_leaves=8)


def _paths(doc: dict) -> list[tuple]:
    """Every place a mutation can hit: tables, keys, list elements (one level)."""
    out = []
    for table, content in doc.items():
        out.append((table,))
        if isinstance(content, dict):
            for key, value in content.items():
                out.append((table, key))
                if isinstance(value, list):
                    out += [(table, key, i) for i in range(len(value))]
    return out


@st.composite
def mutated_specs(draw):
    command, base, expected = draw(st.sampled_from(BASES))
    doc = deep_copy(base)
    mutations = draw(st.integers(min_value=0, max_value=3))
    for _ in range(mutations):
        paths = _paths(doc)
        action = draw(st.sampled_from(["set", "set", "set", "drop", "add-key", "add-table"]))
        if action == "add-table" or not paths:
            doc[draw(KEY_NAMES)] = draw(st.one_of(VALUES, st.dictionaries(KEY_NAMES, VALUES,
                                                                          max_size=2)))
            continue
        path = draw(st.sampled_from(paths))
        if action == "add-key":
            table = doc.get(path[0])
            if isinstance(table, dict):
                table[draw(KEY_NAMES)] = draw(VALUES)
            continue
        parent, last = doc, path[-1]
        for step in path[:-1]:
            parent = parent[step]
        if action == "drop":
            if isinstance(parent, list):
                parent.pop(last)
            else:
                parent.pop(last)
        else:
            parent[last] = draw(VALUES)
    return command, doc, (expected if mutations == 0 else None)


@SETTINGS
@given(mutated_specs())
@pytest.mark.slow
def test_generated_specs_keep_the_contract(case):
    command, doc, expected = case
    try:
        text = dumps(doc)
    except (TypeError, ValueError):
        return  # not expressible as TOML (the generator's limitation, not plrv's)
    note(f"plrv {command} spec.toml with:\n{text}")
    with tempfile.TemporaryDirectory() as folder:
        spec = write(Path(folder), text)
        o = invoke([command, spec])
    if expected is not None:
        assert_verdict(o, expected)
    else:
        assert_contract(o)


TOML_SNIPPETS = st.sampled_from([
    "[data]", "[mechanism]", "[query]", "[limits]", "[[data]]", "[data.x]", "records = 3",
    "values = [0, 1]", 'kind = "randomized_response"', 'truth = "3/4"', 'epsilon = "ln(2)"',
    'delta = "0"', 'notions = ["dp"]', "records = inf", "records = nan", "truth = 0.75",
    "values = [[0], [1]]", "x = {a = {b = 1}}", "a.b.c = 1", "records = 1979-05-27",
    "records = 0x10", "records = 1_000", 'values = """0\n1"""', "# comment ü",
    "records = -0", "values = []", "= 1", "records =", '"" = 1', "[]", "\x00", "\ud7ff",
])


@SETTINGS
@given(st.one_of(
    st.lists(TOML_SNIPPETS, max_size=14).map("\n".join),
    st.text(max_size=200).filter(lambda t: not any(0xD800 <= ord(c) <= 0xDFFF for c in t)),
    st.binary(max_size=200),
))
@pytest.mark.slow
def test_generated_files_keep_the_contract(content):
    """Arbitrary TOML-ish text and raw bytes as the spec of `plrv check`."""
    with tempfile.TemporaryDirectory() as folder:
        spec = write(Path(folder), content)
        o = invoke(["check", spec])
    assert_contract(o)
