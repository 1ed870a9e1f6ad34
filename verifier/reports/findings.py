"""The audit findings page (``docs/how-to/audit-findings.md``), generated from the example
configs: for each finding, the ``plrv audit`` commands that reproduce it (each with the
lines it prints, the boundary its ``--scan`` found), the facts read off those scans (which
values are sound, how many of a grid are unsound), and the ``--report`` file of the finding's
first unsound case as a maintainer receives it.

Every number on the page comes from running the audits (:func:`verifier.audit.runner.run_audit`
over the configs of ``examples/audit/``), and each report is the file
:func:`verifier.reports.audit_finding.write_reports` writes for ``--report DIR``.
``python -m verifier.reports.findings > docs/how-to/audit-findings.md`` regenerates the page;
a test checks that it is current, and the documentation tests run its commands.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from verifier.audit.case import AuditRow
from verifier.audit.runner import AuditResult, run_audit
from verifier.audit.scan import ScanResult, parse_scan
from verifier.reports.audit import scan_lines, value_json

__all__ = ["FINDINGS", "Finding", "Run", "markdown", "run_all"]

ROOT = Path(__file__).resolve().parent.parent.parent
EXAMPLES = ROOT / "examples" / "audit"


@dataclass(frozen=True)
class Run:
    """One command of a finding: a config of ``examples/audit/`` and its ``--scan`` (or none),
    and its result once run."""

    config: str
    scan: str | None = None

    def command(self, result: AuditResult) -> str:
        scan = f' --scan "{self.scan}"' if self.scan is not None else ""
        code = {True: "", False: "   # exit 1", None: "   # exit 3"}[result.holds]
        return f"$ plrv audit examples/audit/{self.config}{scan}{code}"


@dataclass(frozen=True)
class Finding:
    """A finding: its title, the library's module (for the docs tests' ``needs``), the
    commands, a text built from their results, and which row's report to show."""

    title: str
    module: str
    runs: tuple[Run, ...]
    text: Callable[[Sequence[AuditResult]], str]
    report: Callable[[Sequence[AuditResult]], AuditRow]


def _points(s: ScanResult, verdict: str) -> list[str]:
    return [p.value for p in s.points if p.verdict == verdict]


def _first_unsound(result: AuditResult) -> AuditRow:
    return next(r for r in result.rows if r.verdict == "unsound")


def _at(result: AuditResult, value: str) -> AuditRow:
    """The row of the scanned point whose value is ``value``."""
    return next(p.row for s in result.scans for p in s.points
                if p.value == value and p.row is not None)


def _approx(v: object) -> str:
    j = value_json(v)
    return "—" if j is None else str(j["approx"])


def _prv(results: Sequence[AuditResult]) -> str:
    (s,) = results[0].scans
    k = s.first_unsound
    row = _at(results[0], str(k))
    return (f"prv-accountant's upper ε for k-fold `PureDPMechanism(ln 3)` (randomized response, "
            f"truth 3/4) at δ = 10⁻³ is below the exact tight ε from k = **{k}** on: every k "
            f"from 1 to 40 decided in order, sound up to {s.last_sound}. At k = {k} the "
            f"library claims ε ≈ {_approx(row.claim_epsilon)} against the exact "
            f"{_approx(row.tight_epsilon)}. This corrects an earlier statement of k = 50 "
            f"(a sampled k, not a search).")


def _binary(results: Sequence[AuditResult]) -> str:
    (edge,), (grid,) = results[0].scans, results[1].scans
    change = next(c for c in edge.changes if "∞" in c)
    sound = _points(grid, "sound")
    return (f"diffprivlib's `Binary` flips its input iff fl(u·fl(e^ε + 1)) > fl(e^ε) for a "
            f"draw u = k/2⁵³. Once fl(e^ε) ≥ 2⁵² no draw flips and the tight ε is ∞: the "
            f"boundary is the change {change}, i.e. ε ≈ 36.04 (52·ln 2), not 36.7 (53·ln 2). "
            f"Just below it (and at ε = 36.0) exactly one draw in 2⁵³ flips, tight ε = "
            f"ln(2⁵³ − 1) ≈ {_approx(_at(results[0], edge.points[0].value).tight_epsilon)}. "
            f"Over {len(grid.points)} doubles ε from 0.001 to 36, {len(grid.points) - len(sound)}"
            f" are unsound (the law's exact ε exceeds the claim by ulps); sound at only "
            f"{len(sound)}: ε = {' and '.join(sound)}.")


def _geometric(results: Sequence[AuditResult]) -> str:
    (grid,), (d_in,) = results[0].scans, results[1].scans
    bad = _points(grid, "unsound")
    d_bad = _points(d_in, "unsound")
    return (f"OpenDP's bounded `make_geometric` (bounds [0, 3], d_in = 3) samples with "
            f"α = 1 − (1 ⊖ e^(−fl(1/scale))), the nearest-rounded 1/scale, so α can fall below "
            f"e^(−1/scale); the map's one-ulp round-up of d_in/scale does not always absorb it. "
            f"Of {len(grid.points)} doubles from 1 to 11, **{len(bad)}** are unsound: "
            f"{' and '.join(bad)}. At the first of them, over d_in from 1 to "
            f"{len(d_in.points)}, only d_in = {', '.join(d_bad)} is unsound: at 1 and 2 the "
            f"round-up absorbs the gap, and from 4 on the clamping to [0, 3] caps the tight ε "
            f"while the claim grows.")


