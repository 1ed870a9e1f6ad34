"""The independent checker of plrv certificates: standard library and ``fractions.Fraction`` only.

It imports nothing from the rest of plrv, so that a reader who does not trust the engine can
read this one file and run it (``python verify.py CERTIFICATE.json``). For a certificate of
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

import json
import sys
from dataclasses import dataclass, field
from math import factorial, prod

from .dp import dp_delta, dp_witness
from .exact import (
    MAX_DATABASES,
    ZERO,
    Eps,
    Recorded,
    Rejected,
    brief,
    case_delta,
    check_fields,
    enumerable,
    joint,
    key,
    load,
    q,
    read_delta,
    show,
)
from .guess import verify_guess
from .pso import verify_pso
from .symbolic import verify_prove, verify_reducible

FORMAT, VERSION = "plrv-certificate", 1
OTHER_KINDS = {  # kind -> check(certificate, notes, limit); raises Rejected
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

    @property
    def recorded(self) -> list[str]:
        """The parts of the verdict only recorded, not re-checked (then the certificate is
        consistent, not verified)."""
        return [n for n in self.notes if isinstance(n, Recorded)]

    @property
    def status(self) -> tuple[int, str]:
        """Exit status and last line: 0 verified, 1 rejected, 3 consistent but resting on
        recorded parts this checker cannot re-check."""
        if not self.verified:
            return 1, f"rejected: {self.reason}"
        if self.recorded:
            return 3, ("not verified: consistent, but the verdict rests on recorded parts "
                       "this checker cannot re-check (see above)")
        return 0, "verified"


# ------------------------------------------------------------------ check certificates

def _rows(table: dict, where: str) -> dict:
    """``{(t, B): (weight, multiplicity, law, raw background)}``, each law checked to sum to 1."""
    rows, total = {}, ZERO
    for j, row in enumerate(table["rows"]):
        w = f"{where}.rows[{j}]"
        law = {key(o): q(p, f"{w}.law") for o, p in row["law"]}
        if sum(law.values(), ZERO) != 1:
            raise Rejected(f"{w} (value {row['value']!r}, background {row['background']!r}): "
                           f"the conditional law sums to {sum(law.values(), ZERO)}, not 1")
        if any(p <= 0 for p in law.values()):
            raise Rejected(f"{w}: a conditional probability is not positive")
        bg = row["background"]
        if isinstance(bg, dict) and "known_counts" in bg:
            c = bg["known_counts"]
            mult = factorial(sum(c)) // prod(factorial(x) for x in c)
            if bg.get("stands_for") != mult or row["multiplicity"] != mult:
                raise Rejected(f"{w}: the class {c} stands for {mult} background values, "
                               f"not {row['multiplicity']}")
        weight = q(row["weight"], f"{w}.weight")
        total += weight
        rows[(key(row["value"]), key(bg))] = (weight, row["multiplicity"], law, bg)
    if total != 1:
        raise Rejected(f"{where}: the weights P[D(i)=t, ζ(D)=B] sum to {total}, not 1")
    return rows


def _match(rows: dict, own: dict, values: list, where: str) -> None:
    """The certificate's rows against the re-enumerated joint table."""
    seen = set()
    for (t, b), (weight, _, law, bg) in rows.items():
        members = [(t2, b2) for (t2, b2) in own if t2 == t and _in_class(b2, bg, b, values)]
        mass = sum((sum(own[m].values(), ZERO) for m in members), ZERO)
        if mass != weight:
            raise Rejected(f"{where} (value {t}, background {b}): weight {weight} in the "
                           f"certificate, {mass} by enumeration")
        for m in members:
            z = sum(own[m].values(), ZERO)
            cond = {o: p / z for o, p in own[m].items() if p}
            if cond != law:
                diff = sorted(set(cond) ^ set(law)) or \
                    [o for o in cond if cond[o] != law.get(o)]
                raise Rejected(f"{where} (value {t}, background {b}): P[O={diff[0]} | t, B] is "
                               f"{law.get(diff[0], 0)} in the certificate, "
                               f"{cond.get(diff[0], 0)} by enumeration")
            seen.add(m)
    missing = [m for m in own if m not in seen and sum(own[m].values(), ZERO)]
    if missing:
        raise Rejected(f"{where}: (value, background) {missing[0]} is possible but has no row")


