"""plrv report SPEC -o FILE and plrv audit --html: one self-contained page, exact values
beside labelled decimals, every string from the spec escaped, the exit status the verdict.

The expected values are derived by hand in the comments; the page's loading in a real browser
is tests/test_browser.py.
"""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path
from unittest import mock

import pytest
from gmpy2 import mpq
from typer.testing import CliRunner

from verifier.cli import app

pytest.importorskip("matplotlib")

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()
APPROX = '<span class="approx" title="certified decimal, an approximation">'

# threshold count T = 2 of 3 i.i.d. bits with P[1] = 1/2, the attacker of record 2 knowing
# nothing. Given the target 1: ⊥ 1/4, 2 1/2, 3 1/4; given 0: ⊥ 3/4, 2 1/4. The case "1 vs 0"
# has ratio 2 at output 2 (P 1/2, Q 1/4), +∞ at output 3 (P 1/4), and ⊥ (ratio 1/3) below 1,
# so P[L ≤ 0] = 1/4; its δ at ln 3 is 1/4 (the +∞ mass alone), the other case's 0 (its
# only ratio > 1 is 3 at ⊥, not above e^ε = 3): with δ = 0 claimed, "1 vs 0" is the witness.
THRESHOLD = """
[data]
records = 3
values = [0, 1]
prior = ["1/2", "1/2"]
[mechanism]
kind = "threshold_count"
counts = [1]
threshold = 2
[attacker]
target = 2
known = []
[query]
epsilon = "ln(3)"
delta = "0"
notions = ["apkdp"]
"""


def _report(tmp_path: Path, spec: Path, *extra: str):
    out = tmp_path / "r.html"
    run = runner.invoke(app, ["report", str(spec), "-o", str(out), *extra])
    return run, (out.read_text(encoding="utf-8") if out.exists() else None)


def test_page_of_randomized_response_has_the_exact_values(tmp_path):
    # examples/randomized_response.toml: truth 3/4 on 3 records, ε = ln 2, δ = 1/4. A
    # neighbouring pair differs in one record: ratio 3 on the outputs where it reports P's
    # value (P 3/4, Q 1/4), ratio ≤ 1 elsewhere (P 1/4). δ(ε) = 3/4 − e^ε/4 below ln 3, 0
    # after; at ln 2: 1/4 ≤ 1/4, holds; tight ε at 1/4: e^ε = 2, ln(2)
    run, page = _report(tmp_path, ROOT / "examples" / "randomized_response.toml")
    assert run.exit_code == 0, run.stderr
    assert page is not None and page.startswith("<!DOCTYPE html>")
    assert '<h2>plrv report ' in page and '<b class="holds">holds</b></h2>' in page
    assert (f"<td><code>0 ≤ ε &lt; ln(3)</code></td><td><code>3/4</code> {APPROX}≈ 0.75 "
            f"(approx.)</span></td><td><code>1/4</code> {APPROX}≈ 0.25 (approx.)</span></td>"
            ) in page
    assert "<td><code>ln(3) ≤ ε</code></td><td><code>0</code></td><td><code>0</code></td>" \
        in page
    # the witness's loss law, every value exact with its decimal beside it
    assert (f"<tr><td><code>ln(3)</code> {APPROX}≈ 1.09861 (approx.)</span></td>"
            f"<td><code>3/4</code> {APPROX}≈ 0.75 (approx.)</span></td>"
            f"<td><code>1/4</code> {APPROX}≈ 0.25 (approx.)</span></td></tr>") in page
    assert (f"<tr><td>≤ 0 (all together)</td><td><code>1/4</code> {APPROX}≈ 0.25 "
            "(approx.)</span></td>") in page
    assert f"<td><code>ln(2)</code> {APPROX}≈ 0.693147 (approx.)</span></td>" in page
    assert page.count("<svg") == 2  # the curve and the histogram, inline
    assert "≈ 0.25 (approx.)" in page and "an approximation for reading only" in page


def test_the_page_loads_nothing(tmp_path):
    _, page = _report(tmp_path, ROOT / "examples" / "randomized_response.toml")
    assert page is not None
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    for fetch in ("<script", "<link", "<img", "<iframe", "@import", "src=", "url(http"):
        assert fetch not in page.lower(), fetch
    # no web address at all, not even an SVG's namespace declarations (an <svg> inside
    # HTML is in the SVG namespace without them, and xlink:href is read as XLink)
    assert re.findall(r"https?:", page, flags=re.IGNORECASE) == []


def test_the_exit_status_is_the_verdict(tmp_path):
    spec = ROOT / "examples" / "randomized_response.toml"
    run, page = _report(tmp_path, spec, "--delta", "1/8")  # tight δ at ln 2 is 1/4 > 1/8
    assert run.exit_code == 1 and page is not None and '<b class="fails">FAILS</b>' in page
    assert "dp: does not hold (tight δ at ε = ln(2): 1/4)" in run.stdout


def test_the_witness_loss_of_the_linear_route(tmp_path):
    spec = tmp_path / "t.toml"
    spec.write_text(THRESHOLD)
    run, page = _report(tmp_path, spec)
    assert run.exit_code == 1 and page is not None, run.stderr
    assert (f"<tr><td><code>ln(2)</code> {APPROX}≈ 0.693147 (approx.)</span></td>"
            f"<td><code>1/2</code> {APPROX}≈ 0.5 (approx.)</span></td>"
            f"<td><code>1/4</code> {APPROX}≈ 0.25 (approx.)</span></td></tr>") in page
    assert (f"<tr><td><code>+inf</code></td><td><code>1/4</code> {APPROX}≈ 0.25 "
            "(approx.)</span></td><td><code>0</code></td></tr>") in page
    assert (f"<tr><td>≤ 0 (all together)</td><td><code>1/4</code> {APPROX}≈ 0.25 "
            "(approx.)</span></td>") in page


