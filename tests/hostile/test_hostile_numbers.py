"""Hostile numbers (issue item 3).

* decimal exponents must be bounded: ``"1e-999999999"`` asks for 10^999999999 (a runaway big
  integer); it must be refused while reading, naming the key or the option — in every key and
  option that reads a number (subprocess: a bug here hangs or eats memory);
* strings of more than 4300 digits must not crash (Python's int/str conversion limit);
* TOML's bare ``nan`` and ``inf`` are floats and must be refused with the key named;
* floats are refused everywhere — also where ``0.0 == 0`` would let them slip through a
  membership test (universe values, data.support, attacker.pairs, mechanism.counts, guess
  targets) and in every ``[limits]`` key;
* numeric command-line options are checked and name the option.
"""

from __future__ import annotations

import pytest
from harness import (
    FAMILY,
    GEOMETRIC,
    GUESS,
    GUESS_GRID,
    GUESS_VALUES,
    PARTIAL,
    PSO_BITS,
    PSO_COMPOSITION,
    PSO_COUNT,
    PSO_RR,
    PSO_TRIVIAL,
    RR,
    RR_HOLDS,
    SUPPORT,
    SWEEP,
    assert_error,
    assert_verdict,
    assert_verdict_or_error,
    invoke,
    mutate,
    run,
    write,
)

NAN, INF = float("nan"), float("inf")
TINY = "1e-999999999"  # 10^-999999999: must be refused while reading, not computed
HUGE = "1e999999999"
READ_TIMEOUT = 10  # seconds: refusing a number while reading is instantaneous


def p(command, base, key, value, label, needle=None):
    return pytest.param(command, base, key, value, needle or key,
                        id=f"{command}:{key}={label}")


# ---------------------------------------------------------------- unbounded exponents

EXPONENTS = [
    p("check", RR, "query.delta", TINY, "1e-999999999"),
    p("check", RR, "query.epsilon", "1e999999", "1e999999"),
    p("check", RR, "query.epsilon", TINY, "1e-999999999"),
    p("check", RR, "query.epsilon", f"ln({HUGE})", "ln(1e999999999)"),
    p("check", RR, "mechanism.truth", TINY, "1e-999999999"),
    p("check", GEOMETRIC, "mechanism.alpha", TINY, "1e-999999999"),
    p("check", PARTIAL, "data.prior", [TINY, "1"], "1e-999999999"),
    p("check", mutate(PARTIAL, "data.prior"), "data.priors",
      [["1/2", "1/2"]] * 7 + [[TINY, "1"]], "1e-999999999"),
    p("check", SUPPORT, "data.weights", ["1/4", "1/4", "1/4", TINY], "1e-999999999"),
    p("pso", PSO_TRIVIAL, "adversary.weight_at_most", TINY, "1e-999999999"),
    p("pso", PSO_TRIVIAL, "adversary.weight_at_least", TINY, "1e-999999999"),
    p("pso", PSO_COUNT, "claim.factor", HUGE, "1e999999999"),
    p("pso", PSO_COUNT, "claim.slack", TINY, "1e-999999999"),
    p("pso", PSO_TRIVIAL, "universe.weights", [TINY] + ["1/8"] * 7, "1e-999999999"),
    p("pso", PSO_RR, "mechanism.truth", TINY, "1e-999999999"),
    p("guess", GUESS_VALUES, "prior.weights", [TINY, "1/4", "1/4", "1/4", "1/4"],
      "1e-999999999"),
    p("guess", GUESS, "mechanism.alpha", TINY, "1e-999999999"),
    p("guess", GUESS_VALUES, "mechanism.beta", HUGE, "1e999999999"),
    p("guess", GUESS, "goal.precision", TINY, "1e-999999999"),
    p("guess", GUESS_VALUES, "query.epsilon", HUGE, "1e999999999"),
    p("guess", GUESS, "query.eta", TINY, "1e-999999999"),
    p("guess", GUESS, "query.tolerance", TINY, "1e-999999999"),
]


@pytest.mark.parametrize("command, base, key, value, needle", EXPONENTS)
@pytest.mark.slow
def test_unbounded_exponent_in_spec(tmp_path, command, base, key, value, needle):
    spec = write(tmp_path, mutate(base, key, value))
    assert_error(run([command, spec], timeout=READ_TIMEOUT), needle, file=spec)


