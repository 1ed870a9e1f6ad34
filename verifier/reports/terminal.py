"""Every command's report for the terminal, built from its typed result (display only).

Every number is shown exact first; long exact values by their shape and digit counts with a
certified decimal beside them (:mod:`verifier.reports.text`). rich markup is off: user-facing text
(values, keys, file names, ``P[g]``) is printed as it is, and styles are applied to
:class:`rich.text.Text` pieces, never through ``[tags]`` in strings.
"""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from verifier.core.certified import shown_decimal
from verifier.core.numbers import counted, format_rational
from verifier.notions.partial.cases import largest_rows
from verifier.reports.layout import console
from verifier.reports.layout import line as _line
from verifier.reports.layout import rows as _rows
from verifier.reports.layout import table as _table
from verifier.reports.text import (
    cite,
    exact_approx,
    exact_cell,
    short,
    show_delta,
    show_epsilon,
    show_rational,
    show_value,
    witness_sentence,
    wrapped,
)

__all__ = ["console", "print_check", "print_sweep", "print_guess", "print_eta",
           "print_pso", "print_family"]

NAMES = {
    "dp": "(ε,δ)-DP",
    "apkdp": "APK-DP (active attacker)",
    "ppkdp": "PPK-DP (passive attacker)",
    "noiseless": "noiseless privacy",
}
MAX_ROWS = 12  # background values shown; --json --full carries all of them
MAX_OUTPUTS = 8  # outputs of a witness shown; --json lists more
YES, NO = Text("yes", style="green"), Text("no", style="red")


def _outputs(r) -> str:
    outs = r.witness.get("outputs", [])
    text = ", ".join(f"{show_value(o)} (L = {short(loss)})" for o, loss in outs[:MAX_OUTPUTS])
    more = len(outs) - MAX_OUTPUTS
    return text + (f" … and {more} more" if more > 0 else "") + (
        " (and others)" if r.witness.get("outputs_truncated") else "")


def print_check(spec, report, c: Console | None = None) -> None:
    """``plrv check``: the spec, the engines, a verdict per notion, where δ is attained, and
    APK δ per background value."""
    c = c or console()
    _line(c, "mechanism", spec.mechanism.describe())
    if isinstance(spec.model, tuple):
        for j, m in enumerate(spec.model):
            _line(c, "data", f"model {j}: {m.describe()}")
    elif spec.model is not None:
        _line(c, "data", spec.model.describe())
    elif getattr(spec, "relation", None) is not None and spec.relation.inputs:
        _line(c, "input", counted(len(spec.relation.inputs), "input vector"))
    else:
        _line(c, "data", f"{counted(spec.records, 'record')} over "
                         f"{show_value(list(spec.values))}")
    if any(n != "dp" for n in spec.notions):
        from verifier.model.knowledge import describe_indices
        targets = spec.targets if spec.targets == "all" else describe_indices(
            [spec.targets] if isinstance(spec.targets, int) else spec.targets)
        know = spec.knowledge if isinstance(spec.knowledge, tuple) else (spec.knowledge,)
        names = "; or ".join(f"{k.name}" + (f" (knowledge {j})" if len(know) > 1 else "")
                             for j, k in enumerate(know))
        _line(c, "attacker", f"knows {names}; targets {targets}")
    delta = show_rational(spec.delta)
    _line(c, "claim", f"ε = {spec.epsilon}, δ = {delta}")
    for key, d in getattr(spec, "doubles", ()):
        _line(c, "double", f"{key} = {d} ({d.hex}) is read as exactly {short(str(d.exact))}")
    for info in report.info:
        _line(c, "engine", info)

    _rows(c, "tight values, exact (in full in --json), certified decimals beside them",
          ("notion", "holds", f"δ at ε = {spec.epsilon}", f"ε at δ = {delta}"),
          [(NAMES[notion], YES if r.holds else NO, show_delta(r.delta),
            show_epsilon(r.epsilon)) for notion, r in report.results.items()], name_first=False)

    for notion, r in report.results.items():
        where = witness_sentence(r.witness)
        if r.cases == 0 and "note" in r.witness:
            _line(c, "note", f"{NAMES[notion]} holds {r.witness['note']}")
        elif r.holds:
            _line(c, "worst case", f"{NAMES[notion]} holds; its tight ε = "
                  f"{show_epsilon(r.epsilon)} is reached at {where}")
        else:
            _line(c, "witness", Text(f"{NAMES[notion]} does not hold", style="red"),
                  f": δ = {short(str(r.delta))} > {delta} at {where}")
        if outs := _outputs(r):
            _line(c, "", f"outputs with privacy loss L {'≥ tight ε' if r.holds else '> ε'}: "
                         f"{outs}")
    _backgrounds(c, report)


