"""Operations on records, their links and the activity log."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, TypeVar

from orjson import Fragment

from fieldhouse.model.records import RecordRow
from fieldhouse.storage import accounts
from fieldhouse.storage.base import Op, count, execute, executemany, rows, value
from fieldhouse.storage.facets import Facet, kept_total
from fieldhouse.storage.rows import RECORDS, ColumnRow, dumps, loads
from fieldhouse.storage.sqldialect import Dialect
from fieldhouse.storage.sqlquery import CompiledList

T = TypeVar("T")
_SELECT = f"SELECT {RECORDS.names} FROM records"
_LIVE = "account_id = ? AND deleted_at IS NULL"
_INSERT = RECORDS.insert()
#: what an update changes
_CHANGED = [
    "display_name",
    "fields",
    "label_ids",
    "type_ids",
    "updated_at",
    "updated_by",
    "updated_by_name",
]
_UPDATE = f"UPDATE records SET {' = ?, '.join(_CHANGED)} = ? WHERE {_LIVE} AND id = ?"


def insert_record(r: RecordRow) -> Op[None]:
    yield execute(_INSERT, RECORDS.values(r))


def update_record(r: RecordRow) -> Op[None]:
    """Store a live record's new name, values, labels, types and who changed it when."""
    values = dict(zip(RECORDS.columns, RECORDS.values(r), strict=True))
    yield execute(_UPDATE, (*(values[c] for c in _CHANGED), r.account_id, r.record_id))


def _records(sql: str, params: Sequence[Any]) -> Op[list[RecordRow]]:
    found = yield rows(sql, params)
    return RECORDS.read_all(found)


def _live_by_key(d: Dialect, prefix: str = "") -> str:
    """Live records of the workspace, found through the primary key (the id terms after it
    drive, not the workspace's index)."""
    return f"{d.not_driving(prefix + 'account_id')} = ? AND {prefix}deleted_at IS NULL"


def _by_ids(d: Dialect, prefix: str = "") -> str:
    """Live records of the workspace among a list of ids."""
    return f"{_live_by_key(d, prefix)} AND {prefix}id = ANY(?)"


def get_records(
    d: Dialect, account_id: str, ids: Collection[str], module_id: str | None = None
) -> Op[list[RecordRow]]:
    """Live records among ids, by id (missing and deleted ones are simply absent)."""
    if not ids:
        return []
    if module_id is None:
        sql = f"{_SELECT} WHERE {_by_ids(d)} ORDER BY id"
        return (yield from _records(sql, (account_id, list(ids))))
    sql = f"{_SELECT} WHERE {_by_ids(d)} AND module_id = ? ORDER BY id"
    return (yield from _records(sql, (account_id, list(ids), module_id)))


def records_after(d: Dialect, account_id: str, last_id: str, limit: int) -> Op[list[RecordRow]]:
    """Live records of every module with an id above ``last_id``, by id (keyset paging: the
    key drives, or every page would read and sort the whole workspace)."""
    sql = f"{_SELECT} WHERE {_live_by_key(d)} AND id > ? ORDER BY id LIMIT ?"
    return (yield from _records(sql, (account_id, last_id, limit)))


#: what reads a page's rows: into RecordRows, or (:func:`page_json`) into their JSON
PageReader = Callable[[Sequence[ColumnRow]], list[T]]


def list_records(
    compiled: CompiledList, limit: int, offset: int, read: PageReader[T]
) -> Op[tuple[list[T], int]]:
    """A page of a compiled list query (it scopes the account) and the query's total."""
    total = yield value(f"SELECT count(*) FROM records r WHERE {compiled.where}", compiled.params)
    page = yield from _page(compiled, limit, offset, read)
    return page, int(total)


def list_counted(
    compiled: CompiledList, limit: int, offset: int, facet: Facet, read: PageReader[T]
) -> Op[tuple[list[T], int] | None]:
    """As :func:`list_records`, with the total from kept counts; None while not kept yet."""
    total = yield from kept_total(facet)
    if total is None:
        return None
    page = yield from _page(compiled, limit, offset, read)
    return page, total


def _page(compiled: CompiledList, limit: int, offset: int, read: PageReader[T]) -> Op[list[T]]:
    sql = f"{_SELECT} r WHERE {compiled.where} ORDER BY {compiled.order_by} LIMIT ? OFFSET ?"
    found = yield rows(sql, (*compiled.params, limit, offset))
    return read(found)