def _gaussian(results: Sequence[AuditResult]) -> str:
    row = _first_unsound(results[0])
    release = str(row.witness.get("delta", "")).split("≈")[-1].strip()
    return (f"OpenDP's `make_gaussian_threshold` at scale 1, T = 3, d_in = (1, 1, 1) claims "
            f"(ρ, δ) = ({_approx(row.claim_epsilon)}, {_approx(row.claim_delta)}); the map "
            f"{{a: 1}} against {{}} releases the key with probability P[Z ≥ 2] ≈ **{release}**, "
            f"a mass {{}} never gives (the implementation keeps v + Z ≥ T, the map uses "
            f"P[Z > T − v]); over the whole relation δ = {_approx(row.tight_delta)}.")


FINDINGS: tuple[Finding, ...] = (
    Finding("prv-accountant: unsound from k = 27 compositions", "prv_accountant",
            (Run("prv_accountant_scan.toml", "compose=1..40"),), _prv,
            lambda rs: _at(rs[0], str(rs[0].scans[0].first_unsound))),
    Finding("diffprivlib Binary: ε = ∞ from ε ≈ 36.04", "diffprivlib",
            (Run("diffprivlib_binary_scan.toml",
                 "args.epsilon=36.0,0x1.205966f2b4f12p+5,0x1.205966f2b4f13p+5,36.7"),
             Run("diffprivlib_binary_scan.toml", "args.epsilon=1/1000..36/1000")), _binary,
            lambda rs: next(p.row for p in rs[0].scans[0].points
                            if p.infinite and p.row is not None)),
    Finding("OpenDP bounded make_geometric: unsound at d_in = 3 for some scales", "opendp",
            (Run("opendp_geometric_scan.toml", "args.scale=1..11/1000"),
             Run("opendp_geometric_d_in_scan.toml", "d_in=1..10")), _geometric,
            lambda rs: _at(rs[0], str(rs[0].scans[0].first_unsound))),
    Finding("OpenDP make_gaussian_threshold: the threshold's off-by-one", "opendp",
            (Run("opendp_gaussian_threshold.toml"),), _gaussian,
            lambda rs: _first_unsound(rs[0])),
)


def _run(run: Run) -> AuditResult:
    from verifier.specs.audit import MAX_COMPOSE, load_audit_config

    config = load_audit_config(EXAMPLES / run.config)
    scan = parse_scan(run.scan, MAX_COMPOSE) if run.scan is not None else None
    return run_audit(config.cases, f"examples/audit/{run.config}", None, scan)


def run_all() -> list[list[AuditResult]]:
    """Every finding's commands, run (in the order of :data:`FINDINGS`)."""
    return [[_run(r) for r in f.runs] for f in FINDINGS]


def _printed(result: AuditResult) -> list[str]:
    """The lines the command prints that the page quotes: a scan's boundary and changes (at
    most four); without a scan each case's verdict and the unsound cases' notes that set the
    claim against the law; then the overall verdict."""
    lines = [line for s in result.scans for line in scan_lines(s)]
    if not result.scans:
        for r in result.rows:
            lines.append(f"case[{r.case.index}] {r.case.library}.{r.case.constructor}: "
                         f"{r.verdict}")
            if r.verdict == "unsound":
                lines += [f"  note {n}" for n in r.notes if "claim" in n]
    head = [x for x in lines if not x.startswith("  change")]
    changes = [x for x in lines if x.startswith("  change")]
    return head + changes[:4] + (["…"] if len(changes) > 4 else []) + \
        [f"verdict: {({True: 'sound', False: 'unsound', None: 'unknown'})[result.holds]}"]


def _demoted(report: str, module: str) -> str:
    """A report's headings two levels down, its script marked for the documentation tests
    (slow, needs the library)."""
    text = re.sub(r"^(#+) ", lambda m: "#" * (len(m.group(1)) + 2) + " ", report, flags=re.M)
    return text.replace("```python", f"<!-- test: slow, needs {module} -->\n```python")


_INTRO = """\
# Audit findings, reproduced

Each finding of [Audit DP libraries](audit.md#findings) that a scan brings out, with the
commands that reproduce it from `examples/audit/` (the lines quoted under each are what it
prints: the boundary `--scan` found), what the scans show, and the file
`plrv audit CONFIG --report DIR` writes for the finding's first unsound case, as a maintainer
receives it (headings two levels down). Every number here comes from running those audits.

Regenerate this page with `python -m verifier.reports.findings > docs/how-to/audit-findings.md`;
a test checks that it is current, and the documentation tests run each command and check the
lines it prints.
"""


def markdown(results: Sequence[Sequence[AuditResult]] | None = None) -> str:
    """The page ``docs/how-to/audit-findings.md``."""
    import tempfile

    from verifier.reports.audit_finding import write_reports

    results = run_all() if results is None else results
    out = [_INTRO]
    for finding, found in zip(FINDINGS, results, strict=True):
        out += [f"## {finding.title}", "", finding.text(found), "",
                f"<!-- test: slow, needs {finding.module} -->", "```console"]
        for run, result in zip(finding.runs, found, strict=True):
            out += [run.command(result), *_printed(result)]
        out += ["```", ""]
        row = finding.report(found)
        with tempfile.TemporaryDirectory() as where:  # what --report DIR writes
            result = next(r for r in found if row in r.rows)
            unsound = [r for r in result.rows if r.verdict == "unsound"]
            path = write_reports(result, Path(where))[unsound.index(row)]
            report = path.read_text(encoding="utf-8")
        out += [_demoted(report, finding.module).rstrip(), ""]
    return "\n".join(out)


if __name__ == "__main__":
    print(markdown(), end="")
