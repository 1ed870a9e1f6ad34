"""``plrv`` commands about proofs and evidence: ``prove``, ``reducible``, ``search``,
``verify-certificate`` and ``theorems`` (registered on the same application as
:mod:`verifier.cli`)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated, Any

import typer

from verifier.commands.app import ERROR, FAILS, HOLDS, UNKNOWN, _VerdictCommand, app
from verifier.commands.app import verdict as _verdict
from verifier.commands.common import (
    CertOpt,
    JsonOpt,
    ProgressOpt,
    SpecArg,
    check_outputs,
    print_json,
)
from verifier.commands.executor_options import SchedulerOpt, WorkersOpt
from verifier.commands.routes import refuse_options, typed_options


@app.command()
def prove(
    spec: SpecArg,
    claim: Annotated[str, typer.Option(
        help='lemma4, lemma5, lemma6, theorem2, apk-le-ppk, or an expression over apk, ppk, '
             'noiseless, dp such as "apk <= 2*ppk".')],
    every_epsilon: Annotated[bool, typer.Option(
        "--every-epsilon", help="Decide the claim for every ε ≥ 0 at once (E = e^ε free).")]
    = False,
    every_known_set: Annotated[bool, typer.Option(
        "--every-known-set", help="Every target with every set of known records.")] = False,
    timeout: Annotated[int, typer.Option(min=1, help="z3 time limit per instance, seconds.")]
    = 20,
    max_instances: Annotated[int, typer.Option(
        "--max-instances", min=1, help="Refuse more instances (target × attacker) than this.")]
    = 256,
    json_out: JsonOpt = False,
    certificate: CertOpt = None,
) -> int:
    """Prove a claim for every value of the spec's [parameters] (z3; witnesses re-checked).

    0 proved, 1 a counterexample confirmed by the exact engine, 3 unknown.
    """
    from verifier.specs.symbolic import load_symbolic
    from verifier.symbolic.prove import prove as run

    refuse_options("plrv prove", typed_options(), {
        "--claim", "--every-epsilon", "--every-known-set", "--timeout", "--max-instances",
        "--json", "--certificate"})
    check_outputs(spec, **{"--certificate": (certificate, None)})
    sym = load_symbolic(spec, claim=claim)  # the claim names the notions the spec is read for
    rep = run(sym, claim, every_epsilon=every_epsilon, every_known_set=every_known_set,
              timeout_ms=timeout * 1000, max_instances=max_instances)
    if certificate is not None:
        from verifier.certificates.emit_symbolic import prove_certificate
        from verifier.reports.writers import write_certificate
        write_certificate(prove_certificate(sym, rep), certificate)
    if json_out:
        from verifier.reports.json_out import prove_json
        print_json(prove_json(rep))
    else:
        from verifier.reports.terminal import print_prove
        print_prove(rep)
    return {"proved": HOLDS, "counterexample": FAILS}.get(rep.status, UNKNOWN)


@app.command()
def reducible(spec: SpecArg, json_out: JsonOpt = False, certificate: CertOpt = None) -> int:
    """Is the mechanism Θ-reducible (Desfontaines 2020, Definition 59)? Bijections or a witness.

    0 reducible (for every parameter value), 1 not, 3 unknown.
    """
    from verifier.specs.symbolic import load_symbolic
    from verifier.symbolic.reducibility import decide_reducible

    refuse_options("plrv reducible", typed_options(), {"--json", "--certificate"})
    check_outputs(spec, **{"--certificate": (certificate, None)})
    sym = load_symbolic(spec, "reducible")
    res = decide_reducible(sym)
    if certificate is not None:
        from verifier.certificates.emit_symbolic import reducible_certificate
        from verifier.reports.writers import write_certificate
        write_certificate(reducible_certificate(sym, res), certificate)
    if json_out:
        from verifier.reports.json_out import reducible_json
        print_json(reducible_json(res))
    else:
        from verifier.reports.terminal import print_reducible
        print_reducible(res, sym.parameters.describe())
    return _verdict(res.reducible)


@app.command()
def search(
    name: Annotated[str, typer.Argument(help="A registered conjecture, e.g. apk-le-ppk.",
                                        show_default=False)],
    records: Annotated[int, typer.Option(
        min=1, max=3, help="Largest number of records of the exhaustive family and the "
        "Hypothesis instances (the z3 templates keep their own 2 and 3).")] = 3,
    examples: Annotated[int, typer.Option(min=0, help="Hypothesis examples.")] = 200,
    json_out: JsonOpt = False,
    workers: WorkersOpt = None,
    scheduler: SchedulerOpt = None,
) -> int:
    """Search a minimised counterexample to a registered conjecture.

    1 a counterexample (re-checked exactly), 3 none found (evidence, never a proof).
    --workers/--scheduler test the exhaustive family on Dask; the answer is the serial one.
    """
    from verifier.parallel import executor_for
    from verifier.search.conjectures import SearchBudget, conjecture
    from verifier.search.conjectures import search as run

    refuse_options("plrv search", typed_options(),
                   {"--records", "--examples", "--json", "--workers", "--scheduler"})
    res = run(conjecture(name), SearchBudget(max_records=records, examples=examples),
              exhaustive_on=lambda: executor_for(workers, scheduler))  # closed after that stage
    if json_out:
        from verifier.reports.json_out import search_json
        print_json(search_json(res))
    else:
        from verifier.reports.terminal import print_search
        print_search(res)
    return FAILS if res.found else UNKNOWN


class _CertificateCommand(_VerdictCommand):
    """``verify-certificate``: a help option that is also the name of a file here is refused
    (exit 2), never answered with help and exit 0 — a CI job checking a certificate named
    ``-h`` would pass without a certificate checked."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        from typer._click.exceptions import UsageError

        for token in args:
            if token == "--":
                break
            if token in ctx.help_option_names and os.path.lexists(token):
                raise UsageError(f"{token} is both the help option and a file here: give the "
                                 f"certificate as ./{token} or after -- ", ctx)
        return super().parse_args(ctx, args)


