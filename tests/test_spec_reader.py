"""The one spec reader: typed keys, bounded numbers, safe files, the command a spec is for.

Every bad input is a SpecError whose structured fields (file, key, value) name it; the
expected numbers are worked out by hand.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest
from gmpy2 import mpq, mpz

from verifier.core.errors import NO_VALUE, InvalidArgument, InvalidNumber, OutOfRange, SpecError
from verifier.core.numbers import MAX_EXPONENT, MAX_TEXT, open_unit, positive_int, rational
from verifier.specs.check import load_spec, run_spec
from verifier.specs.files import MAX_SPEC_BYTES, check_output_path, read_toml, write_atomically
from verifier.specs.guess import load_guess_spec
from verifier.specs.keys import Table
from verifier.specs.pso import load_pso_spec

RR = """[data]
records = 3
values = [0, 1]
[mechanism]
kind = "randomized_response"
truth = "3/4"
[query]
epsilon = "ln(2)"
delta = "0"
"""
PARTIAL = """[data]
records = 4
values = [0, 1]
prior = ["1/2", "1/2"]
[mechanism]
kind = "count"
counts = [1]
[attacker]
target = 3
known = [0]
[query]
epsilon = "ln(2)"
notions = ["apkdp"]
"""
SUPPORT = """[data]
records = 2
values = [0, 1]
support = [[0, 0], [0, 1], [1, 0], [1, 1]]
weights = ["1/4", "1/4", "1/4", "1/4"]
[mechanism]
kind = "count"
[attacker]
target = 1
known = [0]
[query]
epsilon = "ln(2)"
notions = ["apkdp"]
"""
USER = """[data]
records = 2
values = [0, 1]
[mechanism]
kind = "function"
function = "spec_mod:largest"
symmetric = true
[query]
epsilon = "ln(2)"
"""
PSO = """[universe]
values = [0, 1, 2, 3]
[rows]
n = 2
[mechanism]
kind = "count"
predicate = "x < 2"
[adversary]
kind = "trivial"
weight_at_most = "1/4"
"""
GUESS = """[domain]
range = [0, 4]
[mechanism]
kind = "truncated_geometric"
alpha = "1/2"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "spec.toml"
    path.write_text(text, encoding="utf-8")
    (tmp_path / "spec_mod.py").write_text("def largest(db):\n    return max(db)\n")
    return path


def change(base: str, old: str, new: str) -> str:
    assert old in base
    return base.replace(old, new)


LOADERS = {"check": load_spec, "pso": load_pso_spec, "guess": load_guess_spec}

