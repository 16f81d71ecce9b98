"""The composition root: one runtime opens the store, search, actors and the app over them,
and closes them so the next one finds everything it wrote."""

from __future__ import annotations

from dataclasses import replace

import httpx

from fieldhouse.config import Settings
from fieldhouse.runtime import Runtime, open_runtime
from tests.conftest import make_workspace


def client(runtime: Runtime) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=runtime.app)  # type: ignore[arg-type]
    return httpx.AsyncClient(transport=transport, base_url="http://fieldhouse.test")


async def test_the_app_serves_the_services_it_was_built_over(settings: Settings) -> None:
    async with open_runtime(settings) as runtime:
        assert runtime.settings is settings
        assert runtime.store is runtime.services.store
        assert runtime.actors is runtime.services.actors
        assert runtime.search is not None
        ws = await make_workspace(runtime)
        async with client(runtime) as http:
            me = await http.get("/v1/me", headers=ws.headers)
            ready = await http.get("/readyz")
        assert me.status_code == 200, me.text
        assert me.json()["accountId"] == ws.account_id
        assert ready.status_code == 200, ready.text


async def test_what_one_runtime_wrote_the_next_one_reads(settings: Settings) -> None:
    async with open_runtime(settings) as first:
        ws = await make_workspace(first)
        async with client(first) as http:
            made = await http.post(
                "/v1/modules/contacts/records",
                json={"displayName": "Ada Lovelace", "fields": {"first-name": "Ada"}},
                headers=ws.headers,
            )
        assert made.status_code == 201, made.text
    async with open_runtime(settings) as second, client(second) as http:
        # the key still works (the JWT secret and the key hashes outlive the process) ...
        found = await http.get("/v1/modules/contacts/records", headers=ws.headers)
    assert found.status_code == 200, found.text
    # ... and the record is there
    assert [r["displayName"] for r in found.json()["records"]] == ["Ada Lovelace"]


async def test_search_switched_off_leaves_no_search_service(settings: Settings) -> None:
    async with open_runtime(replace(settings, search_enabled=False)) as runtime:
        assert runtime.search is None
        assert runtime.services.search is None