def _in_class(own_bg: str, bg: object, bg_key: str, values: list) -> bool:
    if isinstance(bg, dict) and "known_counts" in bg:
        tup = json.loads(own_bg)
        return isinstance(tup, list) and [sum(1 for x in tup if x == v) for v in values] == \
            bg["known_counts"]
    return own_bg == bg_key


def _cond(rows: dict, t: str, b: str) -> dict | None:
    r = rows.get((t, b))
    return r[2] if r else None


def _check_tables(cert: dict, eps: Eps, notes: list, limit: int) -> dict:
    """Verify the tables and every listed case; returns the recomputed δ per notion."""
    spec, ev = cert["spec"], cert["evidence"]
    pairs = [(key(a), key(b)) for a, b in spec["pairs"]]
    tables = [_rows(t, f"evidence.tables[{k}]") for k, t in enumerate(ev["tables"])]
    why = enumerable(spec, limit)
    if why is None:
        for k, t in enumerate(ev["tables"]):
            own = joint(spec, spec["models"][t["model"]],
                        spec["knowledge"][t["knowledge"]]["known"], t["target"])
            _match(tables[k], own, spec["values"], f"evidence.tables[{k}]")
        notes.append(f"re-enumerated every database: {len(tables)} tables match")
    else:
        notes.append(f"not re-enumerated ({why}): checked the tables' sums and arithmetic only")
    cases = ev["cases"]
    apk = {(c["table"], key(c["values"][0]), key(c["values"][1]), key(c["background"])):
           read_delta(c["delta"], eps, "evidence.cases.apkdp") for c in cases["apkdp"]}
    worst: dict = {}
    seen_apk = 0
    for k, rows in enumerate(tables):
        backgrounds = sorted({b for _, b in rows})
        for a, b in pairs:
            p_a = sum((rows[(a, bg)][0] for bg in backgrounds if (a, bg) in rows), ZERO)
            ppk_a = ppk_c = ZERO
            mix = [ZERO, ZERO]
            for bg in backgrounds:
                law = _cond(rows, a, bg)
                if law is None:
                    continue
                d = case_delta(law, _cond(rows, b, bg), eps)
                listed = apk.get((k, a, b, bg))
                if listed != d:
                    raise Rejected(f"evidence.cases.apkdp (table {k}, values {a}, {b}, "
                                   f"background {bg}): δ = {show(listed) if listed else None} "
                                   f"in the certificate, {show(d)} recomputed")
                seen_apk += 1
                _worst(worst, "apkdp", d, eps)
                w = rows[(a, bg)][0] / p_a
                mix = [mix[0] + w * d[0], mix[1] + w * d[1]]
                other = _cond(rows, b, bg)
                for o, p in law.items():  # Definition 7, term by term
                    if other is not None and eps.exceeds(p, other.get(o, ZERO)):
                        ppk_a, ppk_c = ppk_a + w * p, ppk_c + w * other.get(o, ZERO)
            if p_a:
                _pair_case(cases, "ppkdp", k, a, b, eps.delta(ppk_a, ppk_c), eps, worst)
                if eps.delta(*mix) != eps.delta(ppk_a, ppk_c):
                    raise Rejected(f"Theorem 1 (table {k}, values {a}, {b}): PPK δ "
                                   f"{show(eps.delta(ppk_a, ppk_c))} ≠ Σ_B P[B|a]·APK_B = "
                                   f"{show(eps.delta(*mix))}")
        if "noiseless" in cases and ev["tables"][k]["knowledge"] == 0:
            plain: dict = {}
            for (t, _), (weight, _, law, _) in rows.items():
                acc = plain.setdefault(t, {})
                for o, p in law.items():
                    acc[o] = acc.get(o, ZERO) + weight * p
            for a, b in pairs:
                if a in plain:
                    za, zb = sum(plain[a].values()), sum(plain.get(b, {}).values(), ZERO)
                    d = case_delta({o: p / za for o, p in plain[a].items()},
                                   {o: p / zb for o, p in plain[b].items()} if zb else None, eps)
                    _pair_case(cases, "noiseless", k, a, b, d, eps, worst)
    if seen_apk != len(cases["apkdp"]):
        raise Rejected(f"evidence.cases.apkdp lists {len(cases['apkdp'])} cases; the tables "
                       f"give {seen_apk}")
    notes.append(f"recomputed {seen_apk} APK cases, the PPK cases and Theorem 1's identity")
    return worst


