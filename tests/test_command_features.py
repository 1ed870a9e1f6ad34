"""Every command that reads a check spec × every key its readers know: honoured or refused.

The keys are not listed here: they are the declarations of the reader
(:data:`verifier.specs.check.TABLES`), so a key added there joins this matrix or fails
:func:`test_every_known_key_has_a_change`. For each key, :data:`CHANGES` gives a base spec and a
change that must move the answer of a command that applies the key (the reason beside each).
Each cell runs the command on the base and on the changed spec and is classified by
:func:`classify`: *honoured* (the answer moved, or a limit refused the work naming its key),
*refused* (exit 2 naming the key), *dropped* (the same answer: the key was silently ignored),
*accepted-unread* (a key no requested notion reads, answered as if absent), *internal* (a
crash). Every cell must be honoured or refused (or listed in :data:`UNMOVED` with its reason).

Some keys also get a second context, in which no requested notion reads them (a prior beside dp
alone, known records beside noiseless alone, a relation beside apkdp alone): there the only
right answer is a refusal.

``python tests/test_command_features.py`` prints the matrix and its counts.
"""

from __future__ import annotations

import copy
import json
import re
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "hostile"))
from harness import assert_contract, invoke, write

from verifier.specs.check import TABLES

# A thresholded count of 3 records (threshold 2); the attacker knows record 0, targets 2.
PARTIAL = {"data": {"records": 3, "values": [0, 1], "prior": ["1/2", "1/2"]},
           "mechanism": {"kind": "threshold_count", "counts": [1], "threshold": 2},
           "attacker": {"target": 2, "known": [0]},
           "query": {"epsilon": "ln(2)", "delta": "1/10", "notions": ["apkdp", "ppkdp"]}}
# Classical DP of a thresholded count of 2 records (threshold 1 = the count is 0 or not):
# replace-one gives δ(ln 2) = 1 (point masses 0 and 1), while a relation whose pairs have
# equal counts gives δ = 0.
DP = {"data": {"records": 2, "values": [0, 1]},
      "mechanism": {"kind": "threshold_count", "counts": [1], "threshold": 1},
      "query": {"epsilon": "ln(2)", "delta": "0", "notions": ["dp"]}}
SAME_COUNT = {"relation": "pairs", "pairs": [[[0, 1], [1, 0]]]}
# the geometric count plrv family varies (alpha in [1/4, 1/2])
GEOMETRIC = {"kind": "geometric_count", "alpha": "1/2"}

Change = Callable[[dict], None]


def _set(table: str, key: str, value) -> Change:
    return lambda doc: doc.setdefault(table, {}).__setitem__(key, copy.deepcopy(value))


def _model(key: str, value, **extra) -> Change:
    """Replace the data model by another of the same records."""
    def apply(doc: dict) -> None:
        doc["data"].pop("prior", None)
        doc["data"][key] = copy.deepcopy(value)
        doc["data"].update(copy.deepcopy(extra))
    return apply


def _both(*changes: Change) -> Change:
    def apply(doc: dict) -> None:
        for c in changes:
            c(doc)
    return apply


def _query(**keys) -> Change:
    return lambda doc: doc["query"].update(copy.deepcopy(keys))


def _records(doc: dict) -> None:
    doc["data"]["records"] += 1


def _values(doc: dict) -> None:
    doc["data"]["values"] = [0, 1, 2]
    if "prior" in doc["data"]:
        doc["data"]["prior"] = ["1/3", "1/3", "1/3"]


def _knowledge(doc: dict) -> None:
    doc.setdefault("attacker", {}).pop("known", None)
    doc["attacker"]["knowledge"] = "feature_knowledge:records_0_1"


def _pairs(doc: dict) -> None:
    _values(doc)
    doc.setdefault("attacker", {})["pairs"] = [[0, 1]]


def _input(doc: dict) -> None:
    doc.pop("data")
    doc["input"] = {"coordinates": 2, "range": [0, 1]}
    doc["neighbours"] = copy.deepcopy(SAME_COUNT)


