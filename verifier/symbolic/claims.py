"""Claims about the tight δs of one instance, and the named claims of seed 003.

A claim is a Boolean formula over the tight δ of each notion at the query's ε — ``apk``
(Definition 6, worst over targets, pairs and background values), ``ppk`` (Definition 7),
``noiseless`` (Definition 3) and ``dp`` (Lemma 1) — with rational constants, ``+ − * /``,
``== != <= < >= >``, ``not``, ``and``, ``or``, ``implies`` and ``iff`` (loosest last)::

    ppk <= apk                      Lemma 5
    (apk == 0) iff (ppk == 0)       Lemma 6
    apk <= 2*ppk

Named claims (seed 003 §4; REFERENCE.md §4): ``lemma4`` (PPK is the expectation of APK over
the background value, per target and pair — a statement about the cases, not the worst δs),
``lemma5``, ``lemma6``, ``theorem2`` (Θ-reducible ⇒ APK δ = PPK δ) and ``apk-le-ppk`` (the
converse of Lemma 5, false in general). A claim is read by a small parser (no ``eval``);
it is evaluated exactly on rationals and built as a z3 formula from the same tree.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from gmpy2 import mpq

from verifier.core.errors import InvalidArgument, did_you_mean

__all__ = ["Claim", "parse_claim", "NAMED", "DELTAS", "evaluate", "build", "MAX_CLAIM_LENGTH",
           "MAX_CLAIM_DEPTH"]

MAX_CLAIM_LENGTH = 400  # characters of a claim expression
MAX_CLAIM_DEPTH = 40  # nested parentheses, "not" and signs

DELTAS = ("apk", "ppk", "noiseless", "dp")
_WORDS = {"and", "or", "not", "implies", "iff"}
_ONE_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_TOKEN = re.compile(r"\s*(?:(?P<number>\d+(?:\.\d+)?)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
                    r"|(?P<op>==|!=|<=|>=|[-+*/()<>]))")


@dataclass(frozen=True)
class Claim:
    """A parsed claim: its text, its tree, the δs it reads, and its name if it has one."""

    text: str
    tree: tuple
    uses: frozenset[str]
    name: str | None = None
    statement: str = ""


NAMED = {
    "lemma4": ("seed 003 Lemma 4: PPK_{i,a,b} = Σ_B P[ζ=B | D(i)=a]·APK_{i,a,b,B} for every "
               "target and pair", None),
    "lemma5": ("seed 003 Lemma 5: (ε,δ)-APKDP implies (ε,δ)-PPKDP", "ppk <= apk"),
    "lemma6": ("seed 003 Lemma 6: at δ = 0, APKDP and PPKDP coincide",
               "(apk == 0) iff (ppk == 0)"),
    "theorem2": ("thesis Theorem 2: a Θ-reducible mechanism has APK δ = PPK δ", "apk == ppk"),
    "apk-le-ppk": ("the converse of Lemma 5 (false in general): APK δ ≤ PPK δ", "apk <= ppk"),
}


def parse_claim(text: str) -> Claim:
    """A named claim or a claim expression."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidArgument(f"--claim {text!r}: give a named claim ({', '.join(NAMED)}) or an "
                              f"expression such as \"ppk <= apk\"")
    if text in NAMED:
        statement, formula = NAMED[text]
        if formula is None:
            return Claim(text, ("lemma4",), frozenset({"apk", "ppk"}), text, statement)
        inner = parse_claim(formula)
        return Claim(text, inner.tree, inner.uses, text, statement)
    if _ONE_WORD.fullmatch(text.strip()) and text.strip() not in DELTAS:  # a misspelt name
        raise InvalidArgument(f"--claim {text!r} is neither a named claim ({', '.join(NAMED)}) "
                              f"nor an expression over {', '.join(DELTAS)} such as "
                              f"\"ppk <= apk\"{did_you_mean(text.strip(), NAMED)}",
                              argument="--claim", value=text)
    if len(text) > MAX_CLAIM_LENGTH:
        raise InvalidArgument(f"--claim: the claim has {len(text)} characters, more than "
                              f"{MAX_CLAIM_LENGTH}; state it more briefly", argument="--claim")
    parser = _Parser(text)
    tree = parser.formula()
    if parser.peek[0] != "end":
        raise parser.fail(f"unexpected {parser.peek[1]!r}")
    if _kind(tree) != "bool":
        raise InvalidArgument(f"--claim {text!r}: the claim is a number, not a statement; "
                              f"compare it, e.g. \"{text} <= 1/10\"")
    return Claim(text, tree, frozenset(_names(tree)), None, text)


