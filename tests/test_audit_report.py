"""``plrv audit --report DIR``: one Markdown file per unsound case, with a reproduction script
that uses only the library.

The Gaussian threshold finding is checked against its hand derivation (see
``tests/test_audit_opendp_gauss_threshold.py``): the script's own draws at {a: 1} release the
key with frequency ≈ 0.0586 (at 5000 draws, 293 ± 17), far above the claimed δ ≈ 0.02275
(114), and never at {}.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from verifier.cli import app

pytest.importorskip("opendp")

EXAMPLE = str(Path(__file__).resolve().parents[1] / "examples" / "audit"
              / "opendp_gaussian_threshold.toml")


def _report(tmp_path, config: str, *extra: str):
    out = tmp_path / "rep"
    r = CliRunner().invoke(app, ["audit", config, "--report", str(out), *extra])
    return r, out


def test_report_has_every_section_and_the_library_version(tmp_path) -> None:
    from importlib.metadata import version

    r, out = _report(tmp_path, EXAMPLE)
    assert r.exit_code == 1, r.output
    (md,) = out.iterdir()
    text = md.read_text()
    assert text.startswith(f"# opendp {version('opendp')}: `make_gaussian_threshold`")
    for head in ("## Configuration", "## Claimed and exact values", "## Witness",
                 "## Derivation (exact arithmetic)", "## Reproduction (the library only)"):
        assert head in text
    assert "`12213887/536870912`" in text  # the claimed δ, the library's double read exactly
    assert "`1`" in text  # the tight δ over the whole relation


def test_reproduction_script_runs_with_the_library_alone(tmp_path) -> None:
    _, out = _report(tmp_path, EXAMPLE)
    text = next(out.iterdir()).read_text()
    script = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    assert "N = 5000" in script  # enough draws: 293 ± 17 released against 114 claimed
    assert "verifier" not in script
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300, check=True)
    lines = done.stdout.splitlines()
    assert lines[0] == "claim: (0.5, 0.022750137373805046)"
    released = dict(eval(lines[1].split(" ", 2)[2]))[True]  # "{'a': 1} [(False, n), (True, m)]"
    assert released > 200  # claimed δ: 114 ± 11
    assert lines[2] == "{} [(False, 5000)]"


def test_the_config_in_a_report_reproduces_the_finding(tmp_path) -> None:
    _, out = _report(tmp_path, EXAMPLE)
    text = next(out.iterdir()).read_text()
    cfg = tmp_path / "again.toml"
    cfg.write_text(re.search(r"```toml\n(.*?)```", text, re.S).group(1))
    assert CliRunner().invoke(app, ["audit", str(cfg)]).exit_code == 1


def test_no_file_for_a_sound_case_and_a_file_is_refused(tmp_path) -> None:
    cfg = tmp_path / "a.toml"
    cfg.write_text('[[case]]\nlibrary = "opendp"\nconstructor = "make_randomized_response_bool"'
                   '\nargs = { prob = { f64 = "0.75" } }\nd_in = 1\n')
    r, out = _report(tmp_path, str(cfg))
    assert r.exit_code == 0 and list(out.iterdir()) == []
    blocker = tmp_path / "file"
    blocker.write_text("")
    r = CliRunner().invoke(app, ["audit", str(cfg), "--report", str(blocker)])
    assert r.exit_code == 2 and "--report" in r.output


def _script(md) -> str:
    return re.search(r"```python\n(.*?)```", md.read_text(), re.S).group(1)


@pytest.mark.parametrize("config, expected", [
    # dp_accounting's PLD accountant at k = 100 returns one run's ε (docs/how-to/audit.md)
    ("dp_accounting_count.toml", "claim: get_epsilon(delta) = 1.0973657769868632"),
    # PipelineDP: five budgets of fl(1/5) sum to 1 + 2^-54 = 18014398509481985/2^54
    ("pipeline_dp.toml", "sum of count * eps, exactly: 18014398509481985/18014398509481984"),
])
def test_accountant_reports_reproduce_the_claim_with_the_library_alone(tmp_path, config,
                                                                        expected) -> None:
    library = "dp_accounting" if config.startswith("dp_") else "pipeline_dp"
    pytest.importorskip(library)
    path = str(Path(EXAMPLE).parent / config)
    r, out = _report(tmp_path, path)
    assert r.exit_code == 1, r.output
    (md,) = sorted(out.iterdir())[:1]
    script = _script(md)
    assert "verifier" not in script and "accountant draws nothing" in md.read_text()
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300, check=True)
    assert expected in done.stdout.splitlines()


def test_bounded_geometric_script_runs_with_the_library_alone(tmp_path) -> None:
    """OpenDP's make_geometric takes its bounds as a tuple (a list raises TypeError): the
    script of the d_in = 3 finding builds the measurement, prints the map's claim — 3/scale
    rounded up, at least 3/scale exactly — and only draws in [0, 3] at both inputs."""
    path = str(Path(EXAMPLE).parent / "opendp_geometric_d_in_scan.toml")
    r, out = _report(tmp_path, path)
    assert r.exit_code == 1, r.output
    (md,) = out.iterdir()
    script = _script(md).replace("N = 5000", "N = 2000")
    assert "bounds=(0, 3)" in script and "verifier" not in script
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300, check=True)
    lines = done.stdout.splitlines()
    from fractions import Fraction

    claim = Fraction(float(lines[0].removeprefix("claim: ")))
    assert claim >= 3 / Fraction(float.fromhex("0x1.9c50fa1b29c51p+0"))
    for line, x in zip(lines[1:], (0, 3), strict=True):
        assert line.startswith(f"{x} ")
        assert {o for o, _ in eval(line.split(" ", 1)[1])} <= {0, 1, 2, 3}


def test_binary_script_counts_the_draws_its_report_says_it_counts(tmp_path) -> None:
    """diffprivlib's Binary witness names its inputs as a list: the report says the script
    counts the library's draws at them, so it must. At ε = 0x1.205966f2b4f13p+5 numpy's
    e^ε is 2^52 + 21 ≥ 2^52, so fl(u·fl(e^ε + 1)) ≤ fl(e^ε) for every u = k/2^53 < 1 and no
    draw flips (diffprivlib 0.6's randomise): each input comes back every time."""
    pytest.importorskip("diffprivlib")
    cfg = tmp_path / "b.toml"
    cfg.write_text('[[case]]\nlibrary = "diffprivlib"\nconstructor = "Binary"\n'
                   'args = { epsilon = { f64 = "0x1.205966f2b4f13p+5" }, value0 = "0", '
                   'value1 = "1" }\n')
    r, out = _report(tmp_path, str(cfg))
    assert r.exit_code == 1, r.output
    (md,) = out.iterdir()
    assert "counts the library's own draws" in md.read_text()
    script = _script(md).replace("N = 5000", "N = 2000")
    assert "verifier" not in script
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300, check=True)
    assert done.stdout.splitlines()[1:] == ["0 [('0', 2000)]", "1 [('1', 2000)]"]


def test_a_script_that_counts_nothing_does_not_say_it_counts() -> None:
    """A witness without two inputs gets a script that only prints the claim; its report says
    so, not that the script counts draws at two witness inputs."""
    from gmpy2 import mpq

    from verifier.audit.case import AuditCase, AuditRow
    from verifier.core.binary64 import F64
    from verifier.reports.audit_finding import finding_markdown

    case = AuditCase("diffprivlib", "Binary", {"epsilon": F64(1.0), "value0": "0",
                                               "value1": "1"}, None, None, None, None, None, 0)
    row = AuditRow(case, F64(1.0), mpq(0), mpq(1), None, "unsound", None, "exact",
                   {"outputs": ["0"]})
    text = finding_markdown(row, "0.6")
    assert "print('claim: epsilon =', mech.epsilon)" in text
    assert "counts the library's own draws" not in text
    assert "The script builds the same object and prints the claim" in text