OPTION_EXPONENTS = [
    pytest.param(["guess", "GUESS", "--tolerance", TINY], "--tolerance", id="guess--tolerance"),
    pytest.param(["guess", "GUESS", "--eta", TINY], "--eta", id="guess-spec--eta"),
    pytest.param(["guess", "--eta", TINY, "--diameter", "1"], "--eta", id="guess--eta"),
    pytest.param(["guess", "--eta", "1/2", "--diameter", HUGE], "--diameter",
                 id="guess--diameter"),
    pytest.param(["guess", "--eta", "1/2", "--diameter", "1", "--prior", TINY], "--prior",
                 id="guess--prior"),
    pytest.param(["family", "FAMILY", "--param", "truth", "--range", f"{TINY}..3/4"], "--range",
                 id="family--range-lo"),
    pytest.param(["family", "FAMILY", "--param", "truth", "--range", f"1/2..{HUGE}"], "--range",
                 id="family--range-hi"),
    pytest.param(["sweep", "SWEEP", "--threshold", "2..3", "--p", TINY], "--p", id="sweep--p"),
]


@pytest.mark.parametrize("args, needle", OPTION_EXPONENTS)
@pytest.mark.slow
def test_unbounded_exponent_in_option(tmp_path, args, needle):
    specs = {"GUESS": GUESS, "FAMILY": FAMILY, "SWEEP": SWEEP}
    args = [str(write(tmp_path, specs[a])) if a in specs else a for a in args]
    assert_error(run(args, timeout=READ_TIMEOUT), needle)


# ---------------------------------------------------------------- more than 4300 digits

BIG = "1" + "0" * 5000  # 10^5000 as text (str(10**5000) itself would hit the limit)
NEAR_ONE = "9" * 5000  # 10^5000 − 1


@pytest.mark.parametrize("command, base, key, value, verdicts", [
    pytest.param("check", PARTIAL, "data.prior", [f"{NEAR_ONE}/{BIG}", f"1/{BIG}"], (0, 1),
                 id="check:data.prior=5000-digit-fraction"),
    pytest.param("check", RR, "query.delta", f"1/{BIG}", (1,), id="check:query.delta=1/10^5000"),
    pytest.param("check", RR, "query.epsilon", f"ln({BIG})", (0,),
                 id="check:query.epsilon=ln(10^5000)"),
    pytest.param("check", RR, "mechanism.truth", f"5{'0' * 4998}1/{BIG}", (0,),
                 id="check:mechanism.truth=5000-digit"),
    pytest.param("check", RR, "query.epsilon", BIG, (0,), id="check:query.epsilon=10^5000-nats"),
    pytest.param("pso", PSO_COUNT, "claim.slack", f"1/{BIG}", (0,),
                 id="pso:claim.slack=1/10^5000"),
    pytest.param("guess", mutate(GUESS, "domain.range", [0, 3]), "mechanism.alpha",
                 f"5{'0' * 4998}1/{BIG}", (0,),
                 id="guess:mechanism.alpha=5000-digit"),
])
@pytest.mark.slow
def test_more_than_4300_digits(tmp_path, command, base, key, value, verdicts):
    """A valid spec with huge exact numbers: decided (with --json too), or refused naming the
    key — never a crash on Python's 4300-digit conversion limit."""
    spec = write(tmp_path, mutate(base, key, value))
    assert_verdict_or_error(run([command, spec]), verdicts, key, file=spec)
    assert_verdict_or_error(run([command, spec, "--json"]), verdicts, key, file=spec)


@pytest.mark.parametrize("table, key", [("data", "records"), ("limits", "databases")],
                         ids=["data.records", "limits.databases"])
def test_toml_integer_over_4300_digits(tmp_path, table, key):
    """A bare TOML integer of 5000 digits: the TOML reader itself trips on the digit limit."""
    text = """[data]
records = 3
values = [0, 1]
[mechanism]
kind = "randomized_response"
truth = "3/4"
[query]
epsilon = "ln(2)"
[limits]
databases = 16
"""
    text = text.replace(f"{key} = {3 if key == 'records' else 16}", f"{key} = {BIG}")
    spec = write(tmp_path, text)
    assert_error(run(["check", spec], timeout=READ_TIMEOUT), (f"{table}.{key}", "TOML", "toml"),
                 file=spec)


# ---------------------------------------------------------------- TOML nan and inf

