"""Exact arithmetic and re-enumeration for the certificate checker (standard library only).

Part of the independent checker (:mod:`verifier.certificates.verify`): rationals read from
``"num/den"`` strings, ε and ``e^ε`` (certified Taylor bounds when ε is a rational number of
nats: ``e^x`` is irrational for rational ``x ≠ 0``, so the bounds always separate it from a
rational), δ kept as ``(A, C)`` meaning ``A − C·e^ε``, and the built-in mechanisms written
again from their definitions, to enumerate a small spec database by database.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import sys
from fractions import Fraction
from math import ceil
from typing import Any

MAX_DATABASES = 100_000  # re-enumerate a spec only up to this many databases per data model
MAX_DIGITS = 100_000  # characters of one rational
MAX_BYTES = 1 << 26  # a certificate file read at all (64 MiB)
MAX_INT_DIGITS = 100  # digits of a JSON integer literal (records, indices, counts, values)
MAX_WORK = 1_000_000  # comparisons of output masses (one at ε in nats counts ten) per check
MAX_EXP_BITS = 1 << 22  # bits of one Taylor bound of e^x before the comparison is undecided
MAX_TERMS = 1024  # Taylor terms of e^y (about 8,000 bits of precision) before it is undecided
_NUMBER = re.compile(r"^-?[0-9]+(/[0-9]+)?$")
ZERO, ONE = Fraction(0), Fraction(1)
BOTTOM = {"bottom": True}


class Rejected(Exception):
    """The certificate does not match: the message names the first discrepancy."""


class Undecided(Exception):
    """A comparison or a size beyond the kernel's limits: neither verified nor rejected, the
    certificate's verdict is unknown here (exit 3)."""


class Recorded(str):
    """A note saying that a part the verdict rests on is only recorded in the certificate
    (a solver's proof, a symbolic identity): this checker cannot re-check it, so the
    certificate is not verified, only found consistent."""


CHECK_FIELDS = {"format", "version", "kind", "source", "spec_sha256", "spec", "results",
                "evidence"}
CHECK_EVIDENCE = {"tables", "cases", "omitted", "witnesses", "dp_relation", "dp_laws"}


MAX_TOTAL_WORK = 4 * MAX_WORK  # one certificate's checks together (a prove's nested ones)
_SPENT = [0]


def reset_work() -> None:
    """A new certificate: nothing spent yet."""
    _SPENT[0] = 0


def within(work: int, what: str) -> None:
    """Refuse, before doing it, work beyond :data:`MAX_WORK` (one step) or
    :data:`MAX_TOTAL_WORK` (the certificate's steps together): the verdict is then unknown
    here (exit 3), never a hang."""
    if work > MAX_WORK:
        raise Undecided(f"{what}: {work} steps exceed the kernel's work limit of {MAX_WORK}")
    _SPENT[0] += work
    if _SPENT[0] > MAX_TOTAL_WORK:
        raise Undecided(f"{what}: with the checks before it, {_SPENT[0]} steps exceed the "
                        f"kernel's work limit of {MAX_TOTAL_WORK} for one certificate")


def _unique_keys(pairs: list) -> dict:
    out: dict = {}
    for name, value in pairs:
        if name in out:
            raise ValueError(f"the key {name!r} is given twice in one object")
        out[name] = value
    return out


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(f"an integer literal of {len(text)} characters (over "
                         f"{MAX_INT_DIGITS} digits; exact numbers are written \"num/den\")")
    return int(text)


def _no_float(text: str) -> object:
    raise ValueError(f"the number {text[:40]!r} is not an integer (a certificate writes exact "
                     f"numbers as \"num/den\")")


def load(path: str) -> object:
    """The JSON of a certificate file (``OSError``, ``ValueError`` when it cannot be read,
    a key given twice in one object included: which one counts would be a guess). Only a
    regular file of at most :data:`MAX_BYTES` is opened: a named pipe would block, a device
    never end. An integer literal has at most :data:`MAX_INT_DIGITS` digits (checked before
    it is converted: a 4,000,000-digit literal would take minutes), and a float, ``NaN`` or
    ``Infinity`` is refused: every exact number is a string ``"num/den"``."""
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise ValueError("not a regular file")
    if info.st_size > MAX_BYTES:
        raise ValueError(f"{info.st_size} bytes, over the kernel's limit of {MAX_BYTES}")
    sys.set_int_max_str_digits(0)  # the rationals "num/den" (each ≤ MAX_DIGITS characters)
    with open(path, encoding="utf-8") as f:
        return json.load(f, object_pairs_hook=_unique_keys, parse_int=_int,
                         parse_float=_no_float, parse_constant=_no_float)


