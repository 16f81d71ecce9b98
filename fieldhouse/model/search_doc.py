"""What of a record is searchable: its display name, text-like values, labels."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from fieldhouse.model.fields import FIELD_TYPES, FieldType
from fieldhouse.model.fields.base import strings_of
from fieldhouse.model.fields.text import strip_html
from fieldhouse.model.memo import SchemaMemo
from fieldhouse.model.records import RecordRow
from fieldhouse.model.schema import ModuleSchema

MAX_BODY_CHARS = 20_000
#: a margin over what the embedder reads (4 windows of 128 tokens, about 2,000 characters)
EMBED_BODY_CHARS = 3000


@dataclass(frozen=True)
class Doc:
    """One searchable record. ``stamp`` is its updatedDateTime, to spot stale entries."""

    record_id: str
    module_id: str
    title: str
    body: str
    labels: str
    stamp: str
    #: every value as text (any type), for the list filter's substring candidates
    raw: str = ""

    @property
    def embed_text(self) -> str:
        """What the embedder reads: the title first, then labels and the body's start (the
        embedder reads up to 512 tokens, about 2,000 characters, in windows of 128)."""
        parts = [self.title, self.labels, self.body[:EMBED_BODY_CHARS]]
        return ". ".join(p for p in parts if p)


def record_doc(row: RecordRow, schema: ModuleSchema | None, labels: Mapping[str, str]) -> Doc:
    """The searchable text of ``row``; without a schema every string value counts."""
    fields = row.fields
    title = row.display_name
    parts: list[str] = []
    if schema is not None:  # schema order: the same text whatever order the store keeps
        for slug, words in _PLANS.get(schema, None, lambda: _plan(schema)):
            value = fields.get(slug)
            if value is None:
                continue
            found: Iterable[str]
            if words is None:  # a searchable type's plain strings (most of them)
                found = (value,) if type(value) is str else strings_of(value)
            else:
                found = words(value)
            parts.extend(p for p in found if p and p != title)  # the title is indexed alone
    else:  # without a schema every string of every value counts (a searchable type's way)
        for key in sorted(fields):
            parts.extend(p for p in strings_of(fields[key]) if p and p != title)
    if row.description_html:
        parts.append(strip_html(row.description_html))
    body = " ".join(" ".join(parts).split())[:MAX_BODY_CHARS]  # whitespace runs: one space
    label_text = " ".join(labels[i] for i in row.label_ids if i in labels)
    raw: list[str] = [title]
    _scalars(fields, raw)
    return Doc(
        row.record_id, row.module_id, title, body, label_text, row.updated_at, "\n".join(raw)
    )


#: per module schema: (slug, how its words are read) of each field whose type is searchable,
#: None for the plain strings of the value (the base type's way)
Plan = tuple[tuple[str, Callable[[Any], Iterable[str]] | None], ...]
_PLANS: SchemaMemo[Plan] = SchemaMemo(256)


def _plan(schema: ModuleSchema) -> Plan:
    plan: list[tuple[str, Callable[[Any], Iterable[str]] | None]] = []
    for f in schema.fields:
        kind = FIELD_TYPES.get(f.data_type)
        if kind is None:
            continue
        own = type(kind).search_text is not FieldType.search_text
        if not own and not kind.searchable:
            continue  # the base type's words of a type that is not searchable: none
        plan.append((f.slug, kind.search_text if own else None))
    return tuple(plan)


def _scalars(value: Any, out: list[str]) -> None:
    """Every scalar inside ``value`` as text, depth first, onto ``out``."""
    kind = type(value)
    if kind is str:
        out.append(value)
    elif kind is dict or isinstance(value, Mapping):
        for item in value.values():
            _scalars(item, out)
    elif kind is list or kind is tuple or isinstance(value, list | tuple):
        for item in value:
            _scalars(item, out)
    elif kind is bool:
        out.append("true" if value else "false")
    elif value is not None:
        out.append(str(value))
