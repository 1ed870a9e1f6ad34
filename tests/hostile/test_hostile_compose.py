"""``plrv compose`` with an adaptive ``[composition]`` and its enclosure options: every bad
key, option or user function is exit 2 with one line naming the file and the key, option
or function; a decided verdict exits 0 or 1 and an undecided enclosure 3."""

from __future__ import annotations

import pytest
from harness import RR, assert_error, assert_verdict, invoke, mutate, write

STEPS_MODULE = '''\
from fractions import Fraction

from verifier import Dist


def first(x, earlier):
    return Dist({x[0]: "3/4", 1 - x[0]: "1/4"})


def again(x, earlier):
    if earlier[0] != 1:
        return "stop"
    return Dist({x[0]: "2/3", 1 - x[0]: "1/3"})


def raises(x, earlier):
    raise ZeroDivisionError("boom")


def floats(x, earlier):
    return 0.5


def float_weights(x, earlier):
    return Dist({0: 0.25, 1: 0.75})


def a_dict(x, earlier):
    return {0: 1}


def a_bool(x, earlier):
    return True


def an_object(x, earlier):
    return object()


def exits(x, earlier):
    raise SystemExit(3)


def rational(x, earlier):
    return Fraction(x[0], 2)


not_a_function = 3
'''

ADAPTIVE = {
    "data": {"records": 1, "values": [0, 1]},
    "composition": {"steps": ["hostile_steps:first", "hostile_steps:again"]},
    "query": {"epsilon": "ln(2)", "delta": "1/3", "notions": ["dp"]},
}


def _spec(tmp_path, doc=ADAPTIVE):
    (tmp_path / "hostile_steps.py").write_text(STEPS_MODULE, encoding="utf-8")
    return write(tmp_path, doc)


def _steps(*names):
    return mutate(ADAPTIVE, "composition.steps", [f"hostile_steps:{n}" for n in names])


@pytest.mark.parametrize("doc, needle", [
    (mutate(ADAPTIVE, "composition.steps", []), "composition.steps"),
    (mutate(ADAPTIVE, "composition.steps", "hostile_steps:first"), "composition.steps"),
    (mutate(ADAPTIVE, "composition.steps", [1, 2]), "composition.steps"),
    (mutate(ADAPTIVE, "composition.steps", ["first"]), "composition.steps"),
    (mutate(ADAPTIVE, "composition.steps", ["os:system"]), "composition.steps"),
    (mutate(ADAPTIVE, "composition.steps", ["hostile_steps:nothing"]), "composition.steps"),
    (mutate(ADAPTIVE, "composition.steps", ["hostile_steps:not_a_function"]),
     "composition.steps"),
    (mutate(ADAPTIVE, "composition.steps", ["nowhere:f"]), "composition.steps"),
    (mutate(ADAPTIVE, "composition.enclosure", "sometimes"), "composition.enclosure"),
    (mutate(ADAPTIVE, "composition.enclosure", True), "composition.enclosure"),
    (mutate(ADAPTIVE, "composition.grid", "ln(1)"), "composition.grid"),
    (mutate(ADAPTIVE, "composition.grid", "1/2"), "composition.grid"),
    (mutate(ADAPTIVE, "composition.grid", 0.5), "composition.grid"),
    (mutate(ADAPTIVE, "composition.grid", "ln(x)"), "composition.grid"),
    (mutate(ADAPTIVE, "composition.repeat", 2), "composition.repeat"),
    (mutate(ADAPTIVE, "composition", "steps"), "composition"),
    (mutate(ADAPTIVE, "mechanism", {"kind": "identity"}), "composition.steps"),
    (mutate(ADAPTIVE, "attacker", {"target": 0}), "[attacker]"),
    (mutate(ADAPTIVE, "data.prior", ["1/2", "1/2"]), "data.prior"),
    (mutate(ADAPTIVE, "data.records", 0), "data.records"),
    (mutate(ADAPTIVE, "data.records", True), "data.records"),
    (mutate(ADAPTIVE, "data.values", []), "data.values"),
    (mutate(ADAPTIVE, "data"), "[data]"),
    (mutate(ADAPTIVE, "query.epsilon", 0.5), "query.epsilon"),
    (mutate(ADAPTIVE, "query.delta", "2"), "query.delta"),
    (mutate(ADAPTIVE, "query.notions", ["apkdp"]), "query.notions"),
    (mutate(ADAPTIVE, "query"), "[query]"),
    (mutate(ADAPTIVE, "limits.sequences", 0), "limits.sequences"),
    (mutate(ADAPTIVE, "limits.loss_values", "many"), "limits.loss_values"),
    (mutate(ADAPTIVE, "limits.sequences", 2), "limits.sequences"),
    (mutate(ADAPTIVE, "neighbours.relation", "nearby"), "neighbours.relation"),
], ids=lambda v: v if isinstance(v, str) else None)
@pytest.mark.slow
def test_bad_composition_spec(tmp_path, doc, needle):
    path = _spec(tmp_path, doc)
    assert_error(invoke(["compose", "--json", path]), needle, file=path)


@pytest.mark.parametrize("function", ["raises", "floats", "float_weights", "a_dict", "a_bool",
                                      "an_object", "exits"])
def test_bad_step_function(tmp_path, function):
    """A step that raises, returns a float, float weights, a dict, a bool or an arbitrary
    object: exit 2 naming the function (and the key that named it)."""
    path = _spec(tmp_path, _steps("first", function))
    assert_error(invoke(["compose", path]), f"hostile_steps:{function}", "composition.steps",
                 file=path)


@pytest.mark.parametrize("args, needle", [
    (["--enclosure", "maybe"], "--enclosure"),
    (["--grid", "ln(1/2)"], "--grid"),
    (["--grid", "0.5"], "--grid"),
    (["--grid", "2"], "--grid"),
    (["--max-values", "0"], "--max-values"),
    (["--max-values", "x"], "--max-values"),
    (["--accounting"], "--accounting"),
    (["--k", "0"], "--k"),
], ids=lambda v: v if isinstance(v, str) else " ".join(v))
def test_bad_options(tmp_path, args, needle):
    assert_error(invoke(["compose", "--json", _spec(tmp_path), *args]), needle)


def test_mechanism_spec_needs_k_and_takes_only_enclosure_keys(tmp_path):
    rr = mutate(RR, "data.records", 1)
    assert_error(invoke(["compose", "--json", write(tmp_path, rr)]), "--k")
    path = write(tmp_path, mutate(rr, "composition", {"grid": "ln(1)"}), "g.toml")
    assert_error(invoke(["compose", "--json", path, "--k", "2"]), "composition.grid", file=path)
    path = write(tmp_path, mutate(rr, "limits", {"loss_values": 0}), "l.toml")
    assert_error(invoke(["compose", "--json", path, "--k", "2"]), "limits.loss_values", file=path)


@pytest.mark.parametrize("args, expected", [
    ([], 0),                                              # exact δ(ln 2) = 1/3 ≤ 1/3
    (["--enclosure", "always", "--grid", "ln(2)"], 3),    # [1/4, 3/8] ∋ 1/3: unknown
    (["--enclosure", "always", "--grid", "ln(9/8)"], None),
    (["--k", "2"], None),
], ids=["exact", "enclosure-unknown", "fine-grid", "k-2"])
def test_controls_decide_or_say_unknown(tmp_path, args, expected):
    o = invoke(["compose", "--json", _spec(tmp_path), *args])
    assert_verdict(o, (0, 1, 3) if expected is None else expected)
    rational = _spec(tmp_path, _steps("first", "rational"))
    assert_verdict(invoke(["compose", "--json", rational]), (0, 1))