def page_json(module_slug: str, keep: Collection[str] | None) -> PageReader[dict[str, Any]]:
    """What reads rows straight into the JSON the API writes for them (``RecordRow.to_json``,
    keeping the fields in ``keep``), without a RecordRow on the way: the stored JSON text of a
    record's values, labels and types goes out as it is (``orjson.Fragment``; a value PostgreSQL
    formats as ``{"a": 1}``, with its spaces), parsed only to keep some fields. A list page of
    25 records cost 44,000 instructions a record read into RecordRows and written back out,
    about 40% of the request's own work."""
    at = {column: i for i, column in enumerate(RECORDS.columns)}
    rid, module, name, fields, labels, types = (
        at[c] for c in ("id", "module_id", "display_name", "fields", "label_ids", "type_ids")
    )
    privacy, html, owner, created, updated = (
        at[c]
        for c in ("privacy_level", "description_html", "owner_user_id", "created_at", "updated_at")
    )
    by, by_name, changed_by, changed_by_name = (
        at[c] for c in ("created_by", "created_by_name", "updated_by", "updated_by_name")
    )

    def values(text: str) -> Any:
        if keep is None:
            return Fragment(text)
        return {k: v for k, v in loads(text).items() if k in keep}

    def read(found: Sequence[ColumnRow]) -> list[dict[str, Any]]:
        return [
            {
                "recordId": r[rid],
                "moduleId": r[module],
                "moduleSlug": module_slug,
                "displayName": r[name],
                "fields": values(r[fields]),
                "labelIds": Fragment(r[labels]),
                "typeIds": Fragment(r[types]),
                "privacyLevel": r[privacy],
                "descriptionHtml": r[html],
                "ownerUserId": r[owner],
                "createdDateTime": r[created],
                "updatedDateTime": r[updated],
                "createdByUserId": r[by],
                "createdByDisplayName": r[by_name],
                "updatedByUserId": r[changed_by],
                "updatedByDisplayName": r[changed_by_name],
            }
            for r in found
        ]

    return read


def records_by_value(
    d: Dialect, account_id: str, module_id: str, slug: str, values: Collection[str]
) -> Op[list[RecordRow]]:
    """Live records of a module whose field ``slug`` holds one of ``values`` as text (upsert
    by a unique field)."""
    if not values:
        return []
    sql = f"{_SELECT} WHERE {_LIVE} AND module_id = ? AND {d.json_text('fields', (slug,))}"
    return (yield from _records(sql + " = ANY(?)", (account_id, module_id, list(values))))


def picker(account_id: str, module_id: str, search: str | None, limit: int) -> Op[list[RecordRow]]:
    """Live records of a module by name, those whose name holds ``search`` when given."""
    sql = f"{_SELECT} WHERE {_LIVE} AND module_id = ?"
    args: list[Any] = [account_id, module_id]
    if search:
        escaped = search.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        sql += " AND lower(display_name) LIKE lower(?) ESCAPE '\\'"
        args.append(f"%{escaped}%")
    return (yield from _records(sql + " ORDER BY lower(display_name), id LIMIT ?", (*args, limit)))


def soft_delete(
    d: Dialect, account_id: str, module_id: str, ids: Sequence[str], at: str, by: str | None
) -> Op[list[str]]:
    """Mark live records deleted; return the ids that were live."""
    if not ids:
        return []
    found = yield rows(
        "UPDATE records SET deleted_at = ?, updated_at = ?, updated_by = ?"
        f" WHERE {_by_ids(d)} AND module_id = ? RETURNING id",
        (at, at, by, account_id, list(ids), module_id),
    )
    return [r[0] for r in found]


def set_links(account_id: str, source_id: str, field_slug: str, targets: Sequence[str]) -> Op[None]:
    yield execute(
        "DELETE FROM record_links WHERE account_id = ? AND source_record_id = ? AND field_slug = ?",
        (account_id, source_id, field_slug),
    )
    yield from insert_links(account_id, source_id, field_slug, targets)


def insert_links(
    account_id: str, source_id: str, field_slug: str, targets: Sequence[str]
) -> Op[None]:
    """Links of a source that has none under ``field_slug`` yet."""
    if targets:
        yield executemany(
            "INSERT INTO record_links (account_id, source_record_id, field_slug,"
            " target_record_id, position) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            [(account_id, source_id, field_slug, t, i) for i, t in enumerate(targets, 1)],
        )


def linked_targets(account_id: str, source_id: str, field_slug: str) -> Op[list[str]]:
    found = yield rows(
        "SELECT l.target_record_id FROM record_links l JOIN records t"
        " ON t.account_id = l.account_id AND t.id = l.target_record_id AND t.deleted_at IS NULL"
        " WHERE l.account_id = ? AND l.source_record_id = ? AND l.field_slug = ?"
        " ORDER BY l.position",
        (account_id, source_id, field_slug),
    )
    return [r[0] for r in found]


def linking_sources(account_id: str, target_ids: Collection[str]) -> Op[list[tuple[str, str]]]:
    """(source record id, field slug) of live records that link to any of target_ids."""
    if not target_ids:
        return []
    found = yield rows(
        "SELECT DISTINCT l.source_record_id, l.field_slug FROM record_links l"
        " WHERE l.account_id = ? AND l.target_record_id = ANY(?) AND EXISTS (SELECT 1 FROM"
        " records s WHERE s.account_id = l.account_id AND s.id = l.source_record_id"
        " AND s.deleted_at IS NULL)",
        (account_id, list(target_ids)),
    )
    return [(r[0], r[1]) for r in found]