def _input_vectors(doc: dict) -> None:
    doc.pop("data")
    doc["input"] = {"vectors": [[0, 1], [1, 0], [1, 1]]}
    doc["neighbours"] = copy.deepcopy(SAME_COUNT)


def _parameters(doc: dict) -> None:
    doc["parameters"] = {"a": {"gt": "0", "lt": "1"}}
    if "prior" in doc.get("data", {}):
        doc["data"]["prior"] = ["1 - a", "a"]
    else:
        doc["mechanism"] = {"kind": "randomized_response", "truth": "a"}


def _rho(doc: dict) -> None:
    doc["query"]["rho"] = "1/2"


def _renyi(notion: str, **keys) -> Callable[[dict], dict]:
    """The dp base asking ``notion`` with ``keys``: the Rényi keys' own base."""
    def base(doc: dict, command: str) -> dict:
        doc["query"] = {"notions": [notion], **copy.deepcopy(keys)}
        return doc
    return base


# user-code mechanisms for limits.user_seconds and limits.user_memory: the thresholded count
# [count of 1s ≥ threshold], which waits 1.5 s at its first call (over a limit of 1 s), or which
# first allocates 256 MB (over a limit of 64 MB; the default 4 GiB takes it)
USER_MECHANISMS = """
import time
_WAITED = []
def slow_threshold(db):
    if not _WAITED:
        _WAITED.append(time.sleep(1.5))
    return int(sum(db) >= 1)
def large_threshold(db):
    bytearray(256 << 20)
    return int(sum(db) >= 1)
def coin_threshold(db):
    from verifier.program import flip
    answer = int(sum(db) >= 1)
    return answer if flip("3/4") else 1 - answer
def slow_record_0(db):
    return slow_threshold(db[:1])
def large_record_0(db):
    return large_threshold(db[:1])
def coin_record_0(db):
    return coin_threshold(db[:1])
"""


def _user_mechanism(name: str) -> Callable[[dict, str], dict]:
    def base(doc: dict, command: str) -> dict:
        if command == "sweep":  # a threshold count is swept: the user code is ζ (record 0)
            doc["data"]["prior"] = ["1/2", "1/2"]
            doc["attacker"] = {"target": 1, "knowledge": f"feature_knowledge:{name}_record_0"}
            doc["query"].update(notions=["apkdp"], delta="1/10")
        elif command != "family":  # (family varies the geometric count's alpha)
            doc["mechanism"] = {"kind": "function",
                                "function": f"feature_knowledge:{name}_threshold"}
        return doc
    return base


def _program(doc: dict, command: str) -> dict:
    """A program for limits.paths: the thresholded count, told truthfully with probability
    3/4 (two paths on every database); for sweep, whose mechanism is a threshold count, ζ is
    that program on record 0 (family takes no program)."""
    if command == "sweep":
        doc["data"]["prior"] = ["1/2", "1/2"]
        doc["attacker"] = {"target": 1, "knowledge": "feature_knowledge:coin_record_0"}
        doc["query"].update(notions=["apkdp"], delta="1/10")
    elif command != "family":
        doc["mechanism"] = {"kind": "program", "function": "feature_knowledge:coin_threshold"}
    return doc


def _same(doc: dict, command: str = "") -> dict:
    return doc


def _brute(doc: dict, command: str) -> dict:
    """Brute force, which ``databases`` and ``work`` bound: a randomized response's reports
    (the count engine does not take them), or the brute engine where the mechanism is fixed
    (sweep sweeps a threshold count; family varies the geometric count's alpha)."""
    if command == "sweep":
        doc.setdefault("limits", {})["engine"] = "brute"
    elif command != "family":
        doc["mechanism"] = {"kind": "randomized_response", "truth": "3/4"}
    return doc


