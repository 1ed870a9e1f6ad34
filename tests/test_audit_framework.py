"""plrv audit, the framework: the config reader (every key read or refused, no floats), the
runner's error naming and exit codes, the verdict rule, conformance, and the JSON schema.

The adapters used here are stand-ins built in the test (a fixed law, a fixed claim), so the
expected verdicts follow from hand arithmetic, independent of any library."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from gmpy2 import mpq
from typer.testing import CliRunner

from verifier.audit import runner as audit_runner
from verifier.audit.case import AuditCase, AuditRow
from verifier.audit.conformance import goodness_of_fit
from verifier.audit.judge import curve, judge
from verifier.audit.registry import Adapter
from verifier.cli import app
from verifier.core.binary64 import F64
from verifier.core.distribution import Dist
from verifier.core.epsilon import Epsilon
from verifier.core.errors import SpecError
from verifier.specs.audit import read_audit_config

SCHEMA = Path(__file__).resolve().parents[1] / "schemas" / "audit-output.v1.json"

CASE = {"library": "autodp", "constructor": "RandresponseMechanism",
        "args": {"p": {"f64": "0.75"}}, "options": {"accountant": "rdp"}, "compose": 1,
        "delta": "1/1000"}


def _read(case: dict) -> AuditCase:
    return read_audit_config({"case": [case]}, "c.toml").cases[0]


# ------------------------------------------------------------------ config reader


def test_config_reads_values_exactly():
    c = _read({**CASE, "args": {"p": {"f64": "0x1.8p-1"}, "n": 3, "s": "1/3",
                                "xs": [1, {"f64": "0.5"}], "b": True}, "d_in": 1,
               "epsilon": {"f64": "0.5"}})
    assert c.args["p"] == F64(0.75) and c.args["p"].exact == mpq(3, 4)
    assert c.args["n"] == 3 and c.args["s"] == "1/3" and c.args["b"] is True
    assert c.args["xs"] == (1, F64(0.5))
    assert c.delta == mpq(1, 1000) and type(c.delta) is type(mpq(1))
    assert c.epsilon == Epsilon.of_nats(mpq(1, 2))
    assert c.compose == 1 and c.d_in == 1 and c.index == 0


@pytest.mark.parametrize("change, key", [
    ({"colour": "red"}, "case[0].colour"),
    ({"compose": 1.5}, "case[0].compose"),
    ({"compose": 0}, "case[0].compose"),
    ({"delta": 0.001}, "case[0].delta"),
    ({"delta": "3/2"}, "case[0].delta"),
    ({"epsilon": 0.5}, "case[0].epsilon"),
    ({"epsilon": "ln(x)"}, "case[0].epsilon"),
    ({"args": {"p": 0.75}}, "case[0].args.p"),
    ({"args": {"p": {"f64": "0.75", "x": 1}}}, "case[0].args.p"),
    ({"args": {"p": [0.5]}}, "case[0].args.p"),
    ({"options": {"accountant": 1.0}}, "case[0].options.accountant"),
    ({"args": "p"}, "case[0].args"),
    ({"library": "numpy"}, "case[0].library"),
    ({"library": 3}, "case[0].library"),
    ({"inputs": []}, "case[0].inputs"),
    ({"d_in": 1.0}, "case[0].d_in"),
])
def test_config_refuses_with_the_key_named(change, key):
    with pytest.raises(SpecError) as err:
        _read({**CASE, **change})
    assert err.value.key == key and err.value.file == "c.toml"
    assert str(err.value).startswith(f"c.toml: {key}: ")


def test_config_refuses_missing_and_foreign_tables():
    for doc, key in (({}, "[[case]]"), ({"case": []}, "[[case]]"),
                     ({"case": [CASE], "mechanism": {}}, "mechanism"),
                     ({"case": ["x"]}, "case[0]"),
                     ({"case": [{k: v for k, v in CASE.items() if k != "library"}]},
                      "case[0].library"),
                     ({"case": [{k: v for k, v in CASE.items() if k != "constructor"}]},
                      "case[0].constructor")):
        with pytest.raises(SpecError) as err:
            read_audit_config(doc, "c.toml")
        assert err.value.key == key


# ------------------------------------------------------------------ the verdict rule


def _rr(t: mpq) -> tuple[Dist, Dist]:
    return Dist({0: t, 1: 1 - t}), Dist({0: 1 - t, 1: t})


def test_judge_one_run_of_randomized_response_by_hand():
    """One run of binary randomized response with truth 3/4: δ(ε) = 3/4 − e^ε/4, so the
    tight ε at δ is ln(3 − 4δ) and the claim (ln 2.996, 1/1000) is exactly tight."""
    case = _read(CASE)
    c = curve([_rr(mpq(3, 4))], 1)
    row = judge(case, Epsilon.log(mpq(2996, 1000)), mpq(1, 1000), c, {})
    assert row.verdict == "sound" and row.exactness == "exact"
    assert row.tight_epsilon == Epsilon.log(mpq(2996, 1000))
    assert row.tight_delta == mpq(1, 1000)
    below = judge(case, F64(1.0972), mpq(1, 1000), c, {})  # ln 2.996 = 1.09727806…
    assert below.verdict == "unsound"
    above = judge(case, F64(1.0973), mpq(1, 1000), c, {})
    assert above.verdict == "sound"


def test_judge_negative_nan_and_vacuous_claims():
    case = _read(CASE)
    c = curve([_rr(mpq(3, 4))], 1)
    neg = judge(case, F64(-0.5), mpq(1, 1000), c, {})
    assert neg.verdict == "unsound" and any("negative ε" in n for n in neg.notes)
    negd = judge(case, F64(1.0), F64(-0.25), c, {})
    assert negd.verdict == "unsound" and any("negative δ" in n for n in negd.notes)
    nan = judge(case, float("nan"), mpq(1, 1000), c, {})
    assert nan.verdict == "unknown" and nan.claim_epsilon is None
    assert judge(case, float("inf"), mpq(0), c, {}).verdict == "sound"
    assert judge(case, F64(0.0), mpq(1), c, {}).verdict == "sound"


def test_a_negative_epsilon_fails_only_where_no_mechanism_can_meet_it():
    """(ε, δ) with ε < 0 asks 1 ≤ e^ε + δ of the whole output set: with ε = −1/2,
    1 − e^{−1/2} ≈ 0.393469, so δ = 39/100 is impossible (unsound) and δ = 1/2 is not
    excluded by that alone (unknown, never sound)."""
    case = _read(CASE)
    c = curve([_rr(mpq(3, 4))], 1)
    assert judge(case, F64(-0.5), mpq(39, 100), c, {}).verdict == "unsound"
    assert judge(case, F64(-0.5), mpq(1, 2), c, {}).verdict == "unknown"


def test_judge_on_a_bracket_decides_only_outside_it():
    """Laws at truths 2/3 and 3/4 bracket a truth between them: at k = 1 and δ = 0 the tight
    ε lies in [ln 2, ln 3]; a claim inside the bracket is unknown, never sound."""
    case = _read(CASE)
    c = curve([_rr(mpq(2, 3)), _rr(mpq(3, 4))], 1)
    assert judge(case, F64(1.0), mpq(0), c, {}).verdict == "unknown"  # ln 2 < 1 < ln 3
    assert judge(case, F64(0.5), mpq(0), c, {}).verdict == "unsound"  # 0.5 < ln 2
    assert judge(case, F64(1.1), mpq(0), c, {}).verdict == "sound"  # 1.1 > ln 3
    row = judge(case, F64(1.0), mpq(0), c, {})
    assert row.exactness == "enclosure"
    assert (row.tight_epsilon.lower, row.tight_epsilon.upper) == (Epsilon.log(2),
                                                                  Epsilon.log(3))


def test_a_proxy_row_cannot_be_sound():
    with pytest.raises(Exception, match="proxy"):
        AuditRow(_read(CASE), None, None, None, None, "sound", None, "proxy", {})


# ------------------------------------------------------------------ conformance


def test_goodness_of_fit_passes_the_true_law_and_rejects_a_wrong_one():
    pytest.importorskip("scipy")
    rng = random.Random(7)
    draws = [int(rng.random() < 0.25) for _ in range(4000)]  # 1 with probability 1/4
    law = Dist({0: mpq(3, 4), 1: mpq(1, 4)})
    assert goodness_of_fit(draws, law, 0).passed
    assert not goodness_of_fit(draws, Dist({0: mpq(1, 2), 1: mpq(1, 2)}), 0).passed
    outside = goodness_of_fit([*draws, 2], law, 0)
    assert not outside.passed and outside.outside == 1
    # ten draws, all 1, where 1 has probability 1/4: exact binomial p = 2·(1/4)^10 < 10⁻³
    few = goodness_of_fit([1] * 10, law, 0)
    assert few.cells == 2 and not few.passed and few.p_value < 1e-5
    # three outcomes, ten draws: too few to test, and said so (not a pass in disguise)
    three = Dist({0: mpq(4, 5), 1: mpq(1, 10), 2: mpq(1, 10)})  # expected 8, 1, 1
    small = goodness_of_fit([0] * 8 + [1, 2], three, 0)
    assert not small.tested and "not tested" in small.note()


# ------------------------------------------------------------------ the command


def _stand_in(verdict: str, law: Dist | None = None, draws: Dist | None = None) -> Adapter:
    def run(case: AuditCase) -> AuditRow:
        return AuditRow(case, F64(1.0), mpq(0), mpq(0), Epsilon.log(2), verdict, None,
                        "exact", {"inputs": [0]})

    rng = random.Random(1)

    def sample(case: AuditCase, x: object, n: int) -> list:
        assert draws is not None
        outs, weights = zip(*draws.items(), strict=True)
        return rng.choices(outs, [float(w) for w in weights], k=n)

    return Adapter("autodp", "autodp", {"RandresponseMechanism": run},
                   sample if draws else None, (lambda case, x: law) if law else None)


def _cli(tmp_path: Path, monkeypatch, adapter: Adapter | None, *options: str,
         text: str | None = None):
    if adapter is not None:
        monkeypatch.setattr(audit_runner, "adapter", lambda library: adapter)
    config = tmp_path / "a.toml"
    config.write_text(text if text is not None else
                      '[[case]]\nlibrary = "autodp"\nconstructor = "RandresponseMechanism"\n')
    return CliRunner().invoke(app, ["audit", str(config), *options])


@pytest.mark.parametrize("verdict, code", [("sound", 0), ("unsound", 1), ("unknown", 3)])
def test_exit_codes(tmp_path, monkeypatch, verdict, code):
    out = _cli(tmp_path, monkeypatch, _stand_in(verdict), "--json")
    assert out.exit_code == code
    assert json.loads(out.stdout)["soundness"] == verdict
    assert json.loads(out.stdout)["verdict"] == {0: "holds", 1: "fails", 3: "unknown"}[code]


def test_errors_exit_2_naming_file_and_key(tmp_path, monkeypatch):
    out = _cli(tmp_path, monkeypatch, None, text='[[case]]\nlibrary = "autodp"\n'
               'constructor = "RandresponseMechanism"\ncompose = 2.0\n')
    assert out.exit_code == 2 and "a.toml: case[0].compose" in out.stderr
    out = _cli(tmp_path, monkeypatch, _stand_in("sound"), "--certificate",
               str(tmp_path / "c.json"))
    assert out.exit_code == 2 and "--certificate" in out.stderr

    def broken(case: AuditCase) -> AuditRow:
        raise RuntimeError("the library failed")

    out = _cli(tmp_path, monkeypatch,
               Adapter("autodp", "autodp", {"RandresponseMechanism": broken}))
    assert out.exit_code == 2 and "the library failed" in out.stderr
    out = _cli(tmp_path, monkeypatch, _stand_in("sound"), text='[[case]]\nlibrary = '
               '"autodp"\nconstructor = "Nope"\n')
    assert out.exit_code == 2 and "case[0].constructor" in out.stderr


def test_an_undecided_sign_is_unknown_not_an_error(tmp_path, monkeypatch):
    """Certified arithmetic that does not decide answers unknown (exit 3), as everywhere in
    plrv — it was exit 2, an error."""
    from verifier.core.errors import Undecided

    def undecided(case: AuditCase) -> AuditRow:
        raise Undecided("the sign of e^(-1) - 1/3 is not decided at 64 bits")

    out = _cli(tmp_path, monkeypatch,
               Adapter("autodp", "autodp", {"RandresponseMechanism": undecided}), "--json")
    assert out.exit_code == 3, out.stderr
    row = json.loads(out.stdout)["cases"][0]
    assert row["verdict"] == "unknown" and "undecided" in row["notes"][0]


def test_missing_library_names_the_extra(tmp_path, monkeypatch):
    import importlib.util

    from verifier.audit import registry

    real = importlib.util.find_spec
    monkeypatch.setattr(registry.importlib.util, "find_spec",
                        lambda name, *a: None if name == "autodp" else real(name, *a))
    out = _cli(tmp_path, monkeypatch, None)
    assert out.exit_code == 2 and "pip install -e '.[autodp]'" in out.stderr
    assert "case[0].library" in out.stderr


def test_conformance_failure_makes_a_sound_case_unknown(tmp_path, monkeypatch):
    pytest.importorskip("scipy")
    law = Dist({0: mpq(3, 4), 1: mpq(1, 4)})
    good = _cli(tmp_path, monkeypatch, _stand_in("sound", law, law), "--conformance", "2000",
                "--json")
    assert good.exit_code == 0, good.stderr
    assert any("draws fit the law" in n for n in json.loads(good.stdout)["cases"][0]["notes"])
    bad = _cli(tmp_path, monkeypatch, _stand_in("sound", law, Dist({0: mpq(1, 2),
                                                                     1: mpq(1, 2)})),
               "--conformance", "2000", "--json")
    assert bad.exit_code == 3
    assert json.loads(bad.stdout)["cases"][0]["verdict"] == "unknown"


def test_conformance_does_not_apply_to_an_accountant(tmp_path, monkeypatch):
    out = _cli(tmp_path, monkeypatch, _stand_in("sound"), "--conformance", "10", "--json")
    assert out.exit_code == 0
    assert any("does not apply" in n for n in json.loads(out.stdout)["cases"][0]["notes"])


def test_json_follows_the_schema(tmp_path, monkeypatch):
    jsonschema = pytest.importorskip("jsonschema")
    out = _cli(tmp_path, monkeypatch, _stand_in("unsound"), "--json")
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(json.loads(out.stdout), schema)


def test_terminal_report(tmp_path, monkeypatch):
    out = _cli(tmp_path, monkeypatch, _stand_in("unsound"))
    assert out.exit_code == 1
    assert "verdict: unsound" in out.stdout and "  tight ε    ln(2)\n" in out.stdout
