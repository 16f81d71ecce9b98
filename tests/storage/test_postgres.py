"""The PostgreSQL driver: the trio-asyncio loop it needs, per-workspace write turns, and the
database going away (through a relay that drops connections and COMMITs)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import trio
import trio.testing

from fieldhouse.model.errors import StoreUnavailable
from fieldhouse.storage import Store, open_database, postgres
from fieldhouse.storage.postgres import LoopNotOpen, PostgresDriver, aio
from tests.pgproxy import PgProxy, open_pg_proxy
from tests.storage.conftest import AT, A, B, record


@pytest.fixture
async def pg(pg_url: str) -> AsyncIterator[Store]:
    async with open_database(pg_url) as db:
        await db.create_account(A, "A", "a", AT)
        await db.create_account(B, "B", "b", AT)
        yield db


async def test_opening_outside_the_trio_asyncio_loop_is_refused(pg_url: str) -> None:
    with pytest.raises(LoopNotOpen, match="open_database"):
        await PostgresDriver.open(pg_url)


async def test_other_workspaces_write_while_one_transaction_is_open(pg: Store) -> None:
    release = trio.Event()
    done: list[str] = []

    async def slow() -> None:
        async with pg.write(A) as txn:
            await txn.insert_record(record(A, "r01", "slow"))
            await release.wait()
        done.append("A")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(slow)
        await trio.testing.wait_all_tasks_blocked()
        async with pg.write(B) as txn:  # not held up by A's open transaction
            await txn.insert_record(record(B, "r02", "quick"))
        done.append("B")
        assert await pg.get_records(A, ["r01"]) == []  # A has not committed
        release.set()
    assert done == ["B", "A"]
    assert len(await pg.get_records(A, ["r01"])) == 1


async def test_a_transaction_sees_what_the_previous_one_of_its_workspace_committed(
    pg: Store,
) -> None:
    async def bump() -> None:
        async with pg.write(A) as txn:
            await txn.append_activity({"id": "e", "activityType": "t", "createdDateTime": AT})

    async with trio.open_nursery() as nursery:
        for _ in range(5):
            nursery.start_soon(bump)
    # each took the sequence number after the last one committed: no number twice
    assert [e["seq"] for e in await pg.activity_since(A, 0, 10)] == [1, 2, 3, 4, 5]


async def _expression_indexes(db: Store) -> dict[str, bool]:
    """The store's expression indexes on records and whether each is valid."""
    pool = db._db._pool  # type: ignore[attr-defined]
    rows = await aio(
        pool.fetch,
        "SELECT c.relname, i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
        " WHERE c.relname LIKE 'rx_%'",
    )
    return {str(r["relname"]): bool(r["indisvalid"]) for r in rows}


KEY = ("(r.fields->>'stage')", "((r.fields->>'amount')::numeric)")


async def test_builds_of_one_index_at_once_leave_it_valid(pg: Store) -> None:
    # both workers of a server see the same slow list at once
    async with trio.open_nursery() as nursery:
        for _ in range(4):
            nursery.start_soon(pg._db.create_index, KEY)
    made = await _expression_indexes(pg)
    assert len(made) == 2  # ascending and descending
    assert all(made.values()), made


async def test_an_index_a_failed_build_left_invalid_is_built_again(pg: Store) -> None:
    await pg._db.create_index(KEY)
    made = await _expression_indexes(pg)
    descending = next(name for name in made if name.endswith("d"))
    # what a concurrent build killed by the deadlock detector leaves behind
    pool = pg._db._pool  # type: ignore[attr-defined]
    await aio(
        pool.execute,
        "UPDATE pg_index SET indisvalid = false WHERE indexrelid = to_regclass($1)",
        descending,
    )
    assert (await _expression_indexes(pg))[descending] is False
    await pg._db.create_index(KEY)
    assert await _expression_indexes(pg) == dict.fromkeys(made, True)


@pytest.fixture
async def relayed(pg_url: str) -> AsyncIterator[tuple[PgProxy, Store]]:
    """A store that reaches its database through a relay the test can break."""
    async with open_pg_proxy(pg_url) as proxy, open_database(proxy.url(pg_url)) as db:
        await db.create_account(A, "A", "a", AT)
        yield proxy, db


async def test_a_commit_whose_answer_was_lost_counts_once_the_database_says_it_took(
    relayed: tuple[PgProxy, Store],
) -> None:
    proxy, db = relayed
    proxy.lose = "answer"  # the server commits; the connection drops before it can say so
    async with db.write(A) as txn:
        await txn.insert_record(record(A, "r01", "kept"))
    assert proxy.lost.is_set()
    assert [r.display_name for r in await db.get_records(A, ["r01"])] == ["kept"]


