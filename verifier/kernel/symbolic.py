"""Reducibility and proofs in certificates, for the independent checker (standard library only).

*Reducible* (thesis Definition 59): every listed output profile ``(P[O | D(i)=t, ζ=B])_t`` is
checked to be a conditional law (each column sums to 1) and, where the spec can be
re-enumerated, re-derived from the databases; every bijection must map the outputs of the
first background value one to one onto those of the other with equal profiles, and every
(θ, ζ, target) and background value must be covered. A witness of non-reducibility must show
two background values whose multisets of profiles differ.

*Prove*: each counterexample's certificate of ``plrv check`` is verified in full, its δs
compared with the listed ones, and the claim evaluated on them must be false; proofs by a
solver are recorded, not re-checkable here, and the checker says so.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable

from .claim import claim_tree, same_tree
from .exact import (
    TOP,
    ZERO,
    Eps,
    Recorded,
    Rejected,
    Undecided,
    exact_fields,
    key,
    q,
    within,
)
from .mechanisms import enumerable, enumeration_work, joint
from .spec import validate_check_spec

__all__ = ["verify_reducible", "verify_prove"]

NOTION_OF = {"apk": "apkdp", "ppk": "ppkdp", "noiseless": "noiseless", "dp": "dp"}


def _profiles(entry: list, where: str, width: int) -> dict:
    """``{output: profile}`` with every column a conditional law."""
    prof = {}
    for o, p in entry:
        if len(p) != width:
            raise Rejected(f"{where}: the profile of {o!r} has {len(p)} entries, not {width}")
        prof[key(o)] = tuple(None if x is None else q(x, where) for x in p)
    for t in range(width):
        column = [p[t] for p in prof.values()]
        defined = [x for x in column if x is not None]
        if any(x < 0 for x in defined):
            raise Rejected(f"{where}: a probability is negative")
        if column and len(defined) == len(column) and sum(defined, ZERO) != 1:
            raise Rejected(f"{where}: P[O | t, B] for the value number {t} sums to "
                           f"{sum(defined, ZERO)}, not 1")
    return prof


def _own(spec: dict, model: int, knowledge: int, target: int) -> dict:
    """``{B: {O: profile}}`` by enumerating every database."""
    values = [key(v) for v in spec["values"]]
    table = joint(spec, spec["models"][model], spec["knowledge"][knowledge]["known"], target)
    out: dict = {}
    for b in {b for _, b in table}:
        conds = {}
        for t in values:
            row = table.get((t, b), {})
            z = sum(row.values(), ZERO)
            conds[t] = {o: p / z for o, p in row.items() if p} if z else None
        outputs = {o for c in conds.values() if c for o in c}
        out[b] = {o: tuple(None if (c := conds[t]) is None else c.get(o, ZERO) for t in values)
                  for o in outputs}
    return out


def _members(own: dict, bg: object, values: list) -> list:
    if isinstance(bg, dict) and "known_counts" in bg:
        return [b for b in own if isinstance(json.loads(b), list) and
                [sum(1 for x in json.loads(b) if x == v) for v in values] == bg["known_counts"]]
    return [key(bg)] if key(bg) in own else []


def _compare(own: dict, bg: object, prof: dict, values: list, where: str) -> list:
    members = _members(own, bg, values)
    if not members:
        raise Rejected(f"{where}: background {bg!r} is not possible by enumeration")
    for m in members:
        if own[m] != prof:
            diff = sorted(set(own[m]) ^ set(prof)) or [o for o in prof if own[m][o] != prof[o]]
            raise Rejected(f"{where}: the profile of output {diff[0]} is "
                           f"{prof.get(diff[0])} in the certificate, {own[m].get(diff[0])} by "
                           f"enumeration")
    return members


def _indices(spec: dict, entry: dict, where: str) -> None:
    """A (data model, knowledge, target) of the spec's domain, never one of the evidence's."""
    for name, ok in (("model", range(len(spec["models"]))),
                     ("knowledge", range(len(spec["knowledge"]))),
                     ("target", spec["targets"])):
        v = entry[name]
        if type(v) is not int or v not in ok:
            raise Rejected(f"{where}.{name}: {v!r:.40} is not a {name} of the spec")
    if len(entry.get("backgrounds", ())) != 2 and "profiles" in entry:
        raise Rejected(f"{where}.backgrounds: a witness compares two background values")


_NUM = r"(-?[0-9]+(?:/[0-9]+)?)"
_RANGE = re.compile(rf"^(?:{_NUM} (<|≤) )?([A-Za-z_][A-Za-z0-9_]*)(?: (<|≤) {_NUM})?$")


def parameters(text: object, where: str) -> dict:
    """The declared parameters, as plrv describes them (``"1/2 < t < 1, 0 ≤ p"``, ``"r
    real"``): ``{name: admits(value)}``; ``""`` declares none."""
    if not isinstance(text, str) or len(text) > 2000:
        raise Rejected(f"{where}: not the description of the parameters")
    out: dict = {}
    for part in (text.split(", ") if text else []):
        m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*) real$", part) or _RANGE.match(part)
        if m is None or (part.endswith(" real") and m.group(1) in out):
            raise Rejected(f"{where}: {part!r:.60} is not a parameter's range (or names one "
                           f"twice)")
        if part.endswith(" real"):
            out[m.group(1)] = lambda v: True
            continue
        lo, lo_op, name, hi_op, hi = m.groups()
        if name in out or (lo is None and hi is None):
            raise Rejected(f"{where}: {part!r:.60} is not a parameter's range (or names one "
                           f"twice)")
        bounds = (None if lo is None else (q(lo, where), lo_op == "<"),
                  None if hi is None else (q(hi, where), hi_op == "<"))
        out[name] = lambda v, b=bounds: (b[0] is None or (v > b[0][0] if b[0][1] else
                                                          v >= b[0][0])) and \
            (b[1] is None or (v < b[1][0] if b[1][1] else v <= b[1][0]))
    return out


