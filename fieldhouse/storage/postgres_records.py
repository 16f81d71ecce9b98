"""SQL for records, links, counters, activity and rate windows (PostgreSQL backend).

Asyncio-side coroutines, one pooled connection each; see :mod:`postgres_ops`.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Collection, Sequence
from typing import Any

import asyncpg

from fieldhouse.model.records import RecordRow
from fieldhouse.storage import facets
from fieldhouse.storage.postgres_ops import Conn
from fieldhouse.storage.rows import advance_autonumber, dumps, loads, record_from_row

log = logging.getLogger("fieldhouse.storage")

_NAMED = frozenset({"labels", "types"})
_RECORD_COLUMNS = (
    "id, account_id, module_id, display_name, fields, label_ids, type_ids, privacy_level,"
    " description_html, owner_user_id, created_at, updated_at, created_by, updated_by,"
    " created_by_name, updated_by_name, deleted_at"
)


async def insert_record(c: Conn, row: RecordRow) -> None:
    await c.execute(
        f"INSERT INTO records ({_RECORD_COLUMNS}) VALUES"
        " ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)",
        row.record_id,
        row.account_id,
        row.module_id,
        row.display_name,
        dumps(row.fields),
        dumps(row.label_ids),
        dumps(row.type_ids),
        row.privacy_level,
        row.description_html,
        row.owner_user_id,
        row.created_at,
        row.updated_at,
        row.created_by,
        row.updated_by,
        row.created_by_name,
        row.updated_by_name,
        row.deleted_at,
    )


async def update_record(c: Conn, row: RecordRow) -> None:
    await c.execute(
        "UPDATE records SET display_name = $1, fields = $2, label_ids = $3, type_ids = $4,"
        " updated_at = $5, updated_by = $6, updated_by_name = $7"
        " WHERE account_id = $8 AND id = $9 AND deleted_at IS NULL",
        row.display_name,
        dumps(row.fields),
        dumps(row.label_ids),
        dumps(row.type_ids),
        row.updated_at,
        row.updated_by,
        row.updated_by_name,
        row.account_id,
        row.record_id,
    )


async def get_records(
    c: Conn, account_id: str, ids: Collection[str], module_id: str | None = None
) -> list[RecordRow]:
    """Live (not deleted) records among ids, in no particular order."""
    if not ids:
        return []
    sql = (
        f"SELECT {_RECORD_COLUMNS} FROM records WHERE account_id = $1 AND id = ANY($2::text[])"
        " AND deleted_at IS NULL"
    )
    args: list[Any] = [account_id, list(ids)]
    if module_id is not None:
        sql += " AND module_id = $3"
        args.append(module_id)
    return [record_from_row(r) for r in await c.fetch(sql, *args)]


async def soft_delete(
    c: Conn, account_id: str, module_id: str, ids: Sequence[str], at: str, by: str | None
) -> list[str]:
    if not ids:
        return []
    rows = await c.fetch(
        "UPDATE records SET deleted_at = $1, updated_at = $1, updated_by = $2"
        " WHERE account_id = $3 AND module_id = $4 AND id = ANY($5::text[])"
        " AND deleted_at IS NULL RETURNING id",
        at,
        by,
        account_id,
        module_id,
        list(ids),
    )
    return [r[0] for r in rows]


async def set_links(
    c: Conn, account_id: str, source_id: str, field_slug: str, targets: Sequence[str]
) -> None:
    await c.execute(
        "DELETE FROM record_links WHERE account_id = $1 AND source_record_id = $2"
        " AND field_slug = $3",
        account_id,
        source_id,
        field_slug,
    )
    if targets:
        await c.execute(
            "INSERT INTO record_links (account_id, source_record_id, field_slug,"
            " target_record_id, position) SELECT $1, $2, $3, t.target, t.position"
            " FROM unnest($4::text[]) WITH ORDINALITY AS t(target, position)"
            " ON CONFLICT DO NOTHING",
            account_id,
            source_id,
            field_slug,
            list(targets),
        )


async def linked_targets(c: Conn, account_id: str, source_id: str, field_slug: str) -> list[str]:
    rows = await c.fetch(
        "SELECT l.target_record_id FROM record_links l JOIN records t"
        " ON t.id = l.target_record_id AND t.account_id = l.account_id AND t.deleted_at IS NULL"
        " WHERE l.account_id = $1 AND l.source_record_id = $2 AND l.field_slug = $3"
        " ORDER BY l.position",
        account_id,
        source_id,
        field_slug,
    )
    return [r[0] for r in rows]


async def linking_sources(
    c: Conn, account_id: str, target_ids: Collection[str]
) -> list[tuple[str, str]]:
    """(source record id, field slug) of live records that link to any of target_ids."""
    if not target_ids:
        return []
    rows = await c.fetch(
        "SELECT DISTINCT l.source_record_id, l.field_slug FROM record_links l JOIN records s"
        " ON s.account_id = l.account_id AND s.id = l.source_record_id AND s.deleted_at IS NULL"
        " WHERE l.account_id = $1 AND l.target_record_id = ANY($2::text[])",
        account_id,
        list(target_ids),
    )
    return [(r[0], r[1]) for r in rows]


async def take_autonumber(c: Conn, account_id: str, field_id: str, sequence: str | None) -> int:
    """The field's next number (per sequence when given), advancing the stored counter.

    The caller holds the workspace's advisory lock, so read-modify-write is safe across
    processes; ``FOR UPDATE`` keeps it safe even for a caller that forgot.
    """
    raw = await c.fetchval(
        "SELECT config FROM fields WHERE account_id = $1 AND id = $2 FOR UPDATE",
        account_id,
        field_id,
    )
    if raw is None:
        raise LookupError(f"field {field_id} does not exist")
    config = loads(raw) or {}
    value = advance_autonumber(config, sequence)
    await c.execute(
        "UPDATE fields SET config = $1 WHERE account_id = $2 AND id = $3",
        dumps(config),
        account_id,
        field_id,
    )
    return value


async def existing_ids(c: Conn, table: str, account_id: str, ids: Collection[str]) -> set[str]:
    assert table in _NAMED or table == "users"
    if not ids:
        return set()
    extra = " AND deleted_at IS NULL" if table == "users" else ""
    rows = await c.fetch(
        f"SELECT id FROM {table} WHERE account_id = $1 AND id = ANY($2::text[]){extra}",
        account_id,
        list(ids),
    )
    return {r[0] for r in rows}


async def record_modules(
    c: Conn, account_id: str, ids: Collection[str]
) -> dict[str, tuple[str, str]]:
    """record id -> (module slug, display name) for live records among ids."""
    if not ids:
        return {}
    rows = await c.fetch(
        "SELECT r.id, m.slug, r.display_name FROM records r"
        " JOIN modules m ON m.account_id = r.account_id AND m.id = r.module_id"
        " WHERE r.account_id = $1 AND r.id = ANY($2::text[]) AND r.deleted_at IS NULL",
        account_id,
        list(ids),
    )
    return {r[0]: (r[1], r[2]) for r in rows}


async def list_records(
    c: Conn, where: str, params: Sequence[Any], order_by: str, limit: int, offset: int
) -> tuple[list[RecordRow], int]:
    """A page and the total for a compiled list query (its placeholders are $1..$n)."""
    total = int(await c.fetchval(f"SELECT count(*) FROM records r WHERE {where}", *params))
    return await _page(c, where, params, order_by, limit, offset), total


async def list_counted(
    c: Conn,
    where: str,
    params: Sequence[Any],
    order_by: str,
    limit: int,
    offset: int,
    facet: facets.Facet,
) -> tuple[list[RecordRow], int] | None:
    """As :func:`list_records` with the total from kept counts; None if not kept yet."""
    total = await facets.kept_total(c, facet)
    if total is None:
        return None
    return await _page(c, where, params, order_by, limit, offset), total


async def _page(
    c: Conn, where: str, params: Sequence[Any], order_by: str, limit: int, offset: int
) -> list[RecordRow]:
    n = len(params)
    rows = await c.fetch(
        f"SELECT {_RECORD_COLUMNS} FROM records r WHERE {where} ORDER BY {order_by}"
        f" LIMIT ${n + 1} OFFSET ${n + 2}",
        *params,
        limit,
        offset,
    )
    return [record_from_row(r) for r in rows]


async def picker(
    c: Conn, account_id: str, module_id: str, search: str | None, limit: int
) -> list[RecordRow]:
    sql = (
        f"SELECT {_RECORD_COLUMNS} FROM records WHERE account_id = $1 AND module_id = $2"
        " AND deleted_at IS NULL"
    )
    args: list[Any] = [account_id, module_id]
    if search:
        escaped = search.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        sql += " AND lower(display_name) LIKE lower($3) ESCAPE '\\'"
        args.append(f"%{escaped}%")
    sql += f" ORDER BY lower(display_name), id LIMIT ${len(args) + 1}"
    args.append(limit)
    return [record_from_row(r) for r in await c.fetch(sql, *args)]


async def list_activity(
    c: Conn,
    account_id: str,
    module_ids: Collection[str] | None,
    record_id: str | None,
    types: Collection[str],
    limit: int,
    after_seq: int | None = None,
) -> list[dict[str, Any]]:
    """Newest first; oldest first from after_seq on when it is given (the change feed).
    module_ids None means any module (and workspace-level entries)."""
    sql = "SELECT * FROM activity WHERE account_id = $1"
    args: list[Any] = [account_id]
    if after_seq is not None:
        args.append(after_seq)
        sql += f" AND seq > ${len(args)}"
    if module_ids is not None:
        args.append(list(module_ids))
        sql += f" AND module_id = ANY(${len(args)}::text[])"
    if record_id is not None:
        args.append(record_id)
        sql += f" AND record_id = ${len(args)}"
    if types:
        args.append(list(types))
        sql += f" AND activity_type = ANY(${len(args)}::text[])"
    args.append(limit)
    sql += f" ORDER BY seq {'ASC' if after_seq is not None else 'DESC'} LIMIT ${len(args)}"
    return [
        {
            "id": r["id"],
            "seq": r["seq"],
            "activityType": r["activity_type"],
            "moduleId": r["module_id"],
            "recordId": r["record_id"],
            "userId": r["user_id"],
            "createdDateTime": r["created_at"],
            "data": loads(r["data"]),
        }
        for r in await c.fetch(sql, *args)
    ]


async def hit_rate_limit(c: Conn, bucket: str, window_start: int) -> int:
    """Count one hit in the bucket's window; return the window's count including it."""
    count = await c.fetchval(
        "INSERT INTO rate_windows (bucket, window_start, hits) VALUES ($1, $2, 1)"
        " ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_windows.hits + 1"
        " RETURNING hits",
        bucket,
        window_start,
    )
    return int(count)


async def prune_rate_windows(c: Conn, before: int) -> None:
    await c.execute("DELETE FROM rate_windows WHERE window_start < $1", before)


async def records_lacking_field(
    c: Conn, account_id: str, module_id: str, field_slug: str | None
) -> list[RecordRow]:
    """Live records of a module without a (non-null) value under field_slug (all of them when
    field_slug is None), oldest first."""
    sql = (
        f"SELECT {_RECORD_COLUMNS} FROM records WHERE account_id = $1 AND module_id = $2"
        " AND deleted_at IS NULL"
    )
    args: list[Any] = [account_id, module_id]
    if field_slug is not None:
        sql += " AND coalesce(jsonb_typeof(fields -> $3::text), 'null') = 'null'"
        args.append(field_slug)
    rows = await c.fetch(sql + " ORDER BY created_at, id", *args)
    return [record_from_row(r) for r in rows]


async def remove_field_values(c: Conn, account_id: str, module_id: str, field_slug: str) -> int:
    """Remove field_slug from the module's live records and their links under it."""
    status = await c.execute(
        "UPDATE records SET fields = fields - $3::text WHERE account_id = $1"
        " AND module_id = $2 AND deleted_at IS NULL AND fields ? $3::text",
        account_id,
        module_id,
        field_slug,
    )
    await c.execute(
        "DELETE FROM record_links WHERE account_id = $1 AND field_slug = $3 AND source_record_id"
        " IN (SELECT id FROM records WHERE account_id = $1 AND module_id = $2)",
        account_id,
        module_id,
        field_slug,
    )
    return int(status.rsplit(" ", 1)[1])


