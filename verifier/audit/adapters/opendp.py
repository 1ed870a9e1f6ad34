"""OpenDP (``pip install -e '.[opendp]'``): its measurements audited against their own maps.

For each case the adapter builds the measurement with the library (``contrib`` features),
reads the claim from the library itself — ``meas.map(d_in)``, a double ε or a pair (ε, δ),
read exactly as the binary64 rationals they are — and decides it on the law the
implementation samples from (read from OpenDP 0.16's Rust source; see
:mod:`~verifier.audit.adapters.opendp_laws` and
:mod:`~verifier.audit.adapters.opendp_threshold`), over every pair of inputs the library's
input metric calls neighbours at ``d_in``:

* ``make_randomized_response_bool``, ``make_randomized_response``,
  ``make_randomized_response_bitvec``: finite rational laws, ``DiscreteDistance`` (every two
  different inputs are neighbours), decided by plrv's exact DP engine
  (:func:`~verifier.notions.dp.neighbours.check_relation`);
* ``make_laplace`` and ``make_geometric`` without bounds, on an integer: ``v + Z``, ``Z``
  discrete Laplace at the double scale read exactly (CKS20's exact sampler), decided with
  exponential sums (:func:`~verifier.notions.dp.noise_check.check_noise_dp`);
* ``make_geometric`` with bounds: the constant-time sampler, a clamped geometric at the
  library's own ``α = 1 − p`` (its double ``p`` recomputed bit for bit,
  :mod:`~verifier.audit.adapters.opendp_exp`), decided by the exact DP engine;
* ``make_gaussian`` on an integer under zCDP: the discrete Gaussian at the double σ, whose
  tight ρ is ``Δ²/(2σ²)`` before the library's saturating cast to i32 and within 2^−999 of
  it after (an enclosure; :mod:`~verifier.audit.adapters.opendp_noise`);
* ``make_noisy_max`` and ``make_noisy_top_k`` under ``MaxDivergence`` (the default): peeled
  permute-and-flip, whose law is an exponential sum in the scores over the double scale
  (:mod:`~verifier.audit.adapters.opendp_noisy_max`), over the score vectors given as inputs;
  with ``args.output_measure = "zero_concentrated_divergence"`` the softmax per round (the
  Gumbel argmax law), its tight ρ enclosed by branch and bound over the Rényi order
  (:mod:`~verifier.audit.adapters.opendp_noisy_max_zcdp`);
* ``make_laplace`` and ``make_gaussian`` on doubles (``args.T = "f64"``, a vector with
  ``args.size``): the lattice of multiples of ``2^k`` the library rounds to, and the largest
  shift neighbours make on it (:mod:`~verifier.audit.adapters.opendp_float_noise`);
* ``make_laplace_threshold`` on a map of integer counts (``L01Inf``, a missing key counting
  as 0), and ``make_gaussian_threshold`` (``L02Inf``, approximate zCDP:
  :mod:`~verifier.audit.adapters.opendp_gauss_threshold`);
* ``make_zCDP_to_approxDP`` and ``make_fix_delta`` of ``make_gaussian`` on an integer: the
  (ε, δ) they print against the exact δ(ε) of the discrete Gaussian they convert
  (:mod:`~verifier.audit.adapters.opendp_convert`).

A ``sound`` verdict is a proof that the tight value is at most the claim; ``unsound`` a proof
that it exceeds it, with the inputs (and outputs) that witness it.
"""

from __future__ import annotations

from collections.abc import Callable

from verifier.audit.adapters.opendp_args import NegativeClaim, version
from verifier.audit.adapters.opendp_convert import conversion_row
from verifier.audit.adapters.opendp_float_noise import float_or
from verifier.audit.adapters.opendp_gauss_threshold import gaussian_threshold_row
from verifier.audit.adapters.opendp_noise import (
    gaussian_row,
    laplace_row,
    noisy_max_row,
    threshold_row,
)
from verifier.audit.adapters.opendp_noisy_max_zcdp import measure_or
from verifier.audit.adapters.opendp_rr import rr_bitvec_row, rr_bool_row, rr_categorical_row
from verifier.audit.adapters.opendp_sample import law, sample
from verifier.audit.case import AuditCase, AuditRow
from verifier.audit.registry import Adapter

__all__ = ["ADAPTER"]


def _guarded(row: Callable[[AuditCase], AuditRow]) -> Callable[[AuditCase], AuditRow]:
    """``row``, with a negative claim from the library answered ``unsound`` (it is no
    privacy guarantee) rather than raised."""
    def run(case: AuditCase) -> AuditRow:
        try:
            return row(case)
        except NegativeClaim as exc:
            return AuditRow(case, exc.claim, None, None, None, "unsound", None, "exact", {},
                            (str(exc),))
    return run


ADAPTER = Adapter(
    library="opendp",
    extra="opendp",
    constructors={
        "make_randomized_response_bool": _guarded(rr_bool_row),
        "make_randomized_response": _guarded(rr_categorical_row),
        "make_randomized_response_bitvec": _guarded(rr_bitvec_row),
        "make_laplace": _guarded(float_or(laplace_row)),
        "make_geometric": _guarded(laplace_row),
        "make_gaussian": _guarded(float_or(gaussian_row)),
        "make_noisy_max": _guarded(measure_or(noisy_max_row)),
        "make_noisy_top_k": _guarded(measure_or(noisy_max_row)),
        "make_laplace_threshold": _guarded(threshold_row),
        "make_gaussian_threshold": _guarded(gaussian_threshold_row),
        "make_zCDP_to_approxDP": _guarded(conversion_row),
        "make_fix_delta": _guarded(conversion_row),
    },
    sample=sample,
    law=law,
    version=version,
)
