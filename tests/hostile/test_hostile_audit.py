"""``plrv audit CONFIG`` against hostile configs and options.

The contract: exit 0 only when every case is sound, 1 when some case is unsound, 3 unknown,
2 for any error — a bad key or value, a library that rejects its arguments, an instance too
big — with ONE ``error:`` line naming the file and the key (``case[i].args.scale``,
``case[i].compose``) or the option (``--conformance``). A crash, a hang or an out-of-memory
kill is never an answer.

Cheap inputs run in-process (CliRunner); those that could eat memory or time (huge bucket
counts, long compositions, many cases) in a subprocess under the harness's limits (2 GiB,
20 s of CPU). Each case names the library it needs and is skipped when it is not installed.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from harness import (
    _command,
    assert_error,
    assert_verdict,
    clean_env,
    invoke,
    run,
    toml_value,
    write,
)


def F(text: str) -> dict:
    return {"f64": text}


def _toml(cases: list[dict]) -> str:
    out = []
    for c in cases:
        out.append("[[case]]")
        out += [f"{k} = {toml_value(v)}" for k, v in c.items()]
        out.append("")
    return "\n".join(out)


def _needs(library: str) -> None:
    if importlib.util.find_spec(library) is None:
        pytest.skip(f"{library} is not installed")


PRV = {"library": "prv_accountant", "constructor": "PureDPMechanism",
       "args": {"eps": "ln(3)"},
       "options": {"eps_error": F("0.01"), "delta_error": F("1e-6")},
       "compose": 2, "delta": "1/1000"}
AUTODP = {"library": "autodp", "constructor": "RandresponseMechanism",
          "args": {"p": F("0.75")}, "options": {"accountant": "rdp"}, "compose": 10,
          "delta": "1/1000"}
DPA = {"library": "dp_accounting", "constructor": "RandomizedResponseDpEvent",
       "args": {"noise_parameter": F("0.5"), "num_buckets": 2},
       "options": {"accountant": "pld"}, "compose": 10, "delta": "1/1000"}
RR = {"library": "opendp", "constructor": "make_randomized_response",
      "args": {"categories": [0, 1, 2], "prob": F("0.75")}, "d_in": 1}
RRB = {"library": "opendp", "constructor": "make_randomized_response_bool",
       "args": {"prob": F("0.75")}}
LAP = {"library": "opendp", "constructor": "make_laplace", "args": {"scale": F("1")},
       "d_in": 1}
THR = {"library": "opendp", "constructor": "make_laplace_threshold",
       "args": {"scale": F("0x1.71547652b82fep+0"), "threshold": 3}, "d_in": [1, 1, 1]}
NMAX = {"library": "opendp", "constructor": "make_noisy_max", "args": {"scale": F("1")},
        "d_in": 1, "inputs": [[0, 1, 2], [1, 1, 2]]}
GEO = {"library": "opendp", "constructor": "make_geometric",
       "args": {"scale": F("1"), "bounds": [0, 10]}, "d_in": 1}
GAUSS = {"library": "opendp", "constructor": "make_gaussian", "args": {"scale": F("1")},
         "d_in": 1}
BITVEC = {"library": "opendp", "constructor": "make_randomized_response_bitvec",
          "args": {"max_weight": 1, "f": F("0.5")},
          "inputs": [[0, 0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0, 1, 0]]}
BINARY = {"library": "diffprivlib", "constructor": "Binary",
          "args": {"epsilon": "ln(3)", "value0": "a", "value1": "b"}}
GEOTR = {"library": "diffprivlib", "constructor": "GeometricTruncated",
         "args": {"epsilon": F("1"), "sensitivity": 1, "lower": 0, "upper": 5},
         "inputs": [0, 1]}

_DROP = object()


def _with(base: dict, **changes: object) -> dict:
    """``base`` with top-level keys changed (``_DROP`` removes), ``args__x`` / ``options__x``
    changing one argument or option."""
    out = {k: (dict(v) if isinstance(v, dict) else v) for k, v in base.items()}
    for key, value in changes.items():
        table, _, name = key.partition("__")
        target, k = (out.setdefault(table, {}), name) if name else (out, table)
        if value is _DROP:
            target.pop(k, None)
        else:
            target[k] = value
    return out


def bad(base: dict, key: str, label: str, **changes: object):
    """One case that must exit 2 with an error naming ``case[0].<key>``."""
    return pytest.param(base, changes, key, id=f"{base['library']}:{base['constructor']}:"
                                                f"{label}")


# ------------------------------------------------------------- keys and values refused

REFUSED = [
    # the case's own keys
    bad(PRV, "library", "unknown-library", library="tensorflow_privacy"),
    bad(PRV, "library", "library-int", library=1),
    bad(PRV, "library", "library-missing", library=_DROP),
    bad(PRV, "constructor", "unknown-constructor", constructor="GaussianMechanism"),
    bad(RR, "constructor", "opendp-unknown-constructor", constructor="make_foo"),
    bad(PRV, "colour", "unknown-key", colour="blue"),
    bad(PRV, "args", "args-a-list", args=[1, 2]),
    bad(PRV, "options", "options-a-list", options=[1]),
    bad(PRV, "args.eps", "arg-a-table", args__eps={"a": 1}),
    bad(PRV, "args.eps", "arg-a-list", args__eps=[1]),
    bad(PRV, "args.eps", "arg-a-float", args__eps=1.5),
    bad(PRV, "args.eps", "arg-f64-nan", args__eps=F("nan")),
    bad(PRV, "args.eps", "arg-f64-inf", args__eps=F("inf")),
    bad(PRV, "args.eps", "arg-negative", args__eps="-1"),
    bad(PRV, "args.eps", "arg-huge", args__eps=F("1e300")),
    bad(PRV, "args.eps", "arg-bool", args__eps=True),
    bad(PRV, "args.colour", "unknown-arg", args__colour=1),
    bad(PRV, "options.colour", "unknown-option", options__colour=1),
    bad(PRV, "options.eps_error", "option-missing", options__eps_error=_DROP),
    bad(PRV, "compose", "compose-0", compose=0),
    bad(PRV, "compose", "compose-1e9", compose=10 ** 9),
    bad(PRV, "compose", "compose-true", compose=True),
    bad(PRV, "compose", "compose-str", compose="10"),
    bad(PRV, "compose", "compose-missing", compose=_DROP),
    bad(PRV, "delta", "delta-2", delta="2"),
    bad(PRV, "delta", "delta-minus-1", delta="-1"),
    bad(PRV, "delta", "delta-float", delta=0.001),
    bad(PRV, "delta", "delta-f64-nan", delta=F("nan")),
    bad(PRV, "delta", "delta-f64-negative", delta=F("-0.001")),
    bad(PRV, "delta", "delta-a-table", delta={"x": 1}),
    bad(PRV, "delta", "delta-bool", delta=True),
    bad(PRV, "epsilon", "epsilon-ln-half", delta=_DROP, epsilon="ln(1/2)"),
    bad(PRV, "epsilon", "epsilon-ln-0", delta=_DROP, epsilon="ln(0)"),
    bad(PRV, "epsilon", "epsilon-negative", delta=_DROP, epsilon="-1"),
    bad(PRV, "epsilon", "epsilon-inf", delta=_DROP, epsilon="inf"),
    bad(PRV, "epsilon", "epsilon-f64-inf", delta=_DROP, epsilon=F("inf")),
    bad(PRV, "epsilon", "epsilon-f64-negative", delta=_DROP, epsilon=F("-1")),
    bad(PRV, "epsilon", "epsilon-a-table", delta=_DROP, epsilon={"x": 1}),
    bad(PRV, "delta", "both-delta-and-epsilon", epsilon="ln(3)"),
    bad(PRV, "epsilon", "neither-delta-nor-epsilon", delta=_DROP),
    bad(PRV, "d_in", "d_in-not-applicable", d_in=1),
    bad(PRV, "d_in", "d_in-a-table", d_in={"a": 1}),
    bad(PRV, "inputs", "inputs-not-applicable", inputs=[0, 1]),
    bad(PRV, "inputs", "inputs-a-string", inputs="abc"),
    bad(PRV, "inputs", "inputs-empty", inputs=[]),
    # autodp
    bad(AUTODP, "args.p", "p-2", args__p=F("2")),
    bad(AUTODP, "options.accountant", "accountant-missing", options__accountant=_DROP),
    bad(AUTODP, "options.accountant", "accountant-unknown", options__accountant="moments"),
    bad(AUTODP, "options.accountant", "accountant-int", options__accountant=1),
    # dp_accounting
    bad(DPA, "args.noise_parameter", "noise-0", args__noise_parameter=F("0")),
    bad(DPA, "args.noise_parameter", "noise-2", args__noise_parameter=F("2")),
    bad(DPA, "args.num_buckets", "buckets-1", args__num_buckets=1),
    bad(DPA, "args.num_buckets", "buckets-str", args__num_buckets="2"),
    bad(DPA, "options.composition", "composition-unknown", options__composition="twice"),
    bad(DPA, "options.value_discretization_interval", "interval-with-rdp",
        options__accountant="rdp", options__value_discretization_interval=F("0.1")),
    # OpenDP
    bad(LAP, "args.scale", "scale-negative", args__scale=F("-1")),
    bad(LAP, "args.scale", "scale-minus-zero", args__scale=F("-0")),
    bad(LAP, "args.scale", "scale-str", args__scale="1"),
    bad(LAP, "args.scale", "scale-beyond-double", args__scale=9223372036854775807),
    bad(LAP, "args.scale", "scale-missing", args__scale=_DROP),
    bad(LAP, "d_in", "d_in-0", d_in=0),
    bad(LAP, "d_in", "d_in-str", d_in="1"),
    bad(LAP, "d_in", "d_in-i32-max", d_in=2 ** 31 - 1),
    bad(RR, "args.categories", "categories-one", args__categories=[0]),
    bad(RR, "args.categories", "categories-mixed", args__categories=[0, "a"]),
    bad(RR, "args.categories", "categories-bools", args__categories=[True, False]),
    bad(RR, "args.categories", "categories-nested", args__categories=[[0], [1]]),
    bad(RR, "args.categories", "categories-nested-deep",
        args__categories=[[[[[[[[[[0]]]]]]]]]]),
    bad(RR, "d_in", "rr-d_in-0", d_in=0),
    bad(RR, "inputs", "rr-inputs-of-another-type", inputs=["a", "b"]),
    bad(RRB, "args.constant_time", "constant-time-str", args__constant_time="no"),
    bad(THR, "args.scale", "threshold-scale-negative", args__scale=F("-1")),
    bad(THR, "args.threshold", "threshold-negative", args__threshold=-5),
    bad(THR, "d_in", "threshold-d_in-int", d_in=1),
    bad(THR, "d_in", "threshold-d_in-negative", d_in=[1, -1, 1]),
    bad(NMAX, "d_in", "noisy-max-d_in-missing", d_in=_DROP),
    bad(NMAX, "inputs", "noisy-max-d_in-0", d_in=0),
    bad(NMAX, "inputs", "noisy-max-inputs-missing", inputs=_DROP),
    bad(NMAX, "inputs", "noisy-max-nine-candidates",
        inputs=[list(range(9)), [1, *range(1, 9)]]),
    bad(NMAX, "inputs", "noisy-max-mixed-types", inputs=[[0, 1, 2], [F("1"), 1, 2]]),
    bad(NMAX, "args.negate", "noisy-max-negate-str", args__negate="yes"),
    bad(_with(NMAX, constructor="make_noisy_top_k"), "inputs", "top-k-above-n", args__k=5),
    bad(_with(NMAX, constructor="make_noisy_top_k"), "args.k", "top-k-str", args__k="2"),
    bad(GEO, "args.bounds", "bounds-reversed", args__bounds=[3, 0]),
    bad(GEO, "args.bounds", "bounds-three", args__bounds=[0, 1, 2]),
    bad(GEO, "args.bounds", "bounds-too-wide", args__bounds=[0, 100000]),
    bad(GEO, "args.scale", "bounded-scale-tiny", args__scale=F("1e-300")),
    bad(GAUSS, "d_in", "gaussian-d_in-2^29", d_in=2 ** 29),
    bad(BITVEC, "inputs", "bitvec-24-bits", inputs=[[0] * 23 + [1], [1] + [0] * 23]),
    bad(BITVEC, "inputs", "bitvec-not-bits", inputs=[[0] * 7 + [2], [0] * 6 + [1, 0]]),
    bad(BITVEC, "inputs", "bitvec-booleans", inputs=[[False] * 7 + [True], [0] * 8]),
    # diffprivlib
    bad(BINARY, "args.value0", "binary-same-values", args__value1="a"),
    bad(BINARY, "args.value0", "binary-int-values", args__value0=0, args__value1=1),
    bad(BINARY, "args.delta", "binary-delta-arg", args__delta="1/10"),
    bad(BINARY, "inputs", "binary-inputs", inputs=["a", "b"]),
    bad(GEOTR, "inputs", "geometric-inputs-missing", inputs=_DROP),
    bad(GEOTR, "inputs", "geometric-input-outside", inputs=[0, 9]),
    bad(GEOTR, "args.sensitivity", "geometric-sensitivity-0", args__sensitivity=0),
    bad(GEOTR, "args.lower", "geometric-lower-above-upper", args__lower=5, args__upper=0),
    bad(_with(GEOTR, constructor="Geometric", args={"epsilon": F("1e-6")}), "args",
        "geometric-too-many-outputs"),
]


APPROX = _with(PRV, constructor="ApproximateDPMechanism",
               args={"epsilon": "1", "delta": "1/100000"})
TOPK = _with(NMAX, constructor="make_noisy_top_k", args__k=2)
GEOM = _with(GEOTR, constructor="Geometric", args={"epsilon": F("1"), "sensitivity": 1})

OPTION_VALUES = [  # every argument and option a library takes is checked by plrv first
    # prv_accountant: PRVAccountant(eps_error, delta_error, eps_max), compute_epsilon(δ)
    bad(PRV, "options.eps_max", "eps-max-minus-5", options__eps_max=-5),
    bad(PRV, "options.eps_max", "eps-max-0", options__eps_max=0),
    bad(PRV, "options.eps_max", "eps-max-below-eps", options__eps_max=1),
    bad(PRV, "options.eps_max", "eps-max-grid-too-big", options__eps_max=F("1e300")),
    bad(PRV, "options.eps_max", "eps-max-str", options__eps_max="abc"),
    bad(PRV, "options.eps_max", "eps-max-bool", options__eps_max=True),
    bad(PRV, "options.eps_max", "eps-max-nan", options__eps_max=F("nan")),
    bad(PRV, "options.eps_error", "eps-error-0", options__eps_error=F("0")),
    bad(PRV, "options.eps_error", "eps-error-negative", options__eps_error=F("-1")),
    bad(PRV, "options.eps_error", "eps-error-1e300", options__eps_error=F("1e300")),
    bad(PRV, "options.eps_error", "eps-error-grid-too-big", options__eps_error=F("1e-300")),
    bad(PRV, "options.eps_error", "eps-error-list", options__eps_error=[1]),
    bad(PRV, "options.delta_error", "delta-error-0", options__delta_error=F("0")),
    bad(PRV, "options.delta_error", "delta-error-negative", options__delta_error=F("-1")),
    bad(PRV, "options.delta_error", "delta-error-1", options__delta_error=1),
    bad(PRV, "options.delta_error", "delta-error-20", options__delta_error=20),
    bad(PRV, "options.delta_error", "delta-error-at-delta", options__delta_error="1/1000"),
    bad(PRV, "options.delta_error", "delta-error-inf", options__delta_error=F("inf")),
    bad(PRV, "delta", "prv-delta-1", delta="1"),
    bad(APPROX, "args.delta", "approx-delta-1", args__delta="1"),
    bad(APPROX, "args.delta", "approx-delta-negative", args__delta="-1/10"),
    bad(APPROX, "args.epsilon", "approx-epsilon-negative", args__epsilon="-1"),
    # autodp: RandresponseMechanism(p)
    bad(AUTODP, "args.p", "p-negative", args__p=F("-0.5")),
    bad(AUTODP, "args.p", "p-str", args__p="x"),
    bad(AUTODP, "args.p", "p-bool", args__p=True),
    # dp_accounting: RandomizedResponseDpEvent(p, m), PLDAccountant(interval)
    bad(DPA, "args.noise_parameter", "noise-1", args__noise_parameter=F("1")),
    bad(DPA, "args.noise_parameter", "noise-negative", args__noise_parameter=F("-0.5")),
    bad(DPA, "args.num_buckets", "buckets-0", args__num_buckets=0),
    bad(DPA, "args.num_buckets", "buckets-bool", args__num_buckets=True),
    bad(DPA, "options.value_discretization_interval", "interval-0",
        options__value_discretization_interval=F("0")),
    bad(DPA, "options.value_discretization_interval", "interval-negative",
        options__value_discretization_interval=F("-1")),
    bad(DPA, "options.value_discretization_interval", "interval-str",
        options__value_discretization_interval="x"),
    bad(DPA, "options.accountant", "dpa-accountant-unknown", options__accountant="moments"),
    bad(DPA, "options.composition", "composition-int", options__composition=1),
    # diffprivlib: Binary(epsilon), Geometric(epsilon, sensitivity), bounds
    bad(BINARY, "args.epsilon", "binary-epsilon-0", args__epsilon="0"),
    bad(BINARY, "args.epsilon", "binary-epsilon-negative", args__epsilon="-1"),
    bad(BINARY, "args.epsilon", "binary-epsilon-bool", args__epsilon=True),
    bad(GEOM, "args.epsilon", "geometric-epsilon-0", args__epsilon=F("0")),
    bad(GEOM, "args.epsilon", "geometric-epsilon-negative", args__epsilon=F("-1")),
    bad(GEOM, "args.sensitivity", "geometric-sensitivity-negative", args__sensitivity=-1),
    bad(GEOM, "args.sensitivity", "geometric-sensitivity-str", args__sensitivity="1"),
    bad(GEOTR, "args.lower", "geometric-lower-str", args__lower="0"),
    bad(GEOTR, "args.upper", "geometric-upper-missing", args__upper=_DROP),
    bad(GEOTR, "d_in", "geometric-d_in-0", d_in=0),
    # OpenDP: the Rust types and ranges of its arguments (i32, u32, probabilities)
    bad(RR, "args.prob", "rr-prob-above-1", args__prob=F("2")),
    bad(RR, "args.prob", "rr-prob-negative", args__prob=F("-0.5")),
    bad(RR, "args.prob", "rr-prob-below-fl-1/3", args__prob=F("0.3")),
    bad(RR, "args.categories", "rr-duplicate-categories", args__categories=[0, 0]),
    bad(RR, "args.categories", "rr-duplicate-among-three", args__categories=[0, 1, 0]),
    bad(RR, "args.categories", "rr-category-beyond-i32", args__categories=[0, 2 ** 31]),
    bad(RR, "d_in", "rr-d_in-beyond-u32", d_in=2 ** 32),
    bad(RRB, "args.prob", "rr-bool-prob-below-half", args__prob=F("0.25")),
    bad(RRB, "args.prob", "rr-bool-prob-above-1", args__prob=F("1.5")),
    bad(RRB, "d_in", "rr-bool-d_in-beyond-u32", d_in=10 ** 12),
    bad(BITVEC, "args.f", "bitvec-f-0", args__f=F("0")),
    bad(BITVEC, "args.f", "bitvec-f-2", args__f=F("2")),
    bad(BITVEC, "args.max_weight", "bitvec-weight-negative", args__max_weight=-1),
    bad(BITVEC, "args.max_weight", "bitvec-weight-beyond-u32", args__max_weight=2 ** 32),
    bad(LAP, "args.scale", "laplace-scale-0", args__scale=F("0")),
    bad(LAP, "d_in", "laplace-d_in-negative", d_in=-3),
    bad(LAP, "d_in", "laplace-d_in-beyond-i32", d_in=10 ** 30),
    bad(GEO, "args.bounds", "bounds-beyond-i32", args__bounds=[2 ** 31 - 1, 2 ** 31 + 52]),
    bad(GEO, "args.bounds", "bounds-below-i32", args__bounds=[-2 ** 31 - 1, -2 ** 31 + 5]),
    bad(GEO, "args.scale", "bounded-scale-p-rounds-to-0", args__scale=F("1e300")),
    bad(GEO, "d_in", "bounded-d_in-beyond-i32", d_in=10 ** 30),
    bad(GAUSS, "d_in", "gaussian-d_in-0", d_in=0),
    bad(GAUSS, "args.scale", "gaussian-scale-negative", args__scale=F("-2")),
    bad(NMAX, "d_in", "noisy-max-d_in-negative", d_in=-1),
    bad(NMAX, "d_in", "noisy-max-d_in-beyond-i32", d_in=10 ** 30),
    bad(NMAX, "args.scale", "noisy-max-scale-0", args__scale=F("0")),
    bad(_with(NMAX, inputs=[[F("0"), F("1")], [F("1"), F("1")]]), "d_in",
        "noisy-max-d_in-f64-negative", d_in=F("-1")),
    bad(TOPK, "args.k", "top-k-0", args__k=0),
    bad(TOPK, "args.k", "top-k-negative", args__k=-1),
    bad(THR, "args.threshold", "threshold-0", args__threshold=0),
    bad(THR, "args.threshold", "threshold-beyond-i32", args__threshold=10 ** 11),
    bad(THR, "args.threshold", "threshold-below-linf", d_in=[1, 100000, 100000]),
    bad(THR, "d_in", "threshold-l0-beyond-u32", d_in=[2 ** 32, 1, 1]),
    bad(THR, "d_in", "threshold-l1-beyond-i32", d_in=[1, 2 ** 31, 1]),
]


@pytest.mark.parametrize(("base", "changes", "key"), OPTION_VALUES)
def test_option_values_refused_before_the_library(tmp_path, base, changes, key):
    """A bad value of any argument or option is refused by plrv, naming its key, before the
    library sees it (the library's own errors named no key, or reached it unchecked)."""
    _needs(base["library"])
    spec = write(tmp_path, _toml([_with(base, **changes)]), "audit.toml")
    line = assert_error(invoke(["audit", spec]), f"case[0].{key}:", file=spec)
    assert "raised" not in line, f"the library saw the value: {line}"


@pytest.mark.parametrize(("base", "changes", "key"), REFUSED)
def test_refused_naming_the_key(tmp_path, base, changes, key):
    _needs(base["library"])
    spec = write(tmp_path, _toml([_with(base, **changes)]), "audit.toml")
    assert_error(invoke(["audit", spec]), f"case[0].{key}", file=spec)


# ------------------------------------------------ arguments the library itself rejects

LIBRARY_REJECTS = [  # values in the range plrv checks that the library's numerics still
    # refuse: exit 2 naming the case and the constructor (the library's message)
    bad(PRV, "", "prv-eps-100-discrete-mean", args__eps="100"),
    bad(PRV, "", "prv-eps-error-2^20-cannot-compute", options__eps_error=2 ** 20),
]


@pytest.mark.parametrize(("base", "changes", "key"), LIBRARY_REJECTS)
def test_library_rejects_is_exit_2(tmp_path, base, changes, key):
    _needs(base["library"])
    spec = write(tmp_path, _toml([_with(base, **changes)]), "audit.toml")
    line = assert_error(invoke(["audit", spec]), "case[0]",
                        f"{base['library']}.{base['constructor']}", file=spec)
    assert line.count(spec.name) == 1, f"the file is named once: {line}"


# ------------------------------------------------------------- legitimate verdicts

VERDICTS = [  # (base, changes, allowed exits): a decided or unknown verdict, never an error
    pytest.param(PRV, {"delta": "0"}, {0}, id="prv-delta-0-claims-inf"),
    pytest.param(PRV, {"args__eps": "0"}, {0}, id="prv-eps-0"),
    pytest.param(PRV, {"delta": _DROP, "epsilon": F("-0")}, {0, 1, 3}, id="prv-epsilon-minus-0"),
    pytest.param(PRV, {"delta": F("0.001")}, {0}, id="prv-delta-f64"),
    pytest.param(AUTODP, {"args__p": F("0")}, {0, 1, 3}, id="autodp-p-0"),
    pytest.param(AUTODP, {"args__p": F("1")}, {0, 1, 3}, id="autodp-p-1"),
    pytest.param(AUTODP, {"args__p": F("0.3")}, {0, 1, 3}, id="autodp-p-below-half"),
    pytest.param(AUTODP, {"options__accountant": "phi"}, {1}, id="autodp-phi-negative-eps"),
    pytest.param(RR, {"args__prob": F("1")}, {0}, id="opendp-rr-prob-1-claims-inf"),
    pytest.param(RRB, {"args__prob": F("0.5")}, {0}, id="opendp-rr-bool-prob-half"),
    pytest.param(LAP, {"args__scale": F("1e308")}, {0}, id="opendp-laplace-scale-huge"),
    pytest.param(THR, {"d_in": [0, 0, 0]}, {1}, id="opendp-threshold-d_in-zero"),
    pytest.param(THR, {"args__scale": F("1e300")}, {1}, id="opendp-threshold-scale-huge"),
    pytest.param(GEO, {"d_in": 10 ** 6}, {0}, id="opendp-bounded-geometric-d_in-huge"),
    pytest.param(GAUSS, {"args__scale": F("1e308")}, {0}, id="opendp-gaussian-scale-huge"),
    pytest.param(NMAX, {"args__scale": F("1e300")}, {0}, id="opendp-noisy-max-scale-huge"),
    # masses near e^(−10^300): decided and displayed relative to their largest terms (both
    # ran past the watchdog, in MPFR's underflow to 2^(−2^30))
    pytest.param(NMAX, {"args__scale": F("1e-300")}, {0}, id="opendp-noisy-max-scale-tiny"),
    pytest.param(THR, {"args__scale": F("1e-300")}, {1}, id="opendp-threshold-scale-tiny"),
    pytest.param(LAP, {"args__scale": F("1e-300")}, {0}, id="opendp-laplace-scale-tiny"),
    pytest.param(GEO, {"args__bounds": [3, 3]}, {0}, id="opendp-bounded-geometric-constant"),
    pytest.param(_with(GEOTR, constructor="Geometric", args={"epsilon": F("1e300")}), {},
                 {1, 3}, id="diffprivlib-geometric-epsilon-huge"),
]


@pytest.mark.parametrize(("base", "changes", "exits"), VERDICTS)
def test_legitimate_verdicts(tmp_path, base, changes, exits):
    _needs(base["library"])
    spec = write(tmp_path, _toml([_with(base, **changes)]), "audit.toml")
    assert_verdict(invoke(["audit", spec]), exits)


@pytest.mark.parametrize("epsilon", [F("40"), F("1000")], ids=["e^eps-above-2^53", "e^eps-inf"])
def test_diffprivlib_binary_that_never_flips_is_unsound(tmp_path, epsilon):
    """At ε = 40, ``e^ε ≥ 2^53`` so ``fl(e^ε + 1) = e^ε`` and ``fl(u·e^ε) ≤ e^ε`` for every
    draw ``u < 1``; at ε = 1000 numpy's ``exp`` is ``inf`` and ``u·inf`` is never above it:
    the input is always released, ε = ∞, and the claimed finite ε is unsound. (The audit
    answered exit 2 with a negative weight, or a numpy warning and a key ``f64``.)"""
    _needs("diffprivlib")
    spec = write(tmp_path, _toml([_with(BINARY, args__epsilon=epsilon)]), "audit.toml")
    o = invoke(["audit", spec, "--json"])
    assert_verdict(o, 1)
    assert o.stderr.strip() == ""
    import json
    row = json.loads(o.stdout)["cases"][0]
    assert row["verdict"] == "unsound" and row["exactness"] == "exact"


# ------------------------------------------------- sizes: memory and time stay bounded


def test_a_trillion_buckets_are_three_outputs(tmp_path):
    """dp_accounting's randomized response over 10^12 buckets: the m − 2 buckets of ratio 1
    are one output, so the pair is small (it was an out-of-memory kill)."""
    _needs("dp_accounting")
    spec = write(tmp_path, _toml([_with(DPA, args__num_buckets=10 ** 12,
                                        options__composition="repeat")]), "audit.toml")
    assert_verdict(run(["audit", spec]), (0, 1, 3))


def test_repeat_composition_is_bounded(tmp_path):
    """k calls of dp_accounting's compose took minutes at k = 10 000: refused."""
    _needs("dp_accounting")
    spec = write(tmp_path, _toml([_with(DPA, compose=10_000, options__composition="repeat")]),
                 "audit.toml")
    assert_error(run(["audit", spec]), "case[0].compose", "1000", file=spec)


def test_bracketed_composition_within_memory(tmp_path):
    """10 000 runs of randomized response at a double ε (a bracket of two 128-bit laws) went
    past 9.5 GB (a GMP abort under a memory limit): refused before it starts. (eps_error = 1
    keeps the accountant's own grid within limits.memory, which is checked first.)"""
    _needs("prv_accountant")
    spec = write(tmp_path, _toml([_with(PRV, compose=10_000, options__eps_error=F("1"))]),
                 "audit.toml")
    assert_error(run(["audit", spec]), "case[0].compose", "limits.memory", file=spec)


def test_k_fold_at_a_rational_truth_is_not_refused(tmp_path):
    """The memory estimate does not refuse what fits: 10 000 runs at truth 3/4 (autodp's
    p = 0.75 is exactly 3/4) take about 160 MB."""
    _needs("autodp")
    spec = write(tmp_path, _toml([_with(AUTODP, compose=10_000)]), "audit.toml")
    assert_verdict(run(["audit", spec]), (0, 1, 3))


def test_a_thousand_cases(tmp_path):
    _needs("opendp")
    spec = write(tmp_path, _toml([RRB] * 1000), "audit.toml")
    assert_verdict(run(["audit", spec]), 0)


def test_more_than_a_thousand_cases(tmp_path):
    spec = write(tmp_path, _toml([RRB] * 1001), "audit.toml")
    assert_error(invoke(["audit", spec]), "[[case]]", "1000", file=spec)


# ------------------------------------------------------------- files and documents

@pytest.mark.parametrize(("text", "needle"), [
    pytest.param("", "[[case]]", id="empty-file"),
    pytest.param("case = []\n", "[[case]]", id="empty-case-list"),
    pytest.param("case = [1, 2]\n", "case[0]", id="cases-not-tables"),
    pytest.param('[case]\nlibrary = "opendp"\n', "[[case]]", id="case-a-table"),
    pytest.param('colour = 1\n[[case]]\nlibrary = "opendp"\n', "colour", id="top-level-key"),
    pytest.param('case = "x"\n', "[[case]]", id="case-a-string"),
])
def test_bad_documents(tmp_path, text, needle):
    spec = write(tmp_path, text, "audit.toml")
    assert_error(invoke(["audit", spec]), needle, file=spec)


@pytest.mark.parametrize("raw", [b'[[case]]\nlibrary = "opendp\xff"\n', b"# \xfe\xff\n[[case]]\n"],
                         ids=["in-a-string", "in-a-comment"])
def test_not_utf8(tmp_path, raw):
    spec = write(tmp_path, raw, "audit.toml")
    assert_error(invoke(["audit", spec]), "UTF-8", file=spec)


def test_a_directory(tmp_path):
    assert_error(invoke(["audit", tmp_path]), str(tmp_path))


def test_a_fifo_does_not_block(tmp_path):
    fifo = tmp_path / "audit.toml"
    os.mkfifo(fifo)
    assert_error(run(["audit", fifo], timeout=10), file=fifo)


def test_a_missing_file(tmp_path):
    assert_error(invoke(["audit", tmp_path / "none.toml"]), "none.toml")


# ------------------------------------------------------------------------ options

@pytest.mark.parametrize(("options", "needle"), [
    pytest.param(["--conformance", "0"], "--conformance", id="conformance-0"),
    pytest.param(["--conformance", "-1"], "--conformance", id="conformance-negative"),
    pytest.param(["--conformance", str(10 ** 12)], "--conformance", id="conformance-10^12"),
    pytest.param(["--conformance", "many"], "--conformance", id="conformance-word"),
    pytest.param(["--certificate", "CERT"], "--certificate", id="certificate"),
])
def test_bad_options(tmp_path, options, needle):
    _needs("opendp")
    spec = write(tmp_path, _toml([RRB]), "audit.toml")
    args = [str(tmp_path / "cert") if a == "CERT" else a for a in options]
    assert_error(invoke(["audit", spec, *args]), needle)
    assert not (tmp_path / "cert").exists()


def test_small_conformance_is_a_verdict(tmp_path):
    _needs("opendp")
    spec = write(tmp_path, _toml([RRB]), "audit.toml")
    assert_verdict(invoke(["audit", spec, "--json", "--conformance", "5"]), (0, 3))


def _shell(spec: Path, redirect: str) -> subprocess.CompletedProcess:
    cmd = " ".join(f"'{c}'" for c in _command())
    return subprocess.run(["sh", "-c", f"{cmd} audit '{spec}' --json {redirect}"],
                          capture_output=True, text=True, timeout=60, env=clean_env())


def test_json_to_a_closed_stdout(tmp_path):
    """Nothing can be printed: the verdict's status (as every command does) or an error —
    never 1, never a traceback."""
    _needs("opendp")
    spec = write(tmp_path, _toml([RRB]), "audit.toml")
    r = _shell(spec, ">&-")
    assert r.returncode in (0, 2) and "Traceback" not in r.stderr, r.stderr
    if r.returncode == 2:
        assert len(r.stderr.strip().splitlines()) == 1


def test_json_to_a_full_device(tmp_path):
    _needs("opendp")
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    spec = write(tmp_path, _toml([RRB]), "audit.toml")
    r = _shell(spec, "> /dev/full")
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "space" in lines[0], lines


def test_one_bad_case_among_good_ones_is_named_by_index(tmp_path):
    """Every library and constructor is checked before any case runs; the bad one is named
    by its index."""
    _needs("opendp")
    spec = write(tmp_path, _toml([RRB, RRB, _with(RRB, constructor="make_nothing")]),
                 "audit.toml")
    assert_error(invoke(["audit", spec]), "case[2].constructor", file=spec)


def test_an_unsound_case_then_an_error_is_exit_2(tmp_path):
    """An unsound case before a case the library rejects: the run is an error (2), not 1."""
    _needs("opendp")
    spec = write(tmp_path, _toml([THR, _with(RR, args__prob=F("2"))]), "audit.toml")
    assert_error(invoke(["audit", spec]), "case[1]", file=spec)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))


