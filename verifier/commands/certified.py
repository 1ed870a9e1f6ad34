"""``plrv check --mode certified``: APK/PPK δ as certified intervals beyond exact reach.

The verdict is given only where the interval decides it; the exit status is then 0 or 1, and
3 (unknown) otherwise. The options it applies are :data:`verifier.commands.check.CERTIFIED`;
the others (exact values, enumeration, executors) are refused there, never ignored. A spec
with ``[parameters]`` is checked at a point, and the report says which."""

from __future__ import annotations

from verifier.commands.common import echo, print_json
from verifier.notions.problem import CheckProblem

__all__ = ["certified_check"]


def certified_check(s: CheckProblem, json_out: bool, note: str | None = None) -> int:
    """The certified report; ``note`` says at which point a spec with [parameters] was read."""
    from verifier.specs.check import run_spec_certified

    certified = run_spec_certified(s)
    if json_out:
        from verifier.reports.json_out import certified_json
        print_json(certified_json(certified, s.epsilon, s.delta)
                   | ({"parameters": note} if note else {}))
    else:
        from verifier.reports.terminal import print_certified
        if note:
            echo(f"parameters: {note}")
        print_certified(certified)
    return int(certified.exit_code)
