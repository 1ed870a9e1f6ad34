"""The independent checker of plrv certificates: standard library and ``fractions.Fraction`` only.

It imports nothing from the rest of plrv, so that a reader who does not trust the engine can
read this folder and run it, isolated (``python -I path/to/kernel CERTIFICATE.json``: no
current folder, user site or environment on the import path). For a certificate of
``plrv check`` it

1. re-enumerates the spec when it is small enough and uses only built-in mechanisms and known
   records (else it says why not): every database's probability, the mechanism's output law
   and the background value, giving ``P[D(i)=t, ζ(D)=B, M(D)=O]``, compared with the
   certificate's conditional tables row by row (a count class of background values against
   every value in the class);
2. checks that every conditional law sums to 1 and every table's weights too;
3. recomputes every per-case δ from the tables — ``APK_{i,a,b,B}(ε) = Σ_O max(0, P[O|a,B] −
   e^ε·P[O|b,B])`` (seed 003, Definition 6), ``PPK_{i,a,b}(ε)`` term by term over ``(B, O)``
   (Definition 7), noiseless with ζ summed out (Definition 3) — and Theorem 1's identity
   ``PPK_{i,a,b} = Σ_B P[B | D(i)=a]·APK_{i,a,b,B}`` between the certificate's listed values;
4. checks each notion's δ (the worst case) and its verdict ``δ ≤ claimed δ``, and each
   witness: ``δ_S = P[S|a] − e^ε·P[S|b] > claimed δ``, with both probabilities re-derived.

Any mismatch rejects the certificate, naming the first discrepancy. δ is kept as ``(A, C)``
meaning ``A − C·e^ε``; for ε = ln(q) it collapses to a rational, for ε a rational number of
nats comparisons with ``e^ε`` use certified Taylor bounds (``e^x`` is irrational for rational
``x ≠ 0``, so they always separate).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field

from .dp import dp_delta, dp_witness
from .exact import (
    MAX_DATABASES,
    ZERO,
    Eps,
    Recorded,
    Rejected,
    Undecided,
    brief,
    check_fields,
    check_source,
    load,
    q,
    read_delta,
    reset_work,
    show,
)
from .guess import verify_guess
from .partial import check_partial, witness_masses
from .pso import verify_pso
from .spec import validate_check_spec
from .symbolic import verify_prove, verify_reducible

FORMAT, VERSION = "plrv-certificate", 1
OTHER_KINDS = {  # kind -> check(certificate, notes, limit) -> holds or None; raises Rejected
    "pso": lambda cert, notes, limit: verify_pso(cert, notes),
    "guess": lambda cert, notes, limit: verify_guess(cert, notes),
    "reducible": verify_reducible,
    "prove": lambda cert, notes, limit: verify_prove(
        cert, notes, lambda nested: verify_certificate(nested, limit)),
}


@dataclass
class Outcome:
    """The checker's answer: verified or not, why not, and what was checked."""

    verified: bool
    reason: str | None = None
    notes: list[str] = field(default_factory=list)
    holds: bool | None = None  # the certified claim, once verified
    undecided: str | None = None  # a limit of the kernel reached: neither verified nor not

    @property
    def recorded(self) -> list[str]:
        """The parts of the verdict only recorded, not re-checked (then the certificate is
        consistent, not verified)."""
        return [n for n in self.notes if isinstance(n, Recorded)]

    @property
    def status(self) -> tuple[int, str]:
        """Exit status and last line, as ``plrv check``'s: 0 verified and the claim holds,
        1 verified and the claim does not hold, 2 rejected (the first discrepancy named),
        3 unknown — consistent but resting on recorded parts this checker cannot re-check,
        or beyond one of its limits."""
        if self.undecided is not None:
            return 3, f"unknown: {self.undecided}"
        if not self.verified:
            return 2, f"rejected: {self.reason}"
        if self.recorded or self.holds is None:
            return 3, ("not verified: consistent, but the verdict rests on parts taken from "
                       "the certificate, which this kernel did not recompute (see above)")
        if self.holds:
            return 0, "certificate verified: the claim holds"
        return 1, "certificate verified: the claim does not hold"