async def create_expression_index(c: Conn, expr: str) -> None:
    """An index on one list-query expression (built by the query compiler from a checked field
    slug, never from request text). CONCURRENTLY, so writers are not blocked while it builds;
    another process building the same index at once is harmless."""
    column_expr = expr.replace("r.fields", "fields")
    name = "rx_" + hashlib.sha1(column_expr.encode()).hexdigest()[:16]
    # PostgreSQL walks an index backwards only in the mirrored order, so the compiler's
    # "DESC NULLS LAST, id DESC" needs its own index beside the ascending one.
    orders = (
        (name, f"({column_expr}), id"),
        (name + "d", f"({column_expr}) DESC NULLS LAST, id DESC"),
    )
    try:
        for index, columns in orders:
            await c.execute(
                f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {index} ON records"
                f" (account_id, module_id, {columns}) WHERE deleted_at IS NULL"
            )
        # statistics for the new expressions, so the planner knows how selective they are
        await c.execute("ANALYZE records")
    except asyncpg.PostgresError as exc:
        log.warning("expression index %s not made: %s", name, exc)


async def activity_since(c: Conn, account_id: str, seq: int, limit: int) -> list[dict[str, Any]]:
    """Entries after ``seq``, oldest first."""
    rows = await c.fetch(
        "SELECT id, seq, activity_type, module_id, record_id FROM activity"
        " WHERE account_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
        account_id,
        seq,
        limit,
    )
    return [
        {
            "id": r["id"],
            "seq": r["seq"],
            "activityType": r["activity_type"],
            "moduleId": r["module_id"],
            "recordId": r["record_id"],
        }
        for r in rows
    ]
