"""JSON responses through orjson, and the refusal of U+0000 in what a request carries.

PostgreSQL cannot store U+0000 in text or ``jsonb``, and SQLite's text functions stop at it
(``length('a' || char(0) || 'b')`` is 1), so a request holding it anywhere, in its JSON body,
its query parameters or its path, is refused with a 400 that names where, on both backends,
before it reaches a handler.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from fieldhouse.http.response import Response
from fieldhouse.model.errors import Issue

#: how JSON spells U+0000 (a raw NUL byte is not valid JSON)
NUL_ESCAPE = b"\\u0000"
NUL_TEXT = NUL_ESCAPE.decode()
NUL_MESSAGE = "Must not contain the NUL character (U+0000)"
#: the most places one answer lists
NUL_ISSUES = 20


def json_response(
    payload: Any, status: int = 200, headers: Mapping[str, str] | None = None
) -> Response:
    if status == 204:
        return Response(b"", status=204, headers=headers)
    return Response(
        orjson.dumps(payload),
        status=status,
        content_type="application/json",
        headers=headers,
    )


def _nul_issue(path: tuple[str | int, ...]) -> Issue:
    return Issue("invalid_string", path, NUL_MESSAGE, {"validation": "no_nul"})


def _json_nul_issues(raw: bytes | str, prefix: tuple[str | int, ...] = ()) -> list[Issue]:
    """Where JSON text holds U+0000, in a string or a key (by its path, after ``prefix``);
    none when it cannot (no ``\\u0000`` escape in it) or does not parse (that is said
    elsewhere)."""
    if (NUL_ESCAPE not in raw) if isinstance(raw, bytes) else (NUL_TEXT not in raw):
        return []
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return []
    issues: list[Issue] = []
    # (path, value, whether the value's own key holds it), in document order off the end
    stack: list[tuple[tuple[str | int, ...], Any, bool]] = [(prefix, data, False)]
    while stack and len(issues) < NUL_ISSUES:
        path, value, bad_key = stack.pop()
        if bad_key or (isinstance(value, str) and "\x00" in value):
            issues.append(_nul_issue(path))
        if isinstance(value, dict):
            items = reversed(value.items())
            stack.extend(((*path, k), v, "\x00" in k) for k, v in items)
        elif isinstance(value, list):
            stack.extend(((*path, i), v, False) for i, v in reversed(list(enumerate(value))))
    return issues


def body_nul_issues(raw: bytes) -> list[Issue]:
    """Where a JSON body holds U+0000, by its path in the body."""
    return _json_nul_issues(raw)


#: the query parameters whose values are JSON
JSON_PARAMS = frozenset({"advancedFilter"})
#: what a query string holding U+0000 has in it: the character, percent-encoded or raw, or
#: the JSON escape of it in a JSON parameter
_QUERY_NUL = (b"%00", b"\x00", b"u0000")


def request_nul_issues(
    path: str, route: str, query: bytes, params: Iterable[tuple[str, str]]
) -> list[Issue]:
    """Where a request's decoded ``path`` and query parameters hold U+0000: a path parameter
    by its name in ``route`` (``/v1/records/{recordId}``; else ``path``), a query parameter by
    its own (in a parameter of JSON, by the path in it too). ``params`` are the parsed query
    parameters, read only when the raw ``query`` may hold it."""
    issues: list[Issue] = []
    if "\x00" in path:
        segments, names = path.split("/"), route.split("/")
        where: list[str] = ["path"]
        if len(segments) == len(names):
            where = [n.strip("{}") for s, n in zip(segments, names, strict=True) if "\x00" in s]
        issues.extend(_nul_issue((name,)) for name in where)
    if any(mark in query for mark in _QUERY_NUL):
        named: dict[str, None] = {}
        for name, value in params:
            if "\x00" in name or "\x00" in value:
                named[name] = None
            elif name in JSON_PARAMS:
                issues.extend(_json_nul_issues(value, (name,)))
        issues.extend(_nul_issue((name,)) for name in named)
    return issues[:NUL_ISSUES]
