"""A guessing-advantage question as plain typed values (seed 004): the model (domain, prior,
kernel, precisions, goal mode), the ε to bound with (None: the mechanism's tight ε), the
targets, η, and the mechanism's kind and parameters. :mod:`verifier.specs.guess` reads a
spec file into it.
"""

from __future__ import annotations

from dataclasses import dataclass

from gmpy2 import mpq

from verifier.guessing.model import GuessModel

__all__ = ["GuessProblem", "precise_inversion"]


@dataclass(frozen=True)
class GuessProblem:
    """What :func:`verifier.guessing.report.guess_report` computes on."""

    model: GuessModel
    epsilon: object | None  # None: the mechanism's tight ε
    targets: tuple
    eta: mpq | None
    mechanism: str
    tolerance: mpq = mpq(1, 10**6)  # relative width of the precise inversion's interval
    mechanism_params: tuple[tuple[str, mpq], ...] = ()  # a built-in kind's exact parameters


def precise_inversion(model: GuessModel) -> bool:
    """Whether η is also inverted through the precise bound (as a certified interval whose
    width ``tolerance`` sets): for an AND goal, and for an OR goal over one attribute (the same
    goal); an OR goal over several attributes adds per-attribute bounds, which the simplified
    inversion alone covers."""
    return model.mode == "and" or model.attributes == 1
