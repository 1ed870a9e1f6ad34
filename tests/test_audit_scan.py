"""``plrv audit --scan``: parsing, the search, and the boundaries it finds.

Expected values are derived by hand: OpenDP's ``make_randomized_response_bool`` at ``prob = p``
claims ε = ln(p/(1−p)), which is the exact ε of the law it samples (its map is exact at p =
1/2, 3/4, 1); prv-accountant's first unsound k (27) is the one the issue's independent check
found by running every k, and k = 26 sound there.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gmpy2 import mpq
from typer.testing import CliRunner

from verifier.audit.case import AuditCase, AuditRow
from verifier.audit.scan import MAX_LINEAR, ScanPoint, parse_scan, run_scan, with_value
from verifier.cli import app
from verifier.core.binary64 import F64
from verifier.core.errors import InvalidArgument


def _case(**kw) -> AuditCase:
    return AuditCase("opendp", "make_randomized_response_bool", kw.get("args", {}), 1,
                     kw.get("compose"), None, None, None, 0)


def test_parse_forms() -> None:
    s = parse_scan("compose=1..40")
    assert s.method == "linear" and s.values == tuple(range(1, 41))
    s = parse_scan(f"compose=1..{MAX_LINEAR + 1}")
    assert s.method == "bisection" and s.values == (1, MAX_LINEAR + 1)
    s = parse_scan("args.scale=1..2/3")  # 1, 3/2, 2: all doubles exactly
    assert s.method == "grid" and [v.exact for v in s.values] == [1, mpq(3, 2), 2]
    s = parse_scan("args.scale=0.1..0.3/3")  # 0.2 is not a double: the nearest is taken
    assert s.values[1] == F64(0.2)
    s = parse_scan("args.eps=ln(3),2,0x1.8p-1")
    assert s.values == ("ln(3)", 2, F64(0.75))
    assert [str(e) for e in parse_scan("epsilon=ln(3),1").values] == ["ln(3)", "1"]
    assert parse_scan("delta=1/1000").values == (mpq(1, 1000),)


@pytest.mark.parametrize("text", ["compose", "foo=1..2", "compose=3..2", "compose=0..3",
                                  "compose=1.5..2", "args.x=1..2/1", "compose=1..2/3",
                                  "delta=2", "args.x=1..2/1001"])
def test_parse_refusals_name_the_option(text: str) -> None:
    with pytest.raises(InvalidArgument, match="--scan"):
        parse_scan(text)


def test_compose_beyond_the_config_limit_is_refused() -> None:
    from verifier.specs.audit import MAX_COMPOSE

    with pytest.raises(InvalidArgument, match=f"above {MAX_COMPOSE}"):
        parse_scan(f"compose=1..{MAX_COMPOSE + 1}", MAX_COMPOSE)
    with pytest.raises(InvalidArgument, match="starts at 1"):
        parse_scan("compose=0,5", MAX_COMPOSE)
    assert parse_scan(f"compose=1..{MAX_COMPOSE}", MAX_COMPOSE).method == "bisection"


def test_with_value_replaces_one_key() -> None:
    c = _case(args={"prob": F64(0.75)})
    assert with_value(c, "args.prob", F64(0.5)).args == {"prob": F64(0.5)}
    assert with_value(c, "compose", 7).compose == 7
    assert with_value(c, "options.x", 1).options == {"x": 1}


def _fake(unsound_from: int, errs: tuple[int, ...] = ()):
    calls = []

    def decide(c: AuditCase) -> AuditRow:
        calls.append(c.compose)
        if c.compose in errs:
            raise InvalidArgument("the library raised", argument="compose")
        v = "unsound" if c.compose >= unsound_from else "sound"
        return AuditRow(c, None, None, None, None, v, None, "exact", {})
    return decide, calls


def test_bisection_finds_the_change_and_steps_over_errors() -> None:
    decide, calls = _fake(27, errs=(500, 250, 125))
    r = run_scan(_case(compose=1), parse_scan("compose=1..1000"), decide)
    assert r.first_unsound == "27" and r.last_sound == "26" and r.method == "bisection"
    assert len(calls) < 30  # log2(1000) + the steps over errors, not 1000


def test_bisection_without_an_unsound_value_is_undecided_never_sound() -> None:
    # unsound at compose = 3 only: LO = 1 and HI = 201 are sound, the bisection has no bracket
    # and decides nothing between them, so the range is not shown sound
    from verifier.audit.runner import AuditResult

    calls: list[int] = []

    def decide(c: AuditCase) -> AuditRow:
        calls.append(c.compose)
        v = "unsound" if c.compose == 3 else "sound"
        return AuditRow(c, None, None, None, None, v, None, "exact", {})

    r = run_scan(_case(compose=1), parse_scan(f"compose=1..{MAX_LINEAR + 1}"), decide)
    assert calls == [1, MAX_LINEAR + 1] and r.first_unsound is None and r.undecided
    rows = tuple(p.row for p in r.points if p.row is not None)
    assert AuditResult("a.toml", rows, None, scans=(r,)).holds is None
    linear = run_scan(_case(compose=1), parse_scan("compose=1..40"), decide)
    assert linear.first_unsound == "3" and not linear.undecided


def test_cli_bisection_over_sound_ends_is_unknown(tmp_path) -> None:
    # OpenDP's make_geometric at the scale 0x1.9c50fa1b29c51p+0 with bounds [0, 3] is unsound
    # at d_in = 3 only (examples/audit/opendp_geometric_scan.toml): d_in = 1 claims ε =
    # 1/scale, the law's own; d_in ≥ 4 claims more than the clamp to [0, 3] leaks. A scan of
    # d_in = 1..201 bisects, decides 1 and 201 (both sound) and must not exit 0.
    pytest.importorskip("opendp")
    cfg = tmp_path / "a.toml"
    cfg.write_text('[[case]]\nlibrary = "opendp"\nconstructor = "make_geometric"\n'
                   'args = { scale = { f64 = "0x1.9c50fa1b29c51p+0" }, bounds = [0, 3] }\n'
                   'd_in = 3\n')
    r = CliRunner().invoke(app, ["audit", str(cfg), "--scan", f"d_in=1..{MAX_LINEAR + 1}"])
    assert r.exit_code == 3, r.output
    assert "undecided" in r.output and "verdict: unknown" in r.output
    r = CliRunner().invoke(app, ["audit", str(cfg), "--json", "--scan",
                                 f"d_in=1..{MAX_LINEAR + 1}"])
    out = json.loads(r.output)
    assert r.exit_code == 3 and out["holds"] is None and out["scans"][0]["undecided"] is True
    r = CliRunner().invoke(app, ["audit", str(cfg), "--scan", "d_in=1..5"])
    assert r.exit_code == 1 and "first unsound d_in = 3" in r.output


def test_linear_finds_the_smallest_and_records_errors() -> None:
    decide, _ = _fake(27, errs=(3,))
    r = run_scan(_case(compose=1), parse_scan("compose=1..40"), decide)
    assert r.first_unsound == "27" and r.last_sound == "26"
    assert r.points[2] == ScanPoint("3", None, "compose: the library raised") or \
        r.points[2].verdict == "error"
    assert "26 → 27: sound → unsound" in r.changes
    with pytest.raises(InvalidArgument, match="no value could be decided"):
        run_scan(_case(compose=1), parse_scan("compose=1..2"), _fake(9, errs=(1, 2))[0])


def test_cli_scan_opendp_rr_is_sound_at_each_grid_point(tmp_path) -> None:
    pytest.importorskip("opendp")
    cfg = tmp_path / "a.toml"
    cfg.write_text('[[case]]\nlibrary = "opendp"\nconstructor = "make_randomized_response_bool"'
                   '\nargs = { prob = { f64 = "0.75" } }\nd_in = 1\n')
    r = CliRunner().invoke(app, ["audit", str(cfg), "--json", "--scan", "args.prob=1/2..1/3"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    eps = [p["tight_epsilon"]["value"] for p in out["scans"][0]["points"]]
    assert eps == ["0", "ln(3)", "inf"]
    assert out["scans"][0]["first_unsound"] is None and len(out["cases"]) == 3
    jsonschema = pytest.importorskip("jsonschema")
    schema = Path(__file__).resolve().parents[1] / "schemas" / "audit-output.v1.json"
    jsonschema.validate(out, json.loads(schema.read_text(encoding="utf-8")))
    r = CliRunner().invoke(app, ["audit", str(cfg), "--scan", "args.prob=1/2..1/3",
                                 "--conformance", "5"])
    assert r.exit_code == 2 and "--conformance" in r.output


@pytest.mark.slow
def test_prv_accountant_first_unsound_k_is_27() -> None:
    pytest.importorskip("prv_accountant")
    config = Path(__file__).resolve().parents[1] / "examples" / "audit" / "prv_accountant_scan.toml"
    r = CliRunner().invoke(app, ["audit", str(config), "--json", "--scan", "compose=20..30"])
    assert r.exit_code == 1, r.output
    scan = json.loads(r.output)["scans"][0]
    assert scan["first_unsound"] == "27" and scan["last_sound"] == "26"
