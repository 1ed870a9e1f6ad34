"""``plrv audit CONFIG``: decide the privacy claims deployed libraries make, case by case.

Exit status: 1 if any case is unsound, 3 if any is unknown (and none unsound), 0 if every
case is sound, 2 on any error (a bad config names the file and key; a missing library names
the extra to install).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["audit_config"]


def audit_config(config: Path, json_out: bool, conformance: int | None) -> bool | None:
    """Run CONFIG's cases and print the report; the overall verdict (None: unknown)."""
    from verifier.audit.runner import run_audit
    from verifier.specs.audit import load_audit_config

    s = load_audit_config(config)
    result = run_audit(s.cases, s.file, conformance)
    if json_out:
        from verifier.commands.common import print_json
        from verifier.reports.audit import audit_json
        print_json(audit_json(result))
    else:
        from verifier.reports.audit import print_audit
        print_audit(result)
    return result.holds