def _backgrounds(c: Console, report) -> None:
    apk = report.results.get("apkdp")
    if apk is None or not apk.details:
        return
    ppk = report.results.get("ppkdp")
    cols = ["target", "background B̂", "P[ζ(D) = B̂]", "pair (a, b)", "APK δ", "≤ δ?"]
    shown: list[list[str | Text]] = []
    rows = apk.details  # only the largest rows are built and ordered (exactly)
    for row in largest_rows(rows, MAX_ROWS):
        cells: list[str | Text] = [
            str(row["target"]), show_value(row["background"]), exact_cell(row["probability"]),
            show_value(tuple(row["values"])), show_delta(row["delta"]),
            "yes" if row["holds"] else NO]
        if ppk is not None:
            cells.append({1: "above", 0: "equal", -1: "below"}[row["delta"].compare(ppk.delta)])
        shown.append(cells)
    _rows(c, "APK δ at ε per background value, largest first (the active attacker picks one)",
          cols + (["vs PPK δ"] if ppk is not None else []), shown)
    if len(rows) > MAX_ROWS:
        c.print(f"… and {len(rows) - MAX_ROWS} more background values, with smaller or equal δ "
                f"(all of them in --json --full)")
    if ppk is not None:
        if apk.holds != ppk.holds:
            c.print(Text.assemble(("APK and PPK part", "bold"), (
                f": the passive attacker is defeated (δ = {show_delta(ppk.delta)}), the active "
                f"one is not (δ = {show_delta(apk.delta)})." if ppk.holds else ".")))
        elif apk.delta == ppk.delta:
            c.print("APK and PPK coincide at the claimed ε: the active attacker gains nothing.")


def print_sweep(report, c: Console | None = None) -> None:
    """``plrv sweep``: one block per (p, T, notion): the verdict, then δ at the claimed ε and
    ε at the claimed δ, exact (long ones by their digit counts) with certified decimals."""
    c = c or console()
    c.print(f"threshold sweep of {report.mechanism} on {counted(report.records, 'record')}: "
            f"δ at ε = {report.epsilon}, ε at δ = {show_rational(report.delta)} (exact; in "
            f"full in --csv/--json)")
    for pt in report.points:
        p = "" if pt.p is None else f"p = {format_rational(pt.p)}, "
        c.print(Text.assemble(f"{p}T = {pt.threshold}, {pt.notion}: ",
                              YES if pt.holds else NO))
        _line(c, "  δ", show_delta(pt.delta), width=3)
        _line(c, "  ε", show_epsilon(pt.epsilon), width=3)
    failing = sum(not pt.holds for pt in report.points)
    _line(c, "claim", "holds at every point" if not failing else
          Text(f"does not hold at {failing} of {counted(len(report.points), 'point')}",
               style="red"))


def _certified(cert) -> str:
    v = cert.value
    return exact_cell(v) if v is not None else f"≈ {shown_decimal(cert)}"


def _slack(bound, posterior) -> str:
    """bound − posterior, as a certified decimal."""
    from verifier.guessing.bounds import Certified
    return Certified(lambda p: tuple(x - posterior for x in bound.enclose(p))).approx(4)


