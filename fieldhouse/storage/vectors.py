"""Operations on records' sentence vectors and the queue of records waiting for theirs.

A record's create or update queues it (``search_queue``, in the record's own transaction,
keyed by record: a record changed twice waits once, since its first change); one embedder per
server claims the oldest entries for a while (several servers over one PostgreSQL never embed
the same record at once), embeds what the keyword index holds of them and stores the vectors
(``record_vectors``), dropping the queue entries whose version it embedded. A record's vector
is stored only while the indexed text it was made from is still the record's current one.

Each stored vector row gets a number that only grows (``n``): a reader keeps the rows it has
and asks for those above the highest it saw. A delete leaves a row with an empty vector, so
readers learn of it the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fieldhouse.storage.base import Op, execute, executemany, row, rows
from fieldhouse.storage.sqldialect import Dialect

MIGRATION = """
CREATE TABLE search_queue (
    account_id TEXT NOT NULL, record_id TEXT NOT NULL, stamp TEXT NOT NULL,
    queued_at REAL NOT NULL, claimed_until REAL NOT NULL DEFAULT 0,
    PRIMARY KEY (account_id, record_id));
CREATE INDEX search_queue_age ON search_queue (queued_at);
CREATE TABLE record_vectors (
    n INTEGER PRIMARY KEY AUTOINCREMENT, account_id TEXT NOT NULL, record_id TEXT NOT NULL,
    module_id TEXT NOT NULL, stamp TEXT NOT NULL, model TEXT NOT NULL, vector BLOB NOT NULL,
    UNIQUE (account_id, record_id, model));