# key -> (its context: "dp" or "partial", a base modifier, the change), each change moving the
# answer of a command that applies the key (hand reasons beside).
CHANGES: dict[str, tuple[str, Callable[[dict, str], dict], Change]] = {
    # one record more: the witness's databases (dp) or the tally's law (partial) move
    "data.records": ("partial", _same, _records),
    # a third value: 3 values to compare (partial), databases over 3 values (dp)
    "data.values": ("partial", _same, _values),
    # P[1] = 9/10 instead of 1/2: the tally's law given the target's value moves
    "data.prior": ("partial", _same, _set("data", "prior", ["1/10", "9/10"])),
    "data.priors": ("partial", _same, _model("priors", [["1/2", "1/2"], ["1/10", "9/10"],
                                                        ["1/2", "1/2"]])),
    # two databases only: (0,0,0) and (1,1,1): the tally determines the target
    "data.support": ("partial", _same, _model("support", [[0, 0, 0], [1, 1, 1]],
                                              weights=["1/2", "1/2"])),
    "data.weights": ("partial", _same, _model("support", [[0, 0, 0], [1, 1, 1]],
                                              weights=["1/4", "3/4"])),
    "data.models": ("partial", _same, _model("models", [{"prior": ["1/10", "9/10"]},
                                                        {"prior": ["1/2", "1/2"]}])),
    # target 1 instead of 2, with record 2 (now the other unknown record) voting yes with
    # probability 9/10: the tally's law given the target moves
    "attacker.target": ("partial", _same, _both(
        _model("priors", [["1/2", "1/2"], ["1/2", "1/2"], ["1/10", "9/10"]]),
        _set("attacker", "target", 1))),
    # knowing records 0 and 1, the tally minus them is the target's vote
    "attacker.known": ("partial", _same, _set("attacker", "known", [0, 1])),
    # a user function for ζ that reveals records 0 and 1 (as knowing both)
    "attacker.knowledge": ("partial", _same, _knowledge),
    # three values: the pair (0, 1) alone is compared, not (0, 2), (1, 2)
    "attacker.pairs": ("partial", _same, _pairs),
    "query.epsilon": ("partial", _same, _query(epsilon="ln(3)")),
    # δ = 1/2 claimed instead of 1/10 (dp: 0): the verdict or the margin moves
    "query.delta": ("partial", _same, _query(delta="1/2")),
    "query.notions": ("partial", _same, _query(notions=["apkdp"])),
    # zCDP instead of (ε, δ)-DP: the laws are point masses, D_α = +∞, the claim ρ = 1/2 fails
    # with a Rényi report in place of the DP one
    "query.rho": ("dp", _same, _both(_query(notions=["zcdp"]), _rho)),
    # one order (2) instead of the nine default ones
    "query.orders": ("dp", _renyi("rdp", rho="1/2"), _query(orders=[2])),
    # one budget per order instead of rho
    "query.rdp_epsilon": ("dp", _renyi("rdp", orders=[2, 3], rho="1/2"),
                          lambda d: (d["query"].pop("rho"),
                                     d["query"].__setitem__("rdp_epsilon", ["1", "2"]))),
    # a limit of 1 on what the spec needs more of: refused naming the limit (databases and
    # work bound brute force, which a randomized response's reports take)
    **{f"limits.{k}": ("partial", _same, _set("limits", k, 1))
       for k in ("records", "values", "combinations", "memory")},
    **{f"limits.{k}": ("partial", _brute, _set("limits", k, 1))
       for k in ("databases", "work")},
    # user code over its limits: stopped, and named
    "limits.user_seconds": ("dp", _user_mechanism("slow"),
                            _set("limits", "user_seconds", 1)),
    "limits.user_memory": ("dp", _user_mechanism("large"),
                           _set("limits", "user_memory", 64 << 20)),
    # a program's two paths on each database, over a limit of 1: refused naming the limit
    "limits.paths": ("dp", _program, _set("limits", "paths", 1)),
    # the count engine asked for a randomized response's reports, which it does not take
    "limits.engine": ("partial", _brute, _set("limits", "engine", "counts")),
    "input.coordinates": ("dp", _same, _input),
    "input.range": ("dp", _same, _input),
    "input.vectors": ("dp", _same, _input_vectors),
    "neighbours.relation": ("dp", _same, lambda d: d.__setitem__(
        "neighbours", copy.deepcopy(SAME_COUNT))),
    "neighbours.pairs": ("dp", _same, lambda d: d.__setitem__(
        "neighbours", copy.deepcopy(SAME_COUNT))),
    # l1 at distance 2 on 2 binary records: (0,0) ~ (1,1) too (distance 1 is replace-one);
    # the count moves by 2 there, so δ(ln 2) of a geometric count (α = 1/2) leaves 0
    "neighbours.distance": ("dp", lambda d, c: (d.update(
        neighbours={"relation": "l1"}), c == "sweep" or d.update(
        mechanism=copy.deepcopy(GEOMETRIC)), d)[2],
        lambda d: d["neighbours"].__setitem__("distance", 2)),
    # P[1] = a (or truth = a), a free in (0, 1): decided for every a, not at a = 1/2
    "parameters": ("partial", _same, _parameters),
    # a randomized response instead of the thresholded count
    "mechanism": ("partial", _same, lambda d: d.__setitem__(
        "mechanism", {"kind": "randomized_response", "truth": "3/4"})),
}

