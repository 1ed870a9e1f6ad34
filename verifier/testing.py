"""Privacy assertions for a project's own tests, and the pytest plugin that offers them.

Each assertion decides a claim exactly (the same engines as ``plrv check``) and, when the
claim is not kept, raises :class:`PrivacyAssertionError` (an ``AssertionError``) whose
message names the claim, the tight values beside the claimed ones and the witness: the pair
of databases or inputs, the outputs whose privacy loss exceeds ε with their probability under
each. Answers are three-valued: a comparison that certified arithmetic does not decide fails
the assertion as *undecided*, never passes it. A kept claim returns the result, for further
checks.

* :func:`assert_dp` / :func:`assert_not_dp` — (ε, δ)-DP under a neighbour relation, of one
  mechanism, of the independent composition of a list of mechanisms, of ``sum + noise``
  for an exact noise law (:func:`~verifier.model.expnoise.discrete_laplace`, replace-one),
  or of report noisy max / above threshold;
* :func:`assert_apkdp`, :func:`assert_ppkdp` — privacy against attackers with partial
  knowledge (seed 003: Desfontaines, Krahmer and Mohammadi, "Passive and active
  attackers in noiseless privacy", 2019, Definitions 6 and 7) for data models Θ;
* :func:`assert_rdp`, :func:`assert_zcdp` — Rényi DP at integer orders and ρ-zCDP.

Installed with plrv, pytest loads this module as the plugin ``plrv`` (entry point
``pytest11``); it adds the fixtures ``plrv_budget`` (the enumeration limits, a
:class:`~verifier.core.budget.Budget`; override it in a ``conftest.py``) and ``privacy``
(these assertions with that budget), and nothing else: no option, no hook, no output.
``pytest -p no:plrv`` leaves it out. The library is imported only when an assertion runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from verifier.core.budget import Budget
    from verifier.model.mechanisms import Mechanism
    from verifier.notions.dp.neighbours import Relation
    from verifier.notions.renyi.check import RenyiReport

__all__ = ["PrivacyAssertionError", "Privacy", "assert_dp", "assert_not_dp", "assert_apkdp",
           "assert_ppkdp", "assert_rdp", "assert_zcdp", "plrv_budget", "privacy"]

_SHOWN_OUTPUTS = 5  # outputs listed in a failure message


class PrivacyAssertionError(AssertionError):
    """A privacy claim that plrv refuted, or could not decide (``undecided`` is set)."""

    def __init__(self, message: str, result: object = None, undecided: bool = False) -> None:
        super().__init__(message)
        self.result = result
        self.undecided = undecided


# -------------------------------------------------------------------------- messages


def _claim(notion: str, result: Any) -> str:
    from verifier.core.numbers import format_rational
    return f"({notion} at ε = {result.query_epsilon}, δ = {format_rational(result.query_delta)})"


def _probabilities(mech: Any, witness: Mapping[str, object]) -> dict | None:
    """``output → (P, Q)`` under the two databases (or inputs) of a DP witness."""
    from verifier.model.mechanisms import Mechanism
    pair = witness.get("databases", witness.get("inputs"))
    if not isinstance(mech, Mechanism) or not isinstance(pair, list) or len(pair) != 2:
        return None
    p, q = mech(tuple(pair[0])), mech(tuple(pair[1]))
    return {o: (p[o], q[o]) for o, _ in witness.get("outputs", [])}  # type: ignore[attr-defined]


def _outputs_lines(witness: Mapping[str, object], probabilities: dict | None,
                   title: str) -> list[str]:
    from verifier.core.numbers import format_rational
    from verifier.notions.result import show_value
    outputs = witness.get("outputs")
    if not isinstance(outputs, list) or not outputs:
        return []
    lines = [f"  {title}:"]
    for o, loss in outputs[:_SHOWN_OUTPUTS]:
        line = f"    {show_value(o, top=False)}: loss {loss}"
        if probabilities is not None and o in probabilities:
            p, q = probabilities[o]
            line += f", P = {format_rational(p)}, Q = {format_rational(q)}"
        lines.append(line)
    if len(outputs) > _SHOWN_OUTPUTS or witness.get("outputs_truncated"):
        lines.append(f"    … {len(outputs) - _SHOWN_OUTPUTS} more outputs"
                     if len(outputs) > _SHOWN_OUTPUTS else "    … (list truncated)")
    return lines


def _notion_message(result: Any, what: str, mech: Any, expected_to_hold: bool) -> str:
    """The failure of a claim on a :class:`~verifier.notions.result.NotionResult`."""
    from verifier.core.numbers import format_rational
    from verifier.notions.result import with_approx, witness_text
    held = "holds, expected not to" if expected_to_hold is False else "does not hold"
    claimed_d = format_rational(result.query_delta)
    sign = "≤" if result.holds else ">"
    lines = [f"{_claim(result.notion, result)} {held}: {what}",
             f"  tight δ at ε = {result.query_epsilon}: {with_approx(result.delta)} {sign} "
             f"claimed δ = {claimed_d}",
             f"  tight ε at δ = {claimed_d}: {with_approx(result.epsilon)} {sign} claimed ε = "
             f"{result.query_epsilon}"]
    name = "worst case" if result.holds else "witness"
    lines.append(f"  {name}: " + witness_text({k: v for k, v in result.witness.items()
                                                if k not in ("outputs", "outputs_truncated")}))
    probabilities = _probabilities(mech, result.witness) if result.notion == "dp" else None
    title = ("outputs at the tight ε" if result.holds else "outputs with privacy loss > ε") + \
        (" (P under the first, Q under the second)" if probabilities is not None else "")
    lines += _outputs_lines(result.witness, probabilities, title)
    lines.append(f"  {result.cases} comparison{'s' if result.cases != 1 else ''}")
    return "\n".join(lines)


def _rows_message(claim: str, holds: bool | None, what: str, described: Any) -> str:
    """The failure of a claim on a result described by :mod:`verifier.notions.display`."""
    state = {True: "holds, expected not to", False: "does not hold",
             None: "is undecided"}[holds]
    return "\n".join([f"{claim} {state}: {what}"] + [f"  {k}: {v}" for k, v in described[2]])


# ------------------------------------------------------------------------ deciding


def _fail(message: str, result: object = None, undecided: bool = False) -> PrivacyAssertionError:
    return PrivacyAssertionError(message, result, undecided)


def _decide(run: Callable[[], Any], claim: str) -> Any:
    """``run()``, a certified comparison it could not decide turned into a failure."""
    __tracebackhide__ = True
    from verifier.core.errors import Undecided
    try:
        return run()
    except Undecided as e:
        raise _fail(f"{claim} is undecided: {e}", undecided=True) from e


def _mechanism(mech: Any) -> Mechanism:
    from verifier.model.program_mechanism import as_mechanism
    return as_mechanism(mech)


def _describe(mech: Any, relation: Relation) -> str:
    from verifier.model.expnoise import ExpNoise
    from verifier.model.expnoise_zoo import NoisyChoice
    if isinstance(mech, ExpNoise):
        return f"sum + {mech.describe()} under {relation.describe()}"
    if isinstance(mech, NoisyChoice):
        return f"{mech.describe()} under {relation.describe()}"
    if isinstance(mech, (list, tuple)):
        parts = ", ".join(_mechanism(m).describe() for m in mech)
        return f"the composition of {parts} under {relation.describe()}"
    return f"{_mechanism(mech).describe()} under {relation.describe()}"


def _dp(mech: Any, relation: Relation, epsilon: object, delta: object,
        budget: Budget | None, engine: str) -> Any:
    from verifier.notions.dp.api import check_dp
    return check_dp(mech, relation, epsilon, delta, budget, engine)


def _verdict(result: Any, expected: bool, what: str, mech: Any, claim: str) -> Any:
    __tracebackhide__ = True  # a failure points at the test's line, not at this module
    from verifier.notions.dp.noise_check import NoiseResult
    if result.holds is expected:
        return result
    if isinstance(result, NoiseResult):
        from verifier.notions.display import noise_described
        raise _fail(_rows_message(claim, result.holds, what, noise_described(result)), result,
                    result.holds is None)
    raise _fail(_notion_message(result, what, mech, expected), result)


def _dp_assertion(mech: Any, relation: Relation, epsilon: object, delta: object,
                  budget: Budget | None, engine: str, expected: bool) -> Any:
    __tracebackhide__ = True
    from verifier.model.expnoise import ExpNoise
    from verifier.model.expnoise_zoo import NoisyChoice
    if not isinstance(mech, (list, tuple, ExpNoise, NoisyChoice)):
        mech = _mechanism(mech)
    what = _describe(mech, relation)
    claim = f"(dp at ε = {epsilon}, δ = {delta})"
    result = _decide(lambda: _dp(mech, relation, epsilon, delta, budget, engine),
                     f"{claim} for {what}")
    return _verdict(result, expected, what, mech, claim)


def assert_dp(mech: Any, relation: Relation, epsilon: object, delta: object = "0", *,
              budget: Budget | None = None, engine: str = "auto") -> Any:
    """Assert (ε, δ)-DP of ``mech`` under ``relation`` (seed 003, Lemma 1: tight
    ``δ(ε) = max_{x~y} Σ_O max(0, P_x(O) − e^ε·P_y(O))``, exact). The arguments are those
    of :func:`verifier.check_dp`, which decides the claim.

    ``mech`` is a :class:`~verifier.model.mechanisms.Mechanism` (or a function of the
    database, wrapped by :func:`~verifier.model.mechanisms.mechanism`), a list of them (their
    independent composition), an exact noise law (``sum(records) + noise``, replace-one) or
    a noisy choice over query vectors (:func:`~verifier.model.expnoise_zoo.noisy_max`,
    :func:`~verifier.model.expnoise_zoo.above_threshold`, under a vector relation).
    Returns the result; raises :class:`PrivacyAssertionError` when the claim fails or is
    undecided."""
    __tracebackhide__ = True
    return _dp_assertion(mech, relation, epsilon, delta, budget, engine, True)


def assert_not_dp(mech: Any, relation: Relation, epsilon: object, delta: object = "0", *,
                  budget: Budget | None = None, engine: str = "auto") -> Any:
    """Assert that (ε, δ)-DP of ``mech`` under ``relation`` fails (a known leak stays
    detected, a lower bound stays a lower bound); arguments as :func:`assert_dp`."""
    __tracebackhide__ = True
    return _dp_assertion(mech, relation, epsilon, delta, budget, engine, False)


def _partial(notion: str, mech: Any, models: Any, epsilon: object, delta: object,
             knowledge: Any, targets: object, pairs: Sequence | None, budget: Budget | None,
             engine: str) -> Any:
    __tracebackhide__ = True
    from verifier.notions.check import check_partial
    m = _mechanism(mech)
    what = f"{m.describe()}, partial knowledge"
    report = _decide(lambda: check_partial(m, models, knowledge=knowledge, targets=targets,
                                           pairs=pairs, epsilon=epsilon, delta=delta,
                                           notions=[notion], budget=budget, engine=engine),
                     f"({notion} at ε = {epsilon}, δ = {delta}) for {what}")
    return _verdict(report.results[notion], True, what, m, notion)


def assert_apkdp(mech: Any, models: Any, epsilon: object, delta: object = "0", *,
                 knowledge: Any = None, targets: object = "all", pairs: Sequence | None = None,
                 budget: Budget | None = None, engine: str = "auto") -> Any:
    """Assert (ε, δ)-APK-DP of ``mech`` for the data models ``models`` (Θ) and background
    knowledge ``knowledge`` (Z; default none), seed 003 Definition 6: for every target,
    pair of values and background value, ``E_O[max(0, 1 − e^ε/r)] ≤ δ``."""
    __tracebackhide__ = True
    return _partial("apkdp", mech, models, epsilon, delta, knowledge, targets, pairs, budget,
                    engine)


def assert_ppkdp(mech: Any, models: Any, epsilon: object, delta: object = "0", *,
                 knowledge: Any = None, targets: object = "all", pairs: Sequence | None = None,
                 budget: Budget | None = None, engine: str = "auto") -> Any:
    """Assert (ε, δ)-PPK-DP (seed 003, Definition 7: the background drawn with its
    probability, not chosen); arguments as :func:`assert_apkdp`."""
    __tracebackhide__ = True
    return _partial("ppkdp", mech, models, epsilon, delta, knowledge, targets, pairs, budget,
                    engine)


def _renyi(notions: Sequence[str], mech: Any, relation: Relation, budget: Budget | None,
           **claim: Any) -> RenyiReport:
    from verifier.notions.renyi.check import check_renyi
    from verifier.notions.renyi.compose import compose_renyi
    if isinstance(mech, (list, tuple)):
        return compose_renyi([_mechanism(m) for m in mech], relation, notions, budget=budget,
                             **claim)
    return check_renyi(_mechanism(mech), relation, notions, budget=budget, **claim)


def assert_rdp(mech: Any, relation: Relation, orders: Sequence[int], *, rho: object = None,
               budgets: Sequence[object] | None = None, budget: Budget | None = None) -> Any:
    """Assert Rényi DP at each integer order ``α`` in ``orders``: ``D_α(P_x‖P_y) ≤ ρ·α``
    (``rho``) or ``≤`` the order's entry of ``budgets`` for every ``x ~ y`` (Mironov,
    "Rényi Differential Privacy", 2017). ``mech`` as for :func:`assert_dp` (no noise law)."""
    __tracebackhide__ = True
    what = _describe(mech, relation)
    report = _decide(lambda: _renyi(["rdp"], mech, relation, budget, orders=orders, rho=rho,
                                    budgets=budgets), f"(rdp) for {what}")
    result = report.results["rdp"]
    if result.holds is True:
        return result
    from verifier.notions.display import rdp_described
    raise _fail(_rows_message("(rdp)", result.holds, what, rdp_described(result)), result)


def assert_zcdp(mech: Any, relation: Relation, rho: object, *,
                budget: Budget | None = None) -> Any:
    """Assert ρ-zCDP: ``D_α(P_x‖P_y) ≤ ρ·α`` for every real ``α > 1`` and ``x ~ y`` (Bun and
    Steinke, "Concentrated Differential Privacy: Simplifications, Extensions, and Lower
    Bounds", 2016). The tight ρ* is exact where a closed form gives it, else enclosed by
    certified branch and bound; an enclosure that straddles ``rho`` fails the assertion as
    undecided."""
    __tracebackhide__ = True
    what = _describe(mech, relation)
    report = _decide(lambda: _renyi(["zcdp"], mech, relation, budget, rho=rho),
                     f"(zcdp, ρ = {rho}) for {what}")
    z = report.results["zcdp"]
    if z.holds is True:
        return z
    from verifier.notions.display import zcdp_described
    raise _fail(_rows_message(f"(zcdp, ρ = {rho})", z.holds, what, zcdp_described(z)), z,
                z.holds is None)


# ----------------------------------------------------------------- pytest fixtures


def _with_budget(check: Callable[..., Any]) -> Callable[..., Any]:
    """``check`` as a method of :class:`Privacy`, with the instance's budget."""
    def method(self: Privacy, *args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True
        return check(*args, **{"budget": self.budget, **kwargs})
    method.__name__, method.__doc__ = check.__name__, check.__doc__
    return method


class Privacy:
    """The assertions with one :class:`~verifier.core.budget.Budget` (the ``privacy``
    fixture)."""

    def __init__(self, budget: Budget | None = None) -> None:
        self.budget = budget

    assert_dp = _with_budget(assert_dp)
    assert_not_dp = _with_budget(assert_not_dp)
    assert_apkdp = _with_budget(assert_apkdp)
    assert_ppkdp = _with_budget(assert_ppkdp)
    assert_rdp = _with_budget(assert_rdp)
    assert_zcdp = _with_budget(assert_zcdp)


@pytest.fixture
def plrv_budget() -> Budget:
    """The enumeration limits of the ``privacy`` fixture: plrv's defaults. Define a fixture
    of this name in a ``conftest.py`` to change them (``Budget(max_databases=10**7)``)."""
    from verifier.core.budget import Budget
    return Budget()


@pytest.fixture
def privacy(plrv_budget: Budget) -> Privacy:
    """The privacy assertions (``privacy.assert_dp(…)`` …) with ``plrv_budget``."""
    return Privacy(plrv_budget)