BAD = [  # (id, command, spec text, key, a fragment of the message)
    ("symmetric-str", "check", change(USER, "symmetric = true", 'symmetric = "false"'),
     "mechanism.symmetric", "symmetric = 'false' is a string, not a boolean"),
    ("symmetric-int", "check", change(USER, "symmetric = true", "symmetric = 1"),
     "mechanism.symmetric", "symmetric = 1 is an integer, not a boolean"),
    ("records-float", "check", change(RR, "records = 3", "records = 3.0"), "data.records",
     "records = 3.0 is a float, not an integer"),
    ("records-str", "check", change(RR, "records = 3", 'records = "3"'), "data.records",
     "records = '3' is not an integer"),
    ("values-table", "check", change(RR, "values = [0, 1]", "values = {a = 1}"), "data.values",
     "is a table, not a list"),
    ("values-float", "check", change(RR, "values = [0, 1]", "values = [0, 1.5]"),
     "data.values", "values[1] = 1.5 is a float"),
    ("support-float", "check", change(SUPPORT, "[0, 0], [0, 1]", "[0.0, 0], [0, 1]"),
     "data.support", "support[0][0] = 0.0 is a float"),
    ("support-short", "check", change(SUPPORT, ", [1, 1]]", "]"), "data.support",
     "has 3 databases for 4 weights"),
    ("counts-float", "check", change(PARTIAL, "counts = [1]", "counts = [1.0]"),
     "mechanism.counts", "counts contains 1.0"),
    ("pairs-float", "check", change(PARTIAL, "known = [0]", "known = [0]\npairs = [[0.0, 1]]"),
     "attacker.pairs", "pairs[0][0] = 0.0 is a float"),
    ("pairs-three", "check", change(PARTIAL, "known = [0]", "known = [0]\npairs = [[0, 1, 0]]"),
     "attacker.pairs", "pairs[0] has 3 elements, not 2"),
    ("known-int", "check", change(PARTIAL, "known = [0]", "known = 0"), "attacker.known",
     "known = 0 is not a list of indices"),
    ("delta-nan", "check", change(RR, 'delta = "0"', "delta = nan"), "query.delta",
     "delta = nan is a float (not a number)"),
    ("epsilon-inf", "check", change(RR, 'epsilon = "ln(2)"', "epsilon = inf"), "query.epsilon",
     "epsilon = inf is a float (an infinity)"),
    ("delta-exponent", "check", change(RR, 'delta = "0"', 'delta = "1e-999999999"'),
     "query.delta", f"the exponent is beyond ±{MAX_EXPONENT}"),
    ("epsilon-exponent", "check", change(RR, 'epsilon = "ln(2)"', 'epsilon = "1e999999"'),
     "query.epsilon", f"the exponent is beyond ±{MAX_EXPONENT}"),
    ("ln-exponent", "check", change(RR, 'epsilon = "ln(2)"', 'epsilon = "ln(1e99999)"'),
     "query.epsilon", f"the exponent is beyond ±{MAX_EXPONENT}"),
    ("notions-nested", "check", change(RR, 'delta = "0"', 'delta = "0"\nnotions = [["dp"]]'),
     "query.notions", "notions[0] = ['dp'] is a list, not a string"),
    ("limits-float", "check", RR + "[limits]\ndatabases = 16.0\n", "limits.databases",
     "databases = 16.0 is a float, not an integer"),
    ("engine-bool", "check", RR + "[limits]\nengine = true\n", "limits.engine",
     "engine = True is a boolean, not a string"),
    ("bits-float", "pso", change(PSO, "values = [0, 1, 2, 3]", "bits = 2.0"), "universe.bits",
     "bits = 2.0 is a float, not an integer"),
    ("universe-float", "pso", change(PSO, "values = [0, 1, 2, 3]", "values = [0.0, 1, 2, 3]"),
     "universe.values", "values[0] = 0.0 is a float"),
    ("bits-2-weights-2", "pso", change(PSO, "values = [0, 1, 2, 3]",
                                       'bits = 2\nweights = ["1/2", "1/2"]'),
     "universe.weights", "weights has 2 elements, not 4"),
    ("weight-negative", "pso", change(PSO, '"1/4"', '"-1"'), "adversary.weight_at_most",
     "weight_at_most = -1 is not a probability in [0, 1]"),
    ("empty-window", "pso", PSO + 'weight_at_least = "1/2"\n', "adversary.weight_at_least",
     "weight_at_least = 1/2 is above weight_at_most = 1/4"),
    ("factor-negative", "pso", PSO + '[claim]\nfactor = "-1"\n', "claim.factor",
     "factor = -1 must be ≥ 0"),
    ("slack-negative", "pso", PSO + '[claim]\nslack = "-1/2"\n', "claim.slack",
     "slack = -1/2 must be ≥ 0"),
    ("datasets-zero", "pso", PSO + "[limits]\ndatasets = 0\n", "limits.datasets",
     "datasets = 0 is not a positive integer"),
    ("symmetric-other-kind", "pso", change(PSO, 'predicate = "x < 2"',
                                           'predicate = "x < 2"\nsymmetric = "false"'),
     "mechanism.symmetric", "unknown key; mechanism kind 'count' takes kind, predicate"),
    ("predicate-type", "pso", change(PSO, '"x < 2"', '"x < [2]"'), "mechanism.predicate",
     "a list is allowed only on the right of 'in' or 'not in'"),
    ("range-one", "guess", change(GUESS, "range = [0, 4]", "range = [0]"), "domain.range",
     "range has 1 elements, not 2"),
    ("range-str", "guess", change(GUESS, "range = [0, 4]", 'range = "0..20"'), "domain.range",
     "range = '0..20' is a string, not a list"),
    ("range-empty", "guess", change(GUESS, "range = [0, 4]", "range = [4, 0]"), "domain.range",
     "range = [4, 0] is empty"),
    ("grid-int", "guess", change(GUESS, "range = [0, 4]", "grid = 5"), "domain.grid",
     "grid = 5 is an integer, not a list"),
    ("weights-int", "guess", GUESS + "[prior]\nweights = 5\n", "prior.weights",
     "weights = 5 is an integer, not a list"),
    ("targets-int", "guess", GUESS + "[query]\ntargets = 5\n", "query.targets",
     "targets = 5 is an integer, not a list"),
    ("targets-float", "guess", GUESS + "[query]\ntargets = [1.0]\n", "query.targets",
     "targets[0] = 1.0 is a float"),
    ("precision-two", "guess", GUESS + "[goal]\nprecision = [1, 1]\n", "goal.precision",
     "precision has 2 elements, not 1"),
    ("alpha-one", "guess", change(GUESS, '"1/2"', '"1"'), "mechanism.alpha",
     "alpha = 1 must lie strictly between 0 and 1"),
]


