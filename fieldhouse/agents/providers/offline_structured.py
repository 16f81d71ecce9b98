"""Requests written as code or data, in the plain words the offline planner reads.

A developer may ask in the shape of what they know: SQL (``INSERT INTO contacts (name, email)
VALUES (...)``, ``UPDATE deals SET stage = 'won' WHERE name = '...'``, ``SELECT * FROM tasks
WHERE status != 'done' ORDER BY due_date``), a call (``deals.create({ name: "...", amount:
64_000 })``, ``send_email(to=..., subject="...")``), a REST line (``GET /tasks?status=todo``,
``curl -X POST .../deals -d '{...}'``) or ``key: value`` lines (``kind: company`` / ``name:
...``). Such a request names its module, its fields and its values exactly, so it is read by
the workspace's schema, not by phrasing: each key is matched to a field (its slug or label,
``job_title`` is "job title"), and the request is written out as "add contact Rohan Mehta, job
title DevOps Engineer, ...", "update deal X: stage won", "list tasks where status is not done
sorted by due date". The planner reads that as it reads any request, with the same checks (a
record looked up by name, every value read as its field's type, a part it cannot place asked
about), so this reading never writes anything by itself. A key that names no field is kept as
it was said, for the planner to ask about.
"""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qsl, unquote

from fieldhouse.agents.providers.offline_schema import Field, Module, Workspace, singular, words

#: keys that hold the record's own name
_NAME_KEYS = frozenset({"name", "title", "display name", "displayname", "full name", "record"})
#: keys that name the module in ``key: value`` lines
_KIND_KEYS = frozenset({"kind", "type", "module", "object", "entity", "table", "resource"})
#: keys that say what to do in ``key: value`` lines
_ACTION_KEYS = frozenset({"action", "op", "operation", "verb", "do"})
_CREATE = frozenset({"create", "add", "insert", "new", "post", "make", "upsert"})
_UPDATE = frozenset({"update", "patch", "set", "edit", "modify", "put", "change"})
_FIND = frozenset({"find", "get", "search", "lookup", "fetch", "show", "read"})
_LIST = frozenset({"list", "filter", "query", "select", "all", "where", "index"})
_DELETE = frozenset({"delete", "remove", "destroy", "drop", "del"})

#: a quoted string or a bare token up to a separator
_VALUE = r"""(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|''|\\.)*'|[^,;)}\]\n]+?)"""
_PAIR = re.compile(
    r"""["']?(?P<k>[\w.-]+)["']?\s*(?::|=)\s*(?P<v>""" + _VALUE + r")\s*(?=[,;)}\]\n]|$)"
)


class Asked(str):
    """A question back instead of a request: the code names a value still to be filled in."""


def _asked(module: Module, pairs: list[tuple[str, str]], target: str | None = None) -> Asked | None:
    """The question for a placeholder among the values ("name: TBD", "amount = ???"), if any."""
    if target is not None and _placeholder(target):
        return Asked(
            f"Which {_kind(module)} do you mean? {target!r} is a placeholder; I changed nothing."
        )
    for key, value in pairs:
        if _placeholder(value):
            said = "name" if _is_name(key, module) else _label(key, module)
            return Asked(
                f"What should the {said} be? {_unquote(value)!r} is a placeholder; I "
                "changed nothing yet."
            )
    return None


#: a message longer than this is not read as code (each key is matched against every field)
MOST_CHARS = 4_000


def plain_structured(message: str, ws: Workspace) -> str | None:
    """``message`` in plain words when it is code or data the schema reads, else None; an
    :class:`Asked` when it names a value still to be filled in."""
    text = message.strip()
    if not text or len(text) > MOST_CHARS:
        return None
    for read in (_sql_insert, _sql_update, _sql_select, _call, _rest, _lines):
        plain = read(text, ws)
        if plain is not None:
            return plain
    return None


# ---------------------------------------------------------------------------------- the schema


def _module(name: str, ws: Workspace) -> Module | None:
    said = words(name.strip("`\"' "))
    return next((m for m in ws.modules if said in m.phrases()), None)


