"""Tokenizer and parser of the formula language.

The parser is a small precedence-climbing (Pratt) parser. Runs of left-associative operators of
one precedence level become a single flat :class:`Chain` node, so ``1+1+...+1`` stays shallow
and the tree evaluator never needs deep recursion. Nesting (parentheses, calls, unary signs)
is limited to :data:`MAX_DEPTH`; as a safety net for the recursive evaluator, the number of
operator and call nodes on any root-to-leaf path is limited to :data:`MAX_TREE_DEPTH`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

MAX_LENGTH = 2000
MAX_DEPTH = 64  # parentheses, calls and unary signs nested in one another
MAX_TREE_DEPTH = 2 * MAX_DEPTH  # operator/call nodes on one root-to-leaf path (keeps eval shallow)

DATE_UNITS: tuple[str, ...] = ("days", "hours", "minutes", "months", "years")

#: Function name -> (minimum, maximum or None for "any number") of arguments.
FUNCTIONS: dict[str, tuple[int, int | None]] = {
    "CONCAT": (1, None),
    "UPPER": (1, 1),
    "LOWER": (1, 1),
    "LEFT": (2, 2),
    "RIGHT": (2, 2),
    "TRIM": (1, 1),
    "LEN": (1, 1),
    "SUM": (1, None),
    "ROUND": (1, 2),
    "ABS": (1, 1),
    "FLOOR": (1, 1),
    "CEIL": (1, 1),
    "MIN": (1, None),
    "MAX": (1, None),
    "DATEDIFF": (2, 3),
    "DATEADD": (2, 3),
    "TODAY": (0, 0),
    "NOW": (0, 0),
    "YEAR": (1, 1),
    "MONTH": (1, 1),
    "DAY": (1, 1),
    "IF": (2, 3),
    "AND": (1, None),
    "OR": (1, None),
    "NOT": (1, 1),
    "ISBLANK": (1, 1),
}

#: Binary operator -> precedence level (higher binds tighter). All are left-associative.
BINARY_PRECEDENCE: dict[str, int] = {
    "=": 1,
    "!=": 1,
    "<>": 1,
    "<": 1,
    "<=": 1,
    ">": 1,
    ">=": 1,
    "&": 2,
    "+": 3,
    "-": 3,
    "*": 4,
    "/": 4,
}


class FormulaError(Exception):
    """A formula that cannot be parsed (or, as a subclass, evaluated)."""

    def __init__(self, message: str, position: int) -> None:
        super().__init__(f"{message} at position {position}")
        self.message = message
        self.position = position


# --- tokens ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Token:
    kind: str  # num | str | name | field | op | ( | ) | , | eof
    text: str
    pos: int
    value: object = None


_NUMBER = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SLUG = re.compile(r"[a-z0-9_-]+")
_OPERATORS = ("<=", ">=", "!=", "<>", "=", "<", ">", "+", "-", "*", "/", "&")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0"}


def tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch in "(),":
            tokens.append(Token(ch, ch, i))
            i += 1
        elif ch in "\"'":
            i = _string(text, i, tokens)
        elif ch == "{":
            end = text.find("}", i + 1)
            slug = text[i + 1 : end] if end >= 0 else ""
            if end < 0 or not _SLUG.fullmatch(slug):
                raise FormulaError("invalid field reference (expected {field-slug})", i)
            tokens.append(Token("field", text[i : end + 1], i, slug))
            i = end + 1
        elif (m := _NUMBER.match(text, i)) is not None:
            tokens.append(Token("num", m.group(), i, _number(m.group(), i)))
            i = m.end()
        elif (m := _NAME.match(text, i)) is not None:
            tokens.append(Token("name", m.group(), i))
            i = m.end()
        else:
            op = next((o for o in _OPERATORS if text.startswith(o, i)), None)
            if op is None:
                raise FormulaError(f"unexpected character {ch!r}", i)
            tokens.append(Token("op", op, i))
            i += len(op)
    tokens.append(Token("eof", "", n))
    return tokens


def _number(text: str, pos: int) -> int | float:
    if text.isascii() and text.isdigit():
        return int(text)
    value = float(text)
    if not math.isfinite(value):
        raise FormulaError("number out of range", pos)
    return value


def _string(text: str, start: int, tokens: list[Token]) -> int:
    quote, i, out = text[start], start + 1, []
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            out.append(_ESCAPES.get(nxt, nxt))
            i += 2
        elif ch == quote:
            tokens.append(Token("str", text[start : i + 1], start, "".join(out)))
            return i + 1
        else:
            out.append(ch)
            i += 1
    raise FormulaError("unterminated string", start)


# --- syntax tree -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Literal:
    value: int | float | str | bool
    pos: int


@dataclass(frozen=True)
class FieldRef:
    slug: str
    pos: int


@dataclass(frozen=True)
class Unary:
    op: str
    operand: Node
    pos: int


@dataclass(frozen=True)
class Chain:
    """``first op1 x1 op2 x2 ...`` where every op has the same precedence, evaluated left to
    right."""

    first: Node
    rest: tuple[tuple[str, Node, int], ...]  # (operator, operand, operator position)
    pos: int


@dataclass(frozen=True)
class Call:
    name: str  # upper-case
    args: tuple[Node, ...]
    pos: int


Node = Literal | FieldRef | Unary | Chain | Call


def children(node: Node) -> tuple[Node, ...]:
    if isinstance(node, Unary):
        return (node.operand,)
    if isinstance(node, Chain):
        return (node.first, *(operand for _, operand, _ in node.rest))
    if isinstance(node, Call):
        return node.args
    return ()


# --- parser ------------------------------------------------------------------------------------


class _Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.i = 0
        self.depth = 0

    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

    def advance(self) -> Token:
        tok = self.tokens[self.i]
        if tok.kind != "eof":
            self.i += 1
        return tok

    def expect(self, kind: str, what: str) -> Token:
        if self.tok.kind != kind:
            raise FormulaError(f"expected {what}, found {_describe(self.tok)}", self.tok.pos)
        return self.advance()

    def enter(self, pos: int) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise FormulaError(f"formula nested deeper than {MAX_DEPTH} levels", pos)

    def expression(self, min_prec: int = 1) -> Node:
        left = self.unary()
        while self.tok.kind == "op" and BINARY_PRECEDENCE[self.tok.text] >= min_prec:
            op_tok = self.advance()
            prec = BINARY_PRECEDENCE[op_tok.text]
            right = self.expression(prec + 1)
            if isinstance(left, Chain) and BINARY_PRECEDENCE[left.rest[0][0]] == prec:
                left = Chain(left.first, (*left.rest, (op_tok.text, right, op_tok.pos)), left.pos)
            else:
                left = Chain(left, ((op_tok.text, right, op_tok.pos),), _pos(left))
        return left

    def unary(self) -> Node:
        tok = self.tok
        if tok.kind == "op" and tok.text in ("+", "-"):
            self.advance()
            self.enter(tok.pos)
            operand = self.unary()
            self.depth -= 1
            return Unary(tok.text, operand, tok.pos)
        return self.primary()

    def primary(self) -> Node:
        tok = self.advance()
        if tok.kind in ("num", "str"):
            assert isinstance(tok.value, int | float | str)
            return Literal(tok.value, tok.pos)
        if tok.kind == "field":
            assert isinstance(tok.value, str)
            return FieldRef(tok.value, tok.pos)
        if tok.kind == "(":
            self.enter(tok.pos)
            inner = self.expression()
            self.expect(")", "')'")
            self.depth -= 1
            return inner
        if tok.kind == "name":
            upper = tok.text.upper()
            if upper in ("TRUE", "FALSE") and self.tok.kind != "(":
                return Literal(upper == "TRUE", tok.pos)
            if self.tok.kind != "(":
                raise FormulaError(f"unknown name {tok.text!r}", tok.pos)
            return self.call(tok, upper)
        raise FormulaError(f"unexpected {_describe(tok)}", tok.pos)

    def call(self, name_tok: Token, name: str) -> Node:
        if name not in FUNCTIONS:
            raise FormulaError(f"unknown function {name_tok.text!r}", name_tok.pos)
        self.advance()  # "("
        self.enter(name_tok.pos)
        args: list[Node] = []
        if self.tok.kind != ")":
            args.append(self.expression())
            while self.tok.kind == ",":
                self.advance()
                args.append(self.expression())
        self.expect(")", "',' or ')'")
        self.depth -= 1
        low, high = FUNCTIONS[name]
        if len(args) < low or (high is not None and len(args) > high):
            want = (
                f"{low}" if low == high else f"{low} or more" if high is None else f"{low}-{high}"
            )
            raise FormulaError(f"{name} takes {want} argument(s), got {len(args)}", name_tok.pos)
        if name in ("DATEDIFF", "DATEADD") and len(args) == 3:
            unit = args[2]
            if isinstance(unit, Literal) and (
                not isinstance(unit.value, str) or unit.value.lower() not in DATE_UNITS
            ):
                raise FormulaError(f"unit must be one of {', '.join(DATE_UNITS)}", unit.pos)
        return Call(name, tuple(args), name_tok.pos)


def _describe(tok: Token) -> str:
    return "end of formula" if tok.kind == "eof" else repr(tok.text)


def _pos(node: Node) -> int:
    return node.pos


def parse(expression: str) -> tuple[Node, tuple[str, ...]]:
    """Parse ``expression`` into a tree and the distinct field slugs it references."""
    if len(expression) > MAX_LENGTH:
        raise FormulaError(f"formula longer than {MAX_LENGTH} characters", MAX_LENGTH)
    tokens = tokenize(expression)
    if tokens[0].kind == "eof":
        raise FormulaError("empty formula", 0)
    parser = _Parser(tokens)
    root = parser.expression()
    if parser.tok.kind != "eof":
        raise FormulaError(f"unexpected {_describe(parser.tok)}", parser.tok.pos)
    refs: dict[str, None] = {}
    stack: list[tuple[Node, int]] = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_TREE_DEPTH and children(node):
            message = f"formula nested too deeply (over {MAX_TREE_DEPTH} operations deep)"
            raise FormulaError(message, node.pos)
        if isinstance(node, FieldRef):
            refs.setdefault(node.slug, None)
        stack.extend((child, depth + 1) for child in reversed(children(node)))
    return root, tuple(refs)
