"""Which spec features each command applies: declared here once, refused everywhere else.

A spec of kind ``check`` (the file format of ``check``, ``sweep``, ``family``, ``prove`` and
``reducible``) has optional features — a data model other than one i.i.d. prior, an attacker's
known records, target and compared pairs, a neighbouring relation for DP, symbolic
parameters. A command that does not apply a feature must refuse it (exit 2, naming the key)
rather than answer as if it were absent: the table :data:`SUPPORTED` is the only place that
says which command applies which, and :func:`refuse_unsupported` is called by every reader of
the format before anything is computed. ``tests/test_command_features.py`` runs every command
with every feature and requires that the answer changes or the command refuses.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from verifier.core.errors import SpecError

__all__ = ["FEATURES", "SUPPORTED", "refuse_unsupported"]


def _table(name: str) -> Callable[[Mapping], bool]:
    return lambda raw: name in raw


def _key(table: str, key: str) -> Callable[[Mapping], bool]:
    return lambda raw: isinstance(raw.get(table), Mapping) and key in raw[table]


def _renyi(raw: Mapping) -> bool:
    """Rényi notions asked for, or their keys given (``[query]`` rho, orders, rdp_epsilon)."""
    query = raw.get("query")
    if not isinstance(query, Mapping):
        return False
    notions = query.get("notions")
    named = isinstance(notions, list) and any(n in ("rdp", "zcdp") for n in notions)
    return named or any(k in query for k in ("rho", "orders", "rdp_epsilon"))


FEATURES: dict[str, Callable[[Mapping], bool]] = {  # feature -> is it in the raw spec?
    "data.prior": _key("data", "prior"),
    "data.priors": _key("data", "priors"),
    "data.support": _key("data", "support"),
    "data.models": _key("data", "models"),
    "attacker.known": _key("attacker", "known"),
    "attacker.knowledge": _key("attacker", "knowledge"),
    "attacker.target": _key("attacker", "target"),
    "attacker.pairs": _key("attacker", "pairs"),
    "input": _table("input"),
    "neighbours": _table("neighbours"),
    "parameters": _table("parameters"),
    "query.rho": _renyi,  # the Rényi notions rdp and zcdp, and their claim
}

_ALL = frozenset(FEATURES)
_DP = frozenset({"input", "neighbours"})

SUPPORTED: dict[str, frozenset[str]] = {
    # every feature; [parameters] only at a point (--at)
    "check": _ALL,
    # thresholds swept over the spec as given, for the (ε, δ) notions
    "sweep": _ALL - {"parameters", "query.rho"},
    # (ε, δ)-DP for every value of one mechanism parameter (--param): no data model, attacker
    "family": _DP,
    # claims over apk, ppk, noiseless and dp for every admissible parameter value
    "prove": _ALL - {"query.rho"},
    # Definition 59 compares the attackers' conditional laws over every pair of values:
    # it reads no relation of DP and no restriction of the compared pairs
    "reducible": _ALL - _DP - {"attacker.pairs", "query.rho"},
    # δ(ε) of the (ε, δ) notions; [parameters] only at a point (--at)
    "curve": _ALL - {"query.rho"},
}

_WHY = {
    "family": "plrv family decides (ε, δ)-DP over every database for one parameter (--param)",
    "reducible": "Θ-reducibility (thesis Definition 59) compares the attackers' conditional "
                 "laws over every pair of values",
    "prove": "plrv prove decides (ε, δ) claims",
    "sweep": "plrv sweep reads a concrete spec",
    "check": "",
    "curve": "plrv curve draws δ(ε) of the (ε, δ) notions",
}


def refuse_unsupported(raw: Mapping, command: str, file: str | None) -> None:
    """Raise :class:`SpecError` naming the first feature of ``raw`` that ``command`` does
    not apply."""
    supported = SUPPORTED[command]
    for name, present in FEATURES.items():
        if present(raw) and name not in supported:
            table, _, key = name.partition(".")
            value = raw[table].get(key) if key else raw[table]
            where = f"{name}" if key else f"[{name}]"
            if name == "query.rho":
                where = "the Rényi notions rdp and zcdp (query.rho, orders, rdp_epsilon)"
            raise SpecError(f"plrv {command} does not apply {where}: {_WHY[command]}; remove "
                            f"it (plrv check applies it)", file=file, key=name, value=value)
