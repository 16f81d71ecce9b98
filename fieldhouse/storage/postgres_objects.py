"""SQL for workspace objects (PostgreSQL backend; runs on the asyncio side)."""

from __future__ import annotations

from typing import Any

from fieldhouse.storage.objects import ObjectRow
from fieldhouse.storage.rows import dumps, object_from_row


async def put_object(c: Any, row: ObjectRow) -> None:
    await c.execute(
        "INSERT INTO objects (account_id, kind, id, data, status, due_at, created_at, updated_at)"
        " VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, $8) ON CONFLICT (account_id, kind, id)"
        " DO UPDATE SET data = excluded.data, status = excluded.status,"
        " due_at = excluded.due_at, updated_at = excluded.updated_at",
        row.account_id,
        row.kind,
        row.object_id,
        dumps(row.data),
        row.status,
        row.due_at,
        row.created_at,
        row.updated_at,
    )


async def get_object(c: Any, account_id: str, kind: str, object_id: str) -> ObjectRow | None:
    row = await c.fetchrow(
        "SELECT * FROM objects WHERE account_id = $1 AND kind = $2 AND id = $3",
        account_id,
        kind,
        object_id,
    )
    return object_from_row(row) if row else None


async def transition(
    c: Any, account_id: str, kind: str, object_id: str, expected: str, status: str, at: str
) -> bool:
    done = await c.fetchval(
        "UPDATE objects SET status = $1, updated_at = $2 WHERE account_id = $3 AND kind = $4"
        " AND id = $5 AND status = $6 RETURNING id",
        status,
        at,
        account_id,
        kind,
        object_id,
        expected,
    )
    return done is not None


async def list_objects(
    c: Any, account_id: str, kind: str, status: str | None, limit: int
) -> list[ObjectRow]:
    if status is None:
        rows = await c.fetch(
            "SELECT * FROM objects WHERE account_id = $1 AND kind = $2"
            " ORDER BY created_at DESC, id DESC LIMIT $3",
            account_id,
            kind,
            limit,
        )
    else:
        rows = await c.fetch(
            "SELECT * FROM objects WHERE account_id = $1 AND kind = $2 AND status = $3"
            " ORDER BY created_at DESC, id DESC LIMIT $4",
            account_id,
            kind,
            status,
            limit,
        )
    return [object_from_row(r) for r in rows]


async def due_objects(c: Any, kind: str, status: str, before: str, limit: int) -> list[ObjectRow]:
    rows = await c.fetch(
        "SELECT * FROM objects WHERE kind = $1 AND status = $2 AND due_at IS NOT NULL"
        " AND due_at <= $3 ORDER BY due_at LIMIT $4",
        kind,
        status,
        before,
        limit,
    )
    return [object_from_row(r) for r in rows]