def point_inside(point: object, declared: dict, where: str) -> None:
    """A point that gives every declared parameter a value inside its range."""
    if not isinstance(point, dict) or set(point) != set(declared):
        raise Rejected(f"{where}: {point!r:.60} does not give exactly the parameters "
                       f"{sorted(declared)} a value")
    for name, v in point.items():
        if not declared[name](q(v, f"{where}.{name}")):
            raise Rejected(f"{where}.{name}: {v} is outside the parameter's range")


def verify_reducible(cert: dict, notes: list, limit: int) -> bool | None:
    """Check a ``plrv reducible`` certificate and return its verdict (reducible or not);
    raises :class:`Rejected` at the first discrepancy. Whether it can be checked here is
    decided here, never read from the file: a spec with parameters is reducible for every
    value only by a symbolic identity (recorded), and not reducible by a witness at a point
    inside the parameters' ranges."""
    exact_fields(cert, TOP | {"parameters", "point", "results", "independently_checkable",
                              "evidence"}, "reducible certificate")
    spec, ev, res = cert["spec"], cert["evidence"], cert["results"]
    exact_fields(res, {"reducible", "method", "reason"}, "results")
    validate_check_spec(spec)
    width, values = len(spec["values"]), spec["values"]
    declared = parameters(cert["parameters"], "parameters")
    if res["reducible"] not in (True, False, None):
        raise Rejected(f"results.reducible: {res['reducible']!r:.40} is not true, false or null")
    if declared and (res["reducible"] is False or cert["point"] != {}):
        point_inside(cert["point"], declared, "point")  # where the exact engine decided
    elif cert["point"] != {}:
        raise Rejected("point: a point is given only for a spec with parameters")
    checkable = res["reducible"] is False or (res["reducible"] is True and not declared)
    if cert["independently_checkable"] is not checkable:
        verdict = {True: "reducible", False: "not reducible", None: "undecided"}
        raise Rejected(f"independently_checkable: {cert['independently_checkable']!r:.20}, "
                       f"but a spec {'with' if declared else 'without'} parameters found "
                       f"{verdict[res['reducible']]} {'is' if checkable else 'is not'} "
                       f"checkable here")
    if not checkable:
        notes.append(Recorded(f"not independently checkable ({res['method']}): "
                              f"{len(ev.get('tables', []))} tables of bijections recorded"))
        return None
    why = enumerable(spec, limit)
    if why is None:
        given = [e["model"] for e in ev.get("tables", [])] if res["reducible"] \
            else [ev["witness"]["model"]]
        labels = [(m, 0, 0) for m in given if type(m) is int and 0 <= m < len(spec["models"])]
        within(enumeration_work(spec, labels), f"re-enumerating {len(labels)} tables")
    if why is not None:
        notes.append(Recorded(f"not re-enumerated ({why}): the output profiles were taken "
                              f"from the certificate; their sums and the bijections checked"))
    if res["reducible"] is False:
        w = ev["witness"]
        where = "evidence.witness"
        _indices(spec, w, where)
        first, second = (_profiles(p, where, width) for p in w["profiles"])
        if why is None:
            own = _own(spec, w["model"], w["knowledge"], w["target"])
            for bg, prof in zip(w["backgrounds"], (first, second), strict=True):
                _compare(own, bg, prof, values, where)
        if Counter(first.values()) == Counter(second.values()):
            raise Rejected(f"{where}: the two background values have the same multiset of "
                           f"output profiles, so a bijection exists")
        notes.append(f"not reducible: backgrounds {w['backgrounds'][0]!r} and "
                     f"{w['backgrounds'][1]!r} have different multisets of profiles")
        return False
    if res["reducible"] is not True:
        raise Rejected(f"results.reducible: {res['reducible']!r} with independent evidence")
    tables = ev["tables"]
    wanted = {(m, k, t) for m in range(len(spec["models"]))
              for k in range(len(spec["knowledge"])) for t in spec["targets"]}
    if {(e["model"], e["knowledge"], e["target"]) for e in tables} != wanted:
        raise Rejected("evidence.tables: not one entry per data model, knowledge and target")
    count = 0
    for j, e in enumerate(tables):
        where = f"evidence.tables[{j}]"
        profs = {key(b["background"]): _profiles(b["profiles"], where, width)
                 for b in e["backgrounds"]}
        if why is None:
            own = _own(spec, e["model"], e["knowledge"], e["target"])
            covered = set()
            for b in e["backgrounds"]:
                covered |= set(_compare(own, b["background"], profs[key(b["background"])],
                                        values, where))
            if covered != set(own):
                raise Rejected(f"{where}: background {sorted(set(own) - covered)[0]} is "
                               f"possible but not listed")
        order = [key(b["background"]) for b in e["backgrounds"]]
        if [key(b["target"]) for b in e["bijections"]] != order[1:] or \
                any(key(b["source"]) != order[0] for b in e["bijections"]):
            raise Rejected(f"{where}.bijections: not one from the first background value to "
                           f"each other")
        for b in e["bijections"]:
            src, dst = profs[key(b["source"])], profs[key(b["target"])]
            phi = {key(o): key(p) for o, p in b["mapping"]}
            if sorted(phi) != sorted(src) or sorted(phi.values()) != sorted(dst):
                raise Rejected(f"{where}: the mapping from {b['source']!r} to {b['target']!r} "
                               f"is not a bijection between their outputs")
            for o, p in phi.items():
                if src[o] != dst[p]:
                    raise Rejected(f"{where}: φ({o}) = {p} but the profiles differ: "
                                   f"{src[o]} and {dst[p]}")
            count += 1
    notes.append(f"reducible: {count} bijections map outputs to outputs with equal profiles"
                 + ("; profiles re-derived by enumeration" if why is None else ""))
    return True


