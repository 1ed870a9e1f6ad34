"""The spec reference: every mechanism kind and every key of the check spec's tables, with
its type, default and meaning (``docs/reference/spec-keys.md``, by ``python -m``).

The keys themselves come from the readers' declarations — the mechanism registry
(:data:`verifier.model.mechanisms.MECHANISM_KINDS`, its required and optional keys), the
noise readers' key sets, the singling-out and guessing readers' kinds, the check spec's
:data:`~verifier.specs.check.TABLES` and the limits of :mod:`verifier.core.budget` (their
defaults and meanings too). This module adds only what the readers do not declare: each
key's type, default and meaning. :func:`undocumented` lists a key declared and not
described here, or described and not declared; the tests require it to be empty, so a key
added to a reader cannot be missing from the page.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from verifier.core.budget import CHECK_LIMITS, LIMITS
from verifier.model.mechanisms import MECHANISM_KINDS
from verifier.specs.check import TABLES
from verifier.specs.compose import COMPOSITION_KEYS
from verifier.specs.guess import KINDS as GUESS_KINDS
from verifier.specs.guess import PARAMETERS as GUESS_PARAMETERS
from verifier.specs.noise import NOISE_KEYS
from verifier.specs.noise_zoo import CHOICE_KEYS, COORDINATE_KEYS
from verifier.specs.pso import MECHANISM_KEYS as PSO_KEYS

__all__ = ["Key", "SECTIONS", "declared", "undocumented", "markdown"]

REQUIRED = "required"


@dataclass(frozen=True, slots=True)
class Key:
    """One key: its TOML type, its default (:data:`REQUIRED` when it must be given) and
    what it means."""

    type: str
    default: str
    meaning: str


_EXACT = 'integer or exact string ("3/4", "0.75", "1e-6")'
_NUMBER = "number: " + _EXACT
_PROB = "probability: " + _EXACT
_VALUES = "list of record values (integers or strings)"
_USER = 'string "module:function" (a file of the spec\'s folder)'
_SYM = Key("boolean", "false", "the function depends only on the multiset of records: the "
           "count engine calls it once per count vector")
_COUNTS = Key(_VALUES, "[1]", "the record values counted (each one of data.values)")
_LO = Key("integer", "none", "the released value is clamped below to lo")
_HI = Key("integer", "none", "the released value is clamped above to hi")
_SCALE = Key(_NUMBER + " > 0", REQUIRED, "the discrete Laplace noise's scale: "
             "P[k] ∝ e^(−|k|/scale)")
_SIGMA = Key(_NUMBER + " > 0", REQUIRED, "the discrete Gaussian's σ: P[k] ∝ e^(−k²/(2σ²))")
_RELEASE = Key('"index" or "index_and_value"', '"index"', "what is released: the chosen "
               "index, or also its noisy value clamped to [lo, hi] (the literature's broken "
               "variants)")
_CLAMP = "with release = \"index_and_value\": the released value is clamped to [lo, hi]"

# section title, what the kinds are read by, {kind: (summary, {key: Key})}
_CHECK: dict[str, tuple[str, dict[str, Key]]] = {
    "count": ("the count #{j : D_j ∈ counts}", {"counts": _COUNTS}),
    "threshold_count": ("the count c if c ≥ threshold, else ⊥ (thesis Definition 60)", {
        "counts": _COUNTS,
        "threshold": Key("integer", REQUIRED, "the least count released")}),
    "sum": ("Σ_j D_j over numeric records", {}),
    "mean": ("(1/n)·Σ_j D_j over numeric records, exact", {}),
    "identity": ("the database itself", {}),
    "randomized_response": ("each record reported truthfully with probability truth, else "
                            "as each other value with (1 − truth)/(k − 1)", {
                                "truth": Key(_PROB, REQUIRED, "the probability of the "
                                             "true value")}),
    "geometric_count": ("the count plus two-sided geometric noise P[k] ∝ α^|k|, clamped "
                        "to {0..n}", {
                            "counts": _COUNTS,
                            "alpha": Key(_NUMBER + " in (0, 1)", REQUIRED,
                                         "the noise's ratio α (ε-DP with α = e^(−ε))")}),
    "function": ("your function of the database: an output, or a Dist of outputs", {
        "function": Key(_USER, REQUIRED, "the function f(database)"), "symmetric": _SYM}),
    "program": ("your function drawing with verifier.program's primitives, enumerated "
                "exactly (at most limits.paths paths per input)", {
                    "function": Key(_USER, REQUIRED, "the program f(database)"),
                    "symmetric": _SYM}),
}
_NOISE: dict[str, tuple[str, dict[str, Key]]] = {
    "discrete_laplace": ("the sum of the [data] records plus discrete Laplace noise",
                         {"scale": _SCALE, "lo": _LO, "hi": _HI}),
    "discrete_gaussian": ("the sum of the [data] records plus discrete Gaussian noise",
                          {"sigma": _SIGMA, "lo": _LO, "hi": _HI}),
}
_VECTOR: dict[str, tuple[str, dict[str, Key]]] = {
    "discrete_laplace": ("each coordinate of the [input] vector plus discrete Laplace "
                         "noise (no clamp)", {"scale": _SCALE}),
    "discrete_gaussian": ("each coordinate of the [input] vector plus discrete Gaussian "
                          "noise (no clamp)", {"sigma": _SIGMA}),
    "noisy_max": ("report noisy max: the index of the largest noisy coordinate", {
        "noise": Key('"discrete_laplace"', REQUIRED, "the noise on every query"),
        "scale": _SCALE, "release": _RELEASE,
        "lo": Key("integer", "none", _CLAMP), "hi": Key("integer", "none", _CLAMP)}),
    "above_threshold": ("the index of the first noisy query above a noisy threshold", {
        "noise": Key('"discrete_laplace"', REQUIRED, "the noise on queries and threshold"),
        "scale": Key(_NUMBER + " ≥ 0", REQUIRED, "the queries' noise scale (0: none)"),
        "threshold": Key("integer", REQUIRED, "the threshold"),
        "threshold_scale": Key(_NUMBER + " ≥ 0", REQUIRED,
                               "the threshold's noise scale (0: none)"),
        "compare": Key('">=" or ">"', '">="', "how a noisy query is compared with the "
                       "noisy threshold"),
        "release": _RELEASE,
        "lo": Key("integer", "none", _CLAMP), "hi": Key("integer", "none", _CLAMP)}),
}
_PRED = 'string: a predicate of x (or bits b0, b1, …), e.g. "x < 3"'
_PSO: dict[str, tuple[str, dict[str, Key]]] = {
    "count": ("the count #{j : predicate(x_j)} (seed 002, the Counting Mechanism)",
              {"predicate": Key(_PRED, REQUIRED, "the predicate counted")}),
    "counts": ("one count per predicate", {
        "predicates": Key("list of " + _PRED, REQUIRED, "the predicates counted")}),
    "composition_counts": ("the counts of base and of base ∧ bit j for every bit j (seed "
                           "002, Theorem 4.6)", {
                               "base": Key(_PRED, REQUIRED, "the base predicate p")}),
    "predicate": ("whether each row satisfies the predicate",
                  {"predicate": Key(_PRED, REQUIRED, "the predicate")}),
    "bit_predicates": ("every bit of every row", {}),
    "bit_suppression": ("k-anonymity by suppressing bits (seed 002, Section 6)",
                        {"k": Key("integer ≥ 1", REQUIRED, "the anonymity parameter k")}),
    "interval_buckets": ("k-anonymity by interval buckets (seed 002, Section 6)",
                         {"k": Key("integer ≥ 1", REQUIRED, "the anonymity parameter k")}),
    "randomized_response": ("each row reported truthfully with probability truth", {
        "truth": Key(_PROB, REQUIRED, "the probability of the true value")}),
    "identity": ("the dataset itself", {}),
    "function": ("your function of the dataset", {
        "function": Key(_USER, REQUIRED, "the function f(rows)"), "symmetric": _SYM}),
}
_GUESS: dict[str, tuple[str, dict[str, Key]]] = {
    "truncated_geometric": ("x plus two-sided geometric noise truncated to the domain "
                            "(one attribute)", {
                                "alpha": Key(_NUMBER + " in (0, 1)", REQUIRED,
                                             "the noise's ratio α")}),
    "exponential": ("the exponential mechanism with utility −‖x − z‖₁", {
        "beta": Key(_NUMBER + " in (0, 1)", REQUIRED, "P[z | x] ∝ β^‖x − z‖₁")}),
    "identity": ("x itself (the default kind)", {}),
    "function": ("your function of x, returning an output or a Dist", {
        "function": Key(_USER, REQUIRED, "the function f(x)")}),
}

# the check spec's other tables: {table: {key: Key}} ([limits] comes from core.budget)
_TABLE_KEYS: dict[str, dict[str, Key]] = {
    "data": {
        "records": Key("integer ≥ 1", REQUIRED, "the number of records n"),
        "values": Key(_VALUES, REQUIRED, "the values a record can take"),
        "prior": Key("list of " + _PROB, "none", "i.i.d. records: each value's probability, "
                     "in the order of values (apkdp, ppkdp, noiseless)"),
        "priors": Key("list of lists of probabilities", "none", "independent records: one "
                      "prior per record"),
        "support": Key("list of databases (lists of values)", "none", "an explicit data "
                       "model: the databases of positive probability, with weights"),
        "weights": Key("list of " + _PROB, "none", "the probabilities of support's "
                       "databases"),
        "models": Key("list of tables {prior | priors | support and weights}", "none",
                      "a family Θ of data models, each checked"),
    },
    "attacker": {
        "target": Key('integer, list of integers, or "all"', '"all"', "the index i of the "
                      "record attacked"),
        "known": Key("list of indices, or a list of such lists", "[] (no knowledge)",
                     "the indices whose values the attacker knows (a list of lists: a "
                     "family Z)"),
        "knowledge": Key(_USER, "none", "the attacker's knowledge ζ(database): a value, a "
                         "Dist, or a program (instead of known)"),
        "pairs": Key("list of [a, b] pairs of values", "every ordered pair",
                     "the compared values of the target (both directions count)"),
    },
    "query": {
        "epsilon": Key('string: "ln(q)", a rational number of nats, "0" or "inf"',
                       REQUIRED + " (not for rdp, zcdp)", "the claimed ε"),
        "delta": Key(_PROB, "0", "the claimed δ"),
        "notions": Key('list of "dp", "apkdp", "ppkdp", "noiseless", "rdp", "zcdp", …',
                       '["dp"]', "the notions decided (the Rényi forms under partial "
                       "knowledge too: apkrdp, ppkzcdp, …)"),
        "orders": Key("list of integers 2 … 1024", "[2, 3, 4, 5, 6, 8, 16, 32, 64]",
                      "rdp: the orders α"),
        "rho": Key(_NUMBER + " ≥ 0", "none", "the zCDP claim D_α ≤ ρ·α (zcdp needs it)"),
        "rdp_epsilon": Key("list of ε, one per order", "none", "rdp: D_α ≤ budget"),
    },
    "input": {
        "coordinates": Key("integer 1 … 64", REQUIRED + " (or vectors)",
                           "the length of an input vector"),
        "range": Key("[lo, hi] of integers", REQUIRED + " (or vectors)",
                     "the integers a coordinate takes"),
        "vectors": Key("list of lists of integers", "none", "the input vectors themselves"),
    },
    "neighbours": {
        "relation": Key('"replace-one", "add-remove-one", "linf", "l1", "pairs" or '
                        + _USER, '"replace-one" ("linf" needs naming for [input])',
                        "the neighbouring relation of dp"),
        "distance": Key("integer ≥ 1", "1", "linf, l1: the largest distance of neighbours"),
        "pairs": Key("list of [x, y] pairs of inputs", REQUIRED + " (relation = \"pairs\")",
                     "the neighbouring pairs themselves"),
    },
    "limits": {"engine": Key('"auto", "brute" or "counts"', '"auto"',
                             "the engine (also --engine)")},
    "composition": {
        "steps": Key("list of " + _USER, REQUIRED + " (adaptive)", "plrv compose: the "
                     "steps f(x, earlier outputs) of an adaptive composition"),
        "enclosure": Key('"auto", "never" or "always"', '"auto"', "plrv compose: when "
                         "losses are rounded onto a grid and enclosed"),
        "grid": Key('"ln(γ)" with rational γ > 1', "chosen by plrv", "plrv compose: the "
                    "enclosure's grid spacing"),
    },
}
for _k in CHECK_LIMITS:
    _TABLE_KEYS["limits"][_k] = Key("integer ≥ 1", str(LIMITS[_k].default), LIMITS[_k].what
                                    + (f" (also {LIMITS[_k].flag})" if LIMITS[_k].flag else ""))

# (title, lead, documented kinds, declared {kind: (required or None, all keys besides kind)})
SECTIONS = (
    ("Check specs: [mechanism] over [data]", "`plrv check`, `sweep`, `curve`, `family`, "
     "`prove`, `reducible`, `compose` (the mechanism registry).", _CHECK,
     {k: (req, req | opt) for k, (req, opt, _) in MECHANISM_KINDS.items()}),
    ("Check specs: noise on the sum of [data] records", "`plrv check` only, dp (the "
     "discrete Gaussian also rdp and zcdp), replace-one neighbours.", _NOISE,
     {k: (None, keys) for k, keys in NOISE_KEYS.items()}),
    ("Check specs: [mechanism] over [input] vectors", "`plrv check` only, dp under the "
     "spec's [neighbours].", _VECTOR,
     {k: (None, set(keys) - {"kind"}) for k, keys in {**COORDINATE_KEYS, **CHOICE_KEYS}.items()}),
    ("Singling-out specs (plrv pso): [mechanism]", "", _PSO,
     {k: (None, keys) for k, keys in PSO_KEYS.items()}),
    ("Guessing specs (plrv guess): [mechanism]", "", _GUESS,
     {k: (None, {GUESS_PARAMETERS[k]} if k in GUESS_PARAMETERS else set())
      for k in GUESS_KINDS}),
)


def declared() -> dict[str, set[str]]:
    """Every key the check spec's readers declare, by table (``mechanism`` aside)."""
    out = {t: set(keys) for t, keys in TABLES.items() if keys is not None}
    out["composition"] = set(COMPOSITION_KEYS)
    return out


