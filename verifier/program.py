"""Random choices for mechanisms written as Python programs, and ``program(fn)`` to check one.

Import the primitives in the code you ship; they sample when it runs, and plrv enumerates
them exactly when it checks the same function::

    from verifier.program import flip

    def rr(db):
        return tuple(x if flip("3/4") else 1 - x for x in db)

    # in a test: from verifier.program import program
    # check_dp(program(rr), replace_one([0, 1], 3), "ln(3)")

See :mod:`verifier.model.program` (the primitives) and :mod:`verifier.model.program_enum`
(the enumeration).
"""

from __future__ import annotations

from verifier.model.program import (
    bernoulli,
    binomial,
    choose,
    clamped_geometric_noise,
    flip,
    geometric_noise,
    seed,
    uniform,
    uniform_int,
)
from verifier.model.program_mechanism import program

__all__ = ["flip", "bernoulli", "uniform", "uniform_int", "choose", "binomial",
           "geometric_noise", "clamped_geometric_noise", "seed", "program"]