def _evaluate(tree: list, values: dict) -> object:
    head = tree[0]
    if head == "num":
        return q(tree[1], "claim.tree")
    if head == "delta":
        return values[tree[1]]
    args = [_evaluate(t, values) for t in tree[1:]]
    ops: dict[str, Callable] = {
        "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
        "/": lambda a, b: a / b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
        "<=": lambda a, b: a <= b, "<": lambda a, b: a < b, ">=": lambda a, b: a >= b,
        ">": lambda a, b: a > b, "not": lambda a: not a, "and": lambda a, b: a and b,
        "or": lambda a, b: a or b, "implies": lambda a, b: (not a) or b,
        "iff": lambda a, b: a == b}
    if head not in ops:
        raise Rejected(f"claim.tree: unknown operation {head!r}")
    return ops[head](*args)


def _uses(tree: list) -> set:
    """The δs a claim's tree reads."""
    if tree[0] == "delta":
        return {tree[1]}
    return set().union(*(_uses(t) for t in tree[1:] if isinstance(t, list)))


def _knowledge_name(k: object) -> str | None:
    """plrv's name of a nested check's attacker: ``nothing``, ``records [0, 2]`` (a long
    contiguous run ``0..99 (100 indices)``), or the user function's name."""
    if isinstance(k, dict) and set(k) == {"function"}:
        return k["function"]
    if not (isinstance(k, dict) and set(k) == {"known"} and isinstance(k["known"], list)):
        return None
    idx = sorted(k["known"])
    if not idx:
        return "nothing"
    if len(idx) > 8:
        return f"records {idx[0]}..{idx[-1]} ({len(idx)} indices)" \
            if idx == list(range(idx[0], idx[-1] + 1)) else f"records {idx[:4]}… ({len(idx)} " \
                                                            f"indices)"
    return f"records {idx}"