def _field(key: str, module: Module) -> Field | None:
    return module.field_said(words(key.strip("`\"' ")))


def _is_name(key: str, module: Module) -> bool:
    said = words(key.strip("`\"' "))
    if said in _NAME_KEYS:
        return True
    shown = module.display_fields
    return len(shown) == 1 and _field(key, module) is shown[0]


def _label(key: str, module: Module) -> str:
    """How a key is said: its field's label, else the key itself in words."""
    f = _field(key, module)
    return words(f.label) if f else words(key)


def _named(pairs: list[tuple[str, str]], module: Module) -> tuple[list[str], list[tuple[str, str]]]:
    """The record's names said among the pairs, and the other pairs."""
    names = [_said(v) for k, v in pairs if _is_name(k, module)]
    return names, [(k, v) for k, v in pairs if not _is_name(k, module)]


def _unquote(value: str) -> str:
    v = value.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'`":
        v = v[1:-1].replace("''", "'").replace('\\"', '"').replace("\\'", "'")
    return v.strip()


def _said(value: str, f: Field | None = None) -> str:
    """A value as a person says it: quotes off, ``64_000`` is 64000, ``CURRENT_DATE + 7`` is
    "in 7 days", a user field's ``me`` is "me"."""
    v = _unquote(value)
    if re.fullmatch(r"-?\d[\d_]*(?:\.\d+)?", v):
        return v.replace("_", "")
    day = re.fullmatch(
        r"(?:CURRENT_DATE|NOW\(\)|TODAY\(\)|CURRENT_TIMESTAMP|date\('now'\))"
        r"(?:\s*(?P<sign>[+-])\s*(?:INTERVAL\s*)?'?(?P<n>\d+)'?\s*(?:days?)?'?)?",
        v,
        re.I,
    )
    if day is not None:
        n = int(day["n"] or 0) * (-1 if day["sign"] == "-" else 1)
        return {0: "today", 1: "tomorrow", -1: "yesterday"}.get(
            n, f"in {n} days" if n > 0 else f"{-n} days ago"
        )
    if v.upper() in {"CURRENT_USER", "@ME", "SELF"}:
        return "me"
    return v


#: a value written to be filled in later ("name TBD", ":id", "<someone at X>", "???"): never
#: written; asked about (:func:`_asked`)
_PLACEHOLDER = re.compile(
    r"(?:tbd|tba|tbc|n/?a|null|none|unknown|\?+|x{2,}|todo|placeholder|\.{3}|<[^>]*>|:\w+|"
    r"\$\d+|\{\{.*\}\}|\[.*\])",
    re.I,
)


def _placeholder(value: str) -> bool:
    return _PLACEHOLDER.fullmatch(_unquote(value).strip()) is not None


def _pairs(text: str) -> list[tuple[str, str]]:
    return [(m["k"], m["v"]) for m in _PAIR.finditer(text)]


def _split_top(text: str, sep: str = ",") -> list[str]:
    """``text`` split at ``sep`` outside quotes and brackets."""
    parts, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


# ---------------------------------------------------------------------------- the plain words


def _kind(module: Module) -> str:
    return singular(words(module.name))


def _parts(pairs: list[tuple[str, str]], module: Module) -> list[str]:
    """ "job title DevOps Engineer", "assigned to me": a field and its value, as said."""
    said = []
    for key, value in pairs:
        f = _field(key, module)
        v = _said(value, f)
        if f is not None and f.reads == "user" and v.lower() == "me":
            said.append("assigned to me")
        else:
            said.append(f"{_label(key, module)} {v}")
    return said


def _create(module: Module, pairs: list[tuple[str, str]]) -> str:
    asked = _asked(module, pairs)
    if asked is not None:
        return asked
    names, rest = _named(pairs, module)
    head = f"add {_kind(module)} {names[0]}" if names else f"add {_kind(module)}"
    return ", ".join([head, *_parts(rest, module)])


