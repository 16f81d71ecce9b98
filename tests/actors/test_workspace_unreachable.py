"""The workspace actor while its PostgreSQL database goes away: a batch that committed nothing
runs again once the database answers, a commit whose answer was lost is looked up before it is
acknowledged, and a database that stays away gets its callers a 503 with Retry-After. The
store reaches the real server through a relay the tests break (tests/pgproxy.py)."""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial

import pytest
import trio

from fieldhouse.model.errors import StoreUnavailable
from fieldhouse.runtime import Runtime
from fieldhouse.storage import Store, open_database
from tests.actors.test_workspace import Create, drain, outcome
from tests.conftest import Workspace
from tests.pgproxy import PgProxy, open_pg_proxy

# the relay speaks PostgreSQL's protocol: these tests are about that backend alone
pytestmark = pytest.mark.parametrize("backend", ["postgres"])


@asynccontextmanager
async def relayed(runtime: Runtime) -> AsyncIterator[tuple[PgProxy, Store]]:
    """A second store on the runtime's database, through a relay."""
    url = runtime.settings.resolved_database_url
    async with open_pg_proxy(url) as proxy, open_database(proxy.url(url)) as store:
        yield proxy, store


async def deals_module(runtime: Runtime, ws: Workspace) -> str:
    _, schemas = await runtime.store.load_schemas(ws.account_id)
    return schemas["deals"].module.module_id


async def names_stored(runtime: Runtime, ws: Workspace) -> Counter[str]:
    """How many records the workspace holds under each display name."""
    rows = await runtime.store.records_after(ws.account_id, "", 1000)
    return Counter(r.display_name for r in rows)


async def test_writes_wait_out_the_database_going_away_and_commit_once_it_is_back(
    runtime: Runtime, ws: Workspace
) -> None:
    module_id = await deals_module(runtime, ws)
    messages = [Create(module_id, f"waited {i}", by=ws.system) for i in range(6)]
    async with relayed(runtime) as (proxy, store):
        proxy.go_away()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(partial(drain, runtime, ws, messages, store=store))
            await proxy.refused_one.wait()  # the batch could not reach the database
            await proxy.refused_one.wait()  # nor when it tried again
            proxy.come_back()
    ids = [await outcome(m) for m in messages]
    assert all(isinstance(i, str) for i in ids), ids
    assert len(await runtime.store.get_records(ws.account_id, ids)) == 6
    assert await names_stored(runtime, ws) >= Counter(f"waited {i}" for i in range(6))


async def test_a_database_that_stays_away_gets_the_writes_a_503_and_nothing_written(
    runtime: Runtime, ws: Workspace
) -> None:
    module_id = await deals_module(runtime, ws)
    messages = [Create(module_id, f"refused {i}", by=ws.system) for i in range(3)]
    async with relayed(runtime) as (proxy, store):
        proxy.go_away()
        await drain(runtime, ws, messages, store=store, store_retry_seconds=0.3)
        assert proxy.refused >= 2  # it tried again before giving up
    for message in messages:
        error = await outcome(message)
        assert isinstance(error, StoreUnavailable) and not error.in_doubt
        assert error.headers == {"Retry-After": "1"}
    assert not any(name.startswith("refused") for name in await names_stored(runtime, ws))


async def test_a_lost_commit_runs_again_and_a_lost_answer_is_acknowledged_once(
    runtime: Runtime, ws: Workspace
) -> None:
    module_id = await deals_module(runtime, ws)
    lost_commit = [Create(module_id, f"commit lost {i}", by=ws.system) for i in range(4)]
    lost_answer = [Create(module_id, f"answer lost {i}", by=ws.system) for i in range(4)]
    async with relayed(runtime) as (proxy, store):
        proxy.lose = "commit"  # the server never sees it and rolls the batch back
        await drain(runtime, ws, lost_commit, store=store)
        assert proxy.lost.is_set()
        proxy.lost = trio.Event()
        proxy.lose = "answer"  # the server commits it; the actor never hears so
        await drain(runtime, ws, lost_answer, store=store)
        assert proxy.lost.is_set()
    for message in [*lost_commit, *lost_answer]:
        assert isinstance(await outcome(message), str)
    stored = await names_stored(runtime, ws)
    # each exactly once: run again after the lost COMMIT, not after the lost answer
    assert {name: stored[name] for name in stored if "lost" in name} == dict.fromkeys(
        [m.name for m in [*lost_commit, *lost_answer]], 1
    )