async def test_a_commit_that_never_reached_the_database_is_unavailable_and_can_run_again(
    relayed: tuple[PgProxy, Store],
) -> None:
    proxy, db = relayed
    proxy.lose = "commit"  # the connection drops with the COMMIT: the server rolls back
    with pytest.raises(StoreUnavailable) as raised:
        async with db.write(A) as txn:
            await txn.insert_record(record(A, "r01", "lost"))
    assert proxy.lost.is_set()
    assert not raised.value.in_doubt
    assert await db.get_records(A, ["r01"]) == []
    async with db.write(A) as txn:  # the same write again, on a new connection
        await txn.insert_record(record(A, "r01", "again"))
    assert [r.display_name for r in await db.get_records(A, ["r01"])] == ["again"]


async def test_while_the_database_is_away_reads_and_writes_are_503_with_retry_after(
    relayed: tuple[PgProxy, Store],
) -> None:
    proxy, db = relayed
    proxy.go_away()
    with pytest.raises(StoreUnavailable) as read:
        await db.get_records(A, ["r01"])
    assert read.value.status == 503 and read.value.headers == {"Retry-After": "1"}
    assert read.value.to_json()["error"]["data"] == {"retryAfter": 1, "inDoubt": False}
    with pytest.raises(StoreUnavailable) as written:
        async with db.write(A) as txn:
            await txn.insert_record(record(A, "r01", "x"))
    assert not written.value.in_doubt
    assert proxy.refused >= 2
    proxy.come_back()  # the pool connects again by itself
    async with db.write(A) as txn:
        await txn.insert_record(record(A, "r01", "back"))
    assert [r.display_name for r in await db.get_records(A, ["r01"])] == ["back"]


async def test_a_commit_that_failed_before_it_left_is_found_rolled_back(
    pg: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_commit = postgres.commit

    async def reset_once(conn: postgres.Conn) -> None:
        monkeypatch.setattr(postgres, "commit", real_commit)
        raise ConnectionResetError("reset before the COMMIT was sent")

    monkeypatch.setattr(postgres, "commit", reset_once)
    with pytest.raises(StoreUnavailable) as raised:
        async with pg.write(A) as txn:
            await txn.insert_record(record(A, "r01", "x"))
    # its session, still open on the server, was ended: rolled back, not in doubt
    assert not raised.value.in_doubt
    assert await pg.get_records(A, ["r01"]) == []


async def test_a_session_the_server_ends_between_two_statements_is_unavailable(
    relayed: tuple[PgProxy, Store],
) -> None:
    proxy, db = relayed
    with pytest.raises(StoreUnavailable) as raised:
        async with db.write(A) as txn:
            await txn.schema_version()  # the transaction holds its connection
            # a server stopping: its FATAL arrives before the socket's end
            await proxy.end_sessions()
            await trio.testing.wait_all_tasks_blocked()
            await txn.insert_record(record(A, "r01", "x"))
    assert not raised.value.in_doubt
    async with db.write(A) as txn:  # the transaction runs again on a new connection
        await txn.insert_record(record(A, "r01", "again"))
    assert [r.display_name for r in await db.get_records(A, ["r01"])] == ["again"]


async def test_a_read_on_a_connection_dropped_in_the_pool_runs_on_another(
    relayed: tuple[PgProxy, Store],
) -> None:
    proxy, db = relayed
    async with db.write(A) as txn:
        await txn.insert_record(record(A, "r01", "there"))
    proxy.drop_all()  # as a restarting server does to the idle connections
    assert [r.display_name for r in await db.get_records(A, ["r01"])] == ["there"]


async def test_a_commit_whose_outcome_cannot_be_asked_is_in_doubt(
    relayed: tuple[PgProxy, Store], monkeypatch: pytest.MonkeyPatch
) -> None:
    proxy, db = relayed
    monkeypatch.setattr(postgres, "OUTCOME_CHECK_SECONDS", 0.3)
    with pytest.raises(StoreUnavailable) as raised:
        async with db.write(A) as txn:
            await txn.schema_version()  # the transaction holds its connection now
            proxy.refusing = True  # no other connection can be made to ask on
            proxy.lose = "answer"
            await txn.insert_record(record(A, "r01", "committed, unheard"))
    assert raised.value.in_doubt and raised.value.headers == {"Retry-After": "1"}
    proxy.come_back()
    # in doubt indeed: it had committed, so neither answer would have been right
    assert [r.display_name for r in await db.get_records(A, ["r01"])] == ["committed, unheard"]