def _same_instance(cert: dict, p: dict, uses: set, declared: dict, where: str) -> None:
    """Every field the prove certificate shares with its nested check, compared: the spec's
    records and values, the point inside the parameters, ε (unless every ε was asked), the
    notions the claim reads, the target and the attacker."""
    nested = p["check"]["spec"]
    point_inside(p["point"], declared, f"{where}.point")
    data = cert["spec"].get("data") if isinstance(cert["spec"], dict) else None
    if not isinstance(data, dict):
        raise Rejected("spec.data: the prove certificate's spec has no [data] table")
    for name in ("records", "values"):
        if name in data and nested[name] != data[name]:
            raise Rejected(f"{where}.check.spec.{name}: {nested[name]!r:.60}, but the spec "
                           f"has {data[name]!r:.60}")
    if set(p["deltas"]) != uses:
        raise Rejected(f"{where}.deltas: {sorted(p['deltas'])}, but the claim reads "
                       f"{sorted(uses)}")
    if nested["notions"] != [NOTION_OF[n] for n in sorted(uses)]:
        raise Rejected(f"{where}.check.spec.notions: {nested['notions']!r:.60}, not the "
                       f"notions the claim reads")
    if not cert["every_epsilon"]:
        own, given = Eps(cert["epsilon"]), Eps(nested["epsilon"])
        if (own.rate, own.nats, own.infinite) != (given.rate, given.nats, given.infinite):
            raise Rejected(f"{where}.check.spec.epsilon: {nested['epsilon']!r:.40}, but the "
                           f"claim is proved at ε = {cert['epsilon']!r:.40}")
    if uses == {"dp"}:
        return
    if nested["targets"] != [p["target"]]:
        raise Rejected(f"{where}.check: targets {nested['targets']}, not [{p['target']}]")
    if len(nested["knowledge"]) != 1 or _knowledge_name(nested["knowledge"][0]) != \
            p["knowledge"]:
        raise Rejected(f"{where}.check.spec.knowledge: {nested['knowledge']!r:.60} is not "
                       f"the instance's attacker {p['knowledge']!r:.40}")