def _worst(worst: dict, notion: str, d: tuple, eps: Eps) -> None:
    if notion not in worst or eps.compare(d, worst[notion]) > 0:
        worst[notion] = d


def _pair_case(cases: dict, notion: str, k: int, a: str, b: str, d: tuple, eps: Eps,
               worst: dict) -> None:
    listed = [read_delta(c["delta"], eps, f"evidence.cases.{notion}") for c in cases[notion]
              if c["table"] == k and (key(c["values"][0]), key(c["values"][1])) == (a, b)]
    if listed != [d]:
        raise Rejected(f"evidence.cases.{notion} (table {k}, values {a}, {b}): δ = "
                       f"{', '.join(map(show, listed)) or 'missing'} in the certificate, "
                       f"{show(d)} recomputed")
    _worst(worst, notion, d, eps)


def _witness(cert: dict, name: str, w: dict, eps: Eps, tables: list | None) -> tuple:
    """A failing claim's witness: its δ arithmetic and, where the tables are, its masses."""
    where = f"evidence.witnesses.{name}"
    p_a, p_b = q(w["p_a"], f"{where}.p_a"), q(w["p_b"], f"{where}.p_b")
    d = eps.delta(p_a, p_b)
    if read_delta(w["delta"], eps, f"{where}.delta") != d:
        raise Rejected(f"{where}.delta: {w['delta']!r} but P[S|a] − e^ε·P[S|b] = {show(d)}")
    if name == "dp":
        dp_witness(cert, w, where, p_a, p_b)
    elif tables is not None:
        rows = tables[w["table"]]
        a, b = key(w["values"][0]), key(w["values"][1])
        parts = w["parts"] if name == "ppkdp" else [dict(w, p_background="1")]
        sa = sb = ZERO
        for part in parts:
            bg, s = key(part["background"]), [key(o) for o in part["outputs"]]
            la, lb = _laws(rows, a, b, bg, name)
            ma, mb = sum((la.get(o, ZERO) for o in s), ZERO), sum((lb.get(o, ZERO) for o in s),
                                                                  ZERO)
            if (ma, mb) != (q(part["p_a"], where), q(part["p_b"], where)):
                raise Rejected(f"{where} (background {bg}): P[S|a], P[S|b] = {part['p_a']}, "
                               f"{part['p_b']} in the certificate, {ma}, {mb} from the tables")
            weight = q(part["p_background"], where)
            sa, sb = sa + weight * ma, sb + weight * mb
        if (sa, sb) != (p_a, p_b):
            raise Rejected(f"{where}: P[S|a], P[S|b] = {p_a}, {p_b}; the parts give {sa}, {sb}")
    return d


def _laws(rows: dict, a: str, b: str, bg: str, name: str) -> tuple[dict, dict]:
    if name == "noiseless":
        def merged(t):
            acc: dict = {}
            for (t2, _), (weight, _, law, _) in rows.items():
                for o, p in law.items() if t2 == t else ():
                    acc[o] = acc.get(o, ZERO) + weight * p
            z = sum(acc.values(), ZERO)
            return {o: p / z for o, p in acc.items()}
        return merged(a), merged(b)
    return _cond(rows, a, bg) or {}, _cond(rows, b, bg) or {}