def record_modules(
    d: Dialect, account_id: str, ids: Collection[str]
) -> Op[dict[str, tuple[str, str]]]:
    """record id -> (module slug, display name) for live records among ids."""
    if not ids:
        return {}
    found = yield rows(
        "SELECT r.id, m.slug, r.display_name FROM records r"
        " JOIN modules m ON m.account_id = r.account_id AND m.id = r.module_id"
        f" WHERE {_by_ids(d, 'r.')}",
        (account_id, list(ids)),
    )
    return {r[0]: (r[1], r[2]) for r in found}


def records_lacking_field(
    d: Dialect, account_id: str, module_id: str, field_slug: str | None
) -> Op[list[RecordRow]]:
    """Live records of a module without a (non-null) value under field_slug (all of them when
    field_slug is None), oldest first."""
    sql = f"{_SELECT} WHERE {_LIVE} AND module_id = ?"
    if field_slug is not None:
        sql += f" AND {d.json_text('fields', (field_slug,))} IS NULL"
    return (yield from _records(sql + " ORDER BY created_at, id", (account_id, module_id)))


def remove_field_values(d: Dialect, account_id: str, module_id: str, field_slug: str) -> Op[int]:
    """Remove field_slug from the module's live records and their links under it."""
    changed = yield count(
        f"UPDATE records SET fields = {d.json_remove('fields', field_slug)}"
        f" WHERE {_LIVE} AND module_id = ? AND {d.json_present('fields', field_slug)}",
        (account_id, module_id),
    )
    yield execute(
        "DELETE FROM record_links WHERE account_id = ? AND field_slug = ? AND source_record_id"
        " IN (SELECT id FROM records WHERE account_id = ? AND module_id = ?)",
        (account_id, field_slug, account_id, module_id),
    )
    return int(changed)


# --- activity ---


def append_activity(account_id: str, e: Mapping[str, Any]) -> Op[int]:
    """Take the workspace's next activity sequence number and store the entry under it."""
    seq = yield from accounts.bump_counter(account_id, "activity_seq")
    yield from insert_activity(account_id, seq, e)
    return seq


def insert_activity(account_id: str, seq: int, e: Mapping[str, Any]) -> Op[None]:
    """Store an activity entry under a sequence number the caller took."""
    yield execute(
        "INSERT INTO activity (account_id, seq, id, activity_type, module_id, record_id,"
        " user_id, created_at, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            account_id,
            seq,
            e["id"],
            e["activityType"],
            e.get("moduleId"),
            e.get("recordId"),
            e.get("userId"),
            e["createdDateTime"],
            dumps(e.get("data") or {}),
        ),
    )


def _entry(r: Any, full: bool) -> dict[str, Any]:
    entry = {
        "id": r["id"],
        "seq": r["seq"],
        "activityType": r["activity_type"],
        "moduleId": r["module_id"],
        "recordId": r["record_id"],
    }
    if full:
        entry.update(userId=r["user_id"], createdDateTime=r["created_at"], data=loads(r["data"]))
    return entry


def list_activity(
    account_id: str,
    module_ids: Collection[str] | None,
    record_id: str | None,
    types: Collection[str],
    limit: int,
    after_seq: int | None = None,
) -> Op[list[dict[str, Any]]]:
    """Newest first; oldest first from after_seq on when it is given (the change feed).
    module_ids None means any module (and workspace-level entries)."""
    sql = "SELECT * FROM activity WHERE account_id = ?"
    args: list[Any] = [account_id]
    if after_seq is not None:
        sql += " AND seq > ?"
        args.append(after_seq)
    if module_ids is not None:
        sql += " AND module_id = ANY(?)"
        args.append(list(module_ids))
    if record_id is not None:
        sql += " AND record_id = ?"
        args.append(record_id)
    if types:
        sql += " AND activity_type = ANY(?)"
        args.append(list(types))
    order = " ORDER BY seq LIMIT ?" if after_seq is not None else " ORDER BY seq DESC LIMIT ?"
    found = yield rows(sql + order, (*args, limit))
    return [_entry(r, True) for r in found]


def activity_since(account_id: str, seq: int, limit: int) -> Op[list[dict[str, Any]]]:
    """Entries after ``seq``, oldest first (a range scan of the primary key)."""
    found = yield rows(
        "SELECT id, seq, activity_type, module_id, record_id FROM activity"
        " WHERE account_id = ? AND seq > ? ORDER BY seq LIMIT ?",
        (account_id, seq, limit),
    )
    return [_entry(r, False) for r in found]
