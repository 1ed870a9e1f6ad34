"""plrv: exact verification of privacy guarantees of small, finite mechanisms.

The public API: exact numbers (:mod:`verifier.core`), distributions, mechanisms, data
models, background knowledge, the privacy loss, and the checks. Everything is exact: gmpy2
rationals in, exact rationals (or ``A − C·e^ε``) out. Each name is imported on first use
(module ``__getattr__``), so that the command line starts without loading the library.

>>> from verifier import randomized_response, check_dp
>>> str(check_dp(randomized_response("3/4", [0, 1]), [0, 1], records=1, delta="0").epsilon)
'ln(3)'
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

__all__ = [
    "Budget", "NOTIONS", "Analysis", "Report", "analyse", "check_notions", "check_partial",
    "DataModel", "explicit",
    "iid", "independent", "BOTTOM", "Dist", "check_dp", "BudgetExceeded", "InvalidArgument",
    "InvalidDistribution", "InvalidNumber", "NullEvent", "SpecError", "UnknownName",
    "VerifierError", "Delta", "Epsilon", "parse_epsilon", "rational", "F64", "f64",
    "Knowledge", "knowledge",
    "known_indices", "no_knowledge", "Loss", "PrivacyLoss", "privacy_loss", "Mechanism",
    "count", "geometric_count", "identity", "mean_query", "mechanism", "randomized_response",
    "sum_query", "threshold_count", "is_theta_reducible", "reducibility_witness",
    "NotionResult", "Spec", "load_spec", "parse_spec",
    "run_spec",
]

_MODULES = {
    "verifier.core.binary64": "F64 f64",
    "verifier.core.budget": "Budget",
    "verifier.core.delta": "Delta",
    "verifier.core.distribution": "BOTTOM Dist",
    "verifier.core.epsilon": "Epsilon parse_epsilon",
    "verifier.core.errors": "BudgetExceeded InvalidArgument InvalidDistribution InvalidNumber "
                            "NullEvent SpecError UnknownName VerifierError",
    "verifier.core.numbers": "rational",
    "verifier.specs.check": "Spec load_spec parse_spec run_spec",
    "verifier.model.data": "DataModel explicit iid independent",
    "verifier.model.knowledge": "Knowledge knowledge known_indices no_knowledge",
    "verifier.model.mechanisms": "Mechanism count geometric_count identity mean_query mechanism "
                                 "randomized_response sum_query threshold_count",
    "verifier.notions.check": "NOTIONS Analysis Report analyse check_notions check_partial",
    "verifier.notions.dp.brute": "check_dp",
    "verifier.notions.loss": "Loss PrivacyLoss privacy_loss",
    "verifier.notions.partial.reducible": "is_theta_reducible reducibility_witness",
    "verifier.notions.result": "NotionResult",
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
    return sorted(set(globals()) | set(__all__))


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
        SpecError,
        UnknownName,
        VerifierError,
    )
    from verifier.core.numbers import rational
    from verifier.model.data import DataModel, explicit, iid, independent
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
    from verifier.notions.check import (
        NOTIONS,
        Analysis,
        Report,
        analyse,
        check_notions,
        check_partial,
    )
    from verifier.notions.dp.brute import check_dp
    from verifier.notions.loss import Loss, PrivacyLoss, privacy_loss
    from verifier.notions.partial.reducible import is_theta_reducible, reducibility_witness
    from verifier.notions.result import NotionResult
    from verifier.specs.check import Spec, load_spec, parse_spec, run_spec
