"""The ``[query]`` keys of the Rényi notions, read into a
:class:`~verifier.notions.renyi.check.RenyiClaim`::

    [query]
    notions = ["rdp", "zcdp"]     # either or both, and no (ε, δ) notion beside them; the
                                  # forms under partial knowledge: apkrdp, ppkrdp,
                                  # noiselessrdp (like rdp), apkzcdp, ppkzcdp,
                                  # noiselesszcdp (like zcdp)
    orders = [2, 3, 4]            # rdp: integer orders 2 … 1024 (default 2, 3, 4, 5, 6, 8,
                                  #      16, 32, 64)
    rho = "1/2"                   # the claim D_α ≤ ρ·α (zcdp needs it; rdp takes it or:)
    rdp_epsilon = ["ln(2)", …]    # rdp: one budget per order, D_α ≤ budget
    epsilon = "ln(3)"             # optional: δ converted to at this ε
    delta = "1e-6"                # optional: ε converted to at this δ

A key that the asked notions do not read is refused, never ignored.
"""

from __future__ import annotations

from verifier.core.epsilon import parse_epsilon
from verifier.core.errors import InvalidArgument, did_you_mean
from verifier.core.numbers import nonnegative, probability
from verifier.notions.registry import NOTIONS, RDP_FORMS, RENYI, ZCDP_FORMS
from verifier.notions.renyi.check import RenyiClaim
from verifier.notions.renyi.divergence import check_order
from verifier.specs.keys import Table, string

__all__ = ["RENYI_KEYS", "DEFAULT_ORDERS", "read_renyi", "read_notions"]

RENYI_KEYS = ("orders", "rho", "rdp_epsilon")
DEFAULT_ORDERS = (2, 3, 4, 5, 6, 8, 16, 32, 64)


def read_renyi(query: Table, notions: tuple[str, ...]) -> RenyiClaim | None:
    """The claim of the Rényi notions of ``notions`` (``None`` when none is asked; then the
    Rényi keys are refused)."""
    asked = [n for n in notions if n in RENYI]
    if not asked:
        for key in query.given(*RENYI_KEYS):
            raise query.fail(key, "applies to notions rdp and zcdp only; remove it or ask for "
                                  "them", query.raw[key])
        return None
    if len(asked) != len(notions):
        other = next(n for n in notions if n not in RENYI)
        raise query.fail("notions", f"rdp and zcdp are decided apart from {other!r}: list "
                                    f"only rdp and/or zcdp here, {other} in another spec",
                         list(notions))
    rdp = any(n in RDP_FORMS for n in asked)  # rdp, apkrdp, ppkrdp, noiselessrdp
    zcdp = any(n in ZCDP_FORMS for n in asked)
    if not rdp:
        for key in query.given("orders", "rdp_epsilon"):
            raise query.fail(key, "applies to notion rdp; zcdp ranges over every order "
                                  "α > 1", query.raw[key])
    orders = tuple(query.list_of("orders", check_order, None) or DEFAULT_ORDERS) if rdp else ()
    if len(set(orders)) != len(orders):
        raise query.fail("orders", "an order is listed twice", list(orders))
    rho = query.rational("rho", None, nonnegative)
    budgets = query.list_of("rdp_epsilon", lambda v, k: parse_epsilon(v, k), None)
    if budgets is not None:
        if "orders" not in query:
            raise query.fail("rdp_epsilon", "give the orders they bound (orders = [...])")
        if len(budgets) != len(orders):
            raise query.fail("rdp_epsilon", f"{len(budgets)} budgets for {len(orders)} "
                                            f"orders: give one per order", query.raw[
                                                "rdp_epsilon"])
        if rho is not None:
            raise query.fail("rho", "give rho or rdp_epsilon, not both", query.raw["rho"])
    if rho is None and (zcdp or budgets is None):
        need = "zcdp needs the claimed ρ (D_α ≤ ρ·α for every α > 1)" if zcdp \
            else "rdp needs a claim: rho (D_α ≤ ρ·α) or rdp_epsilon (one budget per order)"
        raise query.fail("rho", f"missing: {need}")
    eps = query.read("epsilon", parse_epsilon, None)
    delta = query.rational("delta", None, probability)
    return RenyiClaim(orders, rho, None if budgets is None else tuple(budgets), eps, delta)


def read_notions(query: Table) -> tuple[str, ...]:
    """``[query] notions``: known names, each once, at least one (default ``["dp"]``)."""
    notions = tuple(query.list_of("notions", _notion, ["dp"]))
    if len(set(notions)) != len(notions):
        twice = next(x for x in notions if notions.count(x) > 1)
        raise query.fail("notions", f"{twice!r} is listed twice; name each notion once",
                         list(notions))
    if not notions:
        raise query.fail("notions", "empty: name at least one notion", [])
    return notions


def _notion(value: object, name: str) -> str:
    string(value, name)
    if value not in NOTIONS:
        raise InvalidArgument(f"unknown notion {value!r}; known notions: {', '.join(NOTIONS)}"
                              f"{did_you_mean(value, NOTIONS)}", argument=name, value=value)
    return str(value)
