"""Every command that reads a spec × every spec feature: the answer changes, or it refuses.

:data:`verifier.specs.features.SUPPORTED` declares which command applies which feature. For each
pair this test runs the command on a base spec and on the same spec with the feature set to a
value chosen so that it must change the answer (the reason is stated beside each), and
requires: a supported feature changes the output; an unsupported one is refused with exit 2,
naming the key. A command that silently dropped a feature would give the base's answer.
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "hostile"))
from harness import assert_contract, invoke, write

from verifier.specs.features import FEATURES, SUPPORTED

# A thresholded count of 3 records (threshold 2); the attacker knows record 0, targets 2.
PARTIAL = {"data": {"records": 3, "values": [0, 1], "prior": ["1/2", "1/2"]},
           "mechanism": {"kind": "threshold_count", "counts": [1], "threshold": 2},
           "attacker": {"target": 2, "known": [0]},
           "query": {"epsilon": "ln(2)", "delta": "1/10", "notions": ["apkdp", "ppkdp"]}}
# Classical DP of a count of 2 records: replace-one gives δ(ln 2) = 1 (counts 0 and 1 of a
# point mass), while a relation whose pairs have equal counts gives δ = 0.
DP = {"data": {"records": 2, "values": [0, 1]},
      "mechanism": {"kind": "count", "counts": [1]},
      "query": {"epsilon": "ln(2)", "delta": "0", "notions": ["dp"]}}
SAME_COUNT = {"relation": "pairs", "pairs": [[[0, 1], [1, 0]]]}


def _set(path: str, value) -> Callable[[dict], None]:
    def apply(doc: dict) -> None:
        table, _, key = path.partition(".")
        if key:
            doc.setdefault(table, {})[key] = value
        else:
            doc[table] = value
    return apply


def _model(key: str, value, **extra) -> Callable[[dict], None]:
    """Replace the data model by another of the same records (changing P[record 1 = 1],
    which every APK/PPK case of target 2 reads through the tally)."""
    def apply(doc: dict) -> None:
        doc["data"].pop("prior", None)
        doc["data"][key] = value
        doc["data"].update(extra)
    return apply


# feature -> (the base it applies to, the change): each change moves the answer of a command
# that applies it (hand reasons beside).
CHANGES: dict[str, tuple[dict, Callable[[dict], None]]] = {
    # P[1] = 9/10 instead of 1/2: the tally's law given the target's value moves
    "data.prior": (PARTIAL, _set("data.prior", ["1/10", "9/10"])),
    "data.priors": (PARTIAL, _model("priors", [["1/2", "1/2"], ["1/10", "9/10"],
                                                ["1/2", "1/2"]])),
    # two databases only: (0,0,0) and (1,1,1): the tally determines the target
    "data.support": (PARTIAL, _model("support", [[0, 0, 0], [1, 1, 1]],
                                     weights=["1/2", "1/2"])),
    "data.models": (PARTIAL, _model("models", [{"prior": ["1/10", "9/10"]},
                                               {"prior": ["1/2", "1/2"]}])),
    # knowing records 0 and 1, the tally minus them is the target's vote
    "attacker.known": (PARTIAL, _set("attacker.known", [0, 1])),
    # a user function for ζ that reveals records 0 and 1 (as knowing both)
    "attacker.knowledge": (PARTIAL, lambda d: (d.setdefault("attacker", {}).pop("known", None),
                                               d["attacker"].__setitem__(
                                                   "knowledge", "feature_knowledge:records_0_1"))),
    # three values: the pair (0, 2) alone differs from all pairs
    "attacker.pairs": (PARTIAL, lambda d: (d["data"].update(values=[0, 1, 2],
                                                            prior=["1/3", "1/3", "1/3"]),
                                           d["attacker"].__setitem__("pairs", [[0, 1]]))),
    # target 1 instead of 2, with record 2 (now the other unknown record) voting yes with
    # probability 9/10: the tally's law given the target moves
    "attacker.target": (PARTIAL, lambda d: (_model("priors", [["1/2", "1/2"],
                                                              ["1/2", "1/2"],
                                                              ["1/10", "9/10"]])(d),
                                            d["attacker"].__setitem__("target", 1))),
    "neighbours": (DP, _set("neighbours", SAME_COUNT)),
    "input": (DP, lambda d: (d.pop("data"), d.__setitem__("input", {"coordinates": 2,
                                                                    "range": [0, 1]}),
                             d.__setitem__("neighbours", SAME_COUNT))),
    # zCDP instead of (ε, δ)-DP: the count's laws are point masses, so D_α = +∞ and the
    # claim ρ = 1/2 fails with a Rényi report in place of the DP one
    "query.rho": (DP, lambda d: d["query"].update(notions=["zcdp"], rho="1/2")),
    # P[1] = a, a free in (0, 1): claims proved or refuted for every a, not at a = 1/2
    "parameters": (PARTIAL, lambda d: (d.__setitem__("parameters",
                                                     {"a": {"gt": "0", "lt": "1"}}),
                                       d["data"].__setitem__("prior", ["1 - a", "a"]))),
}

COMMANDS: dict[str, Callable[[str], list[str]]] = {
    "check": lambda p: ["check", p, "--json"],
    "sweep": lambda p: ["sweep", p, "--threshold", "1..3", "--json"],
    "family": lambda p: ["family", p, "--param", "alpha", "--range", "1/4..1/2", "--json"],
    # false claims: the counterexample's exact δs are printed, and move with the spec
    "prove": lambda p: ["prove", p, "--claim", "ppk <= 0" if "apkdp" in Path(p).read_text()
                        else "dp <= 0", "--json"],
    "reducible": lambda p: ["reducible", p, "--json"],
    "curve": lambda p: ["curve", p, "--json"],
}


def _base(command: str, base: dict) -> dict:
    doc = copy.deepcopy(base)
    if command == "family":  # (ε, δ)-DP of the geometric count for α in [1/4, 1/2]
        doc = copy.deepcopy(DP)
        doc["mechanism"] = {"kind": "geometric_count", "alpha": "1/2"}
    if command == "sweep" and base is DP:
        doc["mechanism"] = {"kind": "threshold_count", "counts": [1], "threshold": 1}
    if command == "reducible" and base is DP:
        doc = copy.deepcopy(PARTIAL)
    return doc


def test_every_feature_is_listed_and_every_command_declares_its_own():
    assert set(CHANGES) == set(FEATURES)
    assert set(COMMANDS) == set(SUPPORTED)


@pytest.mark.parametrize("feature", sorted(FEATURES))
@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.slow
def test_a_feature_changes_the_answer_or_is_refused(tmp_path, command, feature):
    (tmp_path / "feature_knowledge.py").write_text(
        "def records_0_1(db):\n    return (db[0], db[1])\n")
    base_doc, change = CHANGES[feature]
    base = _base(command, base_doc)
    with_feature = copy.deepcopy(base)
    if feature in SUPPORTED[command]:
        change(with_feature)
    else:  # the feature alone, any well-formed value: it must be refused, not read
        value = copy.deepcopy(_base("check", base_doc))
        change(value)
        table, _, key = feature.partition(".")
        _set(feature, value[table][key] if key else value[table])(with_feature)
    plain = invoke(COMMANDS[command](str(write(tmp_path, base, "base.toml"))))
    given = invoke(COMMANDS[command](str(write(tmp_path, with_feature, "feature.toml"))))
    assert_contract(plain)
    assert_contract(given)
    assert plain.exit_code in (0, 1, 3), plain.stderr
    if feature in SUPPORTED[command]:
        assert given.exit_code in (0, 1, 3), given.stderr
        assert given.stdout != plain.stdout, f"{command} ignores {feature}"
    else:
        assert given.exit_code == 2, given.stdout
        assert "does not apply" in given.stderr and feature.split(".")[-1] in given.stderr
