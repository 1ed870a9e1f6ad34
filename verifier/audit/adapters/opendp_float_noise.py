"""OpenDP's ``make_laplace`` and ``make_gaussian`` on doubles: the lattice the library rounds
to, and the largest shift two neighbouring inputs can make on it.

**What the library does** (OpenDP 0.16, ``measurements/noise/nature/float``), on
``atom_domain(T=f64, nan=False)`` with ``absolute_distance``, or on
``vector_domain(…, size=n)`` with ``l1_distance`` (Laplace) or ``l2_distance`` (Gaussian),
at the granularity ``k`` (default −1074, the spacing of the subnormal doubles):

1. each coordinate ``x`` (clamped to the finite doubles) is read as the rational it is and
   rounded to the nearest multiple of ``u = 2^k``, ties up: ``c = ⌊x/u + 1/2⌋``
   (``find_nearest_multiple_of_2k``);
2. integer noise at the scale ``scale·2^−k`` (the double read exactly) is added: the
   discrete Laplace or discrete Gaussian, sampled exactly (Canonne, Kamath and Steinke,
   *The Discrete Gaussian for Differential Privacy*, 2020);
3. each ``z·u`` is released as the nearest double (``to_f64``, saturating to ±∞).

Its map: ``d_in′ = (d_in + r)·2^−k`` with the rounding allowance ``r = n·(u − 2^−1074)``
(L1) or ``⌈√n⌉_f64·(u − 2^−1074)`` (L2), ``0`` when ``k = −1074``; then ``ε = d_in′/scale′``
or ``ρ = (d_in′/scale′)²/2``, each rounded up to a double (``scale′ = scale·2^−k``).

**The tight value.** Two inputs whose roundings differ by ``s_i`` lattice steps in each
coordinate give the lattice laws ``c + Z`` and ``c′ + Z``:

* Laplace: the loss is ``Σ±|s_i|/scale′`` on outputs beyond both centres in every
  coordinate, and the release's rounding to doubles merges lattice points beyond both
  centres only with each other (it is monotone), whose ratio is that same constant: the tight
  ε of the release is ``‖s‖₁·u/scale`` exactly, largest at the largest ``‖s‖₁``;
* Gaussian: ``ρ = ‖s‖₂²·u²/(2·scale²)`` on the lattice (CKS20); the rounding to doubles is
  post-processing, and merges only lattice points at ``|z| ≥ 2^53`` (below, ``z·u`` is a
  double), so at the witness ``ρ ≥ ρ_lattice + ln(1 − r)/2`` with ``r`` the merged share
  (:func:`~verifier.audit.adapters.opendp_noise.saturation_loss` at ``2^53``): an enclosure.

**The largest shift.** The rounding thresholds are ``t_m = (m + 1/2)·u``. Doubles ``x < x′``
whose roundings differ by ``c ≥ 1`` straddle ``c`` consecutive thresholds, so
``x′ − x ≥ (c − 1)·u + (t_m − x) ≥ (c − 1)·u + η`` with ``η = u/2 − pred(u/2)``, the least
gap below a threshold: doubles are no denser away from 0, and a threshold that is not a double
lies halfway between multiples of ``u``, at least ``u/2`` from every double. So a distance
``d`` buys at most ``1 + ⌊(d − η)/u⌋`` steps (none when ``d < η``), and ``pred(u/2)`` against
``(c − 1/2)·u`` attains it. Over L1, ``j`` coordinates that each cross once more cost ``η``
each: at most ``j + ⌊(d_in − j·η)/u⌋`` steps, largest at ``j = min(n, ⌊d_in/η⌋)``; over L2,
``s_i ≤ d_i/u + 1 − η/u`` gives ``‖s‖₂ ≤ d_in/u + √n·(1 − η/u)``, with the one-coordinate
witness below. At ``k = −1074`` every double is on the lattice: ``s = (x′ − x)/u``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence

from gmpy2 import mpq, mpz

from verifier.audit.adapters import double_of
from verifier.audit.adapters.opendp_args import (
    NegativeClaim,
    claim_epsilon,
    int_arg,
    opendp,
    scale_arg,
    verdict,
)
from verifier.audit.adapters.opendp_noise import saturation_loss
from verifier.audit.case import AuditCase, AuditRow, Enclosure
from verifier.audit.judge import ratio, read_double
from verifier.core.binary64 import F64
from verifier.core.epsilon import Epsilon
from verifier.core.errors import InvalidArgument
from verifier.core.numbers import format_rational

__all__ = ["float_or", "lattice_index", "max_steps", "l1_steps", "KMIN", "KMAX", "MAX_SIZE"]

KMIN = -1074  # the library's default k for f64: 2^k is the spacing of the subnormals
KMAX = 970  # the first 2^53 lattice points z·2^k are finite doubles
MAX_SIZE = 1000  # the witness shows every coordinate
_EXACT = 2 ** 53  # |z| < 2^53: z·u is a double, so the release does not merge it
_ROOT_BITS = 256  # √n rounded up to a multiple of 2^-256


def float_or(int_row: Callable[[AuditCase], AuditRow]) -> Callable[[AuditCase], AuditRow]:
    """``int_row`` for an integer input; the float lattice (this module) when ``args.T``
    names a float type."""
    def run(case: AuditCase) -> AuditRow:
        return float_row(case) if "T" in case.args else int_row(case)
    return run


def lattice_index(x: mpq, u: mpq) -> int:
    """``⌊x/u + 1/2⌋``: the multiple of ``u`` nearest to ``x``, ties up."""
    q = x / u + mpq(1, 2)
    return int(mpz(q.numerator) // mpz(q.denominator))


def _gap(u: mpq) -> mpq:
    """``η = u/2 − pred(u/2)`` (``u/2`` a double)."""
    half = _half(u)
    return half.exact - F64(math.nextafter(half.double, 0.0)).exact  # float ok: pred(u/2)


def _half(u: mpq) -> F64:
    """``u/2 = 2^(k−1)`` as the double it is (int / int is correctly rounded: exact)."""
    return F64(int(u.numerator) / (2 * int(u.denominator)))


def max_steps(d: mpq, u: mpq, eta: mpq | None) -> int:
    """The most lattice steps two doubles at distance ``≤ d`` round apart (see the module;
    ``eta`` is ``None`` at ``k = −1074``, where every double is on the lattice)."""
    if eta is None:
        return int(d / u)  # d is a double: a multiple of 2^-1074
    return 0 if d < eta else 1 + int((d - eta) / u)


def l1_steps(d: mpq, u: mpq, eta: mpq | None, n: int) -> tuple[int, int]:
    """``(T, j)``: the most steps summed over ``n`` coordinates at L1 distance ``≤ d``, and the
    number of coordinates that cross a threshold in the witness."""
    if eta is None:
        return int(d / u), 1 if d > 0 else 0
    j = min(n, int(d / eta))
    return (j + int((d - j * eta) / u) if j else 0), j


def _double(x: mpq) -> F64 | None:
    """``x`` as a double when it is one exactly."""
    try:
        d = F64(int(x.numerator) / int(x.denominator))
    except (OverflowError, InvalidArgument):
        return None
    return d if d.exact == x else None


def _crossing(c: int, u: mpq, eta: mpq | None) -> tuple[F64, F64] | None:
    """Two doubles ``c`` lattice steps apart at the least distance (see the module)."""
    if c == 0:
        return F64(0.0), F64(0.0)
    if eta is None:
        right = _double(c * u)
        return (F64(0.0), right) if right is not None else None
    right = _double((2 * c - 1) * u / 2)
    below = F64(math.nextafter(_half(u).double, 0.0))  # float ok: pred(u/2) = u/2 − η
    return (below, right) if right is not None else None


def l2_greedy(d: mpq, u: mpq, eta: mpq | None, n: int) -> list[int]:
    """Steps per coordinate at L2 distance ``≤ d``, each coordinate taking the most the
    budget left allows (a witness: a lower bound on the largest ``‖s‖₂``)."""
    def cost(c: int) -> mpq:
        return mpq(0) if c == 0 else c * u if eta is None else (c - 1) * u + eta
    out, left = [], d * d
    for _ in range(n):
        q = left / (u * u)
        c = math.isqrt(int(q.numerator) // int(q.denominator)) + 1  # ≈ √left/u, then exact
        while c > 0 and cost(c) ** 2 > left:
            c -= 1
        out.append(c)
        left -= cost(c) ** 2
        if c == 0:
            break
    return out + [0] * (n - len(out))


def _witness(size: int | None, d: mpq, u: mpq, eta: mpq | None, l2: bool) -> tuple:
    """Two inputs (doubles, or vectors of them) at distance ≤ ``d`` whose roundings are as far
    apart as :func:`max_steps` / :func:`l1_steps` allow — over L2, :func:`l2_greedy`'s — or
    ``()`` when one of them is not a double."""
    if size is None:
        return _crossing(max_steps(d, u, eta), u, eta) or ()
    if l2:
        counts = l2_greedy(d, u, eta, size)
    else:
        total, j = l1_steps(d, u, eta, size)
        counts = [total - max(j - 1, 0)] + [1] * max(j - 1, 0) + [0] * (size - max(j, 1))
    cols = [_crossing(c, u, eta) for c in counts]
    if any(c is None for c in cols):
        return ()
    return tuple(c[0] for c in cols if c), tuple(c[1] for c in cols if c)


def _shift(left: tuple | F64, right: tuple | F64, u: mpq) -> tuple[list[int], list[mpq]]:
    """The lattice steps and the distances, coordinate by coordinate, of a witness."""
    xs = left if isinstance(left, tuple) else (left,)
    ys = right if isinstance(right, tuple) else (right,)
    steps = [abs(lattice_index(b.exact, u) - lattice_index(a.exact, u))
             for a, b in zip(xs, ys, strict=True)]
    return steps, [abs(b.exact - a.exact) for a, b in zip(xs, ys, strict=True)]


def _short(text: str) -> str:
    return text if len(text) <= 40 else f"{text[:12]}… ({len(text)} characters)"


def _root_up(n: int) -> mpq:
    """A rational ``≥ √n``, exact when ``n`` is a square."""
    r = math.isqrt(n)
    if r * r == n:
        return mpq(r)
    return mpq(math.isqrt(n << (2 * _ROOT_BITS)) + 1, 1 << _ROOT_BITS)


def _k(case: AuditCase) -> int:
    return int_arg(case, "args.k", case.arg("k"), KMIN, KMAX) if "k" in case.args else KMIN


def float_row(case: AuditCase) -> AuditRow:
    """``make_laplace`` / ``make_gaussian`` with ``args.T = "f64"`` (see the module)."""
    case.only(("scale", "T", "k", "size"), d_in=True)
    if case.args["T"] != "f64":
        raise InvalidArgument(f"args.T = {case.args['T']!r:.20}: plrv models the f64 lattice "
                              f"only (\"f64\"; an integer input takes no args.T)",
                              argument="args.T", value=case.args["T"])
    dp = opendp()
    scale = scale_arg(case)
    k = _k(case)
    size = int_arg(case, "args.size", case.arg("size"), 1, MAX_SIZE) \
        if "size" in case.args else None
    notes: list[str] = []
    d_in, note = double_of(case.d_in if case.d_in is not None else 1, "d_in")
    if note:
        notes.append(note)
    if d_in.exact < 0:
        raise InvalidArgument(f"d_in = {d_in}: a distance is ≥ 0", argument="d_in",
                              value=str(d_in))
    gauss = case.constructor == "make_gaussian"
    atom = dp.atom_domain(T=float, nan=False)
    if size is None:
        domain, metric = atom, dp.absolute_distance(T=float)
    else:
        domain = dp.vector_domain(atom, size=size)
        metric = (dp.l2_distance if gauss else dp.l1_distance)(T=float)
    meas = getattr(dp.m, case.constructor)(domain, metric, scale=scale.double, k=k)
    u = mpq(2) ** k
    eta = None if k == KMIN else _gap(u)
    d = d_in.exact
    pair = _witness(size, d, u, eta, gauss)
    steps, dists = _shift(pair[0], pair[1], u) if pair else ([], [])
    if pair and (sum(x * x for x in dists) > d * d if gauss else sum(dists) > d):
        pair, steps = (), []  # the witness is checked, not trusted: its distance, exactly
    notes.append(f"scale = {scale} = {format_rational(scale.exact)}, k = {k}: inputs rounded "
                 f"to multiples of 2^{k}, noise at scale·2^{-k} on that lattice")
    if gauss:
        return _gaussian(case, meas.map(d_in.double), (d, u, eta), size, scale.exact, pair,
                         steps, notes)
    total = (l1_steps(d, u, eta, size)[0] if size is not None else max_steps(d, u, eta))
    claim, _ = claim_epsilon(meas.map(d_in.double))
    eps = total * u / scale.exact
    tight = Epsilon.of_nats(eps)
    exact = bool(pair) and sum(steps) == total
    value: Epsilon | Enclosure = tight if exact else \
        Enclosure(Epsilon.of_nats(sum(steps, 0) * u / scale.exact), tight)
    holds = True if not isinstance(claim, F64) or claim.exact >= eps else \
        False if exact else None
    notes.append(f"the most lattice steps at L1 distance ≤ d_in: {_short(str(total))}; "
                 f"tight ε = steps·2^{k}/scale")
    witness = {"inputs": pair, "outputs": "beyond both centres (loss ±steps·2^k/scale)"} \
        if pair else {}
    return AuditRow(case, claim, mpq(0), mpq(0) if holds else None, value, verdict(holds),
                    ratio(claim, tight), "exact" if exact else "enclosure", witness,
                    tuple(notes))


def _gaussian(case: AuditCase, value: object, lattice: tuple[mpq, mpq, mpq | None],
              size: int | None, scale: mpq, pair: tuple, steps: list[int],
              notes: list[str]) -> AuditRow:
    d, u, eta = lattice
    claimed = read_double(float(value))  # type: ignore[arg-type]  # float ok: the library's ρ, read exactly
    if claimed == float("inf"):  # float ok: ρ = ∞ bounds every divergence: vacuous
        return AuditRow(case, Epsilon.INF, None, None, None, "sound", None, "exact", {},
                        ("the library claims ρ = ∞: vacuous, hence sound",))
    if not isinstance(claimed, F64):
        raise InvalidArgument(f"the library returned ρ = {claimed!r}", argument="d_in")
    if claimed.exact < 0:
        raise NegativeClaim(claimed)
    coef = u * u / (2 * scale * scale)  # ρ per squared lattice step
    if size is None or eta is None:
        top = max_steps(d, u, eta) if size is None else int(d / u)
        upper = coef * top * top
    else:
        bound = d + _root_up(size) * (u - eta)
        upper = bound * bound / (2 * scale * scale)
    sigma = scale / u  # each coordinate's ρ at the witness, less the share the rounding merges
    exact = all(2 * s < _EXACT for s in steps)  # else the witness's centres are not doubles
    lower = max(sum((coef * s * s - saturation_loss(1 / (2 * sigma * sigma), s, _EXACT)
                     for s in steps if s and exact), mpq(0)), mpq(0))
    holds = True if claimed.exact >= upper else False if claimed.exact < lower else None
    notes.insert(0, "zCDP: the ε columns hold ρ (the library's ZeroConcentratedDivergence)")
    notes.append(f"tight ρ ≤ {_short(format_rational(upper))} (the most lattice steps at L2 "
                 f"distance ≤ d_in); ≥ the witness's steps "
                 f"({', '.join(_short(str(s)) for s in steps[:8])}{'…' if len(steps) > 8 else ''})"
                 f" less the share the rounding to doubles merges")
    witness = {"inputs": pair, "orders": "α = 2 (every integer α on the lattice)"} if pair else {}
    return AuditRow(case, claimed, None, None, Enclosure(lower, upper), verdict(holds),
                    ratio(claimed, Epsilon.of_nats(upper)), "enclosure", witness, tuple(notes))


# ------------------------------------------------------------------ --conformance (scalars)

TAIL = 60
_MAX_LATTICE_SCALE = mpq(2) ** 20


def lattice_of(case: AuditCase, x: object) -> tuple[mpq, int, mpq]:
    """``(u, centre, scale′)`` of a scalar float case at the input ``x``, where the release's
    doubles are lattice points one by one (refused otherwise, naming the key)."""
    if "size" in case.args:
        raise InvalidArgument("conformance of a float vector: plrv tests scalars only",
                              argument="args.size", value=case.args["size"])
    k = _k(case)
    u = mpq(2) ** k
    scale = scale_arg(case).exact / u
    if scale > _MAX_LATTICE_SCALE or not isinstance(x, F64):
        raise InvalidArgument(f"args.k = {k}: the noise spans more than 2^20 lattice points "
                              f"(scale·2^-k), too many to test cell by cell",
                              argument="args.k", value=k)
    return u, lattice_index(x.exact, u), scale


def lattice_draws(case: AuditCase, x: F64, n: int) -> Sequence[Hashable]:
    """``n`` releases of the library at ``x``, as lattice indices (the release over ``u``)."""
    dp = opendp()
    u, centre, _ = lattice_of(case, x)
    k = _k(case)
    meas = getattr(dp.m, case.constructor)(dp.atom_domain(T=float, nan=False),
                                           dp.absolute_distance(T=float),
                                           scale=scale_arg(case).double, k=k)
    out: list[Hashable] = []
    for _ in range(n):
        z = F64(meas(x.double)).exact / u
        i = int(z) if z.denominator == 1 else ("off the lattice", str(z))
        out.append(i if isinstance(i, tuple) or abs(i - centre) <= TAIL else
                   (("≥", centre + TAIL + 1) if i > centre else ("≤", centre - TAIL - 1)))
    return out
