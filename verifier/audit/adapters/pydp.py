"""Google's differential privacy through python-dp (``pip install -e '.[pydp]'``, imported
as ``pydp``): the Laplace mechanism on doubles, against the lattice law its source specifies
(:mod:`~verifier.audit.adapters.pydp_laws`).

``pydp.algorithms.numerical_mechanisms.LaplaceMechanism(epsilon, sensitivity)`` claims
``ε``-DP (its ``epsilon``) for inputs at most ``sensitivity`` apart. Its release on a double
``x`` is ``R(x) + Z·g``: ``x`` rounded to the lattice ``gℤ``, plus two-sided geometric noise
with ``P(Z = k) ∝ e^{−λ|k|}``. The pair whose lattice points are ``c`` steps apart has
tight ε exactly ``λ·c`` — a rational, ``λ`` being a double — and ``c`` is the most steps
any two neighbouring inputs land apart: over every double by default (``⌈Δ/g⌉`` when a
pair of doubles reaches it), over the ``inputs`` when the case lists them.

That law is the one the source *specifies*; the implementation draws the geometric by a
binary search over ``[0, 2^63)`` whose ~63 branch probabilities are computed in doubles
(``expm1``, ``log1p``, ``exp``) and compared with ``UniformDouble()``, and converts the draw
``k`` to a double (exact below ``2^53``). Its law is therefore a **proxy** here: a case is
never ``sound``. It is ``unsound`` when the specified law exceeds the claim by more than
``MARGIN`` nats — far beyond what the rounding of the branch probabilities (relative errors
of a few ulps each, about ``2^−45`` over the whole search) could take back — or exactly,
when the granularity is 0: then the output is the input (no noise), ``ε = ∞``. Otherwise
``unknown``, the notes saying which side of the claim the specified law falls — except when
every neighbouring pair of the ``inputs`` rounds to one lattice point: the two releases then
have one law whatever the sampler does, ``ε = 0``, ``sound`` exactly.

``GaussianMechanism``, ``Count`` and ``BoundedSum`` are refused with the reason.
"""

from __future__ import annotations

from gmpy2 import mpq

from verifier.audit.adapters import double_of, quiet
from verifier.audit.adapters.accountants import version_of
from verifier.audit.adapters.pydp_laws import (
    LaplaceLattice,
    laplace_lattice,
    round_to_lattice,
    widest_pair,
)
from verifier.audit.case import AuditCase, AuditRow
from verifier.audit.judge import ratio
from verifier.audit.registry import Adapter
from verifier.core.binary64 import F64
from verifier.core.epsilon import Epsilon
from verifier.core.errors import InvalidArgument
from verifier.core.numbers import format_rational

__all__ = ["ADAPTER", "MARGIN", "MAX_INPUTS"]

MARGIN = mpq(1, 2 ** 20)  # nats: an excess the binary search's rounding cannot take back
MAX_INPUTS = 1000


def _double(case: AuditCase, key: str, default: F64 | None, notes: list[str]) -> F64:
    raw = case.args.get(key)
    if raw is None:
        if default is None:
            case.arg(key)  # raises, naming args.key
        assert default is not None
        return default
    d, note = double_of(raw, f"args.{key}")
    if note:
        notes.append(note)
    return d


def _inputs(case: AuditCase, notes: list[str]) -> list[F64] | None:
    """``inputs``: doubles (``{f64 = …}`` or rational strings, handed to ``add_noise`` as that
    double); an integer is refused (python-dp would take the integer path)."""
    if case.inputs is None:
        return None
    if not 2 <= len(case.inputs) <= MAX_INPUTS:
        raise InvalidArgument(f"inputs: list from 2 to {MAX_INPUTS} doubles",
                              argument="inputs", value=len(case.inputs))
    out: list[F64] = []
    for i, v in enumerate(case.inputs):
        if isinstance(v, bool):
            raise InvalidArgument(f"inputs[{i}] = {v!r} is a boolean, not a double",
                                  argument="inputs", value=v)
        if isinstance(v, int):
            raise InvalidArgument(
                f"inputs[{i}] = {v!r}: an integer would take python-dp's integer path "
                f"(AddInt64Noise: the noise rounded to an integer), whose law plrv does not "
                f"model; write the double, {{f64 = \"{v}\"}}", argument="inputs", value=v)
        d, note = double_of(v, f"inputs[{i}]")
        if note:
            notes.append(note)
        out.append(d)
    return list(dict.fromkeys(out))


def _widest(lat: LaplaceLattice, xs: list[F64] | None) -> tuple[F64, F64, int]:
    """The neighbouring pair (at most Δ apart) whose lattice points are furthest apart, and
    how many steps (for ``g = 0``: the inputs themselves, steps 1 if they differ)."""
    sens, g = lat.sensitivity.exact, lat.granularity
    pairs = [widest_pair(sens, g)] if xs is None else \
        [(x, y) for x in xs for y in xs if x.exact < y.exact and y.exact - x.exact <= sens]
    if not pairs:
        raise InvalidArgument(f"inputs: no two distinct inputs at most args.sensitivity = "
                              f"{lat.sensitivity} apart", argument="inputs")
    best: tuple[F64, F64, int] | None = None
    for x, y in pairs:
        if g == 0:
            steps = 1
        else:
            steps = int((round_to_lattice(y.exact, g) - round_to_lattice(x.exact, g)) / g)
        if best is None or steps > best[2]:
            best = (x, y, steps)
    assert best is not None
    return best


