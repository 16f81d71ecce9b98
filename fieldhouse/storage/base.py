"""What the storage layer is made of: its errors, its rows, statements and the driver protocol.

Every operation of the store is written once, as a generator of :class:`Stmt` (an
:data:`Op`): it yields a statement, receives that statement's result, and returns its value.
A :class:`Driver` runs a whole operation in one go, on the engine's side: SQLite runs it in
a worker thread, PostgreSQL on the asyncio side of trio-asyncio, so an operation of several
statements costs one hop however many statements it has. The drivers own what really differs:
connections, placeholders (through their :class:`~fieldhouse.storage.sqldialect.Dialect`),
locking and transactions.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeVar

from fieldhouse.storage.sqldialect import Dialect

T = TypeVar("T")


class StorageError(Exception):
    """A condition the storage layer names for its callers."""


class ConflictError(StorageError):
    """A uniqueness rule was broken (duplicate slug, e-mail, ...)."""


class StatementFailed(StorageError):
    """The database refused a statement: a value it cannot store (U+0000 in PostgreSQL text,
    a lone surrogate, a number past its range) or a statement it cannot run; ``__cause__`` is
    the driver's error. The transaction is still usable from its last savepoint.

    (A database that cannot be reached is :class:`~fieldhouse.model.errors.StoreUnavailable`,
    a 503 wherever it surfaces.)"""


class QueuedWriteFailed(StorageError):
    """A write that was queued (written behind) failed when it ran; ``__cause__`` is the
    driver's error. It surfaces at the statement or savepoint release that ran the queue."""


@dataclass(frozen=True)
class AccountRow:
    account_id: str
    name: str
    slug: str
    schema_version: int
    created_at: str


@dataclass(frozen=True)
class UserRow:
    user_id: str
    account_id: str
    email: str
    display_name: str
    role_slug: str
    deleted: bool


@dataclass(frozen=True)
class ApiKeyRow:
    """An API key as stored: only the hash of the secret is ever kept."""

    key_id: str
    account_id: str
    user_id: str
    name: str | None
    key_hash: str
    scopes: tuple[str, ...] | None
    revoked: bool
    #: the key's own role, lower than its user's (None: the user's role)
    role_slug: str | None = None


@dataclass(frozen=True)
class KeyLookup:
    """Everything authentication needs, read in one query."""

    key: ApiKeyRow
    user: UserRow
    schema_version: int


#: what a statement answers: every row, the first row (or None), the first column of the
#: first row (or None), how many rows it changed, nothing; ``many`` runs it once per
#: parameter tuple in ``params``
Result = Literal["rows", "row", "value", "count", "none", "many"]


@dataclass(frozen=True, slots=True)
class Stmt:
    """One statement, written with ``?`` placeholders (see ``sqldialect``)."""

    sql: str
    params: Sequence[Any]
    result: Result


#: an operation: yields statements, is sent each one's result, returns its value
Op = Generator[Stmt, Any, T]


def rows(sql: str, params: Sequence[Any] = ()) -> Stmt:
    return Stmt(sql, params, "rows")


def row(sql: str, params: Sequence[Any] = ()) -> Stmt:
    return Stmt(sql, params, "row")


def value(sql: str, params: Sequence[Any] = ()) -> Stmt:
    return Stmt(sql, params, "value")


def count(sql: str, params: Sequence[Any] = ()) -> Stmt:
    return Stmt(sql, params, "count")


def execute(sql: str, params: Sequence[Any] = ()) -> Stmt:
    return Stmt(sql, params, "none")


def executemany(sql: str, params: Sequence[Sequence[Any]]) -> Stmt:
    return Stmt(sql, params, "many")


class Txn(Protocol):
    """A driver's open write transaction."""

    async def run(self, op: Op[T], *, commit: bool = False) -> T:
        """Run ``op``; with ``commit``, commit the transaction in the same hop."""
        ...


class Driver(Protocol):
    """One database engine: connections, placeholders, locking and transactions."""

    dialect: Dialect
    #: several server processes may share this database
    shared_between_processes: bool

    async def read(self, op: Op[T], *, snapshot: bool = False) -> T:
        """Run a reading operation; with ``snapshot`` all its statements see one state."""
        ...

    async def write(self, op: Op[T]) -> T:
        """Run a writing operation outside any workspace (accounts, meta, rate limits),
        committed on its own."""
        ...

    def transaction(
        self, account_id: str, *, light: bool = False
    ) -> AbstractAsyncContextManager[Txn]:
        """A write transaction of one workspace, serialised with the workspace's others,
        committed when the block exits cleanly and rolled back otherwise. ``light``: a few
        small statements (a driver may then run it without a thread hop)."""
        ...

    async def create_index(self, key: Sequence[str]) -> None:
        """An index over ``records`` on ``account_id, module_id`` and list-query expressions,
        the last of them ordered with ``id`` (best effort)."""
        ...

    async def aclose(self) -> None: ...
