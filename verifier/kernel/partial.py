"""APK, PPK and noiseless δ of a check certificate, over the whole domain its spec states.

The domain is read from the spec, never from the evidence: every data model θ × knowledge
ζ × target ``i`` is one joint table, and in each every ordered pair ``(a, b)`` of
``spec.pairs`` and every background value ``B`` is one case (seed 003, Definitions 3, 6, 7)::

    APK_{i,a,b,B}(ε) = Σ_O max(0, P[O | a, B] − e^ε·P[O | b, B])
    PPK_{i,a,b}(ε)   = Σ_{B,O} P[B | a]·max(0, P[O | a, B] − e^ε·P[O | b, B])
    noiseless        = the APK sum with ζ summed out (the tables of knowledge 0)

and Theorem 1's identity ``PPK_{i,a,b} = Σ_B P[B | D(i)=a]·APK_{i,a,b,B}`` is checked between
the two. Where the spec is small and built in, every table is recomputed here by enumerating
every database (:func:`joint`) and the certificate's tables, if any, must equal it; otherwise
the certificate's tables are the laws (a :class:`Recorded` note: not verified). Either way a
table missing for a part of the domain, a case missing or added, is a rejection.
"""

from __future__ import annotations

import json
from fractions import Fraction
from math import factorial, prod

from .exact import (
    ONE,
    ZERO,
    Eps,
    Recorded,
    Rejected,
    Undecided,
    case_delta,
    key,
    q,
    read_delta,
    show,
    within,
)
from .mechanisms import enumerable, enumeration_work, joint
from .spec import MAX_RECORDS

__all__ = ["check_partial", "witness_masses"]


def _class_size(c: object, width: int, known: int | None, where: str) -> int:
    """The number of background values a count class stands for, once its counts are one
    non-negative integer per value summing to the number of known records (never a
    factorial of a count the certificate chose)."""
    if not isinstance(c, list) or len(c) != width or sum(c) != (known if known is not None
                                                                 else sum(c)):
        raise Rejected(f"{where}.background: the class {c!r:.60} is not one count per value "
                       f"summing to the {known} known records")
    if known is None and sum(c) > MAX_RECORDS:
        raise Rejected(f"{where}.background: the class {c!r:.60} counts more than "
                       f"{MAX_RECORDS} records")
    return factorial(sum(c)) // prod(factorial(x) for x in c)


def _rows(table: dict, where: str, width: int, known: int | None) -> dict:
    """``{(t, B): (weight, law, raw background)}``, each law checked to sum to 1; the
    backgrounds all count classes or all values (two spellings of one background would
    leave its rows without partners)."""
    rows, total = {}, ZERO
    if len({isinstance(r["background"], dict) and "known_counts" in r["background"]
            for r in table["rows"]}) > 1:
        raise Rejected(f"{where}: some backgrounds are count classes, others values; one "
                       f"table writes them one way")
    for j, row in enumerate(table["rows"]):
        w = f"{where}.rows[{j}]"
        law = {key(o): q(p, f"{w}.law") for o, p in row["law"]}
        if len(law) != len(row["law"]) or any(p <= 0 for p in law.values()):
            raise Rejected(f"{w}: an output is listed twice or has a probability ≤ 0")
        if sum(law.values(), ZERO) != 1:
            raise Rejected(f"{w} (value {row['value']!r}, background {row['background']!r}): "
                           f"the conditional law sums to {sum(law.values(), ZERO)}, not 1")
        bg = row["background"]
        key(bg)  # one of the forms a background takes
        if isinstance(bg, dict) and "known_counts" in bg:
            c = bg["known_counts"]
            mult = _class_size(c, width, known, w)
            if bg.get("stands_for") != mult or row["multiplicity"] != mult:
                raise Rejected(f"{w}: the class {c} stands for {mult} background values, "
                               f"not {row['multiplicity']}")
        weight = q(row["weight"], f"{w}.weight")
        if weight <= 0:
            raise Rejected(f"{w}.weight: {weight} is not positive")
        total += weight
        if (key(row["value"]), key(bg)) in rows:
            raise Rejected(f"{w}: (value, background) listed twice")
        rows[(key(row["value"]), key(bg))] = (weight, law, bg)
    if total != 1:
        raise Rejected(f"{where}: the weights P[D(i)=t, ζ(D)=B] sum to {total}, not 1")
    return rows