def _update(module: Module, target: str, pairs: list[tuple[str, str]]) -> str:
    asked = _asked(module, pairs, target)
    if asked is not None:
        return asked
    return f"update {_kind(module)} {target}: " + ", ".join(_parts(pairs, module))


def _find(module: Module, what: str) -> str:
    return f"find {_kind(module)} {what}"


#: SQL's comparisons -> how they are said, for a date field and for any other
_SAID_OPS = {
    "<": ("before", "less than"),
    "<=": ("on or before", "at most"),
    ">": ("after", "more than"),
    ">=": ("on or after", "at least"),
}


def _condition(key: str, op: str, value: str, module: Module) -> str:
    f = _field(key, module)
    label = _label(key, module)
    v = _said(value, f)
    if f is not None and f.reads == "user" and v.lower() == "me":
        return "assigned to me" if op in ("=", "==") else f"{label} is not me"
    if op in ("=", "==", "is", "in", "any"):
        return f"{label} is {v}"
    if op in ("!=", "<>", "not in"):
        return f"{label} is not {v}"
    if op in _SAID_OPS:
        dated = f is not None and f.reads in ("date", "datetime")
        return f"{label} is {_SAID_OPS[op][0 if dated else 1]} {v}"
    if op == "null":
        return f"{label} is empty"
    if op == "not null":
        return f"{label} is not empty"
    if op == "like":
        return f"{label} contains {v.strip('%')}"
    return f"{label} {op} {v}"


def _listing(module: Module, conditions: list[str], order: tuple[str, bool] | None) -> str:
    said = f"list {words(module.name)}"
    if "assigned to me" in conditions:
        said += " assigned to me"
        conditions = [c for c in conditions if c != "assigned to me"]
    if conditions:
        said += " where " + " and ".join(conditions)
    if order is not None:
        said += f" sorted by {_label(order[0], module)} {'descending' if order[1] else 'ascending'}"
    return said


# ------------------------------------------------------------------------------------- SQL

_INSERT = re.compile(
    r"^\s*INSERT\s+INTO\s+[`\"']?(?P<table>[\w.]+)[`\"']?\s*\((?P<cols>[^)]*)\)\s*VALUES\s*"
    r"\((?P<vals>.*)\)\s*;?\s*(?:--.*)?$",
    re.I | re.S,
)


def _sql_insert(text: str, ws: Workspace) -> str | None:
    m = _INSERT.match(text)
    if m is None:
        return None
    module = _module(m["table"].split(".")[-1], ws)
    if module is None:
        return None
    cols = [c.strip(" `\"'") for c in m["cols"].split(",")]
    vals = _split_top(m["vals"])
    if len(cols) != len(vals):
        return None
    return _create(module, list(zip(cols, vals, strict=True)))


_UPDATE_SQL = re.compile(
    r"^\s*UPDATE\s+[`\"']?(?P<table>[\w.]+)[`\"']?\s+SET\s+(?P<sets>.*?)\s+WHERE\s+"
    r"(?P<key>[\w.]+)\s*=\s*(?P<target>" + _VALUE + r")\s*;?\s*(?:--.*)?$",
    re.I | re.S,
)


def _sql_update(text: str, ws: Workspace) -> str | None:
    m = _UPDATE_SQL.match(text)
    if m is None:
        return None
    module = _module(m["table"].split(".")[-1], ws)
    if module is None or not _is_name(m["key"], module):
        return None
    pairs = []
    for part in _split_top(m["sets"]):
        k, eq, v = part.partition("=")
        if not eq:
            return None
        pairs.append((k.strip(" `\"'"), v.strip()))
    return _update(module, _said(m["target"]), pairs)


