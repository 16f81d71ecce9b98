"""Write-behind for a write transaction.

Statements whose result nobody waits for (inserts, updates, activity entries) queue up and run
in the driver hop of the next statement that answers something, or with the commit, so a batch
of N creates costs a handful of hops instead of several per record. Savepoints queue too: a
scope's ``SAVEPOINT`` goes into the queue where the scope began, but only once something of
the scope has to reach the database (a scope whose statements are all still queued rolls back
by dropping them). Consecutive inserts into one table, interleaved with inserts into others,
run as one ``executemany``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from fieldhouse.storage.base import Op, Stmt, execute

T = TypeVar("T")

#: how far back a queued insert looks for a statement of its own to join
_REACH = 6


@dataclass
class Scope:
    """A savepoint of the write transaction."""

    name: str
    #: where its SAVEPOINT goes in the queue while it is not in it
    index: int
    #: release flushes, so the database's errors surface inside the scope
    strict: bool
    #: the transaction's in-memory state at entry, restored when the scope rolls back
    saved: Any
    #: its SAVEPOINT statement, once queued
    stmt: Stmt | None = None
    #: its SAVEPOINT ran in the database
    live: bool = False


def _table(s: Stmt) -> str | None:
    """The table a plain insert writes (None for anything else)."""
    if s.result not in ("none", "many") or not s.sql.startswith("INSERT INTO "):
        return None
    return s.sql[12:].split(None, 1)[0].split("(", 1)[0]


@dataclass
class Batch:
    """Statements to run in one hop; ``savepoints`` are where each scope's SAVEPOINT landed."""

    stmts: list[Stmt] = field(default_factory=list)
    done: int = 0


def coalesce(stmts: Sequence[Stmt]) -> list[Stmt]:
    """The statements with each insert joined to an earlier one of the same SQL when only
    inserts into other tables lie between them (their order does not matter)."""
    out: list[Stmt] = []
    grouped: dict[int, list[Any]] = {}
    for s in stmts:
        table = _table(s)
        joined = False
        if table is not None:
            j = len(out) - 1
            while j >= 0 and len(out) - j <= _REACH:
                other = out[j]
                if other.sql == s.sql and other.result in ("none", "many"):
                    params = grouped.get(id(other))
                    if params is None:
                        params = [other.params] if other.result == "none" else list(other.params)
                        merged = Stmt(other.sql, params, "many")
                        grouped[id(merged)] = params
                        out[j] = merged
                    params.extend([s.params] if s.result == "none" else s.params)
                    joined = True
                    break
                if _table(other) in (None, table):
                    break
                j -= 1
        if not joined:
            out.append(s)
    return out


def chain(batch: Batch, op: Op[T]) -> Op[T]:
    """Run the batch's statements, counting those that succeeded, then ``op``."""
    for s in batch.stmts:
        yield s
        batch.done += 1
    return (yield from op)


def nothing() -> Op[None]:
    """An operation of no statements."""
    return None
    yield  # pragma: no cover - makes this a generator


def savepoint(name: str) -> Stmt:
    return execute(f"SAVEPOINT {name}")


def release(name: str) -> Stmt:
    return execute(f"RELEASE SAVEPOINT {name}")


def rollback_to(name: str) -> Stmt:
    return execute(f"ROLLBACK TO SAVEPOINT {name}")