def _own_rows(spec: dict, label: tuple) -> dict:
    """The kernel's own table for ``(model, knowledge, target)``, in the rows' form."""
    m, k, t = label
    own = joint(spec, spec["models"][m], spec["knowledge"][k]["known"], t)
    rows = {}
    for (value, bg), law in own.items():
        z = sum(law.values(), ZERO)
        if z:
            rows[(value, bg)] = (z, {o: p / z for o, p in law.items() if p}, json.loads(bg))
    return rows


def _in_class(own_bg: str, bg: object, bg_key: str, values: list) -> bool:
    if isinstance(bg, dict) and "known_counts" in bg:
        tup = json.loads(own_bg)
        return isinstance(tup, list) and [sum(1 for x in tup if x == v) for v in values] == \
            bg["known_counts"]
    return own_bg == bg_key


def _match(rows: dict, own: dict, values: list, where: str) -> None:
    """The certificate's rows (a row may stand for a class of background values) against
    the kernel's own table: same weights, same conditional laws, no possible row missing."""
    seen = set()
    for (t, b), (weight, law, bg) in rows.items():
        members = [(t2, b2) for (t2, b2) in own if t2 == t and _in_class(b2, bg, b, values)]
        mass = sum((own[m][0] for m in members), ZERO)
        if mass != weight:
            raise Rejected(f"{where} (value {t}, background {b}): weight {weight} in the "
                           f"certificate, {mass} by enumeration")
        for m in members:
            if own[m][1] != law:
                o = next(o for o in sorted(set(law) | set(own[m][1]))
                         if law.get(o, ZERO) != own[m][1].get(o, ZERO))
                raise Rejected(f"{where} (value {t}, background {b}): P[O={o} | value, "
                               f"background] = {law.get(o, ZERO)} in the certificate, "
                               f"{own[m][1].get(o, ZERO)} recomputed by enumeration")
            seen.add(m)
    missing = [m for m in own if m not in seen]
    if missing:
        raise Rejected(f"{where}: (value, background) {missing[0]} is possible but has no row")


def _tables(cert: dict, labels: list, notes: list, limit: int) -> list[dict]:
    """One table of rows per label of the domain, recomputed where the kernel can."""
    spec, ev = cert["spec"], cert["evidence"]
    why = enumerable(spec, limit)
    if why is None:
        within(enumeration_work(spec, labels),
               f"re-enumerating {len(labels)} tables (data model × knowledge × target)")
    given = ev.get("tables")
    if given is None:
        if "omitted" not in ev:
            raise Rejected("evidence.tables: missing (and no evidence.omitted says why)")
        if why is not None and any(r.get("holds") is not False for n, r in
                                   cert["results"].items() if n != "dp"):
            raise Rejected(f"evidence.tables: omitted for a holding claim, and the kernel "
                           f"cannot recompute the conditional laws ({why})")
        if why is not None:  # an honest omission (every claim fails) beyond the kernel's reach
            raise Undecided(f"evidence.tables: omitted, and the kernel cannot recompute the "
                            f"conditional laws ({why})")
        notes.append(f"recomputed {_count(len(labels), 'table')} by enumerating every database")
        return [_own_rows(spec, label) for label in labels]
    index = [(t["model"], t["knowledge"], t["target"]) for t in given]
    for label in labels:
        if index.count(label) != 1:
            raise Rejected(f"evidence.tables: (model, knowledge, target) = {label} "
                           f"{'is missing' if label not in index else 'is given twice'}")
    if len(index) != len(labels):
        extra = next(x for x in index if x not in labels)
        raise Rejected(f"evidence.tables: {extra} is not (model, knowledge, target) of the "
                       f"spec")
    knowledge = spec["knowledge"]
    tables = [_rows(given[index.index(label)], f"evidence.tables[{index.index(label)}]",
                    len(spec["values"]), len(knowledge[label[1]]["known"])
                    if "known" in knowledge[label[1]] else None)
              for label in labels]
    if why is None:
        for label, rows in zip(labels, tables, strict=True):
            _match(rows, _own_rows(spec, label), spec["values"],
                   f"evidence.tables[{index.index(label)}]")
        notes.append(f"re-enumerated every database: {len(tables)} "
                     f"{'table matches' if len(tables) == 1 else 'tables match'}")
    else:
        notes.append(Recorded(f"the conditional laws of {_count(len(tables), 'table')} were "
                              f"taken from the certificate, not recomputed ({why})"))
    return tables


