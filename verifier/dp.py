"""Classical (ε, δ)-differential privacy over every database of ``n`` records.

Neighbours differ in the value of one record (seed 003, Definition 2). The tight δ at ε is
(seed 003, Lemma 1; REFERENCE.md §3)::

    δ(ε) = max_{D1 ~ D2} Σ_O max(0, P[M(D1)=O] − e^ε·P[M(D2)=O])

over *ordered* neighbouring pairs, and the tight ε at δ the largest tight ε over the pairs.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Sequence

from .budget import Budget, check_database_count
from .data import check_domain
from .distribution import Dist
from .exact import Epsilon, parse_epsilon, probability
from .loss import output_losses, privacy_loss
from .mechanisms import Mechanism, all_databases
from .result import Case, NotionResult, summarize

__all__ = ["dp_cases", "check_dp"]


def dp_cases(mech: Mechanism, values: Sequence[Hashable], n: int,
             budget: Budget | None = None) -> Iterator[Case]:
    """One case per ordered neighbouring pair ``(D1, D2)`` with ``D1(i) ≠ D2(i)``."""
    domain = check_domain(values)
    check_database_count(len(domain), n, budget or Budget())
    outputs: dict[tuple, Dist] = {}

    def run(db: tuple) -> Dist:
        if db not in outputs:
            outputs[db] = mech(db)
        return outputs[db]

    for d1 in all_databases(domain, n):
        p = run(d1)
        for i in range(n):
            for b in domain:
                if b == d1[i]:
                    continue
                d2 = d1[:i] + (b,) + d1[i + 1:]
                q = run(d2)
                yield Case(
                    {"databases": [list(d1), list(d2)], "index": i},
                    privacy_loss(p, q),
                    lambda p=p, q=q: [(o, loss) for o, _, _, loss in output_losses(p, q)],
                )


def check_dp(mech: Mechanism, values: Sequence[Hashable], records: int, epsilon: object = "0",
             delta: object = "0", budget: Budget | None = None) -> NotionResult:
    """Decide (ε, δ)-DP of ``mech`` on databases of ``records`` records over ``values``, exactly.

    >>> from verifier.mechanisms import randomized_response
    >>> r = check_dp(randomized_response("3/4", [0, 1]), [0, 1], 2, "ln(2)", "1/4")
    >>> str(r.delta), str(r.epsilon), r.holds
    ('1/4', 'ln(2)', True)
    """
    eps = parse_epsilon(epsilon)
    d = probability(delta, "delta")
    return summarize("dp", dp_cases(mech, values, records, budget), eps, d)