def print_guess(spec, rep, c: Console | None = None) -> None:
    """``plrv guess SPEC``: per target, exact advantage, bounds and slack (seed 004)."""
    c = c or console()
    m = spec.model
    eps = ", ".join(str(e) for e in rep.epsilon)
    tight = ", ".join(f"{short(str(t[0]))} ≈ {t[0].approx()}" for t in rep.tight)
    _line(c, "mechanism", f"{spec.mechanism} on {counted(len(m.domain), 'value')}; tight ε·d: "
                          f"{tight}")
    _line(c, "goal", f"{m.mode.upper()} of precisions "
                     f"{', '.join(format_rational(r) for r in m.precisions)}; diameter R = "
                     f"{', '.join(format_rational(d) for d in rep.diameter)}")
    note = Text("") if rep.private_at_epsilon is not False else Text(
        "  (the mechanism is NOT ε·d-private at this ε: the bounds need not hold)", style="red")
    _line(c, "bounds at", f"ε = {short(eps)}", note)
    cells: list[tuple[str | Text, ...]] = []
    for r in rep.rows:
        order = r.order()
        cells.append((show_value(r.target), exact_cell(r.prior), show_value(r.output),
                      exact_cell(r.posterior), exact_cell(r.advantage), _certified(r.precise),
                      f"≈ {_slack(r.precise, r.posterior)}", _certified(r.simplified),
                      "undecided" if order is None else YES if order else NO))
    _rows(c, "exact advantage per target; bounds on the posterior (exact, or ≈ certified "
             "decimal)", ("target", "P[g] prior", "best output", "posterior", "advantage",
                          "precise bound", "slack", "simplified bound", "order ok"), cells)
    w = rep.worst
    _line(c, "worst", f"target {show_value(w.target)}: advantage {exact_approx(w.advantage)}"
                      f" (output {show_value(w.output)})")
    pre, post = rep.vulnerability
    _line(c, "Bayes", f"the best guess succeeds with {exact_approx(pre)} before and "
                      f"{exact_approx(post)} after seeing the output")
    inv = rep.inversion
    if inv is not None:
        _line(c, "η", f"advantage ≤ {format_rational(inv.eta)} at target "
                      f"{show_value(inv.target)}: simplified bound ε = {short(str(inv.simplified))}"
                      f" ≈ {inv.simplified.approx()}")
        if inv.precise is not None:
            lo, hi = inv.precise
            c.print(f"           precise bound: ε ∈ [{lo.approx()}, {hi.approx()}] (certified; "
                    f"exact ends, ln of rationals, in --json)")
    verdict = rep.holds
    _line(c, "claim", "posterior ≤ precise bound ≤ simplified bound for every target: ",
          YES if verdict else NO if verdict is False else Text("undecided"))


def print_eta(rep, c: Console | None = None) -> None:
    """``plrv guess --eta --diameter``: ε for a target advantage (seed 004)."""
    c = c or console()
    prior = f"{format_rational(rep.prior)}" + (" (the worst case, (1 − η)/2)"
                                               if rep.worst_case_prior else "")
    _line(c, "η", f"target advantage {format_rational(rep.eta)}, diameter R = "
                  f"{format_rational(rep.diameter)}, prior {prior}")
    _line(c, "ε", f"{short(str(rep.epsilon))} ≈ {rep.epsilon.approx()} (simplified bound)")
    if rep.max_advantage is not None:
        _line(c, "worst", f"at this ε the worst prior's advantage is tanh(Rε/4) = "
                          f"{rep.max_advantage}")