@app.command("verify-certificate", cls=_CertificateCommand, epilog=(
    "Exit status, as plrv check's: 0 verified and the certified claim holds, 1 verified and "
    "it does not hold, 2 rejected (the first discrepancy named) or an error (unreadable "
    "file, usage), 3 unknown: consistent but resting on parts taken from the certificate, "
    "or beyond the kernel's limits. A path that starts with - goes after --: "
    "plrv verify-certificate -- -h.json"))
def verify_certificate_command(
    file: Annotated[Path, typer.Argument(help="A certificate written by --certificate.",
                                         show_default=False)],
) -> int:
    """Re-check a certificate with the independent kernel (standard library only).

    Its exit status gates as plrv check's does: 0 verified — every number behind the
    verdict was recomputed by the kernel — and the claim holds; 1 verified and the claim
    does not hold; 2 rejected (the first discrepancy is named); 3 consistent, but resting on
    parts taken from the certificate (user code's laws, a predicate's pairs, a solver's
    proof, a search beyond the kernel's limits), or undecided within its limits.
    """
    from verifier.core.errors import SpecError
    from verifier.kernel.verify import escape, load, verify_certificate

    try:
        cert = load(str(file))
    except (ValueError, RecursionError) as exc:  # a file that cannot be read is an error,
        why = f"not valid JSON ({exc})" if isinstance(exc, (json.JSONDecodeError,  # not a
                                                              RecursionError)) else exc  # rejection
        raise SpecError(f"not a certificate: {why}", file=str(file)) from None
    out = verify_certificate(cert)
    from verifier.commands.common import echo
    for note in out.notes:
        echo(f"  {escape(note)}")
    code, last = out.status
    if code == ERROR:  # one line on stderr naming the file and the first discrepancy
        raise SpecError(f"certificate {escape(last)}", file=str(file))
    echo(escape(last))
    return code


@app.command()
def theorems(
    json_out: JsonOpt = False,
    markdown: Annotated[bool, typer.Option(
        "--markdown", help="Print docs/theorems.md (instead of the table; not with --json).")]
    = False,
    progress: ProgressOpt = None,
) -> int:
    """Run the theorem records of proofs/: one row per seed statement, with its status
    (--json or --markdown: one of them).

    0 every record gives its expected verdict, 1 one does not. A progress bar on stderr
    (when it is a terminal, or with --progress) counts the records run.
    """
    from verifier.certificates.records import theorem_rows, theorems_markdown
    from verifier.reports.progress import ProgressBar

    refuse_options("plrv theorems --json" if json_out else "plrv theorems", typed_options(),
                   {"--json", "--progress"} if json_out else {"--markdown", "--progress"},
                   {"--markdown": "--json prints the rows as one JSON object, --markdown "
                                  "prints docs/theorems.md: give one of them"})
    with ProgressBar(progress, "theorem records") as bar:
        table, ok = theorem_rows(bar)
    if json_out:
        from verifier.reports.json_out import theorems_json
        print_json(theorems_json(table, ok))
    elif markdown:
        typer.echo(theorems_markdown(table), nl=False)
    else:
        from verifier.commands.common import echo
        from verifier.core.numbers import counted
        from verifier.reports.text import cite
        for r in table:  # the record, its verdict, then the statement's source
            echo(f"{r['id']:32} {r['status']} ({counted(r['instances'], 'meaningful instance')})"
                 f"\n  {cite(r['seed'])}")
    return HOLDS if ok else FAILS
