"""Run the cases of an audit: each through its library's adapter, errors named by case and key.

An error an adapter raises about a case (a :class:`~verifier.core.errors.VerifierError` whose
``argument`` is e.g. ``args.eps``) becomes a :class:`~verifier.core.errors.SpecError` at
``case[i].args.eps`` of the config file; any other exception raised while the library runs
becomes a :class:`~verifier.core.errors.UserCodeError` naming the library and constructor.
Both are exit 2: an audit that could not run is never reported as sound or unsound. A sign
that certified arithmetic does not decide (:class:`~verifier.core.errors.Undecided`) makes
the case ``unknown`` (exit 3), as everywhere in plrv.

With ``conformance = n`` each case whose adapter can sample draws ``n`` outputs from the
library at each witness input and tests them against the law plrv decided the case on
(:mod:`verifier.audit.conformance`); a failed fit makes the case ``unknown``. An accountant
draws nothing: its one-run PLD or Rényi curve is compared with the exact one instead
(:mod:`verifier.audit.curve_check`), a point outside its tolerance making the case unknown.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from verifier.audit.case import AuditCase, AuditRow
from verifier.audit.conformance import Fit, goodness_of_fit
from verifier.audit.curve_check import curve_note
from verifier.audit.registry import Adapter, adapter
from verifier.audit.scan import Scan, ScanResult, run_scan
from verifier.core.errors import (
    SpecError,
    Undecided,
    UnknownName,
    UserCodeError,
    VerifierError,
)

__all__ = ["AuditResult", "run_audit", "MAX_CONFORMANCE"]

MAX_CONFORMANCE = 10_000_000  # draws per input


@dataclass(frozen=True, slots=True)
class AuditResult:
    """The rows of an audit, in the config's order, and the overall verdict."""

    file: str
    rows: tuple[AuditRow, ...]
    conformance: int | None
    fits: tuple[tuple[Fit, ...], ...] = ()
    scans: tuple[ScanResult, ...] = ()

    @property
    def holds(self) -> bool | None:
        """False if any case is unsound, None if any is unknown (and none unsound), a
        scanned value could not be decided, or a bisection left values of its range undecided
        without finding an unsound one."""
        verdicts = {r.verdict for r in self.rows}
        if "unsound" in verdicts:
            return False
        if any(p.row is None for s in self.scans for p in s.points):
            return None
        if any(s.undecided for s in self.scans):
            return None
        return None if "unknown" in verdicts else True

    def _repr_html_(self) -> str:
        """The audit in the template of plrv's reports (a notebook shows it)."""
        from verifier.audit.page import audit_html

        return audit_html(self)

    def to_dict(self) -> dict:
        """This audit as ``plrv audit --json`` prints it."""
        from verifier.audit.serial import audit_json

        return audit_json(self)


def _at(file: str, case: AuditCase, exc: VerifierError) -> SpecError:
    key = case.where + (f".{exc.argument}" if exc.argument else "")
    return SpecError(f"{case.library}.{case.constructor}: {exc}", file=file, key=key,
                     value=exc.value)


def _call(file: str, case: AuditCase, what: str, f: Callable, *args: object):
    try:
        return f(*args)
    except (SpecError, Undecided):
        raise
    except VerifierError as exc:
        raise _at(file, case, exc) from None
    except (MemoryError, KeyboardInterrupt):
        raise
    except Exception as exc:
        raise UserCodeError(f"{case.where}: {case.library}.{case.constructor}: "
                            f"{what} raised {type(exc).__name__}: {exc}",
                            function=f"{case.library}.{case.constructor}") from exc


def _constructor(file: str, case: AuditCase, ad: Adapter) -> Callable[[AuditCase], AuditRow]:
    f = ad.constructors.get(case.constructor)
    if f is None:
        raise SpecError(f"{case.constructor!r} is not a constructor plrv audits in "
                        f"{case.library}; it audits {', '.join(sorted(ad.constructors))}",
                        file=file, key=f"{case.where}.constructor", value=case.constructor)
    return f


def _adapter(file: str, case: AuditCase) -> Adapter:
    try:
        return adapter(case.library)
    except UnknownName as exc:
        raise SpecError(str(exc), file=file, key=f"{case.where}.library",
                        value=case.library) from None


