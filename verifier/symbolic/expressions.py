"""A small parser for parameter expressions in spec files: exact rationals in, sympy out.

Grammar (whitespace ignored)::

    expr   := term (("+" | "-") term)*
    term   := unary (("*" | "/") unary)*
    unary  := ("+" | "-") unary | power
    power  := atom ("^" ["-"] INTEGER)?          one exponent, |k| ≤ MAX_EXPONENT
    atom   := NUMBER | NAME | "(" expr ")"

A NUMBER is decimal digits with an optional fraction part (``0.25`` is exactly 1/4); a NAME
must be a declared parameter. The tree is built from sympy's own constructors
(``Rational``, ``Symbol``, ``+ − * /``, ``**`` with an integer): user text is never passed to
``eval`` or ``sympify``. Every error names the key, the text and the 1-based position.

>>> from sympy import Symbol
>>> p = Symbol("p", real=True)
>>> parse_expression("(1 + p)/2", {"p": p}, "data.prior[0]")
p/2 + 1/2
>>> parse_expression("0.25", {}, "x")
1/4
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from sympy import Expr, Integer, Rational, Symbol  # type: ignore[import-untyped]

from verifier.core.errors import InvalidArgument

__all__ = ["ExpressionError", "parse_expression", "MAX_EXPONENT", "MAX_DEGREE", "MAX_LENGTH"]

MAX_EXPONENT = 16   # the largest |k| in x^k
MAX_DEGREE = 64     # a bound on the total degree of the expression (numerator and denominator)
MAX_LENGTH = 400    # characters of one expression
MAX_DEPTH = 40      # nested parentheses and signs

_TOKEN = re.compile(r"\s*(?:(?P<number>\d+(?:\.\d+)?)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
                    r"|(?P<op>[-+*/^()]))", re.ASCII)


class ExpressionError(InvalidArgument):
    """An expression that cannot be read, with the key, the text and the position."""

    def __init__(self, key: str, text: str, position: int, problem: str):
        self.key, self.text, self.position, self.problem = key, text, position, problem
        super().__init__(f"{key} = {text!r}: {problem} at position {position}")


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str      # "number", "name", "op" or "end"
    text: str
    position: int  # 1-based column of the first character


def _tokens(text: str, key: str) -> Iterator[_Token]:
    """Tokens read on demand, so that the first problem from the left is the one reported."""
    i = 0
    while i < len(text):
        if text[i:].strip() == "":
            break
        m = _TOKEN.match(text, i)
        if m is None or m.end() == i:
            j = i + len(text[i:]) - len(text[i:].lstrip())
            raise ExpressionError(key, text, j + 1, f"unexpected character {text[j]!r}")
        kind = m.lastgroup
        assert kind is not None
        yield _Token(kind, m.group(kind), m.start(kind) + 1)
        i = m.end()
    while True:
        yield _Token("end", "", len(text) + 1)


class _Parser:
    """Recursive descent; every method returns ``(expression, degree bound)``."""

    def __init__(self, text: str, names: Mapping[str, Symbol], key: str):
        self.text, self.names, self.key = text, names, key
        self.stream = _tokens(text, key)
        self.tokens: list[_Token] = []
        self.i = 0
        self.depth = 0

    def fail(self, token: _Token, problem: str) -> ExpressionError:
        return ExpressionError(self.key, self.text, token.position, problem)

    @property
    def peek(self) -> _Token:
        while len(self.tokens) <= self.i:
            self.tokens.append(next(self.stream))
        return self.tokens[self.i]

    def take(self) -> _Token:
        token = self.peek
        self.i += 1
        return token

    def at(self, *ops: str) -> bool:
        return self.peek.kind == "op" and self.peek.text in ops

    def parse(self) -> Expr:
        expr, _ = self.expr()
        if self.peek.kind != "end":
            raise self.fail(self.peek, f"unexpected {self.peek.text!r}")
        return expr

    def expr(self) -> tuple[Expr, int]:
        left, deg = self.term()
        while self.at("+", "-"):
            op = self.take().text
            right, d2 = self.term()
            left, deg = (left + right if op == "+" else left - right), max(deg, d2)
        return left, deg

    def term(self) -> tuple[Expr, int]:
        left, deg = self.unary()
        while self.at("*", "/"):
            op = self.take()
            right, d2 = self.unary()
            if op.text == "/" and right.is_zero:
                raise self.fail(op, "division by zero")
            left = left * right if op.text == "*" else left / right
            deg = self.bounded(op, deg + d2)
        return left, deg

    def unary(self) -> tuple[Expr, int]:
        if self.at("+", "-"):
            op = self.take()
            self.enter(op)
            value, deg = self.unary()
            self.depth -= 1
            return (-value if op.text == "-" else value), deg
        return self.power()

    def power(self) -> tuple[Expr, int]:
        base, deg = self.atom()
        if not self.at("^"):
            return base, deg
        caret = self.take()
        negative = self.at("-")
        if negative:
            self.take()
        exponent = self.take()
        if exponent.kind != "number" or "." in exponent.text:
            raise self.fail(exponent, f"the exponent of ^ must be an integer literal, found "
                                      f"{exponent.text or 'the end'!r}")
        k = int(exponent.text) if len(exponent.text) <= 4 else MAX_EXPONENT + 1
        if k > MAX_EXPONENT:
            raise self.fail(exponent, f"exponent {exponent.text} is larger than {MAX_EXPONENT}")
        if self.at("^"):
            raise self.fail(self.peek, "chained ^; write (a^b)^c with parentheses")
        if negative and base.is_zero:
            raise self.fail(caret, "division by zero")
        return base ** Integer(-k if negative else k), self.bounded(caret, deg * k)

    def atom(self) -> tuple[Expr, int]:
        token = self.take()
        if token.kind == "number":
            whole, _, frac = token.text.partition(".")
            return Rational(int(whole + frac), 10 ** len(frac)), 0
        if token.kind == "name":
            if token.text not in self.names:
                declared = ", ".join(sorted(self.names)) or "none"
                raise self.fail(token, f"undeclared name {token.text!r} (declared parameters: "
                                       f"{declared})")
            return self.names[token.text], 1
        if token.kind == "op" and token.text == "(":
            self.enter(token)
            value, deg = self.expr()
            self.depth -= 1
            close = self.take()
            if close.kind != "op" or close.text != ")":
                raise self.fail(close, f"missing ')' for the '(' in column {token.position}")
            return value, deg
        if token.kind == "end":
            raise self.fail(token, "the expression ends too early")
        raise self.fail(token, f"unexpected {token.text!r}")

    def enter(self, token: _Token) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.fail(token, f"nested more than {MAX_DEPTH} deep")

    def bounded(self, token: _Token, degree: int) -> int:
        if degree > MAX_DEGREE:
            raise self.fail(token, f"the expression's degree exceeds {MAX_DEGREE}")
        return degree


def parse_expression(text: object, names: Mapping[str, Symbol], key: str) -> Expr:
    """The sympy expression of ``text`` over the declared ``names`` (see the module docstring).

    Raises :class:`ExpressionError` (an :class:`InvalidArgument`) naming ``key`` and the
    position of the problem.
    """
    if not isinstance(text, str):
        raise InvalidArgument(f"{key} = {text!r} is not a string; write expressions and "
                              f"numbers as strings, e.g. \"1 - p\"")
    if text.strip() == "":
        raise ExpressionError(key, text, 1, "empty expression")
    if len(text) > MAX_LENGTH:
        raise ExpressionError(key, text, MAX_LENGTH + 1,
                              f"the expression is longer than {MAX_LENGTH} characters")
    return _Parser(text, names, key).parse()