def _laplace(case: AuditCase) -> AuditRow:
    from pydp.algorithms.numerical_mechanisms import LaplaceMechanism

    case.only(("epsilon", "sensitivity"), inputs=True)
    notes: list[str] = []
    eps = _double(case, "epsilon", None, notes)
    sens = _double(case, "sensitivity", F64(1.0), notes)
    lat = laplace_lattice(eps, sens)  # every argument checked before the library sees it
    xs = _inputs(case, notes)
    mech = quiet(LaplaceMechanism, epsilon=eps.double, sensitivity=sens.double, notes=notes)
    claim = F64(float(mech.epsilon))  # float ok: the library's double, read exactly
    shown_div = F64(float(mech.diversity))  # float ok: as above
    if shown_div != lat.diversity:
        raise InvalidArgument(f"the library's diversity {shown_div.hex} is not the "
                              f"fl(sensitivity/epsilon) = {lat.diversity.hex} of its source",
                              argument="args.sensitivity")
    x, y, steps = _widest(lat, xs)
    g = lat.granularity
    k = lat.exponent
    notes.append(f"python-dp {version_of('python-dp')}: diversity = fl(sensitivity/epsilon) = "
                 f"{lat.diversity.hex}; diversity/2^40 = {lat.scaled.hex}")
    witness: dict[str, object] = {"inputs": (x, y)}
    if g == 0:
        notes.append("granularity = pow(2, ceil(log2(0))) = 0: λ = 0, the geometric returns "
                     "its largest value, times 0, and the input is not rounded: add_noise(x) "
                     "returns x itself")
        witness["outputs"] = "the input itself"
        return AuditRow(case, claim, mpq(0), mpq(1), Epsilon.INF, "unsound", None, "exact",
                        witness, tuple(notes))
    tight = lat.lam.exact * steps
    shift = steps * g
    notes.append(f"granularity g = 2^{k}; λ = fl(fl(g·ε)/fl(Δ + g)) = fl({lat.numerator.hex} / "
                 f"{lat.denominator.hex}) = {lat.lam.hex}")
    gap = shift - sens.exact
    apart = "the same point" if steps == 0 else "Δ" if gap == 0 else \
        f"Δ {'+' if gap > 0 else '−'} {format_rational(abs(gap))}"
    notes.append(f"inputs {x} and {y} ({'over every double' if xs is None else 'of the inputs'}"
                 f", the neighbours furthest apart on the lattice) round {steps} steps apart: "
                 f"{apart}")
    if steps == 0:  # every neighbouring pair rounds to one lattice point: one law, sampler and all
        notes.append("every pair of neighbouring inputs rounds to the same lattice point, so "
                     "the two releases have the same law whatever the sampler: ε = 0 exactly")
        return AuditRow(case, claim, mpq(0), mpq(0), Epsilon.ZERO, "sound", None, "exact",
                        witness, tuple(notes))
    excess = tight - claim.exact
    side = ("exceeds the claim by " if excess > 0 else "meets the claim, below it by "
            if excess < 0 else "equals the claim") + (format_rational(abs(excess))
                                                      if excess else "")
    notes.append(f"the specified law (two-sided geometric, P(Z = k) ∝ e^(−λ|k|), on the "
                 f"lattice): tight ε = λ·{steps} = {format_rational(tight)} exactly, which "
                 f"{side}")
    witness["outputs"] = "every output beyond both lattice points (loss λ·steps)"
    if excess > MARGIN:
        verdict = "unsound"
        notes.append(f"the excess is above {format_rational(MARGIN)} nats, which the "
                     f"geometric's binary search in doubles cannot take back: unsound")
    else:
        verdict = "unknown"
        notes.append("the geometric is drawn by a binary search whose branch probabilities "
                     "are computed in doubles (and a draw beyond 2^53 is rounded): a proxy "
                     "of the specified law, never sound")
    return AuditRow(case, claim, mpq(0), None, Epsilon.of_nats(tight), verdict,
                    ratio(claim, Epsilon.of_nats(tight)), "proxy", witness, tuple(notes))


def _refused(reason: str):
    def refuse(case: AuditCase) -> AuditRow:
        raise InvalidArgument(f"pydp.{case.constructor}: {reason}", argument="constructor",
                              value=case.constructor)
    return refuse


_GAUSSIAN = ("its law cannot be written exactly: the noise is a binomial drawn by rejection "
             "(Bringmann et al.), accepted with ApproximateBinomialProbability computed in "
             "doubles — an approximation (Lemma 7 of Secure_Noise_Generation.pdf) of a "
             "binomial of ~2^112 trials, not its law")
_INTEGER = ("it adds its noise through the integer path (AddInt64Noise: the lattice noise "
            "rounded to an integer, with input rounding to max(g, 1)), whose law plrv does "
            "not write; audit LaplaceMechanism on doubles instead")

ADAPTER = Adapter("pydp", "pydp", {
    "LaplaceMechanism": _laplace,
    "GaussianMechanism": _refused(_GAUSSIAN),
    "Count": _refused(_INTEGER),
    "BoundedSum": _refused("its law is not modelled: it clamps each entry, sums, and adds "
                           "the mechanism's noise to the sum (through the integer path for "
                           "an integer sum); without bounds it first spends part of ε on "
                           "ApproxBounds; audit LaplaceMechanism at the sum's sensitivity "
                           "instead"),
}, version=lambda: version_of("python-dp"),
    no_conformance="draws on a lattice of about 2^40 points per unit of diversity, with "
                   "masses e^(−λ|k|) that are not rational: there is no finite exact law to "
                   "test its draws against (tests/test_audit_pydp.py counts them against "
                   "the law's tails)")