_DEPTH = [0]  # a prove certificate's nested checks share its work budget


def verify_certificate(cert: object, limit: int = MAX_DATABASES) -> Outcome:
    """Check a certificate (already read from JSON); never raises on a bad certificate."""
    notes: list[str] = []
    if _DEPTH[0] == 0:
        reset_work()
    _DEPTH[0] += 1
    try:
        holds = _verify(cert, notes, limit)
    except Rejected as exc:
        return Outcome(False, str(exc), notes)
    except Undecided as exc:
        return Outcome(False, None, notes, undecided=str(exc))
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, ZeroDivisionError,
            RecursionError, OverflowError) as exc:
        return Outcome(False, f"malformed certificate ({type(exc).__name__}: {exc})", notes)
    finally:
        _DEPTH[0] -= 1
    return Outcome(True, None, notes, holds)


def _verify(cert: object, notes: list, limit: int) -> bool | None:
    if not isinstance(cert, dict) or cert.get("format") != FORMAT:
        raise Rejected(f"format: not a {FORMAT}")
    check_fields(cert, VERSION)
    if cert.get("kind") in OTHER_KINDS:
        holds = OTHER_KINDS[cert["kind"]](cert, notes, limit)
        if holds is not None and not isinstance(holds, bool):
            raise Rejected(f"results: {holds!r:.40} is not a verdict")
    elif cert.get("kind") != "check":
        raise Rejected(f"kind: {cert.get('kind')!r:.40} is not a kind this checker reads")
    else:
        holds = _verify_check(cert, notes, limit)
    check_source(cert)  # last: a spec edited is named by its first wrong field, if any
    return holds


def _verify_check(cert: dict, notes: list, limit: int) -> bool:
    """Every notion's δ recomputed over the spec's domain, its verdict, and the witness of
    each failing claim re-derived from the recomputed laws. Returns whether all hold."""
    spec, ev, results = cert["spec"], cert["evidence"], cert["results"]
    validate_check_spec(spec)
    eps, claim = Eps(spec["epsilon"]), (q(spec["delta"], "spec.delta"), ZERO)
    if sorted(results) != sorted(spec["notions"]):
        raise Rejected(f"results: notions {sorted(results)} but the spec asks {spec['notions']}")
    worst, tables = check_partial(cert, eps, notes, limit) if set(results) - {"dp"} \
        else ({}, [])
    if "dp" in results:
        worst["dp"] = dp_delta(cert, eps, notes, limit)
    for name in spec["notions"]:
        res = results[name]
        stated = read_delta(res["delta"], eps, f"results.{name}.delta")
        if worst[name] != stated:
            raise Rejected(f"results.{name}.delta: {show(stated)} in the certificate, the "
                           f"worst case is {show(worst[name])}")
        holds = eps.compare(stated, claim) <= 0
        if res["holds"] is not holds:
            raise Rejected(f"results.{name}.holds: {res['holds']} but δ = {show(stated)} "
                           f"{'≤' if holds else '>'} the claimed δ = {claim[0]}")
        if holds:
            notes.append(f"{name}: holds, δ = {brief(show(stated))} ≤ {claim[0]}")
            continue
        w = ev.get("witnesses", {}).get(name)
        if w is None:
            raise Rejected(f"evidence.witnesses.{name}: missing for a failing claim")
        d = _witness(cert, name, w, eps, tables, notes)
        if eps.compare(d, claim) <= 0:
            raise Rejected(f"evidence.witnesses.{name}: δ = {show(d)} does not exceed the "
                           f"claimed δ = {claim[0]}")
        notes.append(f"{name}: fails, witness δ = {brief(show(d))} > {claim[0]}")
    extra = set(ev.get("witnesses", {})) - {n for n in results if not results[n]["holds"]}
    if extra:
        raise Rejected(f"evidence.witnesses.{sorted(extra)[0]}: a witness for a claim that "
                       f"holds")
    return all(results[n]["holds"] for n in results)