CREATE INDEX record_vectors_since ON record_vectors (account_id, model, n)
"""


@dataclass(frozen=True)
class Queued:
    account_id: str
    record_id: str
    stamp: str
    queued_at: float


@dataclass(frozen=True)
class VectorRow:
    n: int
    record_id: str
    module_id: str
    stamp: str
    vector: bytes  # float32, windows x dim; empty: the record was deleted


@dataclass(frozen=True)
class Backlog:
    waiting: int
    oldest: float | None  # when the oldest waiting record was queued (epoch seconds)


def queue(account_id: str, items: Sequence[tuple[str, str]], now: float) -> Op[None]:
    """Queue (record id, stamp) pairs for embedding; written behind with the record."""
    yield executemany(
        "INSERT INTO search_queue (account_id, record_id, stamp, queued_at, claimed_until)"
        " VALUES (?, ?, ?, ?, 0) ON CONFLICT (account_id, record_id) DO UPDATE SET"
        " stamp = excluded.stamp, claimed_until = 0",
        [(account_id, rid, stamp, now) for rid, stamp in items],
    )


def forget(d: Dialect, account_id: str, items: Sequence[tuple[str, str]], model: str) -> Op[None]:
    """Deleted records (id, module id): no longer waiting, and their vectors replaced by
    empty ones (what tells readers to drop them).

    On PostgreSQL an embedder may be storing one of these records' vectors at the same time
    (its transaction began before the delete's commit, so the record was still current): the
    empty row then takes the place of that vector under a new number once it commits, rather
    than failing the delete on the unique key. SQLite's writers take turns."""
    ids = [(account_id, rid) for rid, _ in items]
    yield executemany("DELETE FROM search_queue WHERE account_id = ? AND record_id = ?", ids)
    yield executemany(
        "DELETE FROM record_vectors WHERE account_id = ? AND record_id = ? AND model = ?",
        [(*key, model) for key in ids],
    )
    tombstone = (
        "INSERT INTO record_vectors (account_id, record_id, module_id, stamp, model, vector)"
        " VALUES (?, ?, ?, '', ?, ?)"
    )
    if d.name == "postgres":
        tombstone += (
            " ON CONFLICT (account_id, record_id, model) DO UPDATE SET stamp = '',"
            " vector = excluded.vector, module_id = excluded.module_id,"
            " n = nextval(pg_get_serial_sequence('record_vectors', 'n'))"
        )
    yield executemany(tombstone, [(account_id, rid, module, model, b"") for rid, module in items])


def claim(d: Dialect, limit: int, now: float, until: float) -> Op[list[Queued]]:
    """The oldest ``limit`` queued records nobody has claimed (or whose claim ran out),
    claimed until ``until``."""
    if d.name == "sqlite":
        sql = (
            "UPDATE search_queue SET claimed_until = ? WHERE rowid IN (SELECT rowid FROM"
            " search_queue WHERE claimed_until < ? ORDER BY queued_at LIMIT ?)"
            " RETURNING account_id, record_id, stamp, queued_at"
        )
    else:
        sql = (
            "UPDATE search_queue q SET claimed_until = ? FROM (SELECT account_id, record_id"
            " FROM search_queue WHERE claimed_until < ? ORDER BY queued_at LIMIT ?"
            " FOR UPDATE SKIP LOCKED) c WHERE q.account_id = c.account_id"
            " AND q.record_id = c.record_id RETURNING q.account_id, q.record_id, q.stamp,"
            " q.queued_at"
        )
    found = yield rows(sql, (until, now, limit))
    return [Queued(str(r[0]), str(r[1]), str(r[2]), float(r[3])) for r in found]


def store(
    account_id: str,
    model: str,
    items: Sequence[tuple[str, str, str, bytes]],
    current: str,
) -> Op[None]:
    """Store vectors of (record id, module id, stamp, float32 bytes) whose indexed text is
    still of that stamp (``current``: an SQL condition on ``?`` = account id, record id,
    stamp, true while it is), and drop those versions' queue entries. A row another
    transaction wrote for the record meanwhile (a delete's empty one) is kept."""
    fresh = [(account_id, rid, stamp) for rid, _, stamp, _ in items]
    yield executemany(
        "DELETE FROM record_vectors WHERE account_id = ? AND record_id = ? AND model = ?"
        f" AND {current}",
        [(account_id, rid, model, *key) for key, (rid, *_) in zip(fresh, items, strict=True)],
    )
    yield executemany(
        "INSERT INTO record_vectors (account_id, record_id, module_id, stamp, model, vector)"
        f" SELECT ?, ?, ?, ?, ?, ? WHERE {current}"
        # a delete committed since this transaction's first statement left its empty row
        " ON CONFLICT (account_id, record_id, model) DO NOTHING",
        [
            (account_id, rid, module, stamp, model, vec, *key)
            for key, (rid, module, stamp, vec) in zip(fresh, items, strict=True)
        ],
    )
    yield executemany(
        "DELETE FROM search_queue WHERE account_id = ? AND record_id = ? AND stamp = ?", fresh
    )


def drop_queued(items: Sequence[Queued]) -> Op[None]:
    """Queue entries whose record is no longer indexed at that version (deleted, or changed:
    its newer version is queued under the same key with its own stamp)."""
    yield executemany(
        "DELETE FROM search_queue WHERE account_id = ? AND record_id = ? AND stamp = ?",
        [(q.account_id, q.record_id, q.stamp) for q in items],
    )


def since(account_id: str, model: str, after: int, limit: int) -> Op[list[VectorRow]]:
    """The workspace's vector rows numbered above ``after``, in order."""
    found = yield rows(
        "SELECT n, record_id, module_id, stamp, vector FROM record_vectors"
        " WHERE account_id = ? AND model = ? AND n > ? ORDER BY n LIMIT ?",
        (account_id, model, after, limit),
    )
    return [VectorRow(int(r[0]), str(r[1]), str(r[2]), str(r[3]), bytes(r[4])) for r in found]


def backlog(account_id: str | None) -> Op[Backlog]:
    """Records waiting for their vectors (in one workspace, or all)."""
    if account_id is None:
        found = yield row("SELECT count(*), min(queued_at) FROM search_queue")
    else:
        found = yield row(
            "SELECT count(*), min(queued_at) FROM search_queue WHERE account_id = ?",
            (account_id,),
        )
    waiting = int(found[0] or 0) if found else 0
    oldest = float(found[1]) if found and found[1] is not None else None
    return Backlog(waiting, oldest)


def drop_account(account_id: str) -> Op[None]:
    yield execute("DELETE FROM search_queue WHERE account_id = ?", (account_id,))
    yield execute("DELETE FROM record_vectors WHERE account_id = ?", (account_id,))
