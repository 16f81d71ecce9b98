"""The records a page's records link to, for ``?expand=``: one query for the whole page.

``record_links`` holds, for each record and reference field, the ids it links to in order
(``position``); the query joins them to the live target records and their module, keeping only
targets in modules the caller may see, so a page of any size costs one statement (no N+1).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from fieldhouse.storage.base import Op, rows
from fieldhouse.storage.rows import loads


@dataclass(frozen=True)
class Linked:
    """One target of one source record's reference field."""

    source_id: str
    field_slug: str
    record_id: str
    module_slug: str
    display_name: str
    fields: dict[str, Any]


def linked_records(
    account_id: str,
    source_ids: Sequence[str],
    field_slugs: Collection[str],
    module_slugs: Collection[str],
) -> Op[list[Linked]]:
    """Live targets of the sources under ``field_slugs`` whose module is in ``module_slugs``,
    by source, field and link position."""
    if not source_ids or not field_slugs or not module_slugs:
        return []
    found = yield rows(
        "SELECT l.source_record_id, l.field_slug, t.id, m.slug, t.display_name, t.fields"
        " FROM record_links l"
        " JOIN records t ON t.account_id = l.account_id AND t.id = l.target_record_id"
        " AND t.deleted_at IS NULL"
        " JOIN modules m ON m.account_id = t.account_id AND m.id = t.module_id"
        " WHERE l.account_id = ? AND l.source_record_id = ANY(?) AND l.field_slug = ANY(?)"
        " AND m.slug = ANY(?)"
        " ORDER BY l.source_record_id, l.field_slug, l.position",
        (account_id, list(source_ids), list(field_slugs), list(module_slugs)),
    )
    return [
        Linked(r[0], r[1], r[2], r[3], r[4], r[5] if isinstance(r[5], dict) else loads(r[5]))
        for r in found
    ]