def test_strings_from_the_spec_are_escaped(tmp_path):
    # the identity on one record whose value is markup: the value, the witness's databases
    # and its output all show it as text. δ = 1 at every ε (each output has Q = 0)
    spec = tmp_path / "s.toml"
    spec.write_text(textwrap.dedent("""
        [data]
        records = 1
        values = ["<script>alert(1)</script>", "b"]
        [mechanism]
        kind = "identity"
        [query]
        epsilon = "ln(2)"
        delta = "0"
        notions = ["dp"]
        """))
    run, page = _report(tmp_path, spec)
    assert run.exit_code == 1 and page is not None
    assert "<script" not in page.lower()
    assert "<td>&lt;script&gt;alert(1)&lt;/script&gt;, b</td>" in page
    assert "<code>(&#x27;&lt;script&gt;alert(1)&lt;/script&gt;&#x27;,)</code>" in page


def test_without_matplotlib_the_command_says_so(tmp_path):
    with mock.patch.dict(sys.modules, {"matplotlib": None}):
        run, page = _report(tmp_path, ROOT / "examples" / "randomized_response.toml")
    assert run.exit_code == 2 and page is None
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "plrv report needs matplotlib" in lines[0]
    assert "plot" in lines[0]


@pytest.mark.parametrize("spec, named", [
    ("discrete_gaussian_zcdp.toml", "report"),  # a noise spec: plrv check decides it
    ("renyi_randomized_response.toml", "query.notions"),  # rdp/zcdp: no (ε, δ) curve
])
def test_what_the_page_does_not_cover_is_refused(tmp_path, spec, named):
    run, page = _report(tmp_path, ROOT / "examples" / spec)
    assert run.exit_code == 2 and page is None
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and named in lines[0]


def test_the_output_must_be_html(tmp_path):
    run = runner.invoke(app, ["report", str(ROOT / "examples" / "randomized_response.toml"),
                              "-o", str(tmp_path / "r.png")])
    assert run.exit_code == 2 and "--output" in run.stderr and ".html" in run.stderr


def test_loss_atoms_from_the_curve():
    # randomized response 3/4 on one record, [0] against [1]: ratio 3 (P 3/4, Q 1/4), nothing
    # infinite, P[L ≤ 0] = 1/4
    from verifier import check_dp, replace_one
    from verifier.model.mechanisms import randomized_response
    from verifier.reports.html_figures import loss_atoms

    r = check_dp(randomized_response("3/4", [0, 1]), replace_one([0, 1], 1), "ln(2)", "1/8")
    law = loss_atoms(r.loss, r.query_epsilon)
    assert law.atoms == ((mpq(3), mpq(3, 4), mpq(1, 4)),)
    assert law.infinite == 0 and law.rest == mpq(1, 4)


def test_audit_html_page(tmp_path):
    pytest.importorskip("opendp")
    config = tmp_path / "a.toml"
    # opendp's randomized response with prob 3/4: ε = ln(3/4 / 1/4) = ln 3 exactly, and the
    # claim is the double nearest ln 3 (4947709893870347/2^52), above it: sound
    config.write_text('[[case]]\nlibrary = "opendp"\nconstructor = '
                      '"make_randomized_response_bool"\nargs = { prob = { f64 = "0.75" } }\n'
                      'd_in = 1\n')
    out = tmp_path / "a.html"
    run = runner.invoke(app, ["audit", str(config), "--html", str(out)])
    assert run.exit_code == 0, run.stderr
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and '<b class="holds">sound</b></h2>' in page
    assert (f"<td><code>4947709893870347/4503599627370496</code> {APPROX}≈ "
            "1.0986122886681098 (approx.)</span></td>") in page
    assert f"<td><code>ln(3)</code> {APPROX}≈ 1.09861 (approx.)</span></td>" in page
    assert "<th>output</th><th>privacy loss</th>" in page
    assert "<script" not in page.lower()


def test_a_spec_without_delta_claims_delta_zero(tmp_path):
    # no query.delta: δ = 0, read as the rational 0 (it was the string "0", which the page's
    # decimal could not take); randomized response 3/4 on one record: tight δ at ln 2 is
    # 3/4 − 2·1/4 = 1/4 > 0, so the claim fails
    from verifier.specs.check import load_spec

    spec = tmp_path / "d.toml"
    spec.write_text('[data]\nrecords = 1\nvalues = [0, 1]\n[mechanism]\nkind = '
                    '"randomized_response"\ntruth = "3/4"\n[query]\nepsilon = "ln(2)"\n')
    delta = load_spec(spec).delta
    assert delta == 0 and isinstance(delta, type(mpq(0)))
    run, page = _report(tmp_path, spec)
    assert run.exit_code == 1 and page is not None, run.stderr
    assert "<tr><td>claim δ</td><td><code>0</code></td></tr>" in page


def test_an_audit_result_shows_itself_in_a_notebook(tmp_path):
    pytest.importorskip("opendp")
    from verifier.audit.runner import run_audit
    from verifier.specs.audit import load_audit_config

    config = tmp_path / "a.toml"
    config.write_text('[[case]]\nlibrary = "opendp"\nconstructor = '
                      '"make_randomized_response_bool"\nargs = { prob = { f64 = "0.75" } }\n'
                      'd_in = 1\n')
    s = load_audit_config(config)
    html = run_audit(s.cases, s.file, None, None)._repr_html_()
    assert html.startswith('<div class="plrv-report">') and "<svg" not in html
    assert '<b class="holds">sound</b></h2>' in html
    assert f"<td><code>ln(3)</code> {APPROX}≈ 1.09861 (approx.)</span></td>" in html