def test_noisy_max_tight_epsilon_enclosure_contains_the_value(tmp_path):
    """Scores far apart: x = (1, 200, 190) against y = (0, 200, 190) at scale 1. Only
    candidate 0's acceptance probability differs (e^−199 against e^−200), and releasing it
    multiplies that by a factor that depends on the other candidates alone, so the tight ε is
    exactly 1 (output 0) — its masses are about 10^−87, below the floor 2^−128 the enclosure
    once put in their place: it reported [111.97, 0], an interval that did not contain it."""
    _needs("opendp")
    import json
    from fractions import Fraction

    spec = write(tmp_path, _toml([_with(NMAX, inputs=[[1, 200, 190], [0, 200, 190]])]),
                 "audit.toml")
    o = invoke(["audit", spec, "--json"])
    assert_verdict(o, 0)
    tight = json.loads(o.stdout)["cases"][0]["tight"]["epsilon"]
    lo, hi = (Fraction(x) for x in tight["enclosure"])
    assert lo <= 1 <= hi and hi - lo < Fraction(1, 10 ** 6)


@pytest.mark.parametrize(("base", "changes", "key"), [
    bad(LAP, "args.scale", "scale-10^400", args__scale=10 ** 400),
    bad(PRV, "args.eps", "eps-10^400", args__eps=10 ** 400),
    bad(PRV, "args.eps", "eps-str-1e400", args__eps="1e400"),
    bad(DPA, "epsilon", "epsilon-1e400", delta=_DROP, epsilon="1e400"),
    bad(BINARY, "args.epsilon", "binary-epsilon-10^400", args__epsilon=10 ** 400),
])
def test_numbers_beyond_the_doubles_name_the_key(tmp_path, base, changes, key):
    """A number no double can hold, where the library takes a double: named by its key (it
    was an OverflowError reported against the case alone)."""
    _needs(base["library"])
    spec = write(tmp_path, _toml([_with(base, **changes)]), "audit.toml")
    assert_error(invoke(["audit", spec]), f"case[0].{key}", file=spec)


@pytest.mark.parametrize("constructor", ["make_laplace", "make_gaussian"])
def test_a_claim_of_infinity_is_vacuous(tmp_path, constructor):
    """At scale 5e-324 the library's map is ε (or ρ) = ∞: sound, at once. It was 47 s of
    certified arithmetic ending in exit 2 (Laplace), or exit 2 (Gaussian)."""
    _needs("opendp")
    spec = write(tmp_path, _toml([_with(LAP, constructor=constructor,
                                        args__scale=F("5e-324"))]), "audit.toml")
    assert_verdict(run(["audit", spec], timeout=20), 0)


def test_threshold_claiming_infinite_epsilon_is_still_unsound(tmp_path):
    """At scale 5e-324 the map is (ε, δ) = (∞, 2^-53): δ(∞) is the mass of outputs the
    neighbour never gives — n zero-valued keys against none release some key with
    probability 1 − (1 − P[Z ≥ T])^n → 1 — so the claim is unsound. It was exit 2 naming a
    key the config does not have (case[0].epsilon)."""
    _needs("opendp")
    spec = write(tmp_path, _toml([_with(THR, args__scale=F("5e-324"))]), "audit.toml")
    assert_verdict(invoke(["audit", spec]), 1)