def verify_prove(cert: dict, notes: list, check: Callable) -> bool | None:
    """Check a ``plrv prove`` certificate; ``check`` verifies a nested ``plrv check``
    certificate (:func:`verify.verify_certificate`). Returns False when a counterexample
    refutes the claim, None otherwise (a proof is only recorded here). A nested check's
    recorded parts are recorded parts of this certificate too."""
    exact_fields(cert, TOP | {"claim", "parameters", "epsilon", "every_epsilon", "status",
                              "instances"}, "prove certificate")
    exact_fields(cert["claim"], {"text", "tree"}, "claim")
    tree = claim_tree(cert["claim"]["text"])
    if not same_tree(tree, cert["claim"]["tree"]):
        raise Rejected(f"claim.tree: not the claim {cert['claim']['text']!r:.80} (re-parsed "
                       f"from its text)")
    declared = parameters(cert["parameters"], "parameters")
    if not isinstance(cert["every_epsilon"], bool) or \
            cert["every_epsilon"] is not (cert["epsilon"] == "every ε"):
        raise Rejected(f"every_epsilon: {cert['every_epsilon']!r:.20} with epsilon "
                       f"{cert['epsilon']!r:.40}")
    if not isinstance(cert["instances"], list) or not cert["instances"]:
        raise Rejected("instances: none listed; a claim is shown on at least one instance")
    states = [p["status"] for p in cert["instances"]]
    if any(s not in ("proved", "counterexample", "unknown") for s in states):
        raise Rejected(f"instances: a status among {sorted(map(str, states))[:3]} is not "
                       f"proved, counterexample or unknown")
    status = next((s for s in ("counterexample", "unknown") if s in states), "proved")
    if cert["status"] != status:
        raise Rejected(f"status: {cert['status']!r} but the instances give {status!r}")
    recorded = refuted = 0
    for j, p in enumerate(cert["instances"]):
        where = f"instances[{j}] (target {p['target']}, {p['knowledge']})"
        base = {"target", "knowledge", "status", "method", "reason", "independently_checkable"}
        if p["independently_checkable"] is False:
            exact_fields(p, base | ({"solver"} if "solver" in p else set()), where)
            recorded += 1
            continue
        exact_fields(p, base | {"point", "deltas", "check"}, where)
        if p["independently_checkable"] is not True or p["status"] != "counterexample":
            raise Rejected(f"{where}: only a counterexample is independently checkable")
        if not isinstance(p["check"], dict) or p["check"].get("kind") != "check":
            raise Rejected(f"{where}.check: not a certificate of plrv check")
        out = check(p["check"])
        if out.undecided is not None:
            raise Undecided(f"{where}.check: {out.undecided}")
        if not out.verified:
            raise Rejected(f"{where}.check: {out.reason}")
        notes.extend(Recorded(f"{where}.check: {n}") for n in out.recorded)
        _same_instance(cert, p, _uses(tree), declared, where)
        results = p["check"]["results"]
        deltas = {}
        for name, text in p["deltas"].items():
            d = results[NOTION_OF[name]]["delta"]
            if not isinstance(d, str) or q(d, where) != q(text, where):
                raise Rejected(f"{where}.deltas.{name}: {text} but the check certificate "
                               f"gives {d!r}")
            deltas[name] = q(text, where)
        if _evaluate(cert["claim"]["tree"], deltas) is not False:
            raise Rejected(f"{where}: the claim {cert['claim']['text']!r} holds at these δs "
                           f"({', '.join(f'{k} = {v}' for k, v in deltas.items())})")
        refuted += 1
        notes.append(f"{where}: counterexample verified, "
                     f"{', '.join(f'{k} = {v}' for k, v in deltas.items())}")
    if recorded:
        kept = [p for p in cert["instances"] if not p["independently_checkable"]]
        solvers = {f"{p['solver']['name']} {p['solver']['version']}" for p in kept
                   if "solver" in p}
        noun = "instance" if recorded == 1 else "instances"
        text = (f"{recorded} {noun} {', '.join(sorted({p['status'] for p in kept}))} "
                f"not independently checkable (recorded"
                f"{': ' + ', '.join(sorted(solvers)) if solvers else ''})")
        # a verified counterexample refutes the claim whatever the recorded instances say
        notes.append(text if refuted else Recorded(text))
    return False if refuted else None