def _curve(file: str, case: AuditCase, row: AuditRow, ad: Adapter, n: int) -> AuditRow:
    """An accountant's one-run curve against the exact one (:mod:`verifier.audit.curve_check`):
    the points on the row, a failed point makes the case unknown."""
    found = _call(file, case, "the curve check", ad.curves[case.constructor], case)
    if found is None:
        return row.with_notes(f"conformance: no curve to check for {case.library}."
                              f"{case.constructor} with these options (it draws no samples)")
    what, points = found
    note = curve_note(what, points)
    extra = f"(--conformance {n}: an accountant draws nothing; its curve is checked instead)"
    if any(x.passed is False for x in points):
        return row.with_notes(note, extra, "conformance failed: the library's one-run curve "
                              "is not the law plrv decided on, so the verdict is not tied to "
                              "the code", verdict="unknown", curve=tuple(points))
    return row.with_notes(note, extra, curve=tuple(points))


def _conform(file: str, case: AuditCase, row: AuditRow, ad: Adapter, n: int
             ) -> tuple[AuditRow, tuple[Fit, ...]]:
    if case.constructor in ad.curves:
        return _curve(file, case, row, ad, n), ()
    if ad.sample is None or ad.law is None:
        return row.with_notes(f"conformance: does not apply ({case.library} "
                              f"{ad.no_conformance}, and plrv reads no curve of "
                              f"{case.constructor} from it)"), ()
    inputs = row.witness.get("inputs")
    if not isinstance(inputs, Sequence) or not inputs:
        return row.with_notes("conformance: no witness input to sample at"), ()
    sample, law = ad.sample, ad.law
    fits = []
    for x in inputs:
        draws = _call(file, case, "sampling", sample, case, x, n)
        fits.append(goodness_of_fit(draws, _call(file, case, "the law", law, case, x), x))
    failed = [f for f in fits if not f.passed]
    notes = tuple(f.note() for f in fits)
    if failed:
        return row.with_notes(*notes, "conformance failed: the library's draws do not fit "
                              "the law plrv decided on, so the verdict is not tied to the "
                              "code", verdict="unknown"), tuple(fits)
    return row.with_notes(*notes), tuple(fits)


def _decide(file: str, case: AuditCase, ad: Adapter, run: Callable[[AuditCase], AuditRow]
            ) -> AuditRow:
    try:
        return _call(file, case, "the audit", run, case)
    except Undecided as exc:  # certified arithmetic did not decide: unknown, not an error
        return AuditRow(case, None, None, None, None, "unknown", None, "enclosure", {},
                        (f"undecided: {exc}",))


def _decider(file: str, ad: Adapter, run: Callable[[AuditCase], AuditRow]
             ) -> Callable[[AuditCase], AuditRow]:
    def decide(case: AuditCase) -> AuditRow:
        return _decide(file, case, ad, run)
    return decide


def _scan(file: str, cases: Sequence[AuditCase], scan: Scan) -> AuditResult:
    """Each case scanned over ``scan`` (:mod:`verifier.audit.scan`): the rows of every
    decided point, in order, and one :class:`ScanResult` per case."""
    results = []
    for case in cases:
        ad = _adapter(file, case)
        run = _constructor(file, case, ad)
        results.append(run_scan(case, scan, _decider(file, ad, run)))
    rows = tuple(p.row for r in results for p in r.points if p.row is not None)
    return AuditResult(file, rows, None, (), tuple(results))


def run_audit(cases: Sequence[AuditCase], file: str, conformance: int | None = None,
              scan: Scan | None = None) -> AuditResult:
    """Every case of the config, decided (see the module); with ``scan``, each case at every
    value of the scanned key (``conformance`` does not apply to a scan)."""
    if scan is not None:
        if conformance is not None:
            from verifier.core.errors import InvalidArgument
            raise InvalidArgument("--conformance does not apply with --scan (it samples one "
                                  "case's witness; scan first, then test the boundary's case)",
                                  argument="--conformance", value=conformance)
        return _scan(file, cases, scan)
    if conformance is not None and not 1 <= conformance <= MAX_CONFORMANCE:
        from verifier.core.errors import InvalidArgument
        raise InvalidArgument(f"--conformance {conformance} is not between 1 and "
                              f"{MAX_CONFORMANCE}", argument="--conformance", value=conformance)
    plan = []
    for case in cases:  # every library and constructor is checked before any case runs
        ad = _adapter(file, case)
        plan.append((case, ad, _constructor(file, case, ad)))
    rows, fits = [], []
    for case, ad, run in plan:
        row = _decide(file, case, ad, run)
        found: tuple[Fit, ...] = ()
        if conformance is not None:
            row, found = _conform(file, case, row, ad, conformance)
        rows.append(row)
        fits.append(found)
    return AuditResult(file, tuple(rows), conformance, tuple(fits))

