"""No code outside fieldhouse/model/fields/ decides by a data type's name.

The field-type registry is the one list of types: code elsewhere asks the type object
(``type_of(field).holds_list(field)``, ``kind.read_only``, ``kind.counts``), so adding a type
is one module in model/fields/ and its test. This walks the syntax tree of every module outside
model/fields/ and reads the console's scripts, and names each place that compares a data type
with a type's name, picks a type by its name, keeps a table or a copied list of type names, or
selects rows by one in SQL. Declaring a field's type (``data_type="text"`` in a template) is
data, not a decision; so is a vocabulary of its own that shares words with the types
(``Literal["text", "number"]``: a formula's result type, a SQL type).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from fieldhouse.model.fields import DATA_TYPES

ROOT = Path(__file__).resolve().parent.parent.parent
PACKAGE = ROOT / "fieldhouse"
CONSOLE = PACKAGE / "http" / "static" / "console"

NAMES = frozenset(DATA_TYPES)
#: what holds a data type's name: ``f.data_type``, ``body.dataType``, ``spec["dataType"]``,
#: and the offline planner's ``f.type``
_TYPE_WORDS = frozenset({"data_type", "dataType"})
_TYPE_ATTRIBUTES = _TYPE_WORDS | {"type"}
_SQL = re.compile(r"data_type\s*(?:=|<>|!=|\bin\b)\s*\(?\s*'(\w+)'", re.IGNORECASE)


def type_switches(package: Path, console: Path) -> list[str]:
    """``path:line`` of every decision on a type's name outside model/fields/ (and the
    console's scripts)."""
    found: list[str] = []
    for path in sorted(package.rglob("*.py")):
        where = path.relative_to(package.parent).as_posix()
        inside = path.relative_to(package).parts[:2] == ("model", "fields")
        if inside:
            continue
        found += [f"{where}:{line}" for line in sorted(set(_python_lines(path.read_text())))]
    for path in sorted(console.glob("*.js")):
        where = path.relative_to(package.parent).as_posix()
        found += [f"{where}:{line}" for line in sorted(set(_script_lines(path.read_text())))]
    return found


# --- Python --------------------------------------------------------------------------------


def _python_lines(source: str) -> Iterator[int]:
    tree = ast.parse(source)
    vocabularies = _literal_vocabularies(tree)
    for scope in [tree, *_functions(tree)]:
        held = _type_holders(scope)
        for node in _own_nodes(scope):
            if id(node) not in vocabularies and _decides(node, held):
                yield node.lineno


def _literal_vocabularies(tree: ast.AST) -> set[int]:
    """``Literal["text", "number"]``: a vocabulary of its own (a SQL type, a formula's result
    type) whose words a type's name may share."""
    return {
        id(node.slice)
        for node in ast.walk(tree)
        if isinstance(node, ast.Subscript)
        and (getattr(node.value, "id", None) or getattr(node.value, "attr", None)) == "Literal"
    }


def _functions(tree: ast.AST) -> list[ast.AST]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def _own_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a module or function, not those of the functions nested in it."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            stack.extend(ast.iter_child_nodes(node))


def _type_holders(scope: ast.AST) -> set[str]:
    """Names that hold a data type's name in the scope: ``kind = field.data_type``."""
    held = set(_TYPE_WORDS)
    for node in _own_nodes(scope):
        if isinstance(node, ast.Assign) and _holds_type(node.value, held):
            held |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return held


def _holds_type(node: ast.AST, held: set[str]) -> bool:
    if isinstance(node, ast.Name):
        return node.id in held
    if isinstance(node, ast.Attribute):
        return node.attr in _TYPE_ATTRIBUTES
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value in _TYPE_WORDS
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        args = node.args[:1]
        return node.func.attr == "get" and any(_is_const(a, _TYPE_WORDS) for a in args)
    if isinstance(node, ast.BoolOp):
        return any(_holds_type(v, held) for v in node.values)
    return False


def _is_const(node: ast.AST, words: frozenset[str]) -> bool:
    return isinstance(node, ast.Constant) and node.value in words


def _names_types(node: ast.AST) -> bool:
    """A type's name, or a literal collection of them."""
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return bool(node.elts) and all(_is_const(e, NAMES) for e in node.elts)
    return _is_const(node, NAMES)


def _decides(node: ast.AST, held: set[str]) -> bool:
    if isinstance(node, ast.Compare):
        sides = [node.left, *node.comparators]
        return any(_holds_type(s, held) for s in sides) and any(_names_types(s) for s in sides)
    if isinstance(node, ast.Match):
        return _holds_type(node.subject, held) and any(
            isinstance(c.pattern, ast.MatchValue) and _is_const(c.pattern.value, NAMES)
            for c in node.cases
        )
    if isinstance(node, ast.Dict):  # a table keyed by type names
        keys = [k for k in node.keys if k is not None]
        return len(keys) >= 2 and all(_is_const(k, NAMES) for k in keys)
    if isinstance(node, ast.Tuple | ast.List | ast.Set):  # a copied list of types
        return len(node.elts) >= 2 and _names_types(node)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):  # SQL
        return any(m.group(1) in NAMES for m in _SQL.finditer(node.value))
    return _looks_up_by_name(node)


