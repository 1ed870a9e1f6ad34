"""How much work a check may do, estimated before it starts, and the error that says so.

Every exhaustive computation estimates its size from the spec alone (or from the mechanism
evaluated on one input) and compares it with a *limit* before it enumerates or allocates
anything. Each limit has a default, a key in the spec's ``[limits]`` table and, for some, a
command-line flag; a refusal names the key, the estimated size and the current limit:

=============  =========  ===============  ==================================================
key            default    flag             what it bounds
=============  =========  ===============  ==================================================
records        10^6       —                records ``n`` of a database (``rows.n`` in pso)
values         4096       —                values a record can take (``data.values``)
databases      2^20       --budget         databases brute force enumerates, ``Π_j |supp θ_j|``
work           2^23       —                brute-force steps ``D·O·B·T`` (databases × outputs
                                           of one database × background values of one
                                           database × targets); DP: ``D·n·(k−1)·O``;
                                           guessing: ``|X|²·|Z|``
combinations   2^24       --budget-counts  the count engine's work
                                           (:func:`verifier.engines.counts.count_estimate`)
memory         2^32       —                bytes of the count engine's exact numbers (their
                                           digits and headers, same estimate); of an exact
                                           composition's polynomials (``plrv compose``)
datasets       5·10^6     —                datasets (or multisets of classes) singling out
                                           enumerates
predicates     2^24       —                ``2^|X|`` predicates of the optimal adversary, then
                                           predicates × (output, dataset group) pairs it
                                           scores; distinct predicate weights of the baseline
loss_values    10^6       --max-values     distinct privacy-loss values a composition keeps
                                           (``plrv compose``; beyond it: an enclosure)
sequences      2^20       —                output sequences an adaptive composition holds
user_seconds   60         —                wall-clock seconds the run may wait on user code
                                           (``"module:function"`` of the spec), in all,
                                           imports included (:mod:`verifier.model.sandbox`)
user_memory    2^32       —                bytes of address space of the process running
                                           user code (``RLIMIT_AS``)
paths          10^6       —                paths (sequences of random choices) a program
                                           (``kind = "program"``) is run on for one input,
                                           and choices on one path
=============  =========  ===============  ==================================================

Sizes are printed by :func:`format_size` (``2^20``, ``1000``, ``≈10^600``), never as a long
integer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from decimal import ROUND_FLOOR, Decimal, localcontext

from gmpy2 import mpz

from verifier.core.errors import BudgetExceeded, SpecError, VerifierError
from verifier.core.numbers import positive_int

__all__ = ["Budget", "Limit", "LIMITS", "CHECK_LIMITS", "PSO_LIMITS", "GUESS_LIMITS",
           "USER_LIMITS", "budget_from_limits", "check_database_count", "format_size",
           "format_power", "exceeded", "decimal_exponent"]


@dataclass(frozen=True, slots=True)
class Limit:
    """One limit: its ``[limits]`` key, default, command-line flag (if any) and meaning."""

    key: str
    default: int
    flag: str | None
    what: str


LIMITS: dict[str, Limit] = {lim.key: lim for lim in (
    Limit("records", 10**6, None, "records of a database (rows of a dataset)"),
    Limit("values", 4096, None, "values a record can take"),
    Limit("databases", 1 << 20, "--budget", "databases enumerated by brute force"),
    Limit("work", 1 << 23, None, "steps of an exhaustive computation"),
    Limit("combinations", 1 << 24, "--budget-counts", "combinations of counts"),
    Limit("memory", 1 << 32, None, "bytes of exact numbers held at once"),
    Limit("datasets", 5_000_000, None, "datasets enumerated for singling out"),
    Limit("predicates", 1 << 24, None, "predicates scored by the optimal adversary"),
    Limit("loss_values", 10**6, "--max-values", "distinct privacy-loss values a composition "
                                                "keeps"),
    Limit("sequences", 1 << 20, None, "output sequences an adaptive composition enumerates"),
    Limit("user_seconds", 60, None, "seconds of wall-clock time user code may take in one "
                                    "run"),
    Limit("user_memory", 1 << 32, None, "bytes of address space of the process running "
                                        "user code"),
    Limit("paths", 10**6, None, "paths of random choices a program is run on for one input"),
)}

# the limits each command's spec accepts in its [limits] table
USER_LIMITS = ("user_seconds", "user_memory")  # every spec that can name user code
CHECK_LIMITS = ("records", "values", "databases", "work", "combinations", "memory",
                *USER_LIMITS, "paths")
PSO_LIMITS = ("records", "datasets", "predicates", *USER_LIMITS)
GUESS_LIMITS = ("work", *USER_LIMITS)

DEFAULT_MAX_DATABASES = LIMITS["databases"].default
DEFAULT_MAX_COMBINATIONS = LIMITS["combinations"].default
_SHORT = 10**9  # sizes below this are printed in full


def format_size(n: int) -> str:
    """A size for a message: ``2^k`` for a power of two ≥ 1024, the digits when short,
    else ``≈10^e`` (``e`` the number of decimal digits minus one; never a long integer).

    >>> format_size(1 << 20), format_size(1000), format_size(3 * 10**600)
    ('2^20', '1000', '≈10^600')
    """
    n = int(n)
    if n >= 1024 and n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    if n < _SHORT:
        return str(n)
    z = mpz(n)
    e = int(z.num_digits(10)) - 1  # exact or one too many
    if e < 100_000 and mpz(10) ** e > z:
        e -= 1
    return f"≈10^{e}"


def format_power(base: int, exponent: int) -> str:
    """``base^exponent`` as :func:`format_size` would print it, without computing a huge
    power: ``2^(j·exponent)`` for ``base = 2^j``, else ``≈10^e`` from the digits of ``base``
    (an estimate, marked ``≈``)."""
    base, exponent = int(base), int(exponent)
    if base <= 1 or exponent * base.bit_length() <= 1 << 16:
        return format_size(base ** exponent)
    if base & (base - 1) == 0:
        return f"2^{(base.bit_length() - 1) * exponent}"
    return f"≈10^{decimal_exponent({base: exponent})}"


def decimal_exponent(powers: Mapping[int, int]) -> int:
    """``⌊Σ c·log10(s)⌋`` for ``powers = {s: c}``: the exponent of ten of ``Π s^c``, for a
    size shown as ``≈10^e`` (50 significant digits of each logarithm: the ``≈`` allows the
    last unit to be off when the sum is within 10^-40 of an integer)."""
    with localcontext() as ctx:
        ctx.prec = 50
        total = sum((Decimal(s).log10() * c for s, c in powers.items()), Decimal(0))
        return int(total.to_integral_value(rounding=ROUND_FLOOR))


def _exceeds_power(base: int, exponent: int, limit: int) -> bool:
    """``base^exponent > limit``, exactly, without computing a power far above ``limit``."""
    if base <= 1:
        return base > limit
    if exponent > limit.bit_length():  # base^e ≥ 2^e > limit
        return True
    return base ** exponent > limit


def exceeded(key: str, what: str, size: str, limit: int, hint: str = "") -> BudgetExceeded:
    """The refusal: ``limits.<key>: <what>: <size>, over the limit of <limit>; raise …``.

    The error carries ``key`` (``"limits.<key>"``), ``size`` and ``limit`` as attributes.
    """
    lim = LIMITS[key]
    how = f"limits.{key} in the spec" + (f" or {lim.flag}" if lim.flag else "")
    exc = BudgetExceeded(f"limits.{key}: {what}: {size}, over the limit of "
                         f"{format_size(limit)}; raise it with {how}{hint}")
    exc.key, exc.size, exc.limit = f"limits.{key}", size, limit  # type: ignore[attr-defined]
    return exc


@dataclass(frozen=True, slots=True)
class Budget:
    """The limits of :data:`LIMITS` (``max_<key>``), each a positive integer."""

    max_databases: int = LIMITS["databases"].default
    max_combinations: int = LIMITS["combinations"].default
    max_records: int = LIMITS["records"].default
    max_work: int = LIMITS["work"].default
    max_memory: int = LIMITS["memory"].default
    max_datasets: int = LIMITS["datasets"].default
    max_predicates: int = LIMITS["predicates"].default
    max_values: int = LIMITS["values"].default
    max_loss_values: int = LIMITS["loss_values"].default
    max_sequences: int = LIMITS["sequences"].default
    max_user_seconds: int = LIMITS["user_seconds"].default
    max_user_memory: int = LIMITS["user_memory"].default
    max_paths: int = LIMITS["paths"].default

    def __post_init__(self) -> None:
        for f in fields(self):
            positive_int(getattr(self, f.name), f"limits.{f.name.removeprefix('max_')}")

    def limit(self, key: str) -> int:
        return getattr(self, f"max_{key}")

    def require(self, key: str, size: int, what: str, hint: str = "") -> int:
        """``size`` if within the limit ``key``, else :class:`BudgetExceeded`."""
        if size > self.limit(key):
            raise exceeded(key, what, format_size(size), self.limit(key), hint)
        return size

    def require_power(self, key: str, base: int, exponent: int, what: str,
                      hint: str = "") -> int:
        """``base^exponent`` if within the limit ``key``; refused without computing a huge
        power."""
        if _exceeds_power(base, exponent, self.limit(key)):
            raise exceeded(key, what, format_power(base, exponent), self.limit(key), hint)
        return base ** exponent

    def check_records(self, n: int, name: str = "records") -> int:
        """``n`` if within ``limits.records``: checked before anything of size ``n`` exists."""
        return self.require("records", n, name)

    def check_values(self, values: tuple) -> tuple:
        """``values`` if within ``limits.values``: mechanisms build per-value tables."""
        self.require("values", len(values), "values of a record")
        return values


def budget_from_limits(table: Mapping[str, object], keys: tuple[str, ...] | None = None,
                       file: str | None = None) -> Budget:
    """A :class:`Budget` from a spec's ``[limits]`` table: only the limit keys are read (and
    of those only ``keys``); every value must be a positive TOML integer. A bad value is a
    :class:`SpecError` naming ``limits.<key>``."""
    allowed = tuple(LIMITS) if keys is None else keys
    values = {}
    for key, value in table.items():
        if key not in LIMITS:
            continue  # other keys of [limits] (engine) are read by the spec reader
        if key not in allowed:
            raise SpecError(f"does not apply to this command; its limits are "
                            f"{', '.join(allowed)}", file=file, key=f"limits.{key}")
        try:
            values[f"max_{key}"] = positive_int(value, key)
        except VerifierError as exc:
            raise SpecError(f"{exc} ({LIMITS[key].what})", file=file, key=f"limits.{key}",
                            value=value) from None
    return Budget(**values)


def check_database_count(k: int, n: int, budget: Budget, *, hint: str = "") -> int:
    """``k^n`` if within ``limits.databases``, else :class:`BudgetExceeded` saying what fits."""
    limit = budget.max_databases
    if _exceeds_power(k, n, limit):
        fit = 0
        if k > 1:
            while k ** (fit + 1) <= limit:
                fit += 1
        raise exceeded("databases", f"databases for brute force ({k} values, {n} records)",
                       format_power(k, n), limit, f", or use records ≤ {fit}{hint}")
    return k ** n