class _Parser:
    def __init__(self, text: str):
        self.text, self.pos, self.tokens, self.depth = text, 0, [], 0
        i = 0
        while text[i:].strip():
            m = _TOKEN.match(text, i)
            if m is None:
                j = i + len(text[i:]) - len(text[i:].lstrip())
                raise InvalidArgument(f"--claim {text!r}: unexpected character {text[j]!r} at "
                                      f"position {j + 1}")
            kind = m.lastgroup
            assert kind is not None
            self.tokens.append((kind, m.group(kind), m.start(kind) + 1))
            i = m.end()
        self.tokens.append(("end", "", len(text) + 1))

    @property
    def peek(self) -> tuple[str, str, int]:
        return self.tokens[self.pos]

    def fail(self, problem: str) -> InvalidArgument:
        return InvalidArgument(f"--claim {self.text!r}: {problem} at position {self.peek[2]}")

    def word(self, *words: str) -> bool:
        kind, text, _ = self.peek
        if (kind == "name" and text in words) or (kind == "op" and text in words):
            self.pos += 1
            return True
        return False

    def formula(self) -> tuple:
        left = self.implication()
        while self.word("iff"):
            left = ("iff", self.boolean(left), self.boolean(self.implication()))
        return left

    def implication(self) -> tuple:
        left = self.disjunction()
        if self.word("implies"):
            return ("implies", self.boolean(left), self.boolean(self.implication()))
        return left

    def disjunction(self) -> tuple:
        left = self.conjunction()
        while self.word("or"):
            left = ("or", self.boolean(left), self.boolean(self.conjunction()))
        return left

    def conjunction(self) -> tuple:
        left = self.negation()
        while self.word("and"):
            left = ("and", self.boolean(left), self.boolean(self.negation()))
        return left

    def nested(self, parse: Callable[[], tuple]) -> tuple:
        """``parse()`` one level deeper (parentheses, ``not``, a sign), at most
        :data:`MAX_CLAIM_DEPTH` levels."""
        self.depth += 1
        if self.depth > MAX_CLAIM_DEPTH:
            raise self.fail(f"nested more than {MAX_CLAIM_DEPTH} deep")
        tree = parse()
        self.depth -= 1
        return tree

    def negation(self) -> tuple:
        if self.word("not"):
            return ("not", self.boolean(self.nested(self.negation)))
        return self.comparison()

    def comparison(self) -> tuple:
        left = self.sum()
        kind, op, _ = self.peek
        if kind == "op" and op in ("==", "!=", "<=", "<", ">=", ">"):
            self.pos += 1
            return (op, self.number(left), self.number(self.sum()))
        return left

    def sum(self) -> tuple:
        left = self.product()
        while self.peek[:2] in (("op", "+"), ("op", "-")):
            op = self.peek[1]
            self.pos += 1
            left = (op, self.number(left), self.number(self.product()))
        return left

    def product(self) -> tuple:
        left = self.unary()
        while self.peek[:2] in (("op", "*"), ("op", "/")):
            op = self.peek[1]
            self.pos += 1
            right = self.number(self.unary())
            if op == "/" and (right[0] != "num" or right[1] == 0):
                raise self.fail("divide only by a non-zero number")
            left = (op, self.number(left), right)
        return left

    def unary(self) -> tuple:
        if self.word("-"):
            return ("-", ("num", mpq(0)), self.number(self.nested(self.unary)))
        return self.atom()

    def atom(self) -> tuple:
        kind, text, _ = self.peek
        if kind == "number":
            self.pos += 1
            whole, _, frac = text.partition(".")
            return ("num", mpq(int(whole + frac), 10 ** len(frac)))
        if kind == "name" and text in DELTAS:
            self.pos += 1
            return ("delta", text)
        if kind == "op" and text == "(":
            self.pos += 1
            inner = self.nested(self.formula)
            if not self.word(")"):
                raise self.fail("missing ')'")
            return inner
        if kind == "end":
            raise self.fail("the claim ends too early")
        raise self.fail(f"unexpected {text!r} (the claim reads {', '.join(DELTAS)})")

    def number(self, tree: tuple) -> tuple:
        if _kind(tree) != "number":
            raise self.fail("a statement where a number is expected")
        return tree

    def boolean(self, tree: tuple) -> tuple:
        if _kind(tree) != "bool":
            raise self.fail("a number where a statement is expected")
        return tree


def _kind(tree: tuple) -> str:
    return "number" if tree[0] in ("num", "delta", "+", "-", "*", "/") else "bool"


def _names(tree: tuple) -> set[str]:
    if tree[0] == "delta":
        return {tree[1]}
    if tree[0] == "num":
        return set()
    return set().union(*(_names(t) for t in tree[1:] if isinstance(t, tuple)))


_ARITH: dict[str, Callable[[Any, Any], Any]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: a / b}
_CMP: dict[str, Callable[[Any, Any], Any]] = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<=": lambda a, b: a <= b,
    "<": lambda a, b: a < b, ">=": lambda a, b: a >= b, ">": lambda a, b: a > b}


def _walk(tree: tuple, values: Mapping[str, Any], const: Callable[[mpq], Any],
          logic: Mapping[str, Callable]) -> Any:
    head = tree[0]
    if head == "num":
        return const(tree[1])
    if head == "delta":
        return values[tree[1]]
    if head == "lemma4":
        return values["lemma4"]
    args = [_walk(t, values, const, logic) for t in tree[1:]]
    if head in _ARITH:
        return _ARITH[head](*args)
    if head in _CMP:
        return _CMP[head](*args)
    return logic[head](*args)


_EXACT: dict[str, Callable[..., Any]] = {
    "not": lambda a: not a, "and": lambda a, b: a and b, "or": lambda a, b: a or b,
    "implies": lambda a, b: (not a) or b, "iff": lambda a, b: a == b}


def evaluate(claim: Claim, values: Mapping[str, Any]) -> bool:
    """The claim's truth on exact values (rationals for the δs, a bool for ``lemma4``)."""
    return bool(_walk(claim.tree, values, lambda q: q, _EXACT))


def build(claim: Claim, terms: Mapping[str, Any], z: Any) -> Any:
    """The claim as a z3 formula over the δ terms (``z`` is a :class:`solver.Terms`)."""
    logic = {"not": z.Not, "and": lambda a, b: z.And(a, b), "or": lambda a, b: z.Or(a, b),
             "implies": z.Implies, "iff": lambda a, b: a == b}
    return _walk(claim.tree, terms, z.const, logic)
