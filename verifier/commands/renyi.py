"""``plrv check`` on a spec asking for the Rényi notions ``rdp``/``zcdp``: the verdict, the tight
values (exact, or a certified enclosure marked as such) and the conversions to (ε, δ).

The options this route applies are :data:`verifier.commands.check.RENYI`; the others are
refused there. A spec with ``[parameters]`` is checked at a point, and the report says which.
"""

from __future__ import annotations

from verifier.commands.app import verdict
from verifier.commands.common import echo, print_json
from verifier.notions.dp.neighbours import relation_cases, replace_one
from verifier.notions.problem import CheckProblem
from verifier.notions.registry import PARTIAL_RENYI
from verifier.notions.renyi.check import RenyiReport, renyi_report
from verifier.notions.renyi.partial import merge_reports, problem_report
from verifier.reports.renyi import renyi_lines

__all__ = ["renyi_check"]


def renyi_check(s: CheckProblem, json_out: bool, note: str | None = None,
                progress: bool | None = None) -> int:
    """The Rényi report; ``note`` says at which point a spec with [parameters] was read,
    ``progress`` shows zcdp's search over the pairs."""
    from verifier.reports.progress import ProgressBar

    claim = s.renyi
    assert claim is not None
    classical = tuple(n for n in s.notions if n not in PARTIAL_RENYI)
    report = RenyiReport({})
    if classical:
        relation = s.relation if s.relation is not None else replace_one(s.values, s.records)
        with ProgressBar(progress, "zcdp: pairs searched") as bar:
            report = renyi_report(relation_cases(relation, s.mechanism, s.budget, s.engine),
                                  classical, claim, (f"neighbours {relation.describe()}",),
                                  progress=bar)
    if len(classical) < len(s.notions):  # apkrdp, ppkrdp, noiselessrdp and the zcdp forms
        report = merge_reports(report, problem_report(s, claim))
    out = report.to_dict(claim)
    if json_out:
        print_json(out | ({"parameters": note} if note else {}))
        return verdict(report.holds)
    if note:
        echo(f"parameters: {note}")
    echo(f"mechanism  {s.mechanism.describe()}")
    for key, d in s.doubles:
        echo(f"double     {key} = {d} ({d.hex}) is read as exactly {d.exact}")
    for label, text in renyi_lines(out, report.info):
        echo(f"{label:<10} {text}")
    return verdict(report.holds)
