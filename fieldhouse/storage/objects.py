"""Workspace objects that are not records: agents, agent runs, approvals, e-mails, reminders,
outreach sequences, social posts, landing pages. One table, typed by ``kind``.

Both backends implement the same few operations; the SQL of each lives in
``sqlite_objects.py`` and ``postgres_objects.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

OBJECTS_SQLITE = """
    CREATE TABLE objects (
        account_id TEXT NOT NULL, kind TEXT NOT NULL, id TEXT NOT NULL, data TEXT NOT NULL,
        status TEXT, due_at TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
        PRIMARY KEY (account_id, kind, id));
    CREATE INDEX objects_by_status ON objects (account_id, kind, status, created_at);
    CREATE INDEX objects_due ON objects (kind, status, due_at) WHERE due_at IS NOT NULL
"""

OBJECTS_POSTGRES = """
    CREATE TABLE objects (
        account_id text NOT NULL, kind text NOT NULL, id text NOT NULL, data jsonb NOT NULL,
        status text, due_at text COLLATE "C", created_at text COLLATE "C" NOT NULL,
        updated_at text NOT NULL, PRIMARY KEY (account_id, kind, id));
    CREATE INDEX objects_by_status ON objects (account_id, kind, status, created_at);
    CREATE INDEX objects_due ON objects (kind, status, due_at) WHERE due_at IS NOT NULL;
"""


@dataclass(frozen=True)
class ObjectRow:
    account_id: str
    kind: str
    object_id: str
    data: dict[str, Any]
    status: str | None
    due_at: str | None
    created_at: str
    updated_at: str