NONFINITE = [
    p("check", RR, "data.records", INF, "inf"),
    p("check", RR, "data.values", [0, NAN], "nan-element"),
    p("check", PARTIAL, "data.prior", [NAN, "1/5"], "nan-element"),
    p("check", PARTIAL, "data.prior", [INF, "1/5"], "inf-element"),
    p("check", mutate(PARTIAL, "data.prior"), "data.priors", [["1/2", NAN]] * 8, "nan-element"),
    p("check", SUPPORT, "data.weights", ["1/4", "1/4", "1/4", NAN], "nan-element"),
    p("check", SUPPORT, "data.support", [[0, 0], [0, 1], [1, 0], [1, NAN]], "nan-element"),
    p("check", RR, "mechanism.truth", NAN, "nan"),
    p("check", RR, "mechanism.truth", INF, "inf"),
    p("check", PARTIAL, "mechanism.threshold", INF, "inf"),
    p("check", PARTIAL, "mechanism.counts", [NAN], "nan-element"),
    p("check", GEOMETRIC, "mechanism.alpha", NAN, "nan"),
    p("check", PARTIAL, "attacker.target", NAN, "nan"),
    p("check", PARTIAL, "attacker.known", [0, INF], "inf-element"),
    p("check", PARTIAL, "attacker.pairs", [[0, NAN]], "nan-element"),
    p("check", RR, "query.epsilon", INF, "inf"),
    p("check", RR, "query.epsilon", NAN, "nan"),
    p("check", RR, "query.epsilon", -INF, "-inf"),
    p("check", RR, "query.delta", NAN, "nan"),
    p("check", RR, "query.delta", INF, "inf"),
    p("check", RR, "limits", {"databases": INF}, "databases-inf", "limits.databases"),
    p("check", RR, "limits", {"combinations": NAN}, "combinations-nan", "limits.combinations"),
    p("pso", PSO_COMPOSITION, "universe.bits", INF, "inf"),
    p("pso", PSO_TRIVIAL, "universe.values", [0, NAN], "nan-element"),
    p("pso", PSO_TRIVIAL, "universe.weights", [NAN] * 8, "nan-element"),
    p("pso", PSO_TRIVIAL, "rows.n", INF, "inf"),
    p("pso", PSO_RR, "mechanism.truth", NAN, "nan"),
    p("pso", PSO_BITS, "mechanism.k", INF, "inf"),
    p("pso", PSO_TRIVIAL, "adversary.weight_at_most", NAN, "nan"),
    p("pso", PSO_TRIVIAL, "adversary.weight_at_least", -INF, "-inf"),
    p("pso", PSO_COUNT, "claim.factor", INF, "inf"),
    p("pso", PSO_COUNT, "claim.slack", NAN, "nan"),
    p("pso", PSO_TRIVIAL, "limits", {"datasets": INF}, "datasets-inf", "limits.datasets"),
    p("guess", GUESS, "domain.range", [0, INF], "inf-element"),
    p("guess", GUESS_VALUES, "domain.values", [0, 1, 2, 3, NAN], "nan-element"),
    p("guess", GUESS_VALUES, "prior.weights", [NAN] * 5, "nan-element"),
    p("guess", GUESS, "mechanism.alpha", NAN, "nan"),
    p("guess", GUESS_VALUES, "mechanism.beta", INF, "inf"),
    p("guess", GUESS, "goal.precision", INF, "inf"),
    p("guess", GUESS_VALUES, "query.epsilon", NAN, "nan"),
    p("guess", GUESS, "query.eta", NAN, "nan"),
    p("guess", GUESS, "query.tolerance", INF, "inf"),
    p("guess", GUESS, "query.targets", [NAN], "nan-element"),
]


@pytest.mark.parametrize("command, base, key, value, needle", NONFINITE)
def test_toml_nan_and_inf(tmp_path, command, base, key, value, needle):
    spec = write(tmp_path, mutate(base, key, value))
    assert_error(invoke([command, spec]), needle, file=spec)


# ---------------------------------------------------------------- finite floats

