"""A hostile round against the kernel's checks of ``pso``, ``guess``, ``reducible`` and
``prove`` certificates: honest certificates edited by hand (wrong types, huge sizes, missing
or extra fields, booleans for integers, values outside their range, answers and verdicts
changed), the spec's hash recomputed as a forger would. None may verify: each is rejected
(exit 2) naming the discrepancy, or — where noted — unknown (exit 3).

The honest certificates and their hand values: PSO (success 1/2, baseline 3/8; factor 1,
fails) and GUESS at ε = ln(3/2) from test_certificates_pso_guess; the referendum tally
(reducible) and THRESHOLD (not reducible at p = 2/7; apk-le-ppk refuted at p = 3/8 with
APK 5/8 > PPK 3/8) from test_certificates_symbolic.
"""

from __future__ import annotations

import copy
import json

import pytest
from test_certificates_pso_guess import _guess, _pso
from test_certificates_symbolic import EXAMPLES, THRESHOLD, _run
from test_kernel_hostile import rehashed

from verifier.kernel.verify import main, verify_certificate


@pytest.fixture(scope="module")
def honest(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("honest")
    (tmp / "t.toml").write_text(THRESHOLD)
    out = {"pso": _pso(tmp, 1), "guess": _guess(tmp, '[query]\nepsilon = "ln(3/2)"'),
           "reducible": _run(["reducible", str(EXAMPLES / "referendum_tally.toml")],
                             tmp / "r.json", 0),
           "witness": _run(["reducible", str(tmp / "t.toml")], tmp / "w.json", 1),
           "prove": _run(["prove", str(tmp / "t.toml"), "--claim", "apk-le-ppk"],
                         tmp / "p.json", 1)}
    assert {k: verify_certificate(c).status[0] for k, c in out.items()} == \
        {"pso": 1, "guess": 1, "reducible": 0, "witness": 1, "prove": 1}
    return out


def _nested(c: dict) -> dict:
    return c["instances"][0]["check"]


def _swap_mapping(c: dict) -> None:
    m = c["evidence"]["tables"][0]["bijections"][0]["mapping"]
    m[0][1], m[1][1] = m[1][1], m[0][1]


FORGERIES = [  # (certificate, edit, exit status, a fragment of the last line)
    # ---------------------------------------------------------------- pso
    ("pso", lambda c: c["spec"].update(n=True), 2, "spec.n: True is not a positive number"),
    ("pso", lambda c: c["spec"].update(n=10 ** 90), 2, "are not 1000000000000000000000"),
    ("pso", lambda c: c["spec"].update(adversary=None), 2, "spec.adversary: None is not one"),
    ("pso", lambda c: c["spec"]["mechanism"].update(symmetric="yes"), 2,
     "spec.mechanism.symmetric: not true or false"),
    ("pso", lambda c: c["spec"]["universe"].update(weights=["1/2", "1/2", "1/2", "-1/2"]), 2,
     "(or one is negative), not a distribution"),
    ("pso", lambda c: c["results"].update(success=1), 2,
     "results.success: 1 is not an exact rational"),
    ("pso", lambda c: c["results"].update(success="1/0"), 2, "divides by zero"),
    ("pso", lambda c: c["evidence"]["datasets"].append(c["evidence"]["datasets"][0]), 2,
     "is listed twice"),
    ("pso", lambda c: c["evidence"]["datasets"][0].update(probability="0"), 2,
     "in the certificate"),
    ("pso", lambda c: c["evidence"]["adversary"][0][1][0].__setitem__(1, "2"), 2,
     "the adversary's probabilities do not sum to 1"),
    ("pso", lambda c: c["evidence"]["adversary"].pop(), 2, "evidence.adversary: no answer"),
    ("pso", lambda c: c["evidence"]["adversary"][0][1][0].__setitem__(0, [99]), 2,
     "a predicate names a value outside the universe"),
    ("pso", lambda c: c["results"].update(holds="false"), 2, "results.holds: false but"),
    ("pso", lambda c: c["results"].update(baseline_weight="1/2"), 2,
     "results.baseline_weight: 1/2 but the listed predicate has weight 1/4"),
    ("pso", lambda c: c["spec"].update(factor="3"), 2,
     "results.bound: 3/8 but factor·baseline + slack = 9/8"),
    ("pso", lambda c: c["results"].pop("success"), 2,
     "results: fields ['baseline', 'baseline_weight', 'bound', 'holds'], not"),
    ("pso", lambda c: c["results"].update(apkdp={"delta": "5/8"}), 2,
     "results: fields ['apkdp', 'baseline'"),
    ("guess", lambda c: c.update(note="reviewed"), 2, "guess certificate: fields"),
    ("guess", lambda c: c["results"]["targets"][0].update(tight="1/2"), 2,
     "results.targets[0]: fields"),
    ("pso", lambda c: c["spec"]["mechanism"]["params"].update(predicate=[True]), 2,
     "is not a value, output or background"),
    ("pso", lambda c: c["spec"].update(slack="-1/8"), 2,
     "spec.factor, spec.slack: 1, -1/8; plrv's claim has both ≥ 0"),
    ("pso", lambda c: c["spec"].update(admissible={"at_least": "1/2", "at_most": "1/4"}), 2,
     "spec.admissible: [1/2, 1/4] is not an interval of weights in [0, 1]"),
    ("pso", lambda c: c["spec"]["admissible"].update(extra=None), 2,
     "spec.admissible: not {at_least, at_most}"),
    # -------------------------------------------------------------- guess
    ("guess", lambda c: c["spec"].update(epsilon=[{"nats": "1/2", "base": "2"}]), 2,
     "spec.epsilon[0]:"),
    ("guess", lambda c: c["spec"].update(epsilon=[{"base": "1/2", "scale": 1}]), 2,
     "ln(base)/scale needs base ≥ 1"),
    ("guess", lambda c: c["spec"].update(epsilon=[{"base": "3/2", "scale": True}]), 2,
     "an integer scale in 1..1000000"),
    ("guess", lambda c: c["spec"].update(epsilon=[{"infinite": 1}]), 2, "spec.epsilon[0]:"),
    ("guess", lambda c: c["spec"].update(epsilon=[{"base": "3/2", "scale": 10 ** 9}]), 2,
     "an integer scale in 1..1000000"),
    ("guess", lambda c: c["spec"].update(epsilon={"base": "3/2", "scale": 1}), 2,
     "spec.epsilon: not 1 value(s), one per goal part"),
    ("guess", lambda c: c["spec"].update(targets=[99]), 2, "spec.targets: not a non-empty"),
    ("guess", lambda c: c["spec"].update(targets=[0, 0]), 2, "spec.targets: not a non-empty"),
    ("guess", lambda c: c["spec"]["prior"].__setitem__(0, "-1/7"), 2,
     "spec.prior: sums to"),
    ("guess", lambda c: c["evidence"]["kernel"][0][1][0].__setitem__(1, "2"), 2,
     "M(· | x) sums to"),
    ("guess", lambda c: c["results"]["targets"][0].update(posterior="1"), 2,
     ".posterior: 1 in the certificate"),
    ("guess", lambda c: c["results"].update(vulnerability=["1/7", "1"]), 2,
     "results.vulnerability:"),
    ("guess", lambda c: c["spec"]["mechanism"]["params"].update(alpha="3/2"), 2,
     "outside (0, 1)"),
    ("guess", lambda c: c["spec"].update(precisions=["0"]), 2,
     "spec.precisions: not one positive precision per attribute"),
    ("guess", lambda c: c["spec"]["domain"].__setitem__(0, True), 2,
     "value: True is not a value, output or background"),
    ("guess", lambda c: c["results"].update(private_at_epsilon="true"), 2,
     "results.private_at_epsilon"),
    # the truncated geometric over 0..10^30: a row of 10^30 outputs is never built
    ("guess", lambda c: (c["spec"]["domain"].__setitem__(-1, 10 ** 30),
                         c["evidence"]["kernel"][-1].__setitem__(0, 10 ** 30)), 3,
     "exceed the kernel's work limit of 1000000"),
    # ---------------------------------------------------------- reducible
    ("reducible", lambda c: c.update(independently_checkable="yes"), 2,
     "independently_checkable: 'yes'"),
    ("reducible", lambda c: c.update(parameters="garbage here"), 2,
     "parameters: 'garbage here' is not a parameter's range"),
    ("reducible", lambda c: c.update(parameters="r real, r real"), 2,
     "parameters: 'r real' is not a parameter's range (or names one twice)"),
    ("reducible", lambda c: c["results"].update(reducible="maybe"), 2,
     "results.reducible: 'maybe' is not true, false or null"),
    ("reducible", _swap_mapping, 2, "but the profiles differ"),
    ("reducible", lambda c: c["evidence"]["tables"].pop(), 2,
     "evidence.tables: not one entry per data model, knowledge and target"),
    ("witness", lambda c: c["evidence"]["witness"]["profiles"].__setitem__(
        1, c["evidence"]["witness"]["profiles"][0]), 2, "in the certificate"),
    ("witness", lambda c: c["evidence"]["witness"].update(target=True), 2,
     "evidence.witness.target: True is not a target of the spec"),
    ("witness", lambda c: c.update(point={"p": "2/7", "q": "1/2"}), 2,
     "does not give exactly the parameters ['p'] a value"),
    # -------------------------------------------------------------- prove
    ("prove", lambda c: _nested(c).update(kind="pso"), 2, "not a certificate of plrv check"),
    ("prove", lambda c: c.update(every_epsilon=1), 2, "every_epsilon: 1 with epsilon"),
    ("prove", lambda c: c["instances"][0].update(status="refuted"), 2,
     "is not proved, counterexample or unknown"),
    ("prove", lambda c: c["instances"][0].update(independently_checkable=1), 2,
     "only a counterexample is independently checkable"),
    ("prove", lambda c: c["claim"].update(text="apk and ppk <= 1"), 2,
     "claim.text: 'apk and ppk <= 1' mixes numbers and statements; plrv refuses it"),
    ("prove", lambda c: c.update(instances="x"), 2, "instances: none listed"),
    ("prove", lambda c: c["instances"][0].update(deltas={"apk": "3/8", "ppk": "5/8"}), 2,
     ".deltas.apk: 3/8 but the check certificate gives '5/8'"),
    ("prove", lambda c: c["instances"][0]["point"].update(p="3/8", q="1"), 2,
     "does not give exactly the parameters ['p'] a value"),
    ("prove", lambda c: _nested(c)["spec"].update(targets=[1]), 2,
     "check: evidence.tables: (model, knowledge, target) = (0, 0, 1) is missing"),
    ("prove", lambda c: c["instances"][0].update(solver={"name": "z3", "version": "9"}), 2,
     "instances[0] (target 2, records [0]): fields"),
    ("prove", lambda c: c.update(status="proved"), 2,
     "status: 'proved' but the instances give 'counterexample'"),
    ("prove", lambda c: _nested(c)["results"]["apkdp"].update(delta="3/8"), 2,
     "results.apkdp.delta: 3/8 in the certificate, the worst case is 5/8"),
]


@pytest.mark.parametrize("which, edit, code, fragment", FORGERIES,
                         ids=[f"{f[0]}-{j}" for j, f in enumerate(FORGERIES)])
def test_forgery_is_never_verified(honest, which, edit, code, fragment):
    cert = copy.deepcopy(honest[which])
    edit(cert)
    if which == "prove" and isinstance(cert.get("instances"), list):
        rehashed(_nested(cert))
    got, last = verify_certificate(rehashed(cert)).status
    assert (got, fragment in last) == (code, True), last


@pytest.mark.parametrize("text, fragment", [
    ('{"format": "plrv-certificate", "format": "plrv-certificate"}',
     "the key 'format' is given twice in one object"),
    ('{"format": "plrv-certificate", "version": NaN}', "the number 'NaN' is not an integer"),
    ('{"format": "plrv-certificate", "version": 1e400}', "the number '1e400' is not an integer"),
    ("[" * 100_000 + "]" * 100_000, "cannot read"),
    ('{"format": "plrv-certificate", "version": 1, "kind": "pso"}',
     "rejected: pso certificate: fields ['format', 'kind', 'version'], not"),
], ids=["duplicate-key", "nan", "huge-float", "deep-nesting", "empty-pso"])
def test_unreadable_or_empty_files_exit_2(tmp_path, capsys, text, fragment):
    path = tmp_path / "c.json"
    path.write_text(text, encoding="utf-8")
    assert main([str(path)]) == 2
    streams = capsys.readouterr()
    assert fragment in streams.out + streams.err


def test_the_round_counts_at_least_thirty_forgeries_of_the_four_kinds():
    kinds = [f[0] for f in FORGERIES]
    assert len(FORGERIES) >= 30 and {"pso", "guess", "prove"} <= set(kinds)
    assert kinds.count("reducible") + kinds.count("witness") >= 5
    assert json.dumps([f[3] for f in FORGERIES])  # every fragment is plain text