def print_pso(spec, rep, c: Console | None = None) -> None:
    """``plrv pso``: exact success against the exact baseline (seed 002)."""
    c = c or console()
    u = spec.universe
    size = f"{{0,1}}^{u.bits}" if u.bits else counted(len(u.values), "value")
    _line(c, "universe", f"{size}, {spec.n} i.i.d. rows")
    _line(c, "mechanism", spec.mechanism.name)
    _line(c, "adversary", f"{spec.adversary}; admissible predicates: {spec.admissible}")
    table = _table("exact values (≈ certified truncations)", ("quantity", "exact", "≈"))
    for name, value in (("success", rep.success), ("baseline", rep.baseline),
                        ("difference", rep.difference)):
        table.add_row(name, short(format_rational(value)), shown_decimal(value))
    ratio = rep.ratio
    table.add_row("ratio", "inf" if ratio is None else short(format_rational(ratio)),
                  "inf" if ratio is None else shown_decimal(ratio))
    c.print(table)
    if rep.baseline_weight is not None:
        shown = sorted(u.show(x) for x in rep.baseline_predicate)
        c.print(f"baseline: a fixed predicate of weight {format_rational(rep.baseline_weight)} "
                f"(e.g. {', '.join(map(str, shown[:6]))}{' …' if len(shown) > 6 else ''})")
    weights = ", ".join(f"{w}: {exact_cell(p)}" for w, p in list(rep.weights.items())[:8])
    c.print(f"adversary's predicate weights (weight: probability): {weights}")
    if rep.searched is not None:
        c.print(f"optimal adversary: {rep.searched} (output, predicate) pairs scored")
    _line(c, "claim", f"success ≤ {format_rational(rep.factor)}·baseline + "
                      f"{format_rational(rep.slack)} = {exact_cell(rep.bound)}: ",
          Text("holds", style="green") if rep.holds else Text("does not hold", style="red"))


def print_family(res, *, mechanism: str, records: int, epsilon, delta,
                 c: Console | None = None) -> None:
    """``plrv family``: the solver's verdict over the interval, and a confirmed counterexample
    with the exact engine's values."""
    c = c or console()
    lo, hi = (format_rational(x) for x in res.interval)
    c.print(f"{mechanism}, {res.parameter} ∈ [{lo}, {hi}], claim (ε = {epsilon}, δ = "
            f"{show_rational(delta)})-DP on {counted(records, 'record')}:")
    c.print(f"  neighbours: {res.neighbours}")
    style = {"holds": "green", "fails": "red"}.get(res.status, "yellow")
    c.print(Text.assemble("  ", (res.status, style), f": {res.detail}"))
    if res.counterexample is not None and res.exact is not None:
        x = res.exact
        c.print(f"  at {res.parameter} = {format_rational(res.counterexample)}: exact δ = "
                f"{show_delta(x.delta)} at ε = {epsilon}, tight ε = {show_epsilon(x.epsilon)}")
        c.print(f"  witness: {witness_sentence(x.witness)}")


# ----------------------------------------------------------- symbolic: prove, reducible, search

_STATUS = {"proved": "green", "counterexample": "red", "unknown": "yellow"}


def print_prove(rep, c: Console | None = None) -> None:
    """``plrv prove``: the verdict per instance with its time, and each confirmed
    counterexample with the exact engine's δs."""
    c = c or console()
    # a long statement or method folds under its own column, not back at column 0
    _line(c, f"claim {rep.claim.text}:", cite(rep.claim.statement), width=0)
    c.print(f"for every {rep.parameters or 'instance'}; ε: {rep.epsilon}")
    for p in rep.proofs:
        _line(c, f"  target {p.target}, {p.knowledge}:",
              Text(p.status, style=_STATUS[p.status]), f" in {p.seconds:.3f} s — ",
              p.method or p.reason, f" ({p.reason})" if p.reason and p.method else "",
              width=0)
        r = p.counterexample
        if r is not None:
            where = ", ".join(f"{k} = {format_rational(v)}" for k, v in r.point.items())
            deltas = ", ".join(f"{k} = {format_rational(v)}" for k, v in r.deltas.items())
            c.print(f"    at {where or 'the spec'}{', ' if where else ' '}ε = {r.epsilon}: "
                    f"exact {deltas}" + (f", lemma 4 holds: {r.lemma4}" if r.lemma4 is not None
                                         else ""))
    c.print(Text.assemble("status: ", (rep.status, _STATUS[rep.status]),
                          f" ({counted(len(rep.proofs), 'instance')})"))


def _bijection(b) -> str:
    if b.shift is not None:
        k = b.shift
        return f"c ↦ c {'+' if k >= 0 else '−'} {format_rational(abs(k))}"
    items = list((b.mapping or {}).items())
    text = ", ".join(f"{show_value(o)} ↦ {show_value(p)}" for o, p in items[:MAX_OUTPUTS])
    return text + (f" … ({counted(len(items), 'output')})" if len(items) > MAX_OUTPUTS else "")


