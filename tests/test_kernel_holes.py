"""Forgeries that once verified, each built the way it was: an honest certificate edited by
hand (or a hand-written one), the kernel's answer asserted — exit 2 naming the discrepancy,
or 3 where the verdict rests on a part taken from the certificate or beyond a limit.

Every expected value comes from the hand derivation beside it, never from the engine.
"""

from __future__ import annotations

import copy
import json
import time
from fractions import Fraction
from math import factorial

import pytest
from test_certificates_pso_guess import PSO, _guess, _pso
from test_certificates_symbolic import EXAMPLES, THRESHOLD, _run
from test_kernel_hostile import COUNT, certificate, forged, rehashed

from verifier.certificates.emit_pso import certify_pso
from verifier.kernel import exact, pso
from verifier.kernel.exact import Undecided, exp_sign
from verifier.kernel.verify import main, verify_certificate
from verifier.reports.json_out import dumps
from verifier.specs.pso import load_pso_spec


def status(cert: object) -> tuple[int, str]:
    return verify_certificate(cert).status


@pytest.fixture(scope="module")
def count() -> dict:
    # COUNT: two records uniform on {0, 1}, the count, record 0 known, target 1. By hand the
    # output is t + B: every APK and PPK case at ε = ln 2 has δ = 1.
    return certificate(COUNT)


# ------------------------------------------------------------------------------ check

def test_a_second_spelling_of_a_background_cannot_unpair_the_cases(count):
    """The rows of value 1 rewritten with the background as the known record's value ([0],
    [1]) instead of its count class: every row still matches the enumeration, but no case
    of value 0 finds its partner of value 1 any more, so every APK and PPK δ became 0 and
    the (false: δ = 1 by hand) claim δ = 0 verified."""
    cert = copy.deepcopy(count)
    table = cert["evidence"]["tables"][0]
    for row in table["rows"]:
        if row["value"] == 1:
            c = row["background"]["known_counts"]
            row["background"] = [0] if c == [1, 0] else [1]
    cases = {"apkdp": [{"table": 0, "values": [a, b], "background": r["background"],
                        "delta": "0"} for r in table["rows"] for a, b in ([0, 1], [1, 0])
                       if r["value"] == a],
             "ppkdp": [{"table": 0, "values": [0, 1], "delta": "0"},
                       {"table": 0, "values": [1, 0], "delta": "0"}]}
    cert["spec"]["notions"] = ["apkdp", "ppkdp"]
    cert["results"] = {n: {"delta": "0", "holds": True} for n in ("apkdp", "ppkdp")}
    cert["evidence"] = {"tables": [table], "cases": cases}
    code, last = status(rehashed(cert))
    assert code == 2
    assert "evidence.tables[0]: some backgrounds are count classes, others values" in last


def test_a_rational_output_has_one_spelling():
    # "2/4" and "1/2" are one output: identified by its value, not its text
    assert exact.key({"rational": "2/4"}) == exact.key({"rational": "1/2"})
    assert exact.key([{"rational": "6/2"}]) == exact.key([{"rational": "3"}])
    with pytest.raises(exact.Rejected, match="not a value, output or background"):
        exact.key(True)
    with pytest.raises(exact.Rejected, match="not a value, output or background"):
        exact.key({"rational": "1/2", "extra": 1})


def test_pairs_in_one_direction_are_a_spec_plrv_never_checks(count):
    """plrv compares a pair [a, b] in both directions; a spec listing [0, 1] alone, with
    the cases of (1, 0) dropped, states a claim plrv could not have been asked."""
    cases = {n: [c for c in cs if c["values"] != [1, 0]]
             for n, cs in count["evidence"]["cases"].items()}
    witnesses = {n: w for n, w in count["evidence"]["witnesses"].items()
                 if w.get("values", [0, 1]) == [0, 1]}
    cert = forged(count, (["spec", "pairs"], [[0, 1]]), (["evidence", "cases"], cases),
                  (["evidence", "witnesses"], witnesses))
    code, last = status(cert)
    assert code == 2 and "spec.pairs: invalid spec: [0, 1] is listed without [1, 0]" in last