@pytest.mark.parametrize("command, text, key, fragment", [b[1:] for b in BAD],
                         ids=[b[0] for b in BAD])
def test_bad_key(tmp_path, command, text, key, fragment):
    path = write(tmp_path, text)
    start = time.monotonic()
    with pytest.raises(SpecError) as info:
        LOADERS[command](path)
    assert time.monotonic() - start < 5  # refused while reading, not computed
    exc = info.value
    assert (exc.file, exc.key) == (str(path), key)
    assert fragment in exc.detail
    assert str(exc) == f"{path}: {key}: {exc.detail}" and "\n" not in str(exc)


def test_structured_fields_carry_the_value(tmp_path):
    path = write(tmp_path, change(USER, "symmetric = true", 'symmetric = "false"'))
    with pytest.raises(SpecError) as info:
        load_spec(path)
    assert info.value.value == "false"
    path = write(tmp_path, change(RR, "records = 3\n", ""))
    with pytest.raises(SpecError) as info:
        load_spec(path)
    assert info.value.key == "data.records" and info.value.value is NO_VALUE


def test_symmetric_boolean_is_read_as_written(tmp_path):
    """max of two records is symmetric: the count engine and brute force agree (δ at ln 2 of
    the max of 2 uniform bits: outputs 0 and 1 have loss ∞ between (0,0) and (1,0), δ = 1)."""
    for flag in ("true", "false"):
        spec = load_spec(write(tmp_path, change(USER, "symmetric = true", f"symmetric = {flag}")))
        assert spec.mechanism.symmetric is (flag == "true")
        assert run_spec(spec).results["dp"].delta.value == 1


# ---------------------------------------------------------------- the command a spec is for

@pytest.mark.parametrize("command, text, hint", [
    ("check", PSO, "this is a singling-out spec (it has [universe], [rows], [adversary]), not "
                   "one for plrv check; run plrv pso"),
    ("check", GUESS, "this is a guessing spec (it has [domain]), not one for plrv check; run "
                     "plrv guess"),
    ("pso", RR, "this is a privacy-check spec (it has [data]), not one for plrv pso; run plrv "
                "check"),
    ("guess", PSO, "this is a singling-out spec (it has [universe], [rows], [adversary]), not "
                   "one for plrv guess; run plrv pso"),
    ("prove", PSO, "this is a singling-out spec (it has [universe], [rows], [adversary]), not "
                   "one for plrv prove; run plrv pso"),
    ("reducible", GUESS, "this is a guessing spec (it has [domain]), not one for plrv "
                         "reducible; run plrv guess"),
    ("compose", PSO, "this is a singling-out spec (it has [universe], [rows], [adversary]), "
                     "not one for plrv compose; run plrv pso"),
], ids=["check-on-pso", "check-on-guess", "pso-on-check", "guess-on-pso", "prove-on-pso",
        "reducible-on-guess", "compose-on-pso"])
def test_spec_for_another_command(tmp_path, command, text, hint):
    from verifier.specs.compose import load_compose_spec
    from verifier.specs.symbolic import load_symbolic

    loaders = {**LOADERS, "prove": load_symbolic, "compose": load_compose_spec,
               "reducible": lambda path: load_symbolic(path, "reducible")}
    path = write(tmp_path, text)
    with pytest.raises(SpecError) as info:
        loaders[command](path)
    assert info.value.detail == f"{hint} {path}"


