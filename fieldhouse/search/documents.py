"""What of a record is searchable: its display name, text-like values, labels."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import nh3

from fieldhouse.model.records import RecordRow
from fieldhouse.model.schema import ModuleSchema

#: values that read as words; numbers, dates and ids would only add noise
TEXT_TYPES: frozenset[str] = frozenset(
    {
        "text",
        "textarea",
        "rich_text",
        "email",
        "url",
        "phone",
        "address",
        "select",
        "multi_select",
        "autonumber",
        "social_profile",
        "reference",
        "person",
        "parent_record",
    }
)
_SKIP_KEYS = frozenset({"recordId", "userId", "avatar", "id"})
_SPACE = re.compile(r"\s+")
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


def strip_html(text: str) -> str:
    """Rich text as plain words (tags dropped, entities decoded)."""
    return html.unescape(nh3.clean(text, tags=set(), clean_content_tags={"script", "style"}))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if key not in _SKIP_KEYS:
                yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def record_doc(row: RecordRow, schema: ModuleSchema | None, labels: Mapping[str, str]) -> Doc:
    """The searchable text of ``row``; without a schema every string value counts."""
    if schema is not None:  # schema order: the same text whatever order the store keeps
        pairs = [(f.data_type, row.fields.get(f.slug)) for f in schema.fields]
    else:
        pairs = [("text", row.fields[k]) for k in sorted(row.fields)]
    parts: list[str] = []
    for kind, value in pairs:
        if kind not in TEXT_TYPES:
            continue
        for text in _strings(value):
            plain = strip_html(text) if kind == "rich_text" else text
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
