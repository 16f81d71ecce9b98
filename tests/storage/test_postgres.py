"""The PostgreSQL driver: the trio-asyncio loop it needs, per-workspace write turns, and the
database going away (through a relay that drops connections and COMMITs)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import trio
import trio.testing

from fieldhouse.model.errors import StoreUnavailable
from fieldhouse.storage import Store, open_database, postgres
from fieldhouse.storage.base import QueuedWriteFailed
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


async def _watch_record_inserts(pg: Store) -> None:
    """Note the rows of each INSERT statement on records (as the aggregates' statement
    triggers see them) in ``insert_statements``."""
    pool = pg._db._pool  # type: ignore[attr-defined]
    await aio(
        pool.execute,
        "CREATE TABLE insert_statements (at serial, n integer);"
        " CREATE FUNCTION note_inserts() RETURNS trigger LANGUAGE plpgsql AS"
        " $$ BEGIN INSERT INTO insert_statements (n) SELECT count(*) FROM new_rows;"
        " RETURN NULL; END $$;"
        " CREATE TRIGGER noted AFTER INSERT ON records REFERENCING NEW TABLE AS new_rows"
        " FOR EACH STATEMENT EXECUTE FUNCTION note_inserts()",
    )


async def _insert_statements(pg: Store) -> list[int]:
    pool = pg._db._pool  # type: ignore[attr-defined]
    got = await aio(pool.fetch, "SELECT n FROM insert_statements ORDER BY at")
    return [int(r[0]) for r in got]


async def test_the_new_records_of_a_transaction_are_one_statement(pg: Store) -> None:
    # a batch of creates runs the records' statement triggers (the kept aggregates) once,
    # not once a record (that was most of a batch's time holding the workspace's lock)
    await _watch_record_inserts(pg)
    async with pg.write(A) as txn:
        for i in range(20):
            await txn.insert_record(record(A, f"r{i:02}", f"n{i}"))
    assert await _insert_statements(pg) == [20]
    assert len(await pg.get_records(A, [f"r{i:02}" for i in range(20)])) == 20


async def test_more_rows_than_one_statement_binds_all_land(pg: Store) -> None:
    # 17 parameters a record: 2,000 records are more than one statement's 32,767 parameters
    await _watch_record_inserts(pg)
    ids = [f"r{i:04}" for i in range(2000)]
    async with pg.write(A) as txn:
        for rid in ids:
            await txn.insert_record(record(A, rid, rid))
    assert await _insert_statements(pg) == [1927, 73]
    assert len(await pg.get_records(A, ids)) == 2000


async def test_a_duplicate_among_new_records_writes_none_of_them(pg: Store) -> None:
    async with pg.write(A) as txn:
        await txn.insert_record(record(A, "r01", "first"))
    with pytest.raises(QueuedWriteFailed):
        async with pg.write(A) as txn:
            for rid in ("r02", "r01", "r03"):
                await txn.insert_record(record(A, rid, "again"))
    found = await pg.get_records(A, ["r01", "r02", "r03"])
    assert [(r.record_id, r.display_name) for r in found] == [("r01", "first")]


async def test_a_transactions_writes_into_several_tables_are_one_statement(pg: Store) -> None:
    # records, their activity and the activity sequence reach the database in one statement
    # (one round trip while the workspace's lock is held), seen by the statement's start time
    pool = pg._db._pool  # type: ignore[attr-defined]
    await aio(
        pool.execute,
        "CREATE TABLE statement_starts (tbl text, at timestamptz);"
        " CREATE FUNCTION note_start() RETURNS trigger LANGUAGE plpgsql AS"
        " $$ BEGIN INSERT INTO statement_starts VALUES (TG_TABLE_NAME, statement_timestamp());"
        " RETURN NULL; END $$;"
        " CREATE TRIGGER started AFTER INSERT ON records"
        " FOR EACH STATEMENT EXECUTE FUNCTION note_start();"
        " CREATE TRIGGER started AFTER INSERT ON activity"
        " FOR EACH STATEMENT EXECUTE FUNCTION note_start();"
        " CREATE TRIGGER started AFTER UPDATE ON accounts"
        " FOR EACH STATEMENT EXECUTE FUNCTION note_start()",
    )
    async with pg.write(A) as txn:
        await txn.schema_version()
        for i in range(3):
            await txn.insert_record(record(A, f"r{i:02}", f"n{i}"))
            await txn.append_activity({"id": f"e{i}", "activityType": "t", "createdDateTime": AT})
    got = await aio(pool.fetch, "SELECT tbl, at FROM statement_starts")
    assert sorted(r[0] for r in got) == ["accounts", "activity", "records"]
    assert len({r[1] for r in got}) == 1
    assert [e["id"] for e in await pg.activity_since(A, 0, 10)] == ["e0", "e1", "e2"]