_SELECT = re.compile(
    r"^\s*SELECT\s+.+?\s+FROM\s+[`\"']?(?P<table>[\w.]+)[`\"']?"
    r"(?:\s+WHERE\s+(?P<where>.+?))?(?:\s+ORDER\s+BY\s+(?P<order>[\w.]+)(?:\s+(?P<dir>ASC|DESC))?)?"
    r"(?:\s+LIMIT\s+\d+)?\s*;?\s*(?:--.*)?$",
    re.I | re.S,
)
_COND = re.compile(
    r"^\s*(?:(?P<k>[\w.]+)\s*(?P<op><>|!=|<=|>=|==|=|<|>|\bNOT\s+IN\b|\bIN\b|\bNOT\s+LIKE\b|"
    r"\bI?LIKE\b)\s*(?P<v>.+?)|(?P<nk>[\w.]+)\s+IS\s+(?P<not>NOT\s+)?NULL|"
    r"(?P<av>" + _VALUE + r")\s*=\s*ANY\s*\(\s*(?P<ak>[\w.]+)\s*\))\s*$",
    re.I | re.S,
)


def _sql_select(text: str, ws: Workspace) -> str | None:
    m = _SELECT.match(text)
    if m is None:
        return None
    module = _module(m["table"].split(".")[-1], ws)
    if module is None:
        return None
    parts = re.split(r"\s+AND\s+", m["where"], flags=re.I) if m["where"] else []
    matched = [_COND.match(part) for part in parts]
    conditions: list[str] = []
    for c in matched:
        if c is None:
            return None
        if c["nk"]:
            conditions.append(_condition(c["nk"], "not null" if c["not"] else "null", "", module))
        elif c["ak"]:
            conditions.append(_condition(c["ak"], "any", c["av"], module))
        else:
            op = " ".join(c["op"].lower().split())
            value = c["v"].strip()
            if op in ("in", "not in"):
                value = " or ".join(_said(v) for v in _split_top(value.strip("()")))
            conditions.append(_condition(c["k"], "like" if "like" in op else op, value, module))
    one = matched[0] if len(matched) == 1 else None
    if one is not None and one["op"] in ("=", "==") and not m["order"]:
        key = one["k"]
        f = _field(key, module)
        if _is_name(key, module) or (f is not None and f.reads == "email"):
            return _find(module, _said(one["v"]))
    order = (m["order"], (m["dir"] or "").upper() == "DESC") if m["order"] else None
    return _listing(module, conditions, order)


# ------------------------------------------------------------------------------------ calls

_CALL = re.compile(
    r"^\s*(?:await\s+)?(?:[\w$]+\.)*?(?:(?P<mod>\w+)\s*\.\s*(?P<verb>\w+)|"
    r"(?P<verb2>[a-z]+)_(?P<mod2>\w+))\s*\((?P<args>.*)\)\s*;?\s*(?://.*|#.*)?$",
    re.S,
)


def _call(text: str, ws: Workspace) -> str | None:
    m = _CALL.match(text)
    if m is None:
        return None
    verb = (m["verb"] or m["verb2"] or "").lower()
    name = m["mod"] or m["mod2"] or ""
    args = m["args"].strip()
    if words(name) in {"email", "mail", "emails", "message"} and verb in {"send", "draft"}:
        return _mail(verb, _pairs(args))
    module = _module(name, ws)
    if module is None:
        return None
    first = re.match(r"\s*(" + r"""(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')""" + r")\s*,?", args)
    target = _unquote(first[1]) if first else None
    rest = args[first.end() :] if first else args
    pairs = _pairs(rest.strip().strip("{}"))
    if verb in _CREATE:
        return _create(module, pairs)
    if verb in _UPDATE:
        if target is None:
            names, rest = _named(pairs, module)
            if names:
                target, pairs = names[0], rest
        return _update(module, target, pairs) if target and pairs else None
    if verb in _FIND and target:
        return _find(module, target)
    if verb in _FIND | _LIST:
        conditions = [_condition(k, "=", v, module) for k, v in pairs]
        return _listing(module, conditions, None) if not target else _find(module, target)
    if verb in _DELETE:
        return f"delete {_kind(module)} {target or ''}".strip()
    return None