def _looks_up_by_name(node: ast.AST) -> bool:
    """``FIELD_TYPES["text"]``, ``field_type("text")``: one type picked by its name."""
    if isinstance(node, ast.Subscript):
        registry, key = node.value, node.slice
    elif isinstance(node, ast.Call) and node.args:
        registry, key = node.func, node.args[0]
    else:
        return False
    if isinstance(registry, ast.Attribute) and registry.attr == "get":
        registry = registry.value
    named = isinstance(registry, ast.Name) and registry.id in ("FIELD_TYPES", "field_type")
    return named and _is_const(key, NAMES)


# --- the console's scripts -------------------------------------------------------------------

_QUOTED = r"[\"'`](\w+)[\"'`]"
_SCRIPT_RULES = (
    re.compile(rf"\bcase\s+{_QUOTED}\s*:"),
    re.compile(rf"[!=]==?\s*{_QUOTED}"),
    re.compile(rf"{_QUOTED}\s*[!=]==?"),
    re.compile(rf"\.(?:has|includes)\(\s*{_QUOTED}\s*\)"),
)
_SCRIPT_LIST = re.compile(rf"\[\s*{_QUOTED}(?:\s*,\s*{_QUOTED})+\s*,?\s*\]")


def _script_lines(source: str) -> Iterator[int]:
    for number, line in enumerate(source.splitlines(), 1):
        words = [m.group(1) for rule in _SCRIPT_RULES for m in rule.finditer(line)]
        if any(w in NAMES and not _after_typeof(line, w) for w in words):
            yield number
        for listed in _SCRIPT_LIST.finditer(line):
            if all(w in NAMES for w in re.findall(_QUOTED, listed.group(0))):
                yield number


def _after_typeof(line: str, word: str) -> bool:
    """``typeof v === "number"`` asks JavaScript's type of a value, not a field's."""
    return re.search(rf"typeof\s+[\w.\[\]]+\s*[!=]==?\s*[\"']{word}[\"']", line) is not None


# --- the tests -------------------------------------------------------------------------------


def test_no_code_outside_model_fields_decides_by_a_type_name() -> None:
    assert type_switches(PACKAGE, CONSOLE) == [], (
        "ask the field type (fieldhouse/model/fields/) instead of comparing its name; the "
        "console reads its facts from /console/assets/field-types.js"
    )


def test_the_check_sees_each_kind_of_switch(tmp_path: Path) -> None:
    package, console = tmp_path / "fieldhouse", tmp_path / "console"
    (package / "model" / "fields").mkdir(parents=True)
    console.mkdir()
    (package / "model" / "fields" / "mine.py").write_text('if f.data_type == "text":\n    pass\n')
    (package / "store.py").write_text(
        "SQL = \"SELECT id FROM fields WHERE data_type = 'autonumber'\"\n"  # 1
        'if f.data_type in ("formula", "rollup"):\n'  # 2
        "    pass\n"
        'WIDE = {"number": 1, "currency": 2}\n'  # 4
        "def pick(field):\n"
        "    kind = field.data_type\n"
        "    match kind:\n"  # 7
        '        case "select":\n'
        "            return 1\n"
        '    return kind != "date"\n'  # 10
        'TEMPLATE = dict(data_type="text", config={"url": {}})\n'  # declaring a type is data
        'if group.grouping == "date" or base == "number":\n'  # other vocabularies
        "    pass\n"
        'LISTED = ("text", "email")\n'  # 14
        'Kind = Literal["text", "number"]\n'  # a vocabulary of its own
        'PLAIN = FIELD_TYPES["text"]\n'  # 16
        'MONEY = field_type("currency")\n'  # 17
    )
    (console / "app.js").write_text(
        'switch (typeOf(field)) {\n  case "select":\n    break;\n}\n'  # 2
        'if (type === "reference") go();\n'  # 5
        'const COMPUTED = new Set(["formula", "rollup"]);\n'  # 6
        'if (typeof v === "number") show(v);\n'
        'const node = h("textarea", { type: "date" });\n'
    )
    assert type_switches(package, console) == [
        "fieldhouse/store.py:1",
        "fieldhouse/store.py:2",
        "fieldhouse/store.py:4",
        "fieldhouse/store.py:7",
        "fieldhouse/store.py:10",
        "fieldhouse/store.py:14",
        "fieldhouse/store.py:16",
        "fieldhouse/store.py:17",
        "console/app.js:2",
        "console/app.js:5",
        "console/app.js:6",
    ]