FLOATS = [
    p("check", RR, "data.records", 3.0, "3.0"),
    p("check", PARTIAL, "data.prior", ["4/5", 0.2], "float-element"),
    p("check", SUPPORT, "data.support", [[0.0, 0], [0, 1], [1, 0], [1, 1]], "0.0-element"),
    p("check", SUPPORT, "data.weights", [0.25, "1/4", "1/4", "1/4"], "float-element"),
    p("check", RR, "mechanism.truth", 0.75, "0.75"),
    p("check", PARTIAL, "mechanism.counts", [1.0], "1.0-element"),
    p("check", PARTIAL, "mechanism.threshold", 3.0, "3.0"),
    p("check", GEOMETRIC, "mechanism.alpha", 0.5, "0.5"),
    p("check", PARTIAL, "attacker.target", 7.0, "7.0"),
    p("check", PARTIAL, "attacker.target", [7.0], "7.0-element"),
    p("check", PARTIAL, "attacker.known", [0.0, 1], "0.0-element"),
    p("check", PARTIAL, "attacker.pairs", [[0.0, 1]], "0.0-element"),
    p("check", PARTIAL, "attacker.pairs", [[0, 1.0]], "1.0-element"),
    p("check", RR, "query.epsilon", 0.5, "0.5"),
    p("check", RR, "query.delta", 0.25, "0.25"),
    p("check", RR, "limits", {"databases": 16.0}, "databases-16.0", "limits.databases"),
    p("check", RR, "limits", {"combinations": 16.0}, "combinations-16.0",
      "limits.combinations"),
    p("pso", PSO_TRIVIAL, "universe.values", [0.0, 1, 2, 3, 4, 5, 6, 7], "0.0-element"),
    p("pso", PSO_TRIVIAL, "universe.values", [0.5, 1.5, 2.5], "floats"),
    p("pso", PSO_COMPOSITION, "universe.bits", 4.0, "4.0"),
    p("pso", PSO_TRIVIAL, "universe.weights", [0.125] * 8, "floats"),
    p("pso", PSO_TRIVIAL, "rows.n", 3.0, "3.0"),
    p("pso", PSO_BITS, "mechanism.k", 2.0, "2.0"),
    p("pso", PSO_RR, "mechanism.truth", 0.4, "0.4"),
    p("pso", PSO_TRIVIAL, "adversary.weight_at_most", 0.25, "0.25"),
    p("pso", PSO_COUNT, "claim.factor", 4.0, "4.0"),
    p("pso", PSO_COUNT, "claim.slack", 0.0, "0.0"),
    p("pso", PSO_TRIVIAL, "limits", {"datasets": 1000.0}, "datasets-1000.0", "limits.datasets"),
    p("guess", GUESS, "domain.range", [0.0, 20], "0.0-element"),
    p("guess", GUESS_VALUES, "domain.values", [0, 1, 2, 3, 4.0], "4.0-element"),
    p("guess", GUESS_GRID, "domain.grid", [[0.0, 1, 2], [0, 1]], "0.0-element"),
    p("guess", GUESS_VALUES, "prior.weights", [0.1, 0.2, 0.4, 0.2, 0.1], "floats"),
    p("guess", GUESS, "mechanism.alpha", 0.5, "0.5"),
    p("guess", GUESS, "goal.precision", 1.0, "1.0"),
    p("guess", GUESS, "query.targets", [10.0], "10.0-element"),
    p("guess", GUESS, "query.eta", 0.5, "0.5"),
    p("guess", GUESS, "query.tolerance", 1e-6, "1e-6"),
    p("guess", GUESS_VALUES, "query.epsilon", 0.5, "0.5"),
]


@pytest.mark.parametrize("command, base, key, value, needle", FLOATS)
def test_floats_refused(tmp_path, command, base, key, value, needle):
    spec = write(tmp_path, mutate(base, key, value))
    assert_error(invoke([command, spec]), needle, file=spec)


# ---------------------------------------------------------------- numeric options


