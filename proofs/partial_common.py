"""What the partial-knowledge records share: the code's tables and δ, the reference's, and ε."""

from __future__ import annotations

from collections.abc import Iterable

from verifier import parse_epsilon
from verifier.core.delta import Delta
from verifier.core.epsilon import Epsilon
from verifier.engines.choice import joint_tables
from verifier.engines.joint import JointTable
from verifier.notions.partial.cases import apk_loss, ordered_pairs, ppk_loss

from . import reference as ref
from .families import Instance

_TABLES: dict = {}  # the instances of a family are the same objects in every record
_JOINTS: dict = {}
RATES = [ref.Fraction(1), ref.Fraction(2), ref.Fraction(5, 2)]  # E = e^ε, rational
EPSILONS = [parse_epsilon(e) for e in ("0", "ln(2)", "ln(5/2)")]


def table(inst: Instance, mech=None, engine: str = "auto") -> JointTable:
    """The code's joint table of the instance (or of ``mech`` on its data), computed once."""
    key = (inst, mech, engine)
    if key not in _TABLES:
        tables, _ = joint_tables(inst.model, mech or inst.mech, inst.knowledge, [inst.target],
                                 engine=engine)
        _TABLES[key] = tables[inst.target]
    return _TABLES[key]


def ref_joint(inst: Instance, mech=None) -> dict:
    """The reference's joint table ``J[t][B][O]``, computed once."""
    key = (inst, mech)
    if key not in _JOINTS:
        _JOINTS[key] = ref.joint(inst.model, mech or inst.mech, inst.knowledge, inst.target)
    return _JOINTS[key]


def q(d: Delta) -> ref.Fraction:
    return ref.F(d.value)


def worst(deltas: Iterable[Delta]) -> Delta | None:
    best = None
    for d in deltas:
        if best is None or d > best:
            best = d
    return best


def apk_ppk(jt: JointTable, eps: Epsilon) -> tuple[Delta | None, Delta | None]:
    """The code's worst APK δ and worst PPK δ over the ordered pairs."""
    pairs = ordered_pairs(jt.values)
    apk = worst(loss.delta(eps) for a, b in pairs for bg in jt.backgrounds()
                 if (loss := apk_loss(jt, a, b, bg)) is not None)
    ppk = worst(loss.delta(eps) for a, b in pairs if (loss := ppk_loss(jt, a, b)) is not None)
    return apk, ppk


def same(code: Delta | None, reference) -> bool:
    """The code's δ equals the reference's (both absent, or equal rationals)."""
    return (code is None) == (reference is None) and (code is None or q(code) == reference)