# Contexts in which no requested notion reads the key: only a refusal is right.
UNREAD: dict[str, tuple[str, Change]] = {
    "data.prior@dp": ("dp", _set("data", "prior", ["1/10", "9/10"])),
    "data.support@dp": ("dp", _model("support", [[0, 0], [1, 1]], weights=["1/2", "1/2"])),
    "data.models@dp": ("dp", _model("models", [{"prior": ["1/10", "9/10"]}])),
    "attacker.known@noiseless": ("partial", _both(_query(notions=["noiseless"]),
                                                  _set("attacker", "known", [0, 1]))),
    "attacker.knowledge@noiseless": ("partial", _both(_query(notions=["noiseless"]),
                                                      _knowledge)),
    "attacker.target@dp": ("dp", _set("attacker", "target", 1)),
    "neighbours.relation@apkdp": ("partial", lambda d: d.__setitem__(
        "neighbours", {"relation": "linf"})),
}

COMMANDS: dict[str, Callable[[str, str], list[str]]] = {
    "check": lambda p, ctx: ["check", p, "--json"],
    "sweep": lambda p, ctx: ["sweep", p, "--threshold", "1..3", "--json"],
    "family": lambda p, ctx: ["family", p, "--param", "alpha", "--range", "1/4..1/2", "--json"],
    # false claims: the counterexample's exact δs are printed, and move with the spec
    "prove": lambda p, claim: ["prove", p, "--claim", f"{claim} <= 0", "--json"],
    "reducible": lambda p, ctx: ["reducible", p, "--json"],
    "curve": lambda p, ctx: ["curve", p, "--json"],
    "compose": lambda p, ctx: ["compose", p, "--k", "2", "--json"],
    # k runs under partial knowledge (apkdp, ppkdp, noiseless): the check spec's data model
    # and attacker, read by the same reader
    "compose-partial": lambda p, ctx: ["compose", p, "--k", "2", "--json"],
}
# the context a command decides (None: both)
CONTEXT = {"family": "dp", "compose": "dp", "compose-partial": "partial",
           "reducible": "partial"}
# cells whose change cannot move this command's answer, each with the reason (the cell must
# still not crash; the key is read there, as the other commands' cells show)
UNMOVED = {
    ("sweep", "mechanism"): "a threshold sweep takes a threshold count only (refused by kind)",
    ("family", "mechanism"): "--param alpha names the geometric count's parameter",
    ("compose", "data.values"): "compose reports δ alone, 1 over either domain",
    ("sweep", "neighbours.distance"): "a threshold sweep takes a threshold count only",
    ("sweep", "limits.engine"): "a threshold count is symmetric: the count engine takes it",
    # not applied, and not refused: the spec's own claim, which plrv check decides on the same
    # file (every example of reducible and prove is also one of check); left as they were
    ("reducible", "query.epsilon"): "Definition 59 has no ε: the spec's claim is check's",
    ("reducible", "query.delta"): "Definition 59 has no δ: the spec's claim is check's",
    ("reducible", "query.notions"): "Definition 59 compares attackers, whatever the notions",
    ("prove", "query.delta"): "prove decides --claim at the spec's ε; δ is check's claim",
    ("prove", "query.notions"): "prove decides --claim's notions (the spec's widen what is "
                                "read, as a prior for its apkdp beside a claim over dp)",
}
RENYI_KEYS = ("query.rho", "query.orders", "query.rdp_epsilon")