@pytest.mark.parametrize("text, key", [
    (change(PARTIAL, "known = [0]\n", "").replace("[attacker]\ntarget = 3\n", ""),
     "query.notions"),
    (change(RR, 'delta = "0"', 'delta = "0"\n[attacker]\npairs = [[0, 1]]'), "attacker.pairs"),
    (change(RR, "values = [0, 1]", 'values = [0, 1]\nprior = ["1/2", "1/2"]'), "data.prior"),
    (change(RR, "values = [0, 1]",
            'values = [0, 1]\npriors = [["1/2", "1/2"], ["1/2", "1/2"], ["1/3", "2/3"]]'),
     "data.priors"),
], ids=["notions", "attacker", "prior", "priors"])
def test_family_refuses_what_it_does_not_support(tmp_path, text, key):
    path = write(tmp_path, text)
    with pytest.raises(SpecError) as info:
        load_spec(path, command="family")
    assert info.value.key == key and "plrv family" in info.value.detail
    if key != "query.notions":  # dp reads none of them: plrv check refuses them too
        with pytest.raises(SpecError) as info:
            load_spec(path)
        assert info.value.key == key and "plrv check" in info.value.detail


# ---------------------------------------------------------------- vacuous pairs

def test_pairs_the_target_never_takes_hold_vacuously(tmp_path):
    """Values 2 and 3 have prior 0: no database has the target at 2 or 3, so there is nothing
    to compare and δ = 0 at every ε (by hand: the claim is vacuous)."""
    text = change(PARTIAL, 'values = [0, 1]\nprior = ["1/2", "1/2"]',
                  'values = [0, 1, 2, 3]\nprior = ["1/2", "1/2", "0", "0"]')
    text = change(text, "known = [0]", "known = [0]\npairs = [[2, 3]]")
    report = run_spec(load_spec(write(tmp_path, text)))
    r = report.results["apkdp"]
    assert r.holds is True and r.delta.value == 0 and r.cases == 0
    assert "vacuously" in r.witness["note"]


# ---------------------------------------------------------------- numbers

@pytest.mark.parametrize("text, value", [
    ("0.25", mpq(1, 4)), ("25e-2", mpq(1, 4)), (".5", mpq(1, 2)), ("5.", mpq(5)),
    ("1E+3", mpq(1000)), ("-3/4", mpq(-3, 4)), (f"1e-{MAX_EXPONENT}", mpq(1, 10**MAX_EXPONENT)),
    ("1" + "0" * 5000, mpq(mpz(10) ** 5000)), (f"1/1{'0' * 5000}", mpq(1, mpz(10) ** 5000)),
], ids=["decimal", "exponent", "leading-dot", "trailing-dot", "capital-E", "fraction",
        "exponent-at-cap", "5001-digit-integer", "5001-digit-denominator"])
def test_exact_numbers(text, value):
    assert rational(text) == value and isinstance(rational(text), type(mpq(0)))


@pytest.mark.parametrize("value, fragment", [
    (f"1e-{MAX_EXPONENT + 1}", f"the exponent is beyond ±{MAX_EXPONENT}"),
    ("1e999999999999999999999", f"the exponent is beyond ±{MAX_EXPONENT}"),
    ("1" * (MAX_TEXT + 1), f"more than the limit of {MAX_TEXT}"),
    (float("nan"), "is a float (not a number)"),
    (float("-inf"), "is a float (an infinity)"),
    (0.5, 'write it as a string such as "0.5" or "1/2"'),
    (True, "is a bool, not a number"),
    ("0x10", "is not a number"),
], ids=["exponent", "huge-exponent", "too-long", "nan", "-inf", "float", "bool", "hex"])
def test_refused_numbers(value, fragment):
    start = time.monotonic()
    with pytest.raises(InvalidNumber) as info:
        rational(value, "x")
    assert time.monotonic() - start < 1
    assert fragment in str(info.value) and info.value.argument == "x"


def test_one_validator_each():
    with pytest.raises(OutOfRange) as info:
        open_unit("1", "eta")
    assert str(info.value) == "eta = 1 must lie strictly between 0 and 1"
    assert isinstance(info.value, InvalidNumber) and isinstance(info.value, InvalidArgument)
    with pytest.raises(OutOfRange):
        positive_int(0, "n")
    with pytest.raises(InvalidArgument):
        positive_int(True, "n")


