"""The list-records query string, parsed and validated into a typed, dialect-free value.

``parse_list_query`` reads the raw query pairs of ``GET /modules/{slug}/records`` (SPEC section
7) against the module schema and returns a :class:`ListQuery`, or raises one
``ValidationFailed`` carrying every problem as a zod-style issue. The only other error is the
SPEC's exact ``advancedFilter must be valid JSON`` (a ``ValidationFailed`` with that message
and one issue). Nothing here knows SQL: ``storage.sqlquery`` compiles the result.

Conventions: when a scalar parameter is repeated the last one wins (the endpoint refuses a
repeated one with a 400 before it gets here, as it refuses unknown ones; a repeated
``filter[slug]`` is two filters, both applied); empty ``search``, ``fields`` and
``advancedFilter`` (or ``advancedFilter=null``) count as absent. Without ``sortField`` the
order is ``created_at`` then ``id``, both in ``sortDirection`` (default ``desc``); with a
``sortField`` the default direction is ``asc``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from fieldhouse.model.errors import Issue, ValidationFailed
from fieldhouse.model.listquery_advanced import (
    MAX_CONDITIONS,
    MAX_DEPTH,
    MAX_LIST_VALUES,
    Condition,
    Group,
    parse_advanced,
)
from fieldhouse.model.listquery_kinds import SYSTEM_KEYS, resolve_key
from fieldhouse.model.schema import ModuleSchema

__all__ = [
    "MAX_CONDITIONS",
    "MAX_DEPTH",
    "Condition",
    "Group",
    "ListQuery",
    "parse_list_query",
]

MAX_PAGE_SIZE = 100
DEFAULT_PAGE_SIZE = 25
MAX_SEARCH_LENGTH = 1000
MAX_IDS = 100
#: Keeps ``page * pageSize`` far inside a 64-bit OFFSET.
MAX_PAGE = 1_000_000_000

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_FILTER_PARAM = re.compile(r"filter\[(.*)\]", re.DOTALL)
_INT = re.compile(r"[+-]?[0-9]+")


@dataclass(frozen=True)
class ListQuery:
    page: int
    page_size: int
    search: str | None
    sort_field: str | None
    sort_direction: Literal["asc", "desc"]
    simple_filters: tuple[tuple[str, tuple[str, ...]], ...]
    advanced: Group | None
    label_ids: tuple[str, ...]
    type_ids: tuple[str, ...]
    fields: tuple[str, ...] | None

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.page_size


def parse_list_query(
    args: Mapping[str, str] | Sequence[tuple[str, str]], schema: ModuleSchema
) -> ListQuery:
    """Validate the list query against ``schema``; all problems are reported together."""
    pairs = list(args.items()) if isinstance(args, Mapping) else list(args)
    last: dict[str, str] = {}
    filters: list[tuple[str, str]] = []
    for key, value in pairs:
        m = _FILTER_PARAM.fullmatch(key)
        if m is not None:
            filters.append((m.group(1), value))
        else:
            last[key] = value
    issues: list[Issue] = []

    page = _int_param(last, "page", 1, MAX_PAGE, 1, issues)
    page_size = _int_param(last, "pageSize", 1, MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE, issues)
    search = _search(last.get("search"), issues)
    sort_field = _sort_field(last.get("sortField"), schema, issues)
    direction = _direction(last.get("sortDirection"), sort_field is not None, issues)
    simple = _simple_filters(filters, schema, issues)
    advanced = parse_advanced(last.get("advancedFilter"), schema, issues)
    label_ids = _uuid_list(last.get("labelIds"), "labelIds", issues)
    type_ids = _uuid_list(last.get("typeIds"), "typeIds", issues)
    fields = _fields(last.get("fields"), schema, issues)

    if issues:
        raise ValidationFailed(issues)
    return ListQuery(
        page=page,
        page_size=page_size,
        search=search,
        sort_field=sort_field,
        sort_direction=direction,
        simple_filters=simple,
        advanced=advanced,
        label_ids=label_ids,
        type_ids=type_ids,
        fields=fields,
    )


# --- scalar parameters -------------------------------------------------------------------------


def _int_param(
    args: Mapping[str, str],
    name: str,
    minimum: int,
    maximum: int,
    default: int,
    issues: list[Issue],
) -> int:
    raw = args.get(name)
    if raw is None:
        return default
    text = raw.strip()
    if _INT.fullmatch(text) is None:
        issues.append(
            Issue(
                "invalid_type",
                (name,),
                f"Expected integer, received {raw!r}",
                {"expected": "integer", "received": "string"},
            )
        )
        return default
    # Beyond 18 digits only the sign matters (and int() of huge strings is refused anyway).
    sign = -1 if text.startswith("-") else 1
    value = int(text) if len(text.lstrip("+-")) <= 18 else sign * 10**19
    if value < minimum:
        issues.append(
            Issue(
                "too_small",
                (name,),
                f"Number must be greater than or equal to {minimum}",
                {"minimum": minimum, "inclusive": True, "type": "number"},
            )
        )
    elif value > maximum:
        issues.append(
            Issue(
                "too_big",
                (name,),
                f"Number must be less than or equal to {maximum}",
                {"maximum": maximum, "inclusive": True, "type": "number"},
            )
        )
    return value


def _search(raw: str | None, issues: list[Issue]) -> str | None:
    if raw is None or not raw.strip():
        return None
    if len(raw) > MAX_SEARCH_LENGTH:
        issues.append(
            Issue(
                "too_big",
                ("search",),
                f"String must contain at most {MAX_SEARCH_LENGTH} character(s)",
                {"maximum": MAX_SEARCH_LENGTH, "inclusive": True, "type": "string"},
            )
        )
        return None
    return raw.strip()


def _sort_field(raw: str | None, schema: ModuleSchema, issues: list[Issue]) -> str | None:
    if raw is None or raw == "":
        return None
    kind = resolve_key(raw, schema)
    if kind is None:
        options = [f.slug for f in schema.fields] + list(SYSTEM_KEYS)
        issues.append(
            Issue(
                "invalid_enum_value",
                ("sortField",),
                f"Unknown sort field {raw!r}",
                {"options": options, "received": raw},
            )
        )
        return None
    if kind.column is not None:
        return "displayName" if kind.column == "display_name" else kind.column
    return raw


def _direction(raw: str | None, has_field: bool, issues: list[Issue]) -> Literal["asc", "desc"]:
    default: Literal["asc", "desc"] = "asc" if has_field else "desc"
    if raw is None or raw == "":
        return default
    if raw.lower() == "asc":
        return "asc"
    if raw.lower() == "desc":
        return "desc"
    issues.append(
        Issue(
            "invalid_enum_value",
            ("sortDirection",),
            f"Invalid enum value. Expected 'asc' | 'desc', received {raw!r}",
            {"options": ["asc", "desc"], "received": raw},
        )
    )
    return default


def _simple_filters(
    filters: list[tuple[str, str]], schema: ModuleSchema, issues: list[Issue]
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    out: list[tuple[str, tuple[str, ...]]] = []
    for slug, raw in filters:
        kind = resolve_key(slug, schema, system=False) if slug != "displayName" else None
        if slug != "displayName" and kind is None:
            issues.append(Issue("custom", ("filter", slug), f"Unknown field {slug!r}"))
            continue
        values = tuple(dict.fromkeys(v for v in raw.split(",") if v != ""))
        if not values:
            issues.append(
                Issue(
                    "too_small",
                    ("filter", slug),
                    "Filter needs at least one value",
                    {"minimum": 1, "inclusive": True, "type": "array"},
                )
            )
            continue
        if len(values) > MAX_LIST_VALUES:
            issues.append(
                Issue(
                    "too_big",
                    ("filter", slug),
                    f"Filter accepts at most {MAX_LIST_VALUES} values",
                    {"maximum": MAX_LIST_VALUES, "inclusive": True, "type": "array"},
                )
            )
            continue
        out.append((slug, values))
    return tuple(out)


def _uuid_list(raw: str | None, name: str, issues: list[Issue]) -> tuple[str, ...]:
    if raw is None:
        return ()
    parts = [p.strip() for p in raw.split(",") if p.strip()]
    if len(parts) > MAX_IDS:
        issues.append(
            Issue(
                "too_big",
                (name,),
                f"Array must contain at most {MAX_IDS} element(s)",
                {"maximum": MAX_IDS, "inclusive": True, "type": "array"},
            )
        )
        return ()
    out: list[str] = []
    for i, part in enumerate(parts):
        if _UUID.fullmatch(part) is None:
            issues.append(
                Issue("invalid_string", (name, i), "Invalid uuid", {"validation": "uuid"})
            )
        else:
            out.append(part.lower())
    return tuple(dict.fromkeys(out))


def _fields(raw: str | None, schema: ModuleSchema, issues: list[Issue]) -> tuple[str, ...] | None:
    if raw is None or raw.strip() == "":
        return None
    out: list[str] = []
    for i, part in enumerate(p.strip() for p in raw.split(",")):
        if part == "":
            continue
        if schema.field(part) is None:
            issues.append(Issue("custom", ("fields", i), f"Unknown field {part!r}"))
        else:
            out.append(part)
    return tuple(dict.fromkeys(out))
