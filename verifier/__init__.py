"""plrv: exact verification of privacy guarantees of small, finite mechanisms.

Everything a user needs is imported from here: exact numbers (ε, δ), distributions,
mechanisms and exact noise laws, data models and background knowledge, neighbour relations,
the checks of every notion (DP, APK-DP, PPK-DP, noiseless privacy, Rényi DP, zCDP),
composition, the privacy loss and the result types. Everything is exact: gmpy2 rationals in,
exact rationals (or ``A − C·e^ε``) out. Each name is imported on first use (module
``__getattr__``), so that the command line starts without loading the library.

>>> from verifier import randomized_response, check_dp
>>> str(check_dp(randomized_response("3/4", [0, 1]), [0, 1], records=1, delta="0").epsilon)
'ln(3)'

Three independent runs of randomized response (truth 3/4) on one record: the outputs with
``j`` ones have ratio ``3^(2j−3)``, so δ(ln 2) = (27 − 2)/64 + 3·(9 − 2·3)/64 = 17/32:

>>> from verifier import compose_mechanisms, replace_one
>>> r = compose_mechanisms([randomized_response("3/4", [0, 1])] * 3, replace_one([0, 1], 1),
...                        "ln(2)", "17/32")
>>> r.holds, r.delta, float(r.delta)  # float ok: a labelled approximation, for display
(True, Delta('17/32'), 0.53125)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

__all__ = [
    # exact numbers and errors
    "rational", "Epsilon", "parse_epsilon", "Delta", "F64", "f64", "Budget", "BudgetExceeded",
    "InvalidArgument", "InvalidDistribution", "InvalidNumber", "NullEvent", "OutOfRange",
    "SpecError", "Undecided", "UnknownName", "UserCodeError", "VerifierError",
    # distributions and mechanisms
    "BOTTOM", "Dist", "Mechanism", "count", "geometric_count", "identity", "mean_query",
    "mechanism", "randomized_response", "sum_query", "threshold_count",
    # exact noise laws
    "Noisy", "geometric", "noisy_sum", "ExpNoise", "discrete_gaussian", "discrete_laplace",
    "RatFunc", "NoisyChoice", "noisy_max", "above_threshold",
    # data models and background knowledge
    "DataModel", "explicit", "iid", "independent", "Knowledge", "knowledge", "known_indices",
    "no_knowledge",
    # neighbour relations and classical DP
    "Relation", "add_remove_one", "check_relation", "explicit_pairs", "predicate_relation",
    "replace_one", "vector_relation", "vectors", "check_dp", "NoiseResult", "check_noise_dp",
    "check_choice_dp",
    # the privacy loss
    "Loss", "PrivacyLoss", "privacy_loss",
    # partial knowledge (APK-DP, PPK-DP, noiseless) and reports
    "NOTIONS", "Analysis", "Report", "analyse", "check_notions", "check_partial", "NotionResult",
    "is_theta_reducible", "reducibility_witness",
    # composition
    "LossDistribution", "compose_mechanisms", "Step", "adaptive_step", "compose_adaptive",
    "CompositionEnclosure", "enclose_composition",
    # Rényi DP and zCDP
    "OrderValue", "RdpResult", "RenyiReport", "ZcdpResult", "check_renyi", "compose_renyi",
    # spec files
    "Spec", "load_spec", "parse_spec", "run_spec",
]

_MODULES = {
    "verifier.core.numbers": "rational",
    "verifier.core.epsilon": "Epsilon parse_epsilon",
    "verifier.core.delta": "Delta",
    "verifier.core.binary64": "F64 f64",
    "verifier.core.budget": "Budget",
    "verifier.core.errors": "BudgetExceeded InvalidArgument InvalidDistribution InvalidNumber "
                            "NullEvent OutOfRange SpecError Undecided UnknownName UserCodeError "
                            "VerifierError",
    "verifier.core.distribution": "BOTTOM Dist",
    "verifier.model.mechanisms": "Mechanism count geometric_count identity mean_query mechanism "
                                 "randomized_response sum_query threshold_count",
    "verifier.model.noise": "Noisy geometric noisy_sum",
    "verifier.model.expnoise": "ExpNoise discrete_gaussian discrete_laplace",
    "verifier.core.ratfunc": "RatFunc",
    "verifier.model.expnoise_zoo": "NoisyChoice noisy_max above_threshold",
    "verifier.model.data": "DataModel explicit iid independent",
    "verifier.model.knowledge": "Knowledge knowledge known_indices no_knowledge",
    "verifier.notions.dp.neighbours": "Relation add_remove_one check_relation explicit_pairs "
                                      "predicate_relation replace_one vector_relation vectors",
    "verifier.notions.dp.brute": "check_dp",
    "verifier.notions.dp.noise_check": "NoiseResult check_noise_dp",
    "verifier.notions.dp.noise_zoo": "check_choice_dp",
    "verifier.notions.loss": "Loss PrivacyLoss privacy_loss",
    "verifier.notions.check": "NOTIONS Analysis Report analyse check_notions check_partial",
    "verifier.notions.result": "NotionResult",
    "verifier.notions.partial.reducible": "is_theta_reducible reducibility_witness",
    "verifier.notions.composition.exact": "LossDistribution compose_mechanisms",
    "verifier.notions.composition.adaptive": "Step adaptive_step compose_adaptive",
    "verifier.notions.composition.enclosure": "CompositionEnclosure enclose_composition",
    "verifier.notions.renyi.check": "OrderValue RdpResult RenyiReport ZcdpResult check_renyi",
    "verifier.notions.renyi.compose": "compose_renyi",
    "verifier.specs.check": "Spec load_spec parse_spec run_spec",
}
_WHERE = {name: module for module, names in _MODULES.items() for name in names.split()}


def __getattr__(name: str) -> object:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'verifier' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups skip __getattr__
    return value


def __dir__() -> list[str]:
    """The public names and the module's dunders (not its imports, ``TYPE_CHECKING`` or
    ``annotations``: completion offers what the package exports)."""
    return sorted({n for n in globals() if n.startswith("__")} | set(__all__))


if TYPE_CHECKING:  # the same names, as the type checker sees them
    from verifier.core.binary64 import F64, f64
    from verifier.core.budget import Budget
    from verifier.core.delta import Delta
    from verifier.core.distribution import BOTTOM, Dist
    from verifier.core.epsilon import Epsilon, parse_epsilon
    from verifier.core.errors import (
        BudgetExceeded,
        InvalidArgument,
        InvalidDistribution,
        InvalidNumber,
        NullEvent,
        OutOfRange,
        SpecError,
        Undecided,
        UnknownName,
        UserCodeError,
        VerifierError,
    )
    from verifier.core.numbers import rational
    from verifier.core.ratfunc import RatFunc
    from verifier.model.data import DataModel, explicit, iid, independent
    from verifier.model.expnoise import ExpNoise, discrete_gaussian, discrete_laplace
    from verifier.model.expnoise_zoo import NoisyChoice, above_threshold, noisy_max
    from verifier.model.knowledge import Knowledge, knowledge, known_indices, no_knowledge
    from verifier.model.mechanisms import (
        Mechanism,
        count,
        geometric_count,
        identity,
        mean_query,
        mechanism,
        randomized_response,
        sum_query,
        threshold_count,
    )
    from verifier.model.noise import Noisy, geometric, noisy_sum
    from verifier.notions.check import (
        NOTIONS,
        Analysis,
        Report,
        analyse,
        check_notions,
        check_partial,
    )
    from verifier.notions.composition.adaptive import Step, adaptive_step, compose_adaptive
    from verifier.notions.composition.enclosure import CompositionEnclosure, enclose_composition
    from verifier.notions.composition.exact import LossDistribution, compose_mechanisms
    from verifier.notions.dp.brute import check_dp
    from verifier.notions.dp.neighbours import (
        Relation,
        add_remove_one,
        check_relation,
        explicit_pairs,
        predicate_relation,
        replace_one,
        vector_relation,
        vectors,
    )
    from verifier.notions.dp.noise_check import NoiseResult, check_noise_dp
    from verifier.notions.dp.noise_zoo import check_choice_dp
    from verifier.notions.loss import Loss, PrivacyLoss, privacy_loss
    from verifier.notions.partial.reducible import is_theta_reducible, reducibility_witness
    from verifier.notions.renyi.check import (
        OrderValue,
        RdpResult,
        RenyiReport,
        ZcdpResult,
        check_renyi,
    )
    from verifier.notions.renyi.compose import compose_renyi
    from verifier.notions.result import NotionResult
    from verifier.specs.check import Spec, load_spec, parse_spec, run_spec