def _keys() -> list[str]:
    """Every key the check spec's reader declares (a table checked elsewhere, the mechanism
    or [parameters], counts as one key)."""
    out = []
    for table, keys in TABLES.items():
        out += [table] if keys is None else [f"{table}.{k}" for k in sorted(keys)]
    if "parameters" not in TABLES:  # a reader that does not declare it still meets it
        out.append("parameters")
    return out


def _base(command: str, context: str) -> tuple[dict, str]:
    ctx = CONTEXT.get(command, context)
    doc = copy.deepcopy(PARTIAL if ctx == "partial" else DP)
    if command == "family":
        doc["mechanism"] = copy.deepcopy(GEOMETRIC)
    return doc, ctx


def _cases() -> list[tuple[str, str]]:
    # the Rényi keys turn a spec into rdp/zcdp over a relation: the compose column has them
    return [(c, k) for c in COMMANDS for k in [*_keys(), *UNREAD]
            if not (c == "compose-partial" and k in RENYI_KEYS)]


def classify(command: str, key: str, folder: Path) -> tuple[str, str]:
    """``(class, detail)`` of one cell (see the module docstring)."""
    (folder / "feature_knowledge.py").write_text(
        "def records_0_1(db):\n    return (db[0], db[1])\n" + USER_MECHANISMS)
    name, _, _ = key.partition("@")
    if "@" in key:
        context, change = UNREAD[key]
        modify: Callable[[dict, str], dict] = _same
        if CONTEXT.get(command, context) != context or command == "reducible":
            return "not-applicable", "the command decides the other context"
    else:
        context, modify, change = CHANGES[name]
    base, ctx = _base(command, context)
    base = modify(base, command)
    changed = copy.deepcopy(base)
    change(changed)
    args = COMMANDS[command]
    plain = invoke(args(str(write(folder, base, "base.toml")), _claim(changed, ctx)))
    given = invoke(args(str(write(folder, changed, "changed.toml")), _claim(changed, ctx)))
    if "internal error" in plain.stderr + given.stderr or "Traceback" in given.stderr:
        return "internal", given.stderr.strip()[-300:]
    if plain.exit_code not in (0, 1, 3):
        line = plain.stderr.strip()
        if name in RENYI_KEYS and any(s in line for s in ("rdp and zcdp", "checks dp only")):
            return "refused", line  # the notions that read the key are refused
        if f": {name.split('.')[0]}" in line:  # the key's table refused in the base already
            return "refused", line
        return "base-fails", line
    named = _changed(base, changed)
    if given.exit_code == 2:
        line = given.stderr.strip()
        if any(n in line for n in named):
            return "refused" if "over the limit" not in line else "honoured", line
        return "refused-elsewhere", line
    if "@" in key:
        return "accepted-unread", given.stdout[:300]
    if _untimed(given.stdout) != _untimed(plain.stdout):
        return "honoured", ""
    if (command, name) in UNMOVED:
        return "unmoved", UNMOVED[command, name]
    return "dropped", given.stdout[:300]


def _untimed(text: str) -> str:
    """An output without its timings (prove reports each instance's seconds)."""
    return re.sub(r'"seconds": [0-9.e-]+', "", text)