def test_table_reader_refuses_coercion():
    t = Table({"symmetric": 0, "n": "3", "xs": "01"}, "mechanism", "f.toml")
    for read in (lambda: t.boolean("symmetric"), lambda: t.integer("n"),
                 lambda: t.list_of("xs", lambda v, k: v)):
        with pytest.raises(SpecError) as info:
            read()
        assert info.value.file == "f.toml" and info.value.key.startswith("mechanism.")


# ---------------------------------------------------------------- files

def test_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "spec.toml"
    os.mkfifo(fifo)
    with pytest.raises(SpecError) as info:
        read_toml(fifo)
    assert "is a FIFO (named pipe), not a regular file" in info.value.detail


def test_folder_and_device_are_refused(tmp_path):
    with pytest.raises(SpecError) as info:
        read_toml(tmp_path)
    assert "is a folder, not a regular file" in info.value.detail
    with pytest.raises(SpecError) as info:
        read_toml("/dev/null")
    assert "is a character device, not a regular file" in info.value.detail


def test_oversized_file_is_refused_by_its_size(tmp_path):
    path = tmp_path / "spec.toml"
    with open(path, "wb") as f:
        f.write(RR.encode())
        f.truncate(MAX_SPEC_BYTES + 1)  # sparse
    with pytest.raises(SpecError) as info:
        read_toml(path)
    assert info.value.detail == (f"the file has {MAX_SPEC_BYTES + 1} bytes, more than the "
                                 f"limit of {MAX_SPEC_BYTES} bytes for a spec")


@pytest.mark.parametrize("content, fragment", [
    (b"# ok\n# caf\xe9\n" + RR.encode(), "not UTF-8 text: byte 0xe9 at line 2, column 6"),
    (b"values = " + b"[" * 5000 + b"]" * 5000 + b"\n", "nested too deeply"),
    (b"x = 1" + b"0" * 5000 + b"\n", "not valid TOML"),
    (b"[data\n", "not valid TOML"),
], ids=["latin-1-comment", "5000-deep", "5001-digit-integer", "unclosed-header"])
def test_bad_bytes_and_toml(tmp_path, content, fragment):
    path = tmp_path / "spec.toml"
    path.write_bytes(content)
    digits = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(4300)  # Python's default (another test may have lifted it)
    try:
        with pytest.raises(SpecError) as info:
            read_toml(path)
    finally:
        sys.set_int_max_str_digits(digits)
    assert fragment in info.value.detail and info.value.file == str(path)


@pytest.mark.parametrize("name, extensions, fragment", [
    ("missing/x.csv", None, "the folder"),
    (".", None, "is a folder"),
    ("x.txt", (".png", ".pdf"), "unknown extension '.txt'"),
], ids=["missing-folder", "folder", "extension"])
def test_output_paths_checked(tmp_path, name, extensions, fragment):
    with pytest.raises(InvalidArgument) as info:
        check_output_path(tmp_path / name, "--plot", extensions)
    assert str(info.value).startswith("--plot ") and fragment in str(info.value)
    assert info.value.argument == "--plot"


def test_write_atomically_leaves_nothing_on_failure(tmp_path):
    kept = tmp_path / "kept.csv"
    kept.write_text("before")

    def fail(tmp: Path) -> None:
        raise OSError("disk full")
    with pytest.raises(OSError):
        write_atomically({kept: lambda tmp: tmp.write_text("after"), tmp_path / "b.json": fail})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.csv"]
    assert kept.read_text() == "before"


@pytest.mark.parametrize("text, line", [
    ('[data]\nrecords = 2\nvalues = [0, 1]\nrecords = 3\n', "line 4: 'records = 3'"),
    ('a = 1\n\n# a comment\n[t]\nx = 1\n[u]\ny = [\n  1,\n]\ny = 2\n', "line 10: 'y = 2'"),
])
def test_a_key_set_twice_is_named_with_its_line(tmp_path, text, line):
    path = write(tmp_path, text)
    with pytest.raises(SpecError) as info:
        load_spec(path)
    assert info.value.detail == f"not valid TOML: {line} sets a key that is already set"