def print_reducible(res, parameters: str = "", c: Console | None = None) -> None:
    """``plrv reducible``: the bijections, or two backgrounds and the profiles left over."""
    c = c or console()
    if res.reducible is None:
        c.print(Text.assemble("Θ-reducible: ", ("unknown", "yellow"), f" — {res.reason}"))
        return
    if res.reducible:
        scope = f"reducible for every {parameters}" if parameters else "reducible"
        c.print(Text.assemble("Θ-reducible: ", ("yes", "green"), f" — {scope}"))
        c.print(f"proof: {res.method}")
        for cert in res.certificates:
            c.print(f"  model {cert.model}, knowledge {cert.knowledge}, target {cert.target}:")
            for b in cert.bijections[:MAX_ROWS]:
                c.print(f"    B = {show_value(b.source)} → {show_value(b.target)}: "
                        f"{_bijection(b)}")
            if len(cert.bijections) > MAX_ROWS:
                c.print(f"    … {len(cert.bijections) - MAX_ROWS} more (--json lists all)")
        c.print("  between any two backgrounds B1, B2: φ_{B0,B2} ∘ φ_{B0,B1}⁻¹ (B0 the first)")
        return
    w = res.witness
    where = ", ".join(f"{k} = {format_rational(v)}" for k, v in res.point.items())
    c.print(Text.assemble("Θ-reducible: ", ("no", "red"), f" at {where}" if where else ""))
    c.print(f"  model {w['model']}, knowledge {w['knowledge']}, target {w['target']}: "
            f"backgrounds {show_value(w['backgrounds'][0])} and "
            f"{show_value(w['backgrounds'][1])} have no bijection of outputs")
    for side, b in zip(("first", "second"), w["backgrounds"], strict=True):
        rows = w["unmatched"][side]
        shown = "; ".join(f"{show_value(o)} with profile (" + ", ".join(
            "undefined" if x is None else format_rational(x) for x in prof) + ")"
            for o, prof in rows[:MAX_OUTPUTS])
        c.print(f"  outputs under B = {show_value(b)} with no partner: {shown or 'none'}")
    c.print(f"  (a profile is (P[O | D(i)=t, B])_t over the record values; {res.method})")


def print_search(res, c: Console | None = None) -> None:
    """``plrv search``: the minimised counterexample with its exact δs, or the evidence."""
    c = c or console()
    c.print(f"conjecture {res.conjecture.name}: {cite(res.conjecture.statement)}")
    if res.found:
        c.print(Text.assemble(("counterexample", "red"), f" (found by {res.stage}, minimised):"))
        for line in res.counterexample.describe().splitlines():
            c.print(f"  {line}")
        c.print("exact δs: " + ", ".join(f"{k} = {format_rational(v)}"
                                         for k, v in res.deltas.items()))
    else:
        c.print(Text.assemble(("no counterexample found", "yellow"),
                              " — evidence, not a proof of the conjecture:"))
    for line in res.evidence:
        c.print(f"  {line}")
    c.print(f"{res.seconds:.2f} s")


__all__ += ["print_prove", "print_reducible", "print_search"]


def print_closed_form(curves, c: Console | None = None) -> None:
    """``plrv check --closed-form``: each notion's tight δ as a function of exp_eps = e^ε ≥ 1
    (the exact upper envelope over its cases), one line per linear piece."""
    from verifier.symbolic.closed_form import describe

    c = c or console()
    c.print("tight δ as a function of exp_eps = e^ε (the worst case at every ε):")
    for name, curve in curves.items():
        for where, expr in describe(curve):
            c.print(f"  {name}: δ = {expr}  for {where}")


__all__ += ["print_closed_form"]


def print_certified(report) -> None:
    """``check --mode certified``: one line per notion, marked as an enclosure (not exact)."""
    from verifier.engines.enclosure import describe

    for name, line in describe(report).items():
        print(wrapped(f"{name}: {line}"))
