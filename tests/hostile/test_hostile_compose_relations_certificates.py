"""Hostile input to ``plrv compose`` (both spec forms),
``[input]``/``[neighbours]`` through check/compose, certificates under ``verify-certificate``,
``--workers``/``--scheduler``/``PLRV_SCHEDULER``, and output paths.

Each case is an input that once broke the contract, or the behaviour that replaced it:
every error is exit 2 with one ``error:`` line naming the file and key, the option or the
user function; bad input is never silently coerced or ignored; a tampered certificate is
rejected (exit 1); nothing but a decided verdict exits 0 or 1.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from harness import assert_error, assert_verdict, clean_env, invoke, mutate, run, write

# ------------------------------------------------------------------ specs

STEPS_MODULE = '''\
from verifier import Dist


def rr(x, earlier):
    b = x[0]
    return Dist({b: "3/4", 1 - b: "1/4"})
'''

ADAPTIVE = {
    "data": {"records": 1, "values": [0, 1]},
    "composition": {"steps": ["hostile_steps:rr", "hostile_steps:rr"]},
    "query": {"epsilon": "ln(2)", "delta": "1/2"},
}

MECH = {
    "data": {"records": 1, "values": [0, 1]},
    "mechanism": {"kind": "randomized_response", "truth": "3/4"},
    "query": {"epsilon": "ln(2)", "delta": "17/32", "notions": ["dp"]},
}

RELATION_MODULE = '''\
from verifier import Dist


def lt(x, y):
    return x < y


def leaky(x):
    return Dist({0: "1"}) if x[0] == 0 else Dist({0: "1/2", 1: "1/2"})
'''

# geometric count of [input] vectors {0,1}^2 under l1 (ε-DP at ln 2)
VECTORS = {
    "input": {"coordinates": 2, "range": [0, 1]},
    "neighbours": {"relation": "l1", "distance": 1},
    "mechanism": {"kind": "geometric_count", "counts": [1], "alpha": "1/2"},
    "query": {"epsilon": "ln(2)", "delta": "0", "notions": ["dp"]},
}


def _adaptive(tmp_path: Path, doc: dict = ADAPTIVE) -> Path:
    (tmp_path / "hostile_steps.py").write_text(STEPS_MODULE, encoding="utf-8")
    return write(tmp_path, doc)


# ------------------------------------------------------------------ plrv compose


@pytest.mark.parametrize("form", ["mechanism", "adaptive"])
def test_compose_huge_k_is_refused_naming_k(tmp_path, form):
    """--k 10^23 crashed as an internal error (OverflowError building the list of runs)."""
    spec = write(tmp_path, MECH) if form == "mechanism" else _adaptive(tmp_path)
    assert_error(invoke(["compose", "--json", spec, "--k", "99999999999999999999999"]), "--k",
                 file=spec)


def test_compose_k_beyond_reach_is_refused_not_run(tmp_path):
    """--k beyond 10^6 runs is refused outright (below it, the work is estimated)."""
    spec = write(tmp_path, MECH)
    assert_error(run(["compose", "--json", spec, "--k", "2000000"], timeout=25), "--k", file=spec)


@pytest.mark.parametrize("where", ["spec-adaptive", "spec-mechanism", "option"])
def test_compose_grid_with_enclosure_never_is_not_ignored(tmp_path, where):
    """A grid with enclosure = "never" can never be used: it was silently ignored."""
    if where == "spec-adaptive":
        spec = _adaptive(tmp_path, mutate(mutate(ADAPTIVE, "composition.enclosure", "never"),
                                          "composition.grid", "ln(2)"))
        args, needle = [], "composition.grid"
    elif where == "spec-mechanism":
        spec = write(tmp_path, {**MECH, "composition": {"enclosure": "never",
                                                        "grid": "ln(2)"}})
        args, needle = ["--k", "3"], "composition.grid"
    else:
        spec = write(tmp_path, MECH)
        args, needle = ["--k", "3", "--enclosure", "never", "--grid", "ln(2)"], "--grid"
    assert_error(invoke(["compose", "--json", spec, *args]), needle)


@pytest.mark.parametrize("key, value", [("sequences", 5), ("engine", "counts"),
                                        ("combinations", 5), ("memory", 5)])
def test_compose_mechanism_form_refuses_limits_it_ignores(tmp_path, key, value):
    """limits.sequences (adaptive only), limits.engine, limits.combinations and
    limits.memory (the count engine, which compose never runs) were silently ignored by the
    mechanism form of plrv compose."""
    spec = write(tmp_path, {**MECH, "limits": {key: value}})
    assert_error(invoke(["compose", "--json", spec, "--k", "3"]), f"limits.{key}", file=spec)


@pytest.mark.parametrize("key", ["combinations", "memory"])
def test_compose_adaptive_form_refuses_limits_it_ignores(tmp_path, key):
    """The adaptive form accepted limits.combinations and limits.memory and read neither."""
    spec = _adaptive(tmp_path, {**ADAPTIVE, "limits": {key: 5}})
    assert_error(invoke(["compose", "--json", spec]), f"limits.{key}", file=spec)


def test_compose_enclosure_that_cannot_decide_is_unknown(tmp_path):
    """(Holds already.) An enclosure whose interval contains the claimed δ is exit 3."""
    spec = write(tmp_path, MECH)
    o = invoke(["compose", "--json", spec, "--k", "3", "--enclosure", "always", "--grid", "ln(2)"])
    # exact δ(ln 2) = 17/32 lies strictly inside the ln(2)-grid bounds [27/64, 63/128]
    assert o.exit_code == 3, o.describe()
    assert json.loads(o.stdout)["holds"] is None


# ------------------------------------------------------------------ [input] / [neighbours]


def test_asymmetric_predicate_relation_is_refused(tmp_path):
    """A predicate true for (x, y) but not (y, x) checked one direction only: the claim
    'held' (exit 0) while the other direction has δ = 1/2."""
    (tmp_path / "hostile_rel.py").write_text(RELATION_MODULE, encoding="utf-8")
    spec = write(tmp_path, {
        "input": {"vectors": [[0], [1]]},
        "neighbours": {"relation": "hostile_rel:lt"},
        "mechanism": {"kind": "function", "function": "hostile_rel:leaky"},
        "query": {"epsilon": "ln(2)", "delta": "0", "notions": ["dp"]},
    })
    assert_error(invoke(["check", spec]), "hostile_rel:lt", file=spec)


@pytest.mark.parametrize("relation", ["linf", "l1"])
def test_vector_relation_over_non_integer_records(tmp_path, relation):
    """linf / l1 over [data] records with string values was an internal error (TypeError)."""
    spec = write(tmp_path, {
        "data": {"records": 2, "values": ["a", "b"]},
        "neighbours": {"relation": relation},
        "mechanism": {"kind": "randomized_response", "truth": "3/4"},
        "query": {"epsilon": "ln(2)", "delta": "0", "notions": ["dp"]},
    })
    assert_error(invoke(["check", spec]), "neighbours.relation", file=spec)


def test_repeated_input_vector_is_refused(tmp_path):
    """input.vectors listing a vector twice was silently de-duplicated (data.values with a
    repeated value is refused)."""
    spec = write(tmp_path, mutate(mutate(VECTORS, "input", {"vectors": [[0, 0], [0, 1],
                                                                        [0, 1]]}),
                                  "neighbours.relation", "linf"))
    assert_error(invoke(["check", spec]), "input.vectors", file=spec)


@pytest.mark.parametrize("pairs", [[[[0], [1]], [[0], [1]]], [[[0], [1]], [[1], [0]]]],
                         ids=["same", "reversed"])
def test_repeated_pair_is_refused(tmp_path, pairs):
    """neighbours.pairs listing one pair twice (both directions count already) was silently
    merged."""
    spec = write(tmp_path, {
        "input": {"coordinates": 1, "range": [0, 1]},
        "neighbours": {"relation": "pairs", "pairs": pairs},
        "mechanism": {"kind": "randomized_response", "truth": "3/4"},
        "query": {"epsilon": "ln(2)", "delta": "0", "notions": ["dp"]},
    })
    assert_error(invoke(["check", spec]), "neighbours.pairs", file=spec)


# ------------------------------------------------------------------ certificates


@pytest.fixture(scope="module")
def certificate(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("cert")
    spec = write(folder, VECTORS)
    out = folder / "c.json"
    o = invoke(["check", spec, "--certificate", out])
    assert_verdict(o, 0)
    return json.loads(out.read_text(encoding="utf-8"))


def _tamper(cert: dict, how) -> dict:
    c = json.loads(json.dumps(cert))
    how(c)
    return c


TAMPERINGS = {
    "version-true": lambda c: c.update(version=True),
    "version-float": lambda c: c.update(version=1.0),
    "extra-top-level-key": lambda c: c.update(note="trust me"),
    "extra-result-key": lambda c: c["results"]["dp"].update(epsilon="ln(99)"),
    "extra-evidence-key": lambda c: c["evidence"].update(extra=[1]),
    "no-notions": lambda c: (c["spec"].update(notions=[]), c.update(results={})),
    "delta-above-one": lambda c: c["spec"].update(delta="2"),
    "records-unlike-inputs": lambda c: c["spec"].update(records=3),
}


@pytest.mark.parametrize("name", list(TAMPERINGS))
def test_tampered_certificate_is_rejected(tmp_path, certificate, name):
    """Each of these tamperings was 'verified' (exit 0); a rejection is exit 2 (a float is
    not even read: every exact number is a string)."""
    path = tmp_path / "t.json"
    path.write_text(json.dumps(_tamper(certificate, TAMPERINGS[name])), encoding="utf-8")
    o = invoke(["verify-certificate", path])
    assert o.exit_code == 2, o.describe()
    assert ("not an integer" if name == "version-float" else "rejected") in o.stderr, \
        o.describe()


@pytest.mark.parametrize("name, how", [
    ("values", lambda c: c["spec"].update(values=[0, 1, 2])),
    ("models", lambda c: c["spec"].update(models=[{"bogus": 1}])),
    ("targets", lambda c: c["spec"].update(targets=[0])),
    ("knowledge", lambda c: c["spec"].update(knowledge=[{"known": [0]}])),
    ("pairs", lambda c: c["spec"].update(pairs=[[0, 1]])),
], ids=["values", "models", "targets", "knowledge", "pairs"])
def test_certificate_fields_the_dp_check_does_not_read(tmp_path, certificate, name, how):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(_tamper(certificate, how)), encoding="utf-8")
    o = invoke(["verify-certificate", path])
    assert o.exit_code == 2 and "rejected" in o.stderr, o.describe()


def test_certificate_with_a_duplicated_key_is_malformed(tmp_path, certificate):
    """JSON with a key given twice ('holds': false, then true) was read with the last value
    and verified; it is a malformed file (exit 2)."""
    text = json.dumps(certificate).replace('"holds": true', '"holds": false, "holds": true', 1)
    path = tmp_path / "dup.json"
    path.write_text(text, encoding="utf-8")
    assert_error(invoke(["verify-certificate", path]), "holds", file=path)


# ------------------------------------------------------------------ workers / scheduler


def test_absurd_worker_count_is_refused(tmp_path):
    """--workers 10^20 tried to start that many processes (hang; 1000 leaked semaphores)."""
    o = run(["search", "lemma5", "--records", "1", "--workers", "99999999999999999999"],
            timeout=25, env=clean_env(PLRV_SCHEDULER=""))
    assert_error(o, "--workers")


@pytest.mark.slow
def test_bad_scheduler_from_the_environment_is_named(tmp_path):
    """PLRV_SCHEDULER=junk was reported as '--scheduler' only: the user gave no option."""
    spec = write(tmp_path, VECTORS)
    o = run(["check", spec], env=clean_env(PLRV_SCHEDULER="junk"))
    assert_error(o, "PLRV_SCHEDULER", "--scheduler", file=spec)


def test_root_option_given_twice(tmp_path):
    """plrv --debug --debug check … was accepted (a command's options given twice are not)."""
    spec = write(tmp_path, VECTORS)
    assert_error(invoke(["--debug", "--debug", "check", spec]), "--debug")


# ------------------------------------------------------------------ output paths


def test_certificate_over_the_spec_is_refused(tmp_path):
    """--certificate SPEC overwrote the spec itself with the certificate."""
    spec = write(tmp_path, VECTORS)
    before = spec.read_bytes()
    assert_error(invoke(["check", spec, "--certificate", spec]), "--certificate", file=spec)
    assert spec.read_bytes() == before


def test_sweep_csv_over_the_spec_is_refused(tmp_path):
    """--csv SPEC overwrote the spec with the CSV table."""
    spec = write(tmp_path, {
        "data": {"records": 6, "values": [0, 1], "prior": ["9/10", "1/10"]},
        "mechanism": {"kind": "threshold_count", "counts": [1], "threshold": 2},
        "attacker": {"target": 5, "known": [0, 1]},
        "query": {"epsilon": "ln(3)", "delta": "1/100", "notions": ["apkdp", "ppkdp"]},
    })
    before = spec.read_bytes()
    cwd = os.getcwd()
    try:  # a relative path naming the spec
        os.chdir(tmp_path)
        o = invoke(["sweep", spec, "--threshold", "2..3", "--csv", spec.name])
    finally:
        os.chdir(cwd)
    assert_error(o, "--csv", file=spec)
    assert spec.read_bytes() == before


def test_two_outputs_to_one_file_are_refused(tmp_path):
    """--csv X --json-file X: one silently replaced the other."""
    spec = write(tmp_path, {
        "data": {"records": 6, "values": [0, 1], "prior": ["9/10", "1/10"]},
        "mechanism": {"kind": "threshold_count", "counts": [1], "threshold": 2},
        "attacker": {"target": 5, "known": [0, 1]},
        "query": {"epsilon": "ln(3)", "delta": "1/100", "notions": ["apkdp", "ppkdp"]},
    })
    out = tmp_path / "out.txt"
    assert_error(invoke(["sweep", spec, "--threshold", "2..3", "--csv", out, "--json-file",
                         out]), "--csv", "--json-file")
    assert not out.exists()
