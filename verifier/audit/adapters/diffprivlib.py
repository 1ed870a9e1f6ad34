"""diffprivlib's float-driven mechanisms: the law implied by its ``k/2^53`` random draws.

Every draw of diffprivlib (``secrets.SystemRandom().random()``, or a numpy ``RandomState``)
is ``k·2^-53`` with ``k`` uniform on ``0 … 2^53 − 1``, and a mechanism's output is a
deterministic function of ``k`` computed in binary64. Its law is therefore a law of
integers over ``2^53``: the output at ``k`` is read from the library itself, by running its
``randomise`` with a random source that returns ``k·2^-53``.

* ``Binary(epsilon, value0, value1)`` (randomised response; Holohan, Leith and Mason,
  "Optimal Differentially Private Mechanisms for Randomised Response", 2017) flips when
  ``fl(u·fl(e^ε + 1)) > fl(e^ε)`` (``e^ε`` as numpy computes it). The rounded product is
  non-decreasing in ``k`` (IEEE 754 rounding is monotone), so the outputs are kept exactly
  for ``k < k₀``: ``k₀`` is computed in exact rationals from the round-to-nearest-even rule
  and checked against the library at ``k₀ − 1`` and ``k₀``. Exact: the tight ε is
  ``ln(k₀/(2^53 − k₀))``.
* ``Geometric(epsilon, sensitivity)`` and
  ``GeometricTruncated(epsilon, sensitivity, lower, upper)`` (Ghosh, Roughgarden and
  Sundararajan, "Universally Utility-Maximizing Privacy Mechanisms", 2009) draws its noise as
  ``±floor(log|u'|/scale)`` from ``u' = fl((u − 1/2)·fl(1 + e^scale))``: its noise reaches
  only as far as ``|u'| ≥ 2^-53`` allows (``k = 2^52`` gives ``u' = 0`` and an
  ``OverflowError``). The law is counted by bisection over ``k`` on the two monotone halves,
  which assumes numpy's ``log`` is monotone (it is not specified by IEEE 754): the values
  are a **proxy**. When some output is reached from one input and not from a neighbour —
  bounds wider than the noise reaches — the exact ε is ∞: the output is exhibited by
  running the library at a concrete ``k``, and its absence at the neighbour rests only on
  numpy's ``log`` erring by less than the step ``ε/sensitivity`` nats near ``2^-53``
  (documented to a few ulps). Such a case is ``unsound``; any other is ``unknown``.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Callable, Hashable, Sequence

from gmpy2 import mpq, mpz

from verifier.audit.adapters import double_arg, in_range, positive_count, quiet
from verifier.audit.case import AuditCase, AuditRow
from verifier.audit.judge import curve, judge
from verifier.audit.registry import Adapter
from verifier.core.binary64 import F64
from verifier.core.distribution import Dist
from verifier.core.errors import BudgetExceeded, InvalidArgument

__all__ = ["ADAPTER", "DRAWS", "binary_threshold"]

DRAWS = 1 << 53  # k/2^53, k = 0 … 2^53 − 1
MAX_OUTPUTS = 20_000  # distinct outputs of one input counted by bisection
OVERFLOW = "OverflowError"  # the outcome at k = 2^52 for the geometric (u' = 0)


class _Draw(secrets.SystemRandom):
    """A random source whose every draw is ``k·2^-53`` (passed as diffprivlib's
    ``random_state``: an instance of ``SystemRandom`` is used as it is)."""

    def __init__(self, k: int) -> None:  # no seeding: the draw is fixed
        self.k = k

    def random(self) -> float:
        return self.k * 2.0 ** -53


# ------------------------------------------------------------------------- Binary


def _next_up(x: float) -> float:
    return math.nextafter(x, math.inf)


def _even(x: float) -> bool:
    m, _ = math.frexp(x)
    return int(m * 2 ** 53) % 2 == 0


def binary_threshold(e: float) -> int:
    """The least ``k`` with ``fl(k·2^-53 · fl(e + 1)) > e`` (exact rationals), or ``2^53``
    when no draw flips: ``e = inf`` (``u·inf`` is ``inf`` or NaN, never above ``inf``) or
    ``fl(e + 1) = e`` (``e ≥ 2^53``: ``u·e < e`` for every ``u < 1``)."""
    if math.isinf(e):
        return DRAWS
    e1 = F64(e + 1.0).exact  # fl(e + 1): Python's + is IEEE addition
    if e1 == F64(e).exact:
        return DRAWS
    up = _next_up(e)
    mid = (F64(e).exact + F64(up).exact) / 2  # products above round above e
    k = mpz((mid * DRAWS / e1).numerator // (mid * DRAWS / e1).denominator)
    if k * e1 / DRAWS == mid:  # a tie rounds to the even neighbour
        return int(k) if _even(up) else int(k) + 1
    return int(k) + 1


def _binary_mech(case: AuditCase, k: int | None = None):  # a diffprivlib Binary
    from diffprivlib.mechanisms import Binary

    notes: list[str] = []
    eps = in_range(double_arg(case, "epsilon", notes), "args.epsilon", gt=0,
                   why=" (the library refuses ε = δ = 0 and a negative ε)")
    v0, v1 = case.arg("value0"), case.arg("value1")
    if not isinstance(v0, str) or not isinstance(v1, str) or not v0 or not v1 or v0 == v1:
        raise InvalidArgument("args.value0 and args.value1 must be two different non-empty "
                              "strings", argument="args.value0", value=v0)
    rng = _Draw(k) if k is not None else None
    return quiet(Binary, epsilon=eps.double, value0=v0, value1=v1, random_state=rng), notes


def _exp(epsilon: float) -> float:
    """``e^ε`` as the library computes it (``np.exp``; ``inf`` past the doubles, silently)."""
    import numpy as np

    with np.errstate(over="ignore"):
        return float(np.exp(epsilon))


def _binary_law(case: AuditCase, x: object) -> Dist:
    mech, _ = _binary_mech(case)
    keep = mpq(binary_threshold(_exp(mech.epsilon)), DRAWS)
    other = mech.value1 if x == mech.value0 else mech.value0
    return Dist({x: keep, other: 1 - keep})


def _binary(case: AuditCase) -> AuditRow:
    case.only(("epsilon", "value0", "value1"), inputs=False)
    mech, notes = _binary_mech(case)
    if mech.delta != 0.0:
        raise InvalidArgument(f"delta = {mech.delta}: the Binary mechanism is audited at "
                              f"delta 0", argument="args.delta")
    e = _exp(mech.epsilon)
    k0 = binary_threshold(e)
    draws = (k0 - 1, k0) if k0 < DRAWS else (k0 - 1,)  # k = 2^53 is no draw
    kept = [quiet(_binary_mech(case, k)[0].randomise, mech.value0) for k in draws]
    p = _binary_law(case, mech.value0)
    q = _binary_law(case, mech.value1)
    witness = {"inputs": [mech.value0, mech.value1], "outputs": [mech.value0],
               "draws": f"k < {k0} keep the input (of 2^53)"}
    if kept != [mech.value0, mech.value1][:len(draws)]:
        return AuditRow(case, F64(mech.epsilon), F64(mech.delta), None, None, "unknown", None,
                        "proxy", witness, (*notes, f"the library at k = {k0 - 1}, {k0} gave "
                                          f"{kept}, not the modelled threshold"))
    notes.append(f"draws k/2^53: the input is kept for k < {k0}, i.e. with probability "
                 f"{k0}/2^53 (e^epsilon = {F64(e) if math.isfinite(e) else e} as numpy "
                 f"computes it{'; no draw flips the input' if k0 == DRAWS else ''})")
    return judge(case, F64(mech.epsilon), F64(mech.delta), curve([(p, q)], 1), witness, notes)


# ------------------------------------------------------------- truncated geometric


def _counts(f: Callable[[int], Hashable], lo: int, hi: int, out: dict) -> None:
    """Add to ``out[value] = [count, k]`` how many ``k`` in ``[lo, hi)`` give each value of
    the monotone ``f``, and one such ``k`` (a range whose ends agree is taken as constant)."""
    stack = [(lo, hi, f(lo), f(hi - 1))]
    while stack:
        a, b, fa, fb = stack.pop()
        if fa == fb:
            out.setdefault(fa, [0, a])[0] += b - a
            continue
        if len(out) > MAX_OUTPUTS:
            raise BudgetExceeded(f"more than {MAX_OUTPUTS} distinct outputs of one input",
                                 argument="args")
        mid = (a + b) // 2
        fm, fm1 = f(mid - 1), f(mid)
        stack.append((a, mid, fa, fm))
        stack.append((mid, b, fm1, fb))


def _geometric_params(case: AuditCase) -> tuple[F64, int, int | None, int | None, list[str]]:
    """epsilon, sensitivity and (GeometricTruncated) the bounds, checked."""
    notes: list[str] = []
    eps = in_range(double_arg(case, "epsilon", notes), "args.epsilon", gt=0)
    sens = positive_count(case.args.get("sensitivity", 1), "args.sensitivity")
    if case.constructor == "Geometric":
        return eps, sens, None, None, notes
    lower = case.arg("lower")
    upper = case.arg("upper")
    for name, v in (("lower", lower), ("upper", upper)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise InvalidArgument(f"args.{name} = {v!r} is not an integer",
                                  argument=f"args.{name}", value=v)
    assert isinstance(lower, int) and isinstance(upper, int)
    if lower >= upper:
        raise InvalidArgument(f"args.lower = {lower} is not below args.upper = {upper}",
                              argument="args.lower", value=lower)
    return eps, sens, lower, upper, notes


def _geometric_mech(case: AuditCase, k: int | None = None):  # a diffprivlib Geometric
    """The case's Geometric or GeometricTruncated, drawing ``k·2^-53`` when ``k`` is given
    (else from the library's own secure source)."""
    from diffprivlib.mechanisms import Geometric, GeometricTruncated

    eps, sens, lower, upper, _ = _geometric_params(case)
    rng = None if k is None else _Draw(k)
    if case.constructor == "Geometric":
        return quiet(Geometric, epsilon=eps.double, sensitivity=sens, random_state=rng)
    return quiet(GeometricTruncated, epsilon=eps.double, sensitivity=sens, lower=lower,
                 upper=upper, random_state=rng)


def _draw(mech, x: int) -> Hashable:  # mech: a diffprivlib Geometric
    """One output, the OverflowError of the draw u = 1/2 (|u'| = 0) as an outcome."""
    try:
        return int(quiet(mech.randomise, x))
    except OverflowError:
        return OVERFLOW


def _geometric_output(case: AuditCase, x: int, k: int) -> Hashable:
    return _draw(_geometric_mech(case, k), x)


def _geometric_counts(case: AuditCase, x: int) -> dict:
    """``{output: [count of k, one such k]}`` over the 2^53 draws, on input ``x``."""
    half = DRAWS // 2  # k = 2^52: u − 1/2 = 0

    def f(k: int) -> Hashable:
        return _geometric_output(case, x, k)

    counts: dict = {}
    _counts(f, 0, half, counts)
    _counts(f, half, half + 1, counts)
    _counts(f, half + 1, DRAWS, counts)
    return counts


def _geometric_law(case: AuditCase, x: object) -> Dist:
    assert isinstance(x, int)
    return Dist({o: mpq(c, DRAWS) for o, (c, _) in _geometric_counts(case, x).items()})


def _inputs(case: AuditCase, lower: int | None, upper: int | None) -> list[int]:
    if case.inputs is None:
        raise InvalidArgument("inputs is missing: the integers the mechanism is run on",
                              argument="inputs")
    out = []
    for i, v in enumerate(case.inputs):
        if isinstance(v, bool) or not isinstance(v, int) or (
                lower is not None and upper is not None and not lower <= v <= upper):
            raise InvalidArgument(f"inputs[{i}] = {v!r} is not an integer"
                                  f"{'' if lower is None else ' in [lower, upper]'}",
                                  argument="inputs", value=v)
        out.append(v)
    return out


def _geometric(case: AuditCase) -> AuditRow:
    bounds = ("lower", "upper") if case.constructor == "GeometricTruncated" else ()
    case.only(("epsilon", "sensitivity", *bounds), d_in=True, inputs=True)
    eps, sens, lower, upper, notes = _geometric_params(case)
    d_in = positive_count(case.d_in if case.d_in is not None else sens, "d_in")
    xs = _inputs(case, lower, upper)
    pairs = [(x, y) for x in xs for y in xs if x != y and abs(x - y) <= d_in]
    if not pairs:
        raise InvalidArgument(f"no two inputs within d_in = {d_in} of each other",
                              argument="inputs")
    mech = _geometric_mech(case)
    claim_e, claim_d = F64(float(mech.epsilon)), F64(float(mech.delta))
    counts = {x: _geometric_counts(case, x) for x in {v for pair in pairs for v in pair}}
    laws = {x: Dist({o: mpq(c, DRAWS) for o, (c, _) in cs.items()})
            for x, cs in counts.items()}
    notes.append("the law is counted over the 2^53 draws assuming numpy's log is monotone: "
                 "a proxy (never sound)")
    worst = None
    for x, y in pairs:
        c = curve([(laws[x], laws[y])], 1)
        e = c.lower.epsilon(mpq(0))
        if worst is None or e.compare(worst[0]) > 0:
            worst = (e, x, y, c)
    assert worst is not None
    e, x, y, c = worst
    witness: dict = {"inputs": [x, y]}
    if e.infinite:
        o = next(o for o, _ in laws[x].items() if laws[y][o] == 0)
        k = counts[x][o][1]
        if _geometric_output(case, x, k) != o:  # the representative draw, run again
            raise InvalidArgument(f"the library's output at draw {k} changed between runs",
                                  argument="args")
        witness |= {"outputs": [o], "draw": k, "masses": [str(laws[x][o]), "0"]}
        notes.append(f"exact ε = inf: the library outputs {o} on input {x} at draw k = {k} "
                     f"(of 2^53); on input {y} the output {o} is beyond the noise's reach "
                     f"(numpy's log would have to err by about the step {eps.double / sens} "
                     f"nats near 2^-53 to reach it)")
    row = judge(case, claim_e, claim_d, c, witness, notes)
    if e.infinite:
        return AuditRow(case, row.claim_epsilon, row.claim_delta, row.tight_delta,
                        row.tight_epsilon, "unsound", row.ratio, "proxy", row.witness,
                        row.notes)
    return AuditRow(case, row.claim_epsilon, row.claim_delta, row.tight_delta,
                    row.tight_epsilon, "unknown", row.ratio, "proxy", row.witness,
                    (*row.notes, f"the proxy law alone would make it {row.verdict}; its "
                     f"counts rest on numpy's log being monotone, so the verdict is unknown"))


# --------------------------------------------------------------------- conformance


def _sample(case: AuditCase, x: object, n: int) -> Sequence[Hashable]:
    if case.constructor == "Binary":
        mech, _ = _binary_mech(case)
        return [mech.randomise(x) for _ in range(n)]
    assert isinstance(x, int)
    mech = _geometric_mech(case)
    return [_draw(mech, x) for _ in range(n)]


def _law(case: AuditCase, x: object) -> Dist:
    return _binary_law(case, x) if case.constructor == "Binary" else _geometric_law(case, x)


ADAPTER = Adapter("diffprivlib", "diffprivlib",
                  {"Binary": _binary, "Geometric": _geometric,
                   "GeometricTruncated": _geometric}, _sample, _law)