def _count(n: int, noun: str) -> str:
    """``1 table``, ``2 tables``: a note's count with its noun in the right number."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _cases(tables: list, labels: list, pairs: list, eps: Eps, noiseless: bool) -> dict:
    """Every case's δ, keyed as the certificate lists them (table index = domain order)."""
    out: dict = {"apkdp": {}, "ppkdp": {}}
    if noiseless:
        out["noiseless"] = {}
    for k, rows in enumerate(tables):
        backgrounds = sorted({b for _, b in rows})
        for a, b in pairs:
            p_a = sum((rows[(a, bg)][0] for bg in backgrounds if (a, bg) in rows), ZERO)
            ppk = mix = (ZERO, ZERO)
            for bg in backgrounds:
                if (a, bg) not in rows:
                    continue
                law, other = rows[(a, bg)][1], rows.get((b, bg))
                d = case_delta(law, other[1] if other else None, eps)
                out["apkdp"][(k, a, b, bg)] = d
                w = rows[(a, bg)][0] / p_a
                mix = (mix[0] + w * d[0], mix[1] + w * d[1])
                for o, p in law.items():  # Definition 7, term by term
                    if other is not None and eps.exceeds(p, other[1].get(o, ZERO)):
                        ppk = (ppk[0] + w * p, ppk[1] + w * other[1].get(o, ZERO))
            if p_a:
                out["ppkdp"][(k, a, b)] = eps.delta(*ppk)
                if eps.delta(*mix) != eps.delta(*ppk):
                    raise Rejected(f"Theorem 1 (table {k}, values {a}, {b}): PPK δ "
                                   f"{show(eps.delta(*ppk))} ≠ Σ_B P[B|a]·APK_B = "
                                   f"{show(eps.delta(*mix))}")
        if noiseless and labels[k][1] == 0:
            plain = _plain(rows)
            for a, b in pairs:
                if a in plain:
                    out["noiseless"][(k, a, b)] = case_delta(plain[a], plain.get(b), eps)
    return out


def _plain(rows: dict) -> dict:
    """``P[O | D(i)=t]`` with the background summed out."""
    acc: dict = {}
    for (t, _), (weight, law, _) in rows.items():
        for o, p in law.items():
            acc.setdefault(t, {})
            acc[t][o] = acc[t].get(o, ZERO) + weight * p
    return {t: {o: p / sum(law.values(), ZERO) for o, p in law.items()}
            for t, law in acc.items()}


def _label(at: tuple) -> str:
    text = f"table {at[0]}, values {at[1]}, {at[2]}"
    return text + (f", background {at[3]}" if len(at) > 3 else "")


def _listed(cases: dict, notion: str, eps: Eps) -> dict:
    out = {}
    for j, c in enumerate(cases[notion]):
        where = f"evidence.cases.{notion}[{j}]"
        at: tuple = (c["table"], key(c["values"][0]), key(c["values"][1]))
        if notion == "apkdp":
            at += (key(c["background"]),)
        if at in out:
            raise Rejected(f"{where}: the case is listed twice")
        out[at] = read_delta(c["delta"], eps, where)
    return out


def check_partial(cert: dict, eps: Eps, notes: list, limit: int) -> tuple[dict, list]:
    """The worst δ of each partial-knowledge notion, recomputed over the spec's domain, and
    the tables (for the witnesses)."""
    spec, ev = cert["spec"], cert["evidence"]
    labels = [(m, k, t) for m in range(len(spec["models"]))
              for k in range(len(spec["knowledge"])) for t in spec["targets"]]
    pairs = [(key(a), key(b)) for a, b in spec["pairs"]]
    tables = _tables(cert, labels, notes, limit)
    within(sum(len(law) * sum(1 for a, _ in pairs if a == t) for rows in tables
               for (t, _), (_, law, _) in rows.items()) * 2 * eps.cost,
           f"the APK and PPK cases of {len(tables)} tables")
    computed = _cases(tables, labels, pairs, eps, "noiseless" in spec["notions"])
    cases = ev.get("cases")
    if cases is None and "tables" in ev:
        raise Rejected("evidence.cases: missing beside the tables")
    if cases is not None:
        if set(cases) != set(computed):
            raise Rejected(f"evidence.cases: lists {sorted(cases)}, the spec's notions give "
                           f"{sorted(computed)}")
        for notion, own in computed.items():
            listed = _listed(cases, notion, eps)
            if listed != own:
                at = next((c for c in own if listed.get(c) != own[c]), None) or \
                    next(c for c in listed if c not in own)
                raise Rejected(f"evidence.cases.{notion} ({_label(at)}): δ = "
                               f"{show(listed[at]) if at in listed else 'missing'} in the "
                               f"certificate, {show(own[at]) if at in own else 'no such case'} "
                               f"recomputed")
    worst = {notion: eps.worst(own.values()) for notion, own in computed.items()}
    notes.append(f"recomputed {_count(len(computed['apkdp']), 'APK case')}, "
                 f"{_count(len(computed['ppkdp']), 'PPK case')} and Theorem 1's identity over "
                 f"{_count(len(labels), 'table')}")
    return worst, tables