def test_a_count_class_is_sized_before_its_factorial(count):
    # one known record: a class counts 1 record; 10^6 records would take a factorial of 10^6
    cert = copy.deepcopy(count)
    row = cert["evidence"]["tables"][0]["rows"][0]
    row["background"] = {"known_counts": [10 ** 6, 0], "stands_for": 1}
    start = time.monotonic()
    code, last = status(rehashed(cert))
    assert time.monotonic() - start < 5
    assert code == 2 and "is not one count per value summing to the 1 known records" in last


def test_an_edited_spec_without_its_hash_is_rejected(count):
    cert = copy.deepcopy(count)
    assert cert["source"] == {"file": None, "sha256": None}  # a spec given without a file
    cert["spec"]["mechanism"]["name"] = "renamed"  # read nowhere else: only the hash differs
    code, last = status(cert)
    assert code == 2 and "spec_sha256" in last and "is not the SHA-256 of the embedded spec" \
        in last
    bad = forged(count, (["source"], {"file": "c.toml", "sha256": "zz"}))
    code, last = status(bad)
    assert code == 2 and last.startswith("rejected: source:")


def test_the_source_names_the_spec_file_and_its_bytes(tmp_path):
    import hashlib
    text = PSO.format(factor=1)
    (tmp_path / "p.toml").write_text(text)
    _, cert = certify_pso(load_pso_spec(tmp_path / "p.toml"), source=tmp_path / "p.toml")
    cert = json.loads(dumps(cert))
    assert cert["source"] == {"file": "p.toml",
                              "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()}
    assert status(cert)[0] == 1  # by hand (PSO): success 1/2 > 3/8


def test_an_honest_omission_beyond_the_kernel_s_reach_is_unknown_not_rejected():
    """Example 7 at 12 voters: APK fails (δ > 1/1000, seed 003), so its writer may omit the
    tables (more than 10 cells) and keep the witness. A kernel that cannot enumerate the
    2^12 databases (a limit of 100) cannot check the witness either: unknown, not rejected;
    the same omission beside a claim said to hold is a rejection."""
    from test_certificates import EXAMPLE7

    from verifier.certificates.emit import certify_check
    from verifier.specs.check import parse_spec
    raw = {**EXAMPLE7, "query": {"epsilon": "ln(2)", "delta": "1/1000", "notions": ["apkdp"]}}
    _, cert = certify_check(parse_spec(raw), max_cells=10)
    cert = json.loads(dumps(cert))
    assert "tables" not in cert["evidence"] and verify_certificate(cert).status[0] == 1
    code, last = verify_certificate(cert, 100).status
    assert code == 3 and last.startswith("unknown: evidence.tables: omitted, and the kernel "
                                         "cannot recompute the conditional laws (2^12 databases")
    lie = forged(cert, (["results", "apkdp", "holds"], True))
    code, last = verify_certificate(lie, 100).status
    assert code == 2 and "evidence.tables: omitted for a holding claim" in last


# -------------------------------------------------------------------------------- pso

def test_an_optimal_adversary_beyond_the_search_is_recorded(tmp_path, monkeypatch):
    cert = _pso(tmp_path, 3)  # by hand: success 1/2 ≤ 3·3/8, the claim holds
    assert status(cert)[0] == 0
    monkeypatch.setattr(pso, "MAX_SEARCH", 1)
    out = verify_certificate(cert)
    assert out.status[0] == 3
    assert any("optimality not re-checked" in n for n in out.recorded)


def test_claim_3_1_over_many_values_is_recorded(tmp_path, monkeypatch):
    cert = _pso(tmp_path, 3)
    monkeypatch.setattr(pso, "MAX_BASELINE_VALUES", 3)  # the universe has 4 values
    out = verify_certificate(cert)
    assert out.status[0] == 3 and any("(Claim 3.1) was taken from the certificate" in n
                                      for n in out.recorded)


def test_a_user_code_adversary_is_recorded(tmp_path):
    (tmp_path / "mine.py").write_text("def zero(out):\n    return {0}\n")
    spec = PSO.format(factor=3).replace('kind = "optimal"',
                                        'kind = "function"\nfunction = "mine:zero"')
    (tmp_path / "u.toml").write_text(spec)
    _, cert = certify_pso(load_pso_spec(tmp_path / "u.toml"))
    out = verify_certificate(json.loads(dumps(cert)))
    assert out.status[0] == 3
    assert out.recorded == ["the user-code adversary's answers were taken from the certificate"]


TRIVIAL = PSO.format(factor=1).replace('kind = "optimal"', 'kind = "trivial"')


def test_a_built_in_adversary_answers_are_re_derived(tmp_path):
    """The trivial adversary answers the baseline predicate {0} whatever the output. By hand
    (universe {0..3} uniform, n = 2, the count of x < 2): {0} isolates with probability 1/2
    at outputs 2 and 1 and never at output 0, success 1/4·1/2 + 1/2·1/2 = 3/8 = B(2, 1/4).
    Answering {2} at output 0 (both rows in {2, 3}: isolates with probability 1/2) adds
    1/4·1/2: a forged success of 1/2 > 3/8, refuting a claim that holds."""
    (tmp_path / "t.toml").write_text(TRIVIAL)
    _, cert = certify_pso(load_pso_spec(tmp_path / "t.toml"))
    cert = json.loads(dumps(cert))
    assert cert["evidence"]["baseline_predicate"] == [0]
    assert status(cert) == (0, "certificate verified: the claim holds")
    answers = [[o, [[[2], "1"]]] if o == 0 else [o, c] for o, c in cert["evidence"]["adversary"]]
    lie = forged(cert, (["evidence", "adversary"], answers), (["results", "success"], "1/2"),
                 (["results", "holds"], False))
    code, last = status(lie)
    assert code == 2 and "evidence.adversary (output 0): the trivial adversary answers [[0]] " \
        "(re-derived), not the certificate's" in last


def test_the_adversary_kind_is_one_of_plrv_s(tmp_path):
    cert = _pso(tmp_path, 1)
    code, last = status(forged(cert, (["spec", "adversary"], "Optimal")))
    assert code == 2 and "spec.adversary: 'Optimal' is not one of optimal, trivial" in last


# ------------------------------------------------------------------------------ guess

def test_an_epsilon_of_two_shapes_is_refused(tmp_path):
    """{base, scale, infinite: true} was read as ∞, where every bound is 1 and the claim
    posterior ≤ 1 ≤ 1 holds whatever the table."""
    cert = _guess(tmp_path, '[query]\nepsilon = "ln(3/2)"')
    eps = {**cert["spec"]["epsilon"][0], "infinite": True}
    targets = [{**r, "precise": "1", "simplified": "1"} for r in cert["results"]["targets"]]
    lie = forged(cert, (["spec", "epsilon"], [eps]), (["results", "targets"], targets),
                 (["results", "holds"], True), (["results", "private_at_epsilon"], True))
    code, last = status(lie)
    assert code == 2 and "spec.epsilon[0]:" in last and "is not {infinite: true}" in last


def test_no_target_is_a_vacuous_claim(tmp_path):
    cert = _guess(tmp_path, '[query]\nepsilon = "ln(3/2)"')
    lie = forged(cert, (["spec", "targets"], []), (["results", "targets"], []),
                 (["results", "holds"], True))
    code, last = status(lie)
    assert code == 2 and "spec.targets: not a non-empty list" in last


# -------------------------------------------------------------------------- reducible

def test_tables_at_one_point_do_not_make_reducible_for_every_value(tmp_path):
    """The referendum tally is reducible (concrete tables, re-derived). Declaring a
    parameter turns the claim into "for every r in (0, 1)"; tables at one point do not show
    it, and the file's independently_checkable flag is not believed."""
    cert = _run(["reducible", str(EXAMPLES / "referendum_tally.toml")], tmp_path / "r.json", 0)
    assert status(cert)[0] == 0
    code, last = status(forged(cert, (["parameters"], "0 < r < 1")))
    assert code == 2 and "independently_checkable: True, but a spec with parameters found " \
        "reducible is not checkable here" in last
    code, last = status(forged(cert, (["point"], {"r": "0"})))
    assert code == 2 and "point: a point is given only for a spec with parameters" in last


def test_a_witness_point_lies_inside_the_parameters(tmp_path):
    (tmp_path / "s.toml").write_text(THRESHOLD)
    cert = _run(["reducible", str(tmp_path / "s.toml")], tmp_path / "r.json", 1)
    assert cert["parameters"] == "0 < p < 1" and status(cert)[0] == 1
    code, last = status(forged(cert, (["point"], {"p": "1"})))
    assert code == 2 and "point.p: 1 is outside the parameter's range" in last
    code, last = status(forged(cert, (["point"], {})))
    assert code == 2 and "does not give exactly the parameters ['p'] a value" in last


# ------------------------------------------------------------------------------ prove

@pytest.fixture()
def counterexample(tmp_path) -> dict:
    # THRESHOLD at p = 3/8 (by hand): APK = max(p, 1 − p) = 5/8 > PPK = p = 3/8
    (tmp_path / "spec.toml").write_text(THRESHOLD)
    cert = _run(["prove", str(tmp_path / "spec.toml"), "--claim", "apk-le-ppk"],
                tmp_path / "p.json", 1)
    assert cert["instances"][0]["deltas"] == {"apk": "5/8", "ppk": "3/8"}
    return cert


def test_a_nested_check_resting_on_user_code_is_not_a_verified_counterexample(
        counterexample):
    cert = copy.deepcopy(counterexample)
    nested = cert["instances"][0]["check"]
    nested["spec"]["mechanism"] = {"kind": "function", "name": "mine", "params": {}}
    rehashed(nested)
    out = verify_certificate(rehashed(cert))
    assert out.status[0] == 3
    assert any(n.startswith("instances[0] (target 2, records [0]).check: the conditional laws")
               for n in out.recorded)


def test_the_nested_certificate_is_one_of_check(tmp_path, counterexample):
    """A pso certificate given results.apkdp/ppkdp and spec.targets verified on its own
    (fields it never read) and was read as the counterexample's check."""
    other = _pso(tmp_path, 1)
    other["results"].update(apkdp={"delta": "5/8"}, ppkdp={"delta": "3/8"})
    other = forged(other, (["spec", "targets"], [2]))
    code, last = status(other)
    assert code == 2 and "'slack', 'targets', 'universe'], not" in last
    cert = copy.deepcopy(counterexample)
    cert["instances"][0]["check"] = other
    code, last = status(cert)
    assert code == 2 and "instances[0] (target 2, records [0]).check: not a certificate of " \
        "plrv check" in last


@pytest.mark.parametrize("edits, message", [
    ([(["epsilon"], "ln(4)")], ".check.spec.epsilon: 'ln(2)', but the claim is proved at "
                               "ε = 'ln(4)'"),
    ([(["every_epsilon"], True)], "every_epsilon: True with epsilon 'ln(2)'"),
    ([(["instances", 0, "knowledge"], "nothing")], ".check.spec.knowledge: [{'known': [0]}] is "
                                                  "not the instance's attacker 'nothing'"),
    ([(["instances", 0, "point"], {"p": "3/2"})], ".point.p: 3/2 is outside the parameter's "
                                                  "range"),
    ([(["spec", "data", "records"], 4)], ".check.spec.records: 3, but the spec has 4"),
    ([(["instances", 0, "deltas"], {"apk": "5/8"})], ".deltas: ['apk'], but the claim reads "
                                                     "['apk', 'ppk']"),
], ids=["epsilon", "every-epsilon", "knowledge", "point", "records", "deltas"])
def test_every_shared_field_of_a_prove_certificate_is_compared(counterexample, edits, message):
    code, last = status(forged(counterexample, *edits))
    assert code == 2 and message in last, last


# ------------------------------------------------------------------ sizes and limits

def test_an_e_x_comparison_closer_than_the_precision_limit_is_unknown():
    """r = Σ_{j<2048} (1/2)^j/j! is within 2^-20000 of e^(1/2) and below it; separating it
    needs more than the kernel's 1024 Taylor terms: unknown, in well under a second each
    doubling (2048 terms took a second, 4096 nine)."""
    n, num, c = 2048, 0, 1
    for j in range(n - 1, -1, -1):
        c *= j + 1  # n!/j!
        num += c * 2 ** (n - j)
    r = Fraction(num, factorial(n) * 2 ** n)
    start = time.monotonic()
    with pytest.raises(Undecided, match="not separated within the kernel's precision limit"):
        exp_sign(r, Fraction(1, 2))
    assert time.monotonic() - start < 5
    assert exp_sign(Fraction(16487, 10000), Fraction(1, 2)) == -1  # e^½ = 1.64872…


def test_dp_laws_beyond_the_work_limit_are_unknown_not_a_hang():
    """Ten records over {0, 1}: 1024 databases, each given a law of 256 outputs by user code
    (all equal, so δ = 0 by hand); 1024 · 256 masses against ten neighbours each exceed
    the work limit of 10^6: unknown (exit 3) at once, never minutes of comparisons."""
    law = [[o, "1/256"] for o in range(256)]
    dbs = [[(i >> (9 - j)) & 1 for j in range(10)] for i in range(1024)]
    cert = rehashed({
        "format": "plrv-certificate", "version": 1, "kind": "check",
        "source": {"file": None, "sha256": None}, "spec_sha256": "",
        "spec": {"values": [0, 1], "records": 10, "models": [],
                 "mechanism": {"kind": "function", "name": "spread", "params": {}},
                 "knowledge": [{"known": []}], "targets": list(range(10)),
                 "pairs": [[0, 1], [1, 0]], "epsilon": "ln(2)", "delta": "0",
                 "notions": ["dp"]},
        "results": {"dp": {"delta": "0", "holds": True}},
        "evidence": {"dp_laws": {"by": "databases",
                                 "laws": [{"database": d, "law": law} for d in dbs]}}})
    start = time.monotonic()
    out = verify_certificate(cert)
    assert time.monotonic() - start < 5
    assert out.status[0] == 3 and "exceed the kernel's work limit of 1000000" in out.status[1]


def test_randomized_response_laws_beyond_the_work_limit_are_unknown():
    """pso over {0, 1} with n = 11 rows read in order: 2048 datasets, and randomized
    response's law of each enumerates 2048 reports — 4,194,304 steps, over the limit:
    unknown at once (it took minutes of products)."""
    rows = [[(i >> (10 - j)) & 1 for j in range(11)] for i in range(2048)]
    cert = rehashed({
        "format": "plrv-certificate", "version": 1, "kind": "pso",
        "source": {"file": None, "sha256": None}, "spec_sha256": "",
        "spec": {"universe": {"values": [0, 1], "weights": ["1/2", "1/2"]}, "n": 11,
                 "mechanism": {"name": "rr", "symmetric": False,
                               "kind": "randomized_response", "params": {"truth": "1/2"}},
                 "adversary": "optimal", "admissible": {"at_most": None, "at_least": None},
                 "factor": "1", "slack": "0"},
        "results": {"success": "0", "baseline": "0", "baseline_weight": None, "bound": "0",
                    "holds": True},
        "evidence": {"datasets": [{"rows": r, "probability": "1/2048", "law": [[r, "1"]]}
                                  for r in rows],
                     "adversary": [], "baseline_predicate": []}})
    start = time.monotonic()
    out = verify_certificate(cert)
    assert time.monotonic() - start < 5
    assert out.status[0] == 3 and "4194304 steps exceed the kernel's work limit" in out.status[1]


def test_a_huge_integer_literal_is_refused_before_it_is_converted(tmp_path, capsys):
    path = tmp_path / "c.json"
    path.write_text('{"format": "plrv-certificate", "version": 1, "n": ' + "7" * 4_000_000
                    + "}", encoding="utf-8")
    start = time.monotonic()
    assert main([str(path)]) == 2
    assert time.monotonic() - start < 5
    assert "an integer literal of 4000000 characters (over 100 digits" in capsys.readouterr().err


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1.0", "1e3"])
def test_floats_and_non_numbers_are_refused(tmp_path, capsys, literal):
    path = tmp_path / "c.json"
    path.write_text('{"format": "plrv-certificate", "version": ' + literal + "}")
    assert main([str(path)]) == 2
    assert f"the number '{literal}' is not an integer" in capsys.readouterr().err


def test_a_standard_module_shipped_beside_a_certificate_is_refused(tmp_path, count):
    """``python -m kernel`` puts the current folder first on the path: a fractions.py there
    is imported in place of the standard library's. The kernel refuses to run (exit 2);
    the isolated form ignores it and verifies (exit 1: by hand the claim fails)."""
    import shutil
    import subprocess
    import sys

    from kernel_copy import KERNEL
    shutil.copytree(KERNEL, tmp_path / "kernel", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "fractions.py").write_text("Fraction = float\n")
    (tmp_path / "c.json").write_text(json.dumps(count))
    run = subprocess.run([sys.executable, "-m", "kernel", "c.json"], capture_output=True,
                         text=True, timeout=120, cwd=tmp_path)
    assert run.returncode == 2
    assert "refusing to run: the standard-library module fractions (" in run.stderr
    run = subprocess.run([sys.executable, "-I", "kernel", "c.json"], capture_output=True,
                         text=True, timeout=120, cwd=tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr
    assert run.stdout.strip().endswith("certificate verified: the claim does not hold")


# --------------------------------------------------------------- the command's statuses

def test_verify_certificate_gates_as_check_does(tmp_path, monkeypatch):
    """0 verified and holds, 1 verified and fails, 2 rejected, 3 recorded; a file named like
    the help option is refused, never answered with help and exit 0."""
    from typer.testing import CliRunner

    from verifier.cli import app
    runner = CliRunner()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "fails.toml").write_text(PSO.format(factor=1))  # success 1/2 > 3/8
    (tmp_path / "holds.toml").write_text(PSO.format(factor=3))  # 1/2 ≤ 9/8
    for name, code in (("fails", 1), ("holds", 0)):
        assert runner.invoke(app, ["pso", f"{name}.toml", "--certificate",
                                   f"{name}.json"]).exit_code == code
        assert runner.invoke(app, ["verify-certificate", f"{name}.json"]).exit_code == code
    lie = json.loads((tmp_path / "fails.json").read_text())
    lie["results"]["holds"] = True
    (tmp_path / "lie.json").write_text(json.dumps(lie))
    out = runner.invoke(app, ["verify-certificate", "lie.json"])
    assert out.exit_code == 2
    assert out.stderr == ("error: lie.json: certificate rejected: results.holds: True but "
                          "success 1/2 > bound 3/8\n")
    (tmp_path / "-h").write_text((tmp_path / "holds.json").read_text())
    out = runner.invoke(app, ["verify-certificate", "-h"])
    assert out.exit_code == 2 and "-h is both the help option and a file here" in out.stderr
    assert runner.invoke(app, ["verify-certificate", "--", "-h"]).exit_code == 0
    (tmp_path / "-h").unlink()
    assert runner.invoke(app, ["verify-certificate", "-h"]).exit_code == 0  # plain help
