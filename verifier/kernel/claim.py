"""The claim of a ``plrv prove`` certificate, re-read from its text (standard library only).

A certificate states its claim twice: the text the user gave (a named claim or an expression)
and the tree the engine evaluated. The checker parses the text itself and requires the two to
agree, so that a certificate cannot name one claim and refute another. The grammar, loosest
binding first::

    formula     := implication ("iff" implication)*
    implication := disjunction ["implies" implication]
    disjunction := conjunction ("or" conjunction)*
    conjunction := negation ("and" negation)*
    negation    := "not" negation | comparison
    comparison  := sum [("==" | "!=" | "<=" | "<" | ">=" | ">") sum]
    sum         := product (("+" | "-") product)*
    product     := unary (("*" | "/") unary)*
    unary       := "-" unary | atom
    atom        := decimal number | apk | ppk | noiseless | dp | "(" formula ")"

and the named claims (seed 003 Lemmas 4–6, thesis Theorem 2) are the formulas below.
"""

from __future__ import annotations

import re
from fractions import Fraction

from .exact import Rejected, q

__all__ = ["claim_tree", "same_tree"]

NAMED = {"lemma4": None, "lemma5": "ppk <= apk", "lemma6": "(apk == 0) iff (ppk == 0)",
         "theorem2": "apk == ppk", "apk-le-ppk": "apk <= ppk"}
DELTAS = ("apk", "ppk", "noiseless", "dp")
MAX_LENGTH = 400
_TOKEN = re.compile(r"\s*(?:(\d+(?:\.\d+)?)|([A-Za-z_][A-Za-z0-9_]*)|(==|!=|<=|>=|[-+*/()<>]))")


def _tokens(text: str) -> list[str]:
    out, i = [], 0
    while text[i:].strip():
        m = _TOKEN.match(text, i)
        if m is None:
            raise Rejected(f"claim.text: {text!r:.80} is not a claim plrv reads")
        out.append(m.group(m.lastindex or 0))
        i = m.end()
    return out


class _Parser:
    def __init__(self, text: str):
        self.toks, self.pos, self.text = _tokens(text), 0, text

    def fail(self) -> Rejected:
        return Rejected(f"claim.text: {self.text!r:.80} is not a claim plrv reads")

    def take(self, *words: str) -> str | None:
        if self.pos < len(self.toks) and self.toks[self.pos] in words:
            self.pos += 1
            return self.toks[self.pos - 1]
        return None

    def left(self, sub, ops: tuple) -> list:
        tree = sub()
        while (op := self.take(*ops)) is not None:
            tree = [op, tree, sub()]
        return tree

    def formula(self) -> list:
        return self.left(self.implication, ("iff",))

    def implication(self) -> list:
        tree = self.disjunction()
        return ["implies", tree, self.implication()] if self.take("implies") else tree

    def disjunction(self) -> list:
        return self.left(self.conjunction, ("or",))

    def conjunction(self) -> list:
        return self.left(self.negation, ("and",))

    def negation(self) -> list:
        return ["not", self.negation()] if self.take("not") else self.comparison()

    def comparison(self) -> list:
        tree = self.sum()
        op = self.take("==", "!=", "<=", "<", ">=", ">")
        return [op, tree, self.sum()] if op else tree

    def sum(self) -> list:
        return self.left(self.product, ("+", "-"))

    def product(self) -> list:
        return self.left(self.unary, ("*", "/"))

    def unary(self) -> list:
        return ["-", ["num", Fraction(0)], self.unary()] if self.take("-") else self.atom()

    def atom(self) -> list:
        if self.pos >= len(self.toks):
            raise self.fail()
        tok = self.toks[self.pos]
        self.pos += 1
        if tok[0].isdigit():
            return ["num", Fraction(tok)]
        if tok in DELTAS:
            return ["delta", tok]
        if tok == "(":
            tree = self.formula()
            if self.take(")") is None:
                raise self.fail()
            return tree
        raise self.fail()


NUMERIC = ("num", "delta", "+", "-", "*", "/")
LOGIC = ("and", "or", "implies", "iff", "not")


def _typed(tree: list, text: str) -> str:
    """``"number"`` or ``"bool"``; a claim that mixes them (``apk and ppk <= 1``) is one plrv
    refuses, so it is rejected here."""
    head = tree[0]
    if head in ("num", "delta"):
        return "number"
    kinds = [_typed(t, text) for t in tree[1:]]
    want = "bool" if head in LOGIC else "number"
    if any(k != want for k in kinds):
        raise Rejected(f"claim.text: {text!r:.80} mixes numbers and statements; plrv refuses "
                       f"it")
    return "number" if head in NUMERIC else "bool"


def claim_tree(text: object) -> list:
    """The tree of a claim's text (numbers as ``Fraction``); :class:`Rejected` if plrv would
    not read it."""
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_LENGTH:
        raise Rejected(f"claim.text: {text!r:.80} is not a claim plrv reads")
    if text in NAMED:
        formula = NAMED[text]
        return ["lemma4"] if formula is None else claim_tree(formula)
    parser = _Parser(text)
    tree = parser.formula()
    if parser.pos != len(parser.toks) or _typed(tree, text) != "bool":
        raise parser.fail()
    return tree


def same_tree(own: list, given: object) -> bool:
    """Whether the certificate's tree (numbers as ``"num/den"``) is ``own``."""
    if not isinstance(given, list) or len(given) != len(own) or given[0] != own[0]:
        return False
    if own[0] == "num":
        return q(given[1], "claim.tree") == own[1]
    if own[0] == "delta":
        return given[1] == own[1]
    return all(same_tree(a, b) for a, b in zip(own[1:], given[1:], strict=True))
