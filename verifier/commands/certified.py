"""``plrv check --mode certified``: APK/PPK δ as certified intervals beyond exact reach.

The verdict is given only where the interval decides it; the exit status is then 0 or 1, and
3 (unknown) otherwise. Options that need exact values are refused, never ignored."""

from __future__ import annotations

from verifier.commands.common import print_json
from verifier.core.errors import InvalidArgument
from verifier.notions.problem import CheckProblem

__all__ = ["certified_check"]


def certified_check(s: CheckProblem, json_out: bool, certificate: object, closed_form: bool,
                    full: bool) -> int:
    if certificate is not None or closed_form or full:
        raise InvalidArgument("--mode certified gives intervals: it takes no "
                              "--certificate, --closed-form or --full", argument="--mode")
    from verifier.specs.check import run_spec_certified

    certified = run_spec_certified(s)
    if json_out:
        from verifier.reports.json_out import certified_json
        print_json(certified_json(certified))
    else:
        from verifier.reports.terminal import print_certified
        print_certified(certified)
    return int(certified.exit_code)