def _claim(doc: dict, ctx: str) -> str:
    """The context for prove's claim: over the spec's first notion."""
    first = doc["query"].get("notions", ["dp"])[0]
    return {"apkdp": "apk", "ppkdp": "ppk", "noiseless": "noiseless"}.get(first, ctx)


def _changed(base: dict, changed: dict, prefix: str = "") -> set[str]:
    """What a refusal may name: every dotted key (and table) that differs, and the new
    string values (a notion asked, whose precondition names its own key)."""
    out: set[str] = set()
    for k in {*base, *changed}:
        key = f"{prefix}.{k}" if prefix else str(k)
        a, b = base.get(k), changed.get(k)
        if a == b:
            continue
        if isinstance(a, dict) or isinstance(b, dict):
            out |= {key, f"[{key}]"}
            a, b = a if isinstance(a, dict) else {}, b if isinstance(b, dict) else {}
            out |= _changed(a, b, key)
        else:
            out |= {key, f"[{key}]"} | ({f"{key}."} if isinstance(a or b, dict) else set())
            values = b if isinstance(b, list) else [b]
            out |= {v for v in values if isinstance(v, str) and len(v) > 2}
    return out


def test_every_known_key_has_a_change():
    assert set(_keys()) == set(CHANGES), set(_keys()) ^ set(CHANGES)
    assert all(k.partition("@")[0] in CHANGES for k in UNREAD)


@pytest.mark.parametrize("command, key", _cases())
@pytest.mark.slow
def test_a_key_is_honoured_or_refused(tmp_path, command, key):
    kind, detail = classify(command, key, tmp_path)
    assert kind in ("honoured", "refused", "unmoved", "not-applicable"), \
        f"plrv {command} with {key}: {kind}: {detail}"


# ------------------------------------------------------------------ the findings, by hand

COUNT2 = {"data": {"records": 2, "values": [0, 1]},
          "mechanism": {"kind": "count", "counts": [1]},
          "query": {"epsilon": "ln(2)", "delta": "0", "notions": ["dp"]}}


@pytest.mark.parametrize("args", [["prove", "--claim", "apk <= 0"],
                                  ["prove", "--claim", "noiseless <= 0"],
                                  ["prove", "--claim", "theorem2"], ["reducible"]])
def test_a_claim_needing_a_data_model_is_refused_without_one(tmp_path, args):
    """A count of 2 records with no data model: apk, ppk and noiseless compare laws given the
    target's value, which need θ; before, prove said proved (and reducible crashed)."""
    out = invoke([args[0], str(write(tmp_path, COUNT2)), *args[1:]])
    assert_contract(out)
    assert out.exit_code == 2 and "data.prior" in out.stderr and "needs a data model" \
        in out.stderr, out.stderr


def test_the_same_claim_with_a_prior_finds_the_hand_value(tmp_path):
    """With P[1] = 1/2 and nothing known, given D(i) = 0 the count is 0 or 1 (1/2 each),
    given D(i) = 1 it is 1 or 2: at ε = ln 2, δ = P[O = 0 | 0] − 2·P[O = 0 | 1] = 1/2."""
    doc = copy.deepcopy(COUNT2)
    doc["data"]["prior"] = ["1/2", "1/2"]
    doc["query"]["notions"] = ["apkdp", "noiseless"]
    out = invoke(["check", str(write(tmp_path, doc)), "--json"])
    assert out.exit_code == 1
    results = json.loads(out.stdout)
    for notion in ("apkdp", "noiseless"):
        assert results[notion]["delta"] == "1/2", results[notion]
    proof = invoke(["prove", str(write(tmp_path, doc, "p.toml")), "--claim", "apk <= 0"])
    assert proof.exit_code == 1 and "exact apk = 1/2" in proof.stdout, proof.stdout


