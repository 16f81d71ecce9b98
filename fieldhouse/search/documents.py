"""What of a record is searchable: its display name, text-like values, labels."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from fieldhouse.model.fields import FIELD_TYPES, FieldType
from fieldhouse.model.fields.text import strip_html
from fieldhouse.model.records import RecordRow
from fieldhouse.model.schema import ModuleSchema

_SPACE = re.compile(r"\s+")
MAX_BODY_CHARS = 20_000
#: without a schema every string value counts, as a text field's would
_PLAIN = FIELD_TYPES["text"]
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
    pairs: list[tuple[FieldType | None, object]]
    if schema is not None:  # schema order: the same text whatever order the store keeps
        pairs = [(FIELD_TYPES.get(f.data_type), row.fields.get(f.slug)) for f in schema.fields]
    else:
        pairs = [(_PLAIN, row.fields[k]) for k in sorted(row.fields)]
    parts: list[str] = []
    for kind, value in pairs:
        if kind is None:
            continue
        for plain in kind.search_text(value):
            if plain != row.display_name:  # the title is indexed on its own
                parts.append(plain)
    if row.description_html:
        parts.append(strip_html(row.description_html))
    body = _SPACE.sub(" ", " \n ".join(p for p in parts if p)).strip()[:MAX_BODY_CHARS]
    label_text = " ".join(labels[i] for i in row.label_ids if i in labels)
    raw = "\n".join([row.display_name, *_scalars(row.fields)])
    return Doc(
        row.record_id, row.module_id, row.display_name, body, label_text, row.updated_at, raw
    )


def _scalars(value: Any) -> Iterator[str]:
    if isinstance(value, Mapping):
        for item in value.values():
            yield from _scalars(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _scalars(item)
    elif isinstance(value, bool):
        yield "true" if value else "false"
    elif value is not None:
        yield str(value)