def _mail(verb: str, pairs: list[tuple[str, str]]) -> str | None:
    said = {words(k): _unquote(v) for k, v in pairs}
    to = said.get("to") or said.get("recipient")
    if not to or re.search(r"[<>]", to):  # "to=<someone at Fabrikam>": no one yet
        return None
    plain = f"{'draft' if verb == 'draft' else 'send'} an email to {to}"
    subject = said.get("subject") or said.get("subj") or said.get("title")
    if subject:
        plain += f' with the subject "{subject}"'
    body = said.get("body") or said.get("text") or said.get("message") or said.get("content")
    if body:
        plain += f' saying "{body}"'
    return plain


# ------------------------------------------------------------------------------------- REST

_REST = re.compile(
    r"^\s*(?:curl\b(?P<curl>.*?))?(?:-X\s*)?(?P<method>GET|POST|PATCH|PUT|DELETE)\b\s*"
    r"(?P<curl2>(?:-\S+\s+(?:'[^']*'|\"[^\"]*\"|\S+)\s+)*)['\"]?(?:https?://[^/\s]+)?"
    r"/(?:v1/)?(?:modules/)?(?P<mod>[\w-]+)(?:/records)?(?:/(?P<id>[^\s?'\"]+))?"
    r"(?:\?(?P<q>[^\s'\"]+))?['\"]?(?P<tail>.*)$",
    re.I | re.S,
)


def _rest(text: str, ws: Workspace) -> str | None:
    m = _REST.match(text)
    if m is None:
        return None
    module = _module(m["mod"], ws)
    if module is None:
        return None
    method = m["method"].upper()
    body = re.search(r"\{.*\}", " ".join(filter(None, (m["curl"], m["curl2"], m["tail"]))), re.S)
    pairs: list[tuple[str, str]] = []
    if body is not None:
        try:
            data = json.loads(body[0])
        except ValueError:
            pairs = _pairs(body[0].strip("{}"))
        else:
            if isinstance(data, dict):
                data = data.get("fields", data) | {
                    k: v for k, v in data.items() if k in ("displayName", "name")
                }
                pairs = [
                    (k, json.dumps(v) if not isinstance(v, str) else v)
                    for k, v in data.items()
                    if k != "fields"
                ]
    target = unquote(m["id"]).replace("+", " ") if m["id"] else None
    if method == "GET":
        query = parse_qsl(m["q"] or "")
        words_of = {words(k): v for k, v in query}
        found = words_of.get("q") or words_of.get("search") or words_of.get("query")
        if target:
            return _find(module, target)
        if found and len(query) == 1:
            return _find(module, found)
        sort = words_of.get("sort")
        order = (sort.lstrip("-"), sort.startswith("-")) if sort else None
        conditions = [
            _condition(k, "=", v, module)
            for k, v in query
            if words(k) not in {"q", "search", "query", "sort", "limit", "page", "page size"}
        ]
        return _listing(module, conditions, order)
    if method == "POST" and not target:
        return _create(module, pairs) if pairs else None
    if method in ("PATCH", "PUT") and target and pairs:
        return _update(module, target, pairs)
    if method == "DELETE":
        return f"delete {_kind(module)} {target or ''}".strip()
    return None


# ------------------------------------------------------------------------- key: value lines


def _lines(text: str, ws: Workspace) -> str | None:
    lines = [ln.strip(" -*\t") for ln in text.splitlines() if ln.strip(" -*\t")]
    if len(lines) < 2:
        return None
    pairs = []
    for line in lines:
        m = re.fullmatch(r"([\w .-]+?)\s*[:=]\s*(.+)", line)
        if m is None:
            return None
        pairs.append((m[1], m[2].strip()))
    module = next((_module(v, ws) for k, v in pairs if words(k) in _KIND_KEYS), None)
    if module is None:
        return None
    action = next((words(v) for k, v in pairs if words(k) in _ACTION_KEYS), "create")
    fields = [(k, v) for k, v in pairs if words(k) not in _KIND_KEYS | _ACTION_KEYS]
    if action in _CREATE:
        return _create(module, fields)
    if action in _UPDATE:
        names, rest = _named(fields, module)
        return _update(module, names[0], rest) if names and rest else None
    return None