def witness_masses(spec: dict, name: str, w: dict, tables: list) -> tuple[Fraction, Fraction]:
    """``P[S | a, ·]`` and ``P[S | b, ·]`` of a partial-knowledge witness, from the tables
    (PPK: its parts, weighted by ``P[B | a]``)."""
    where = f"evidence.witnesses.{name}"
    k = w["table"]
    if type(k) is not int or not 0 <= k < len(tables):
        raise Rejected(f"{where}.table: {k!r:.40} is not a table of the domain")
    labels = [t for _ in spec["models"] for _ in spec["knowledge"] for t in spec["targets"]]
    if w["target"] != labels[k]:
        raise Rejected(f"{where}.target: {w['target']!r:.40}, but table {k} is of target "
                       f"{labels[k]}")
    rows = tables[k]
    a, b = key(w["values"][0]), key(w["values"][1])
    if [w["values"][0], w["values"][1]] not in spec["pairs"]:
        raise Rejected(f"{where}.values: {w['values']!r:.80} is not a compared pair")
    plain = _plain(rows) if name == "noiseless" else {}
    parts = w["parts"] if name == "ppkdp" else [dict(w, p_background="1")]
    within(len(parts) * (len(rows) + 1), f"{where}: {len(parts)} parts over {len(rows)} rows")
    sa = sb = ZERO
    for part in parts:
        bg, s = key(part["background"]), {key(o) for o in part["outputs"]}
        if name == "noiseless":
            if part["background"] != "nothing":
                raise Rejected(f"{where}.background: noiseless privacy has no background")
            (wa, la), (_, lb) = (ONE, plain.get(a, {})), (ONE, plain.get(b, {}))
        else:
            (wa, la), (_, lb) = (_resolve(rows, v, part["background"], spec["values"], where)
                                 for v in (a, b))
        ma = sum((p for o, p in la.items() if o in s), ZERO)
        mb = sum((p for o, p in lb.items() if o in s), ZERO)
        if (ma, mb) != (q(part["p_a"], where), q(part["p_b"], where)):
            raise Rejected(f"{where} (background {bg}): P[S|a], P[S|b] = {part['p_a']}, "
                           f"{part['p_b']} in the certificate, {ma}, {mb} from the tables")
        weight = q(part["p_background"], where)
        if name == "ppkdp":
            p_a = sum((rows[(a, x)][0] for (t, x) in rows if t == a), ZERO)
            if not wa or weight != wa / p_a:
                raise Rejected(f"{where} (background {bg}): P[B | a] = {weight} in the "
                               f"certificate, not from the tables")
        sa, sb = sa + weight * ma, sb + weight * mb
    if name == "ppkdp" and len({key(p["background"]) for p in parts}) != len(parts):
        raise Rejected(f"{where}.parts: a background is listed twice")
    return sa, sb


def _resolve(rows: dict, t: str, bg: object, values: list, where: str) -> tuple:
    """``(P[D(i)=t, ζ=B], P[O | t, B])`` of a background value or of a class of them (a
    count class: its weight summed over the members, whose laws must agree)."""
    b = key(bg)
    if (t, b) in rows:
        return rows[(t, b)][:2]
    members = [rows[(t2, b2)] for (t2, b2) in rows if t2 == t and isinstance(bg, dict)
               and "known_counts" in bg and _in_class(b2, bg, b, values)]
    if not members:
        return ZERO, {}
    if any(m[1] != members[0][1] for m in members):
        raise Rejected(f"{where}: the background class {b} has members with different laws")
    return sum((m[0] for m in members), ZERO), members[0][1]