def verify_certificate(cert: object, limit: int = MAX_DATABASES) -> Outcome:
    """Check a certificate (already read from JSON); never raises on a bad certificate."""
    notes: list[str] = []
    try:
        _verify(cert, notes, limit)
    except Rejected as exc:
        return Outcome(False, str(exc), notes)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        return Outcome(False, f"malformed certificate ({type(exc).__name__}: {exc})", notes)
    return Outcome(True, None, notes)


def _verify(cert: object, notes: list, limit: int) -> None:
    if not isinstance(cert, dict) or cert.get("format") != FORMAT:
        raise Rejected(f"format: not a {FORMAT}")
    check_fields(cert, VERSION)
    if cert.get("kind") in OTHER_KINDS:
        return OTHER_KINDS[cert["kind"]](cert, notes, limit)
    if cert.get("kind") != "check":
        raise Rejected(f"kind: {cert.get('kind')!r} is not a kind this checker reads")
    spec, ev, results = cert["spec"], cert["evidence"], cert["results"]
    eps, claim = Eps(spec["epsilon"]), (q(spec["delta"], "spec.delta"), ZERO)
    if sorted(results) != sorted(spec["notions"]):
        raise Rejected(f"results: notions {sorted(results)} but the spec asks {spec['notions']}")
    worst = _check_tables(cert, eps, notes, limit) if "tables" in ev else {}
    if "tables" not in ev and set(results) - {"dp"}:
        notes.append(ev.get("omitted", "no conditional tables: the witnesses are checked alone"))
    if "dp" in results:
        d = dp_delta(cert, eps, notes, limit)
        if d is not None:
            worst["dp"] = d
    tables = [_rows(t, f"evidence.tables[{k}]") for k, t in enumerate(ev["tables"])] \
        if "tables" in ev else None
    for name, res in results.items():
        stated = read_delta(res["delta"], eps, f"results.{name}.delta")
        if name in worst and worst[name] != stated:
            raise Rejected(f"results.{name}.delta: {show(stated)} in the certificate, the worst "
                           f"case is {show(worst[name])}")
        holds = eps.compare(stated, claim) <= 0
        if res["holds"] is not holds:
            raise Rejected(f"results.{name}.holds: {res['holds']} but δ = {show(stated)} "
                           f"{'≤' if holds else '>'} the claimed δ = {claim[0]}")
        if not holds:
            w = ev.get("witnesses", {}).get(name)
            if w is None:
                raise Rejected(f"evidence.witnesses.{name}: missing for a failing claim")
            d = _witness(cert, name, w, eps, tables)
            if eps.compare(d, claim) <= 0:
                raise Rejected(f"evidence.witnesses.{name}: δ = {show(d)} does not exceed the "
                               f"claimed δ = {claim[0]}")
            notes.append(f"{name}: fails, witness δ = {brief(show(d))} > {claim[0]}")
        else:
            notes.append(f"{name}: holds, δ = {brief(show(stated))} ≤ {claim[0]}")


def verify_file(path: str, limit: int = MAX_DATABASES) -> Outcome:
    try:
        cert = load(path)
    except (OSError, ValueError) as exc:
        return Outcome(False, f"cannot read {path}: {exc}")
    return verify_certificate(cert, limit)


def main(argv: list[str]) -> int:
    """``python -m kernel FILE``: exit 0 verified, 1 rejected, 2 usage error, 3 consistent
    but resting on recorded parts (a solver's proof) this checker cannot re-check."""
    if len(argv) != 1:
        print("usage: python -m kernel CERTIFICATE.json", file=sys.stderr)
        return 2
    try:
        load(argv[0])
    except (OSError, ValueError, RecursionError) as exc:
        print(f"error: cannot read {argv[0]}: {exc}", file=sys.stderr)
        return 2
    out = verify_file(argv[0])
    for note in out.notes:
        print(f"  {note}")
    code, last = out.status
    print(last)
    return code


