"""``plrv audit CONFIG``: decide the privacy claims deployed libraries make, case by case.

Exit status: 1 if any case is unsound, 3 if any is unknown (and none unsound), 0 if every
case is sound, 2 on any error (a bad config names the file and key; a missing library names
the extra to install).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["audit_config"]


def audit_config(config: Path, json_out: bool, conformance: int | None,
                 scan: str | None = None, report: Path | None = None,
                 html: Path | None = None) -> bool | None:
    """Run CONFIG's cases (each over the ``--scan`` range, if given) and print the report,
    writing one Markdown report per unsound case into ``report`` and the whole audit as an
    HTML page into ``html``; the overall verdict (None: unknown)."""
    from verifier.audit.runner import run_audit
    from verifier.audit.scan import parse_scan
    from verifier.specs.audit import MAX_COMPOSE, load_audit_config

    if html is not None:
        from verifier.commands.common import check_outputs
        check_outputs(config, **{"--html": (html, (".html", ".htm"))})
    parsed = parse_scan(scan, MAX_COMPOSE) if scan is not None else None
    s = load_audit_config(config)
    result = run_audit(s.cases, s.file, conformance, parsed)
    if html is not None:
        from verifier.audit.page import audit_html
        from verifier.notions.html_page import Html, page
        from verifier.reports.writers import write_html
        write_html(page(f"plrv audit {config}", Html(audit_html(result))), html, "--html")
    written = None
    if report is not None:
        from verifier.reports.audit_finding import write_reports
        written = write_reports(result, report)
    if json_out:
        from verifier.commands.common import print_json
        from verifier.reports.audit import audit_json
        print_json(audit_json(result))
    elif result.scans:
        from verifier.reports.audit import print_scans
        print_scans(result)
    else:
        from verifier.reports.audit import print_audit
        print_audit(result)
    if written is not None and not json_out:
        from verifier.commands.common import echo
        from verifier.core.numbers import counted
        echo(f"report: {counted(len(written), 'unsound case')} written to {report}")
    return result.holds