OPTIONS = [
    pytest.param(["check", "RR", "--budget", "0"], "--budget", id="check--budget=0"),
    pytest.param(["check", "RR", "--budget", "-1"], "--budget", id="check--budget=-1"),
    pytest.param(["check", "RR", "--budget-counts", "0"], "--budget-counts",
                 id="check--budget-counts=0"),
    pytest.param(["check", "RR", "--engine", "quantum"], "--engine", id="check--engine=unknown"),
    pytest.param(["guess", "GUESS", "--tolerance", "0"], "--tolerance", id="guess--tolerance=0"),
    pytest.param(["guess", "GUESS", "--tolerance", "abc"], "--tolerance",
                 id="guess--tolerance=abc"),
    pytest.param(["guess", "GUESS", "--tolerance", "nan"], "--tolerance",
                 id="guess--tolerance=nan"),
    pytest.param(["guess", "GUESS", "--eta", "2"], "--eta", id="guess-spec--eta=2"),
    pytest.param(["guess", "--eta", "abc", "--diameter", "1"], "--eta", id="guess--eta=abc"),
    pytest.param(["guess", "--eta", "0", "--diameter", "1"], "--eta", id="guess--eta=0"),
    pytest.param(["guess", "--eta", "1/2", "--diameter", "0"], "--diameter",
                 id="guess--diameter=0"),
    pytest.param(["guess", "--eta", "1/2", "--diameter", "-1"], "--diameter",
                 id="guess--diameter=-1"),
    pytest.param(["guess", "--eta", "1/2", "--diameter", "1", "--prior", "1"], "--prior",
                 id="guess--prior=1"),
    pytest.param(["guess", "--eta", "1/2", "--diameter", "1", "--prior", "2"], "--prior",
                 id="guess--prior=2"),
    pytest.param(["guess", "--eta", "1/2"], "--diameter", id="guess--eta-without-diameter"),
    pytest.param(["family", "FAMILY", "--param", "truth", "--range", "3/4..1/2"], "--range",
                 id="family--range=reversed"),
    pytest.param(["family", "FAMILY", "--param", "truth", "--range", "a..b"], "--range",
                 id="family--range=letters"),
    pytest.param(["family", "FAMILY", "--param", "truth", "--range", "1/2..2"], "--range",
                 id="family--range=above-1"),
    pytest.param(["family", "FAMILY", "--param", "truth", "--range", "1/2"], "--range",
                 id="family--range=no-dots"),
    pytest.param(["family", "FAMILY", "--param", "gamma", "--range", "1/2..3/4"], "--param",
                 id="family--param=unknown"),
    pytest.param(["sweep", "SWEEP", "--threshold", "abc"], "--threshold",
                 id="sweep--threshold=abc"),
    pytest.param(["sweep", "SWEEP", "--threshold", "5..2"], "--threshold",
                 id="sweep--threshold=reversed"),
    pytest.param(["sweep", "SWEEP", "--threshold", "-1"], "--threshold",
                 id="sweep--threshold=-1"),
    pytest.param(["sweep", "SWEEP", "--threshold", "2..3", "--p", "2"], "--p", id="sweep--p=2"),
    pytest.param(["sweep", "SWEEP", "--threshold", "2..3", "--p", "abc"], "--p",
                 id="sweep--p=abc"),
    pytest.param(["sweep", "SWEEP", "--threshold", "2..3", "--p", "0.5"], ("--p",),
                 id="sweep--p=0.5-is-exact-not-an-error"),
]


@pytest.mark.parametrize("args, needle", OPTIONS)
def test_numeric_option(tmp_path, args, needle):
    specs = {"RR": RR, "GUESS": GUESS, "FAMILY": FAMILY, "SWEEP": SWEEP}
    args = [str(write(tmp_path, specs[a])) if a in specs else a for a in args]
    o = invoke(args)
    if args[-1] == "0.5":  # a control: "0.5" is read exactly as 1/2
        assert_verdict(o, (0, 1))
    else:
        assert_error(o, needle)


# ---------------------------------------------------------------- controls

@pytest.mark.parametrize("doc, code", [
    pytest.param(mutate(RR, "query.delta", "0.25"), 0, id="delta=0.25-exact-holds"),
    pytest.param(mutate(RR, "query.delta", "25e-2"), 0, id="delta=25e-2-exact-holds"),
    pytest.param(mutate(RR, "query.delta", "0.2499999999"), 1, id="delta=0.2499999999-fails"),
    pytest.param(mutate(RR, "query.delta", "1e-100"), 1, id="delta=1e-100-fails"),
    pytest.param(mutate(RR_HOLDS, "query.epsilon", "ln(3)"), 0, id="epsilon=ln(3)-holds"),
    pytest.param(mutate(RR, "query.epsilon", "ln(3)"), 0, id="epsilon=ln(3)-delta0-holds"),
    pytest.param(mutate(RR, "query.epsilon", "inf"), 0, id="epsilon=str-inf-holds"),
    pytest.param(mutate(RR, "query.epsilon", "ln(2999/1000)"), 1, id="epsilon=ln(2.999)-fails"),
])
def test_number_controls(tmp_path, doc, code):
    assert_verdict(invoke(["check", write(tmp_path, doc)]), code)
