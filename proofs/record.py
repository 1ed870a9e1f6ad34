"""One theorem record, and what running it over its family gives.

A record's ``check`` answers, for one instance, ``True`` (the statement held and could have
failed there: a *meaningful* instance), ``None`` (it held, but could not have failed: a vacuous
instance, e.g. ∞ compared with ∞, or a bound of at least 1 on a probability) or ``False`` (it
failed). A record with ``expected = False`` states what the seeds show to be false in general:
its family must hold a counterexample, and the counterexamples are its meaningful instances.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Theorem", "Tally", "run_record", "METHODS"]

METHODS = ("exhaustive family", "closed form", "worked example", "z3", "certified bijection",
           "Hypothesis (sampled, not a proof)")


@dataclass(frozen=True)
class Theorem:
    name: str
    source: str
    statement: str
    family: Callable[[], Iterable]
    check: Callable[[Any], bool | None]
    expected: bool = True
    strategy: Callable[[], object] | None = None  # a Hypothesis strategy of instances
    method: str = "exhaustive family"
    compared_with: str = ""  # the independent computation the code is compared with


@dataclass
class Tally:
    """Instances run, meaningful ones, vacuous ones, and the first failures."""

    instances: int = 0
    meaningful: int = 0
    vacuous: int = 0
    failures: list = field(default_factory=list)
    failed: int = 0

    @property
    def status(self) -> str:
        return status(self.instances, self.meaningful, self.failed, True)


def status(instances: int, meaningful: int, failed: int, expected: bool) -> str:
    if instances == 0:
        return "FAILS (empty family)"
    if expected:
        if failed:
            return "FAILS"
        return "holds" if meaningful else "FAILS (vacuous: no instance could fail)"
    return "refuted, as the seeds say" if failed else "FAILS (no counterexample found)"


def run_record(theorem: Theorem) -> tuple[Tally, str]:
    """Run a record on its whole family: the tally and the status."""
    tally = Tally()
    for inst in theorem.family():
        tally.instances += 1
        verdict = theorem.check(inst)
        if verdict is False:
            tally.failed += 1
            if len(tally.failures) < 3:
                tally.failures.append(inst)
        elif verdict is None:
            tally.vacuous += 1
        else:
            tally.meaningful += 1
    if not theorem.expected:  # the counterexamples are what the record is about
        tally.meaningful = tally.failed
    return tally, status(tally.instances, tally.meaningful, tally.failed, theorem.expected)