def spec_hash(spec: object) -> str:
    """SHA-256 of the embedded spec written canonically (keys sorted, no spaces, UTF-8)."""
    text = json.dumps(spec, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def check_source(cert: dict) -> None:
    """``source`` names the spec file and the SHA-256 of its bytes (nulls for a spec given
    without a file: recorded, a reader compares them with the file), and ``spec_sha256`` is
    the hash of the embedded spec, recomputed here."""
    src = cert.get("source")
    if not isinstance(src, dict) or set(src) != {"file", "sha256"} or \
            (src["file"] is None) is not (src["sha256"] is None) or \
            src["file"] is not None and (not isinstance(src["file"], str) or
                                         not re.fullmatch(r"[0-9a-f]{64}", str(src["sha256"]))):
        raise Rejected(f"source: {src!r:.80} is not {{file, sha256}} of a spec file (or nulls)")
    if cert.get("spec_sha256") != spec_hash(cert.get("spec")):
        raise Rejected(f"spec_sha256: {cert.get('spec_sha256')!r:.70} is not the SHA-256 of "
                       f"the embedded spec ({spec_hash(cert.get('spec'))})")


TOP = {"format", "version", "kind", "source", "spec_sha256", "spec"}


def exact_fields(obj: object, expected: set, where: str) -> None:
    """``obj`` has exactly the fields ``expected``: a field added is a change this checker
    would pass over unread, a field missing one it would guess."""
    if not isinstance(obj, dict) or set(obj) != expected:
        got = sorted(obj) if isinstance(obj, dict) else type(obj).__name__
        raise Rejected(f"{where}: fields {got!r:.100}, not {sorted(expected)}")


def check_fields(cert: dict, version: int) -> None:
    """The version (the integer itself, not ``true`` or ``1.0``) and, for a check
    certificate, exactly the fields a certificate has: an added field (a
    tight ε in the results, a note) is a change this checker would otherwise pass over
    unread."""
    v = cert.get("version")
    if type(v) is not int or v != version:
        raise Rejected(f"version: {v!r}; this checker reads version {version}")
    if cert.get("kind") != "check":
        return
    if set(cert) != CHECK_FIELDS:
        raise Rejected(f"fields: {sorted(set(cert) ^ CHECK_FIELDS)} differ from a check "
                       f"certificate's {sorted(CHECK_FIELDS)}")
    if not isinstance(cert["evidence"], dict) or not set(cert["evidence"]) <= CHECK_EVIDENCE:
        raise Rejected(f"evidence: fields {sorted(set(cert['evidence']) - CHECK_EVIDENCE)} are "
                       f"not evidence of a check certificate")
    spec = cert["spec"]
    if not spec["notions"] or not cert["results"]:
        raise Rejected("spec.notions: a certificate of no claim at all")
    for name, res in cert["results"].items():
        if set(res) != {"delta", "holds"}:
            raise Rejected(f"results.{name}: fields {sorted(res)}, not delta and holds")
    if not ZERO <= q(spec["delta"], "spec.delta") <= ONE:
        raise Rejected(f"spec.delta: {spec['delta']} is not a probability")
    nb, n = spec.get("neighbours"), spec["records"]
    if isinstance(nb, dict):
        vectors = list(nb.get("inputs", [])) + [z for p in nb.get("pairs", []) for z in p]
        if any(not isinstance(x, list) or len(x) != n for x in vectors):
            raise Rejected(f"spec.neighbours: an input is not a vector of records = {n!r} "
                           f"values")
        if "inputs" in nb and spec["values"] != sorted({v for x in nb["inputs"] for v in x}):
            raise Rejected("spec.values: not the values the listed inputs take")
    if spec["notions"] == ["dp"]:
        _dp_defaults(spec)


def _dp_defaults(spec: dict) -> None:
    """A dp-only spec reads no data model, attacker, target or compared pair: the
    certificate must carry their defaults, so that no field goes unread."""
    values, n = spec["values"], spec["records"]
    expected = {"models": [], "knowledge": [{"known": []}], "targets": list(range(n)),
                "pairs": [[a, b] for a in values for b in values if a != b]}
    for name, value in expected.items():
        if spec[name] != value:
            raise Rejected(f"spec.{name}: a dp-only certificate has {value!r}, not "
                           f"{spec[name]!r} (dp reads no data model, attacker or pairs)")


def q(text: object, where: str) -> Fraction:
    """An exact rational written ``"num/den"``; anything else is rejected."""
    if not isinstance(text, str) or not _NUMBER.match(text) or len(text) > MAX_DIGITS:
        raise Rejected(f"{where}: {text!r:.80} is not an exact rational \"num/den\"")
    num, _, den = text.partition("/")
    if den and int(den) == 0:
        raise Rejected(f"{where}: {text!r:.80} divides by zero")
    return Fraction(text)


def canonical(value: object, depth: int = 0) -> object:
    """A value, output or background as the certificate's typed encoding, in one spelling:
    a rational in lowest terms (``{"rational": "2/4"}`` is ``"1/2"``), every other form
    exactly as written. Anything else (a boolean, a float, an unknown object) is rejected:
    two spellings of one value would otherwise be two values."""
    if type(value) is int or isinstance(value, str):
        return value
    if isinstance(value, list) and depth < 8:
        return [canonical(v, depth + 1) for v in value]
    if isinstance(value, dict):
        if set(value) == {"rational"}:
            return {"rational": str(q(value["rational"], "value"))}
        if value == BOTTOM and value["bottom"] is True:
            return value
        if set(value) == {"known_counts", "stands_for"} and \
                isinstance(value["known_counts"], list) and \
                all(type(c) is int and c >= 0 for c in value["known_counts"]) and \
                type(value["stands_for"]) is int:
            return value
    raise Rejected(f"value: {value!r:.80} is not a value, output or background a "
                   f"certificate writes")


def key(value: object) -> str:
    """The identity of a value, output or background: its canonical spelling's JSON text."""
    return json.dumps(canonical(value), sort_keys=True)


def enc(value: object) -> object:
    """The certificate's encoding of an outcome (see verifier/certificates/encode.py)."""
    if isinstance(value, Fraction):
        return {"rational": str(value)}
    if isinstance(value, tuple):
        return [enc(v) for v in value]
    return value


def dec(value: object) -> Any:
    if isinstance(value, dict) and set(value) == {"rational"}:
        return q(value["rational"], "value")
    if isinstance(value, list):
        return tuple(dec(v) for v in value)
    return value


# ------------------------------------------------------------------ ε, e^ε and δ = A − C·e^ε

class Eps:
    """ε = ln(rate) (``rate`` rational), a rational ``nats`` ≠ 0, or infinite."""

    def __init__(self, text: object):
        self.rate = self.nats = None
        self.infinite = text == "inf"
        m = re.match(r"^ln\((.*)\)$", text) if isinstance(text, str) else None
        if self.infinite:
            return
        if m:
            self.rate = q(m.group(1), "spec.epsilon")
        else:
            self.nats = q(text, "spec.epsilon")
            if self.nats == 0:  # "0", "0/1", "-0": e^0 = 1 is rational
                self.rate, self.nats = ONE, None
        if self.rate is not None and self.rate < 1 or self.nats is not None and self.nats < 0:
            raise Rejected(f"spec.epsilon: {text!r:.80} is negative")

    @property
    def cost(self) -> int:
        """The work of one comparison with ``e^ε`` (certified bounds cost about ten)."""
        return 10 if self.nats is not None else 1

    def exceeds(self, p: Fraction, r: Fraction) -> bool:
        """Whether an output of mass ``p`` under a and ``r`` under b has loss > ε."""
        if p == 0:
            return False
        if r == 0:
            return True
        if self.infinite:
            return False
        if self.rate is not None:
            return p > self.rate * r
        assert self.nats is not None
        return exp_sign(p / r, self.nats) > 0

    def delta(self, a: Fraction, c: Fraction) -> tuple[Fraction, Fraction]:
        return (a - c * self.rate, ZERO) if self.rate is not None and c else (a, c)

    def worst(self, deltas) -> tuple[Fraction, Fraction]:
        """The largest of the δs ``(A, C)`` (the first of equal ones); 0 when there is none."""
        best = (ZERO, ZERO)
        for d in deltas:
            best = d if self.compare(d, best) > 0 else best
        return best

    def compare(self, x: tuple, y: tuple) -> int:
        """Sign of ``(A1 − C1·e^ε) − (A2 − C2·e^ε)``."""
        da, dc = x[0] - y[0], x[1] - y[1]
        if dc == 0:
            return (da > 0) - (da < 0)
        assert self.nats is not None  # C ≠ 0 only when e^ε is irrational
        return exp_sign(da / dc, self.nats) * (1 if dc > 0 else -1)


def exp_sign(r: Fraction, x: Fraction) -> int:
    """Sign of ``r − e^x`` for rational ``x ≠ 0`` and ``r ≥ 0``: first by bit sizes
    (``0 < r < 2^b ≤ e^b`` for a numerator of ``b`` bits, and ``r > 2^{−b′} ≥ e^{−b′}`` for a
    denominator of ``b′`` bits), so that a huge ``|x|`` costs nothing; else Taylor bounds of
    ``e^{|x|/m}`` raised to ``m``, refined until they separate (``e^x`` is irrational), but
    only up to :data:`MAX_TERMS` terms and bounds of :data:`MAX_EXP_BITS` bits: beyond,
    :class:`Undecided`."""
    if r <= 0:
        return -1
    if x == 0:  # e^0 = 1 (the callers keep ε = 0 as a rate; this is the last guard)
        return (r > 1) - (r < 1)
    if x >= r.numerator.bit_length():
        return -1
    if -x >= r.denominator.bit_length():
        return 1
    m = max(1, ceil(abs(x)))
    y = abs(x) / m
    terms = 8
    while True:
        s, t = ZERO, ONE
        for j in range(terms):
            s, t = s + t, t * y / (j + 1)
        up = s + 2 * t  # remainder ≤ 2·y^N/N! for y ≤ 1
        if m * (up.numerator.bit_length() + up.denominator.bit_length()) > MAX_EXP_BITS:
            raise Undecided(_unseparated(r, x))
        lo, hi = s ** m, up ** m
        if x < 0:
            lo, hi = 1 / hi, 1 / lo
        if r < lo:
            return -1
        if r > hi:
            return 1
        terms *= 2
        if terms > MAX_TERMS:
            raise Undecided(_unseparated(r, x))


def _unseparated(r: Fraction, x: Fraction) -> str:
    size = r.numerator.bit_length() + r.denominator.bit_length()
    return (f"e^x at x = {x if x.numerator.bit_length() < 64 else 'a long rational'} and a "
            f"ratio of {size} bits are not separated within the kernel's precision limit "
            f"({MAX_TERMS} Taylor terms, {MAX_EXP_BITS}-bit bounds)")


def read_delta(value: object, eps: Eps, where: str) -> tuple[Fraction, Fraction]:
    """δ as written: ``"num/den"``, or ``{"a": A, "c": C}`` for ``A − C·e^ε``, a form that
    exists only when ε is a rational number of nats (for ε = ln q it is the rational
    ``A − C·q``; for ε = ∞ no output exceeds ε and δ is a plain rational)."""
    if isinstance(value, dict) and set(value) == {"a", "c"}:
        if eps.nats is None:
            raise Rejected(f"{where}: {{a, c}} (δ = A − C·e^ε) is written only for ε a "
                           f"rational number of nats, not for this ε")
        return eps.delta(q(value["a"], where + ".a"), q(value["c"], where + ".c"))
    return (q(value, where), ZERO)


def show(d: tuple) -> str:
    return str(d[0]) if d[1] == 0 else f"{d[0]} - {d[1]}*exp(ε)"


def brief(text: str, width: int = 60) -> str:
    """A long exact number cut for a note (the certificate holds it in full)."""
    return text if len(text) <= width else f"{text[:25]}…({len(text)} characters)"


def case_delta(p: dict, r: dict | None, eps: Eps) -> tuple[Fraction, Fraction]:
    """``Σ_O max(0, p(O) − e^ε·r(O))`` as (A, C); ``r`` None is Definition 5's L = 0."""
    if r is None:
        return (ZERO, ZERO)
    a = c = ZERO
    for o, w in p.items():
        if eps.exceeds(w, r.get(o, ZERO)):
            a, c = a + w, c + r.get(o, ZERO)
    return eps.delta(a, c)