def _witness(cert: dict, name: str, w: dict, eps: Eps, tables: list, notes: list) -> tuple:
    """A failing claim's witness: ``δ_S = P[S|a] − e^ε·P[S|b]`` with both masses re-derived
    from the laws this kernel checked (seed 003, Lemma 1)."""
    where = f"evidence.witnesses.{name}"
    p_a, p_b = q(w["p_a"], f"{where}.p_a"), q(w["p_b"], f"{where}.p_b")
    d = eps.delta(p_a, p_b)
    if read_delta(w["delta"], eps, f"{where}.delta") != d:
        raise Rejected(f"{where}.delta: {w['delta']!r:.80} but P[S|a] − e^ε·P[S|b] = {show(d)}")
    if name == "dp":
        dp_witness(cert, w, where, p_a, p_b, notes)
    elif witness_masses(cert["spec"], name, w, tables) != (p_a, p_b):
        raise Rejected(f"{where}: P[S|a], P[S|b] = {p_a}, {p_b}; the parts give others")
    return d


def verify_file(path: str, limit: int = MAX_DATABASES) -> Outcome:
    try:
        cert = load(path)
    except (OSError, ValueError, RecursionError) as exc:
        return Outcome(False, f"cannot read {path}: {exc}")
    return verify_certificate(cert, limit)


def escape(text: str) -> str:
    """Untrusted text made safe to print: every control, format (bidi, zero-width) and
    other non-printable character written as its escape, so that a certificate cannot
    paint a line of its own on the terminal."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii")
                   for c in text)


STANDARD = ("collections", "dataclasses", "fractions", "hashlib", "itertools", "json",
            "json.decoder",
            "json.scanner", "math", "os", "re", "stat", "sysconfig", "typing")


def foreign_modules() -> list[str]:
    """The standard-library modules this kernel imports that were loaded from outside the
    standard library (a ``fractions.py`` beside a certificate, found first on the path when
    the kernel is not run in isolated mode). Built-in modules have no file."""
    import sysconfig
    paths = sysconfig.get_paths()
    roots = {os.path.realpath(paths[k]) + os.sep for k in ("stdlib", "platstdlib")}
    out = []
    for name in STANDARD:
        where = getattr(sys.modules.get(name), "__file__", None)
        if where is not None and not any(os.path.realpath(where).startswith(r) for r in roots):
            out.append(f"{name} ({where})")
    return out


def main(argv: list[str]) -> int:
    """``python -I kernel FILE``: exit 0 verified and the claim holds, 1 verified and the
    claim does not hold, 2 rejected, unreadable or a usage error, 3 unknown (consistent but
    resting on parts taken from the certificate, or beyond the kernel's limits)."""
    if len(argv) != 1:
        print("usage: python -I kernel CERTIFICATE.json", file=sys.stderr)
        return 2
    foreign = foreign_modules()
    if foreign:
        print(escape(f"error: refusing to run: the standard-library module {foreign[0]} is "
                     f"not the standard library's (run the kernel as python -I kernel FILE)"),
              file=sys.stderr)
        return 2
    try:
        cert = load(argv[0])
    except (OSError, ValueError, RecursionError) as exc:
        print(escape(f"error: cannot read {argv[0]}: {exc}"), file=sys.stderr)
        return 2
    try:
        out = verify_certificate(cert)
    except Exception as exc:  # a defect of the kernel is an error, never a rejection
        print(escape(f"error: the kernel failed on {argv[0]}: {type(exc).__name__}: {exc}"),
              file=sys.stderr)
        return 2
    for note in out.notes:
        print(f"  {escape(note)}")
    code, last = out.status
    print(escape(last))
    return code