def undocumented() -> list[str]:
    """Each key declared by a reader and not described here, or the reverse (empty: the
    page is complete)."""
    out: list[str] = []
    for title, _, kinds, keys in SECTIONS:
        for kind in sorted({*kinds, *keys}):
            documented = kinds.get(kind, ("", {}))[1]
            required, given = keys.get(kind, (None, set()))
            out += [f"{title}: {kind}.{k}" for k in sorted(set(given) ^ set(documented))]
            if required is not None:
                out += [f"{title}: {kind}.{k} required" for k, key in documented.items()
                        if (key.default == REQUIRED) != (k in required)]
    for table, names in declared().items():
        out += [f"[{table}].{k}" for k in sorted(names ^ set(_TABLE_KEYS.get(table, {})))]
    return out


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _rows(keys: Mapping[str, Key]) -> Iterator[str]:
    yield "| key | type | default | meaning |"
    yield "|---|---|---|---|"
    for name, key in keys.items():
        yield (f"| `{name}` | {_cell(key.type)} | {_cell(key.default)} | "
               f"{_cell(key.meaning)} |")


def markdown() -> str:
    """The page ``docs/reference/spec-keys.md``."""
    out = ["# Mechanism kinds and spec keys (generated)", "",
           "Generated by `python -m verifier.specs.reference > docs/reference/spec-keys.md` "
           "from the readers' declarations (the mechanism registry, the noise readers' key "
           "sets, the check spec's tables and limits); a test fails when the page is stale "
           "or a reader declares a key this page does not describe. A misspelt key, table "
           "or kind is refused (exit 2) with the nearest name plrv knows: "
           "\"did you mean `epsilon`?\". The JSON Schemas' view of the same files is the "
           "[spec files reference](specs.md); the [guide](../how-to/spec-files.md) explains "
           "them.", ""]
    for title, lead, kinds, _ in SECTIONS:
        out += [f"## {title}", ""] + ([lead, ""] if lead else [])
        for kind, (summary, keys) in kinds.items():
            out += [f"### `kind = \"{kind}\"`", "", summary[0].upper() + summary[1:] + ".", ""]
            out += list(_rows(keys)) + [""] if keys else ["No keys besides `kind`.", ""]
    out += ["## Check specs: the other tables", "",
            "Each table's keys as the check spec's reader declares them; a key is read only "
            "when a requested notion or command uses it, and refused naming the command "
            "otherwise.", ""]
    for table, keys in _TABLE_KEYS.items():
        out += [f"### `[{table}]`", ""] + list(_rows(keys)) + [""]
    return "\n".join(out)


if __name__ == "__main__":  # pragma: no cover - exercised by the stale-page test's command
    sys.stdout.write(markdown())