@pytest.mark.parametrize("key, change, notions", [
    ("data.prior", _set("data", "prior", ["1/2", "1/2"]), ["dp"]),
    ("data.support", _model("support", [[0, 0], [1, 1]], weights=["1/2", "1/2"]), ["dp"]),
    ("attacker.known", _both(_set("data", "prior", ["1/2", "1/2"]),
                             _set("attacker", "known", [0])), ["noiseless"]),
    ("attacker.knowledge", _both(_set("data", "prior", ["1/2", "1/2"]),
                                 _set("attacker", "knowledge", "m:f")), ["noiseless"]),
])
def test_a_key_no_requested_notion_reads_is_refused(tmp_path, key, change, notions):
    doc = copy.deepcopy(COUNT2)
    change(doc)
    doc["query"]["notions"] = notions
    out = invoke(["check", str(write(tmp_path, doc))])
    assert out.exit_code == 2 and f": {key}: plrv check with notions = " in out.stderr \
        and f"does not read {key}" in out.stderr, out.stderr


def test_a_noise_spec_refuses_a_top_level_kind(tmp_path):
    doc = {"kind": "check", "data": {"records": 2, "values": [0, 1]},
           "mechanism": {"kind": "discrete_laplace", "scale": "1"},
           "query": {"epsilon": "1", "delta": "0", "notions": ["dp"]}}
    out = invoke(["check", str(write(tmp_path, doc))])
    assert out.exit_code == 2 and "[kind]" in out.stderr, out.stderr
    del doc["kind"]
    assert invoke(["check", str(write(tmp_path, doc))]).exit_code == 0


LINF = {"data": {"records": 3, "values": [0, 1]},
        "mechanism": {"kind": "count", "counts": [1]},
        "neighbours": {"relation": "linf"},
        "query": {"epsilon": "ln(2)", "delta": "0", "notions": ["dp"]}}


@pytest.mark.parametrize("limit, options, refused", [
    (4, [], True), (16, [], False), (16, ["--budget", "4"], True),
    (4, ["--budget", "100"], False)])
def test_linf_over_data_enumerates_within_the_databases_limit(tmp_path, limit, options,
                                                              refused):
    """linf over 3 binary records enumerates 2^3 = 8 databases: a limit of 4 (in the spec or
    by --budget, which replaces it) refuses them, 16 or 100 does not (δ = 1: the count moves
    by 1 between neighbours)."""
    doc = copy.deepcopy(LINF)
    doc["limits"] = {"databases": limit}
    out = invoke(["check", str(write(tmp_path, doc)), *options])
    if refused:
        assert out.exit_code == 2 and "limits.databases" in out.stderr and ": 8, over the " \
            "limit of 4" in out.stderr, out.stderr
    else:
        assert out.exit_code == 1, out.stderr


@pytest.mark.parametrize("command", ["prove", "reducible"])
def test_prove_and_reducible_apply_limits_databases(tmp_path, command):
    """PARTIAL has 2^3 = 8 databases: limits.databases = 4 refuses them."""
    doc = copy.deepcopy(PARTIAL)
    doc["limits"] = {"databases": 4}
    extra = ["--claim", "ppk <= apk"] if command == "prove" else []
    out = invoke([command, str(write(tmp_path, doc)), *extra])
    assert out.exit_code == 2 and "limits.databases" in out.stderr and "over the limit of 4" \
        in out.stderr, out.stderr


def test_family_refuses_limits(tmp_path):
    doc = copy.deepcopy(DP)
    doc["mechanism"] = copy.deepcopy(GEOMETRIC)
    doc["limits"] = {"databases": 4}
    out = invoke(["family", str(write(tmp_path, doc)), "--param", "alpha", "--range",
                  "1/4..1/2"])
    assert out.exit_code == 2 and ": limits.databases: plrv family" in out.stderr, out.stderr


if __name__ == "__main__":  # the matrix and its counts
    import tempfile

    counts: Counter = Counter()
    for command, key in _cases():
        with tempfile.TemporaryDirectory() as folder:
            try:
                kind, detail = classify(command, key, Path(folder))
            except Exception as exc:
                kind, detail = "internal", repr(exc)[:200]
        counts[kind] += 1
        print(f"{command:10} {key:32} {kind:18} {detail[:150]}", flush=True)
    print(dict(counts), sum(counts.values()))
