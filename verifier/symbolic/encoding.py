"""The tight δs of a symbolic instance as z3 terms, with no division by a symbolic quantity.

``E = e^ε`` is a z3 real: a rational constant when ε = ln(q), a variable ``E ≥ 1`` otherwise
(every ε at once). Each table's cells are first made polynomials by one common positive
factor (every δ below is homogeneous of degree 0 in the cells, so the factor cancels).
With ``J_t = J(t, B, O)``, ``w_t = w(t, B)`` and ``P_t = Σ_B w_t`` (seed 003; REFERENCE.md §3),
the privacy loss ratio is multiplied out — ``J_a·m(O, B) = max(0, J_a·w_b − E·J_b·w_a)/w_b``:

* APK (Definition 6):  ``APK_{a,b,B}·w_a·w_b = Σ_O max(0, J_a·w_b − E·J_b·w_a)`` when
  ``w_a, w_b > 0``; 0 when ``w_b = 0`` (Definition 5, condition 1) and no case when ``w_a = 0``;
* PPK (Definition 7): the expectation of ``m`` over ``(B, O) | D(i)=a``, term by term:
  ``q_B·w_b = Σ_O max(0, J_a·w_b − E·J_b·w_a)`` (``q_B = Σ_O J_a·m(O, B)``) and
  ``PPK_{a,b}·P_a = Σ_B q_B``;
* noiseless (Definition 3): APK of the table with ``B`` summed out;
* DP (Lemma 1): ``max`` over neighbours of ``Σ_O max(0, P[M(D1)=O] − E·P[M(D2)=O])``.

Each ``max(0, x)`` is ``If(x > 0, x, 0)``; a quotient by a non-constant polynomial is a fresh
variable ``v`` with ``v·den = num`` (and ``v = 0`` where ``den = 0``). A notion's δ is a fresh
variable equal to the largest case (and ≥ 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gmpy2 import mpq

from verifier.core.errors import InvalidArgument
from verifier.symbolic.parameters import Parameters, poly_terms
from verifier.symbolic.solver import Terms
from verifier.symbolic.tables import SymTable

MAX_DP_INPUTS = 512  # inputs whose symbolic laws symbolic DP compares

__all__ = ["Encoding"]

Term = Any
Poly = Any


def _scaled(cells: Sequence[Any]) -> tuple[list[Poly], Poly]:
    """Polynomials ``f·cell`` for one common factor ``f > 0`` where the cells are defined:
    the least common denominator ``L`` when it is a positive constant, else ``L²``."""
    if not cells:
        return [], None
    lcm = cells[0].denom
    for c in cells[1:]:
        lcm = lcm.lcm(c.denom)
    factor = lcm if lcm.is_ground and lcm.LC > 0 else lcm * lcm
    return [c.numer * factor.exquo(c.denom) for c in cells], factor


class Encoding:
    """Builds the δ terms of a symbolic instance; ``assertions`` collects their definitions."""

    def __init__(self, params: Parameters, rate: mpq | None):
        self.z = Terms()
        self.params = params
        self.vars = [self.z.real(name) for name in params.names]
        self.assertions: list[Term] = []
        for p, x in zip(params.items, self.vars, strict=True):
            if p.lower is not None:
                lo = self.z.const(p.lower)
                self.assertions.append(x > lo if p.lower_strict else x >= lo)
            if p.upper is not None:
                hi = self.z.const(p.upper)
                self.assertions.append(x < hi if p.upper_strict else x <= hi)
        if rate is None:
            self.E = self.z.real("E")
            self.assertions.append(self.E >= 1)
        else:
            self.E = self.z.const(rate)
        self.named = {name: x for name, x in zip(params.names, self.vars, strict=True)}
        if rate is None:
            self.named["E"] = self.E
        self._fresh = 0

    def poly(self, p: Poly) -> Term:
        return self.z.poly(poly_terms(p), self.vars)

    def fresh(self, prefix: str) -> Term:
        self._fresh += 1
        return self.z.real(f"{prefix}!{self._fresh}")

    def positive(self, p: Poly) -> Term | bool:
        """``p > 0``: a Python bool for a constant, else a z3 condition."""
        if p.is_ground:
            return bool(p.LC > 0) if p else False
        return self.poly(p) > 0

    def quotient(self, prefix: str, num: Term, den: Poly) -> Term:
        """``num/den`` (0 where ``den = 0``; ``den ≥ 0`` wherever it is used)."""
        if den.is_ground:
            return num * self.z.const(1 / mpq(int(den.LC.numerator), int(den.LC.denominator))) \
                if den else self.z.const(0)
        v = self.fresh(prefix)
        d = self.poly(den)
        self.assertions += [self.z.Implies(d > 0, v * d == num),
                            self.z.Implies(self.z.Not(d > 0), v == 0)]
        return v

    def _when(self, cond: Term | bool, value: Term) -> Term:
        if cond is True:
            return value
        if cond is False:
            return self.z.const(0)
        return self.z.If(cond, value, self.z.const(0))

    def _excess(self, ja: Poly, wb: Poly, jb: Poly, wa: Poly) -> Term:
        """``max(0, J_a·w_b − E·J_b·w_a)``."""
        return self.z.positive_part(self.poly(ja * wb) - self.E * self.poly(jb * wa))

    def table_cases(self, table: SymTable, pairs: Sequence[tuple]) -> dict:
        """``{(a, b): (PPK term or None, {B: APK term}, lemma-4 condition)}``."""
        keys = [(t, b, o) for t, by_b in table.cells.items() for b, row in by_b.items()
                for o in row]
        polys, _ = _scaled([table.cells[t][b][o] for t, b, o in keys])
        ring_zero: Any = polys[0] * 0 if polys else None
        J: dict = {}
        for (t, b, o), p in zip(keys, polys, strict=True):
            J.setdefault(t, {}).setdefault(b, {})[o] = p
        out = {}
        for a, b in pairs:
            apk, qs, weights = {}, [], []
            pa = ring_zero
            for bg in table.backgrounds():
                ra, rb = J.get(a, {}).get(bg, {}), J.get(b, {}).get(bg, {})
                if not ra:
                    continue
                wa = sum(ra.values(), ring_zero)
                wb = sum(rb.values(), ring_zero)
                pa = pa + wa
                s = self.z.Sum([self._excess(ra.get(o, ring_zero), wb, rb.get(o, ring_zero),
                                             wa) for o in set(ra) | set(rb)])
                both = self.positive(wa * wb)
                apk[bg] = self._when(both, self.quotient("apk", s, wa * wb))
                qs.append(self._when(self.positive(wb), self.quotient("q", s, wb)))
                weights.append((wa, apk[bg]))
            if not apk:
                out[(a, b)] = (None, apk, True)
                continue
            ppk = self._when(self.positive(pa), self.quotient("ppk", self.z.Sum(qs), pa))
            mixture = self.z.Sum([self.poly(w) * x for w, x in weights])
            lemma4 = self.z.Implies(self.poly(pa) > 0, ppk * self.poly(pa) == mixture)
            out[(a, b)] = (ppk, apk, lemma4)
        return out

    def worst(self, prefix: str, items: list[Term]) -> Term:
        m, defs = self.z.maximum(f"{prefix}!{len(self.assertions)}", items)
        self.assertions += defs
        return m

    def dp(self, kernel, pairs: Sequence[tuple[tuple, tuple]]) -> Term:
        """Classical DP δ over the ordered pairs ``x ~ y`` of the spec's neighbouring relation
        (seed 003, Lemma 1): ``max_{x~y} Σ_O max(0, P[M(x)=O] − E·P[M(y)=O])``."""
        inputs = dict.fromkeys(z for pair in pairs for z in pair)
        if len(inputs) > MAX_DP_INPUTS:
            raise InvalidArgument(f"dp over {len(inputs)} inputs (databases of the relation): "
                                  f"symbolic DP takes at most {MAX_DP_INPUTS}")
        rows = {x: kernel(x) for x in inputs}
        items = []
        zero = self.params.field.zero
        for x, y in pairs:
            r1, r2 = rows[x], rows[y]
            outs = sorted(set(r1) | set(r2), key=repr)
            cells = [r1.get(o, zero) for o in outs] + [r2.get(o, zero) for o in outs]
            polys, factor = _scaled(cells)
            k = len(outs)
            s = self.z.Sum([self.z.positive_part(self.poly(polys[j]) -
                                                 self.E * self.poly(polys[k + j]))
                            for j in range(k)])
            items.append(self.quotient("dp", s, factor))
        return self.worst("dp", items)
