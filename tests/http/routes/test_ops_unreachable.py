"""/readyz and the API while the PostgreSQL database is away: not ready and 503 with
Retry-After, then ready and answering again once it is back, without a restart. The runtime
reaches the real server through a relay the test breaks (tests/pgproxy.py)."""

from __future__ import annotations

from pathlib import Path

import httpx

from fieldhouse.config import Settings
from fieldhouse.runtime import open_runtime
from tests.conftest import make_workspace
from tests.pgproxy import open_pg_proxy


async def test_while_the_database_is_away_readyz_is_503_and_so_are_requests(
    pg_url: str, tmp_path: Path
) -> None:
    async with open_pg_proxy(pg_url) as proxy:
        settings = Settings(
            data_dir=tmp_path / "data",
            rate_limit=10_000,
            port=0,
            embedding_process=False,
            database_url=proxy.url(pg_url),
        )
        async with open_runtime(settings) as runtime:
            ws = await make_workspace(runtime)
            transport = httpx.ASGITransport(app=runtime.app)  # type: ignore[arg-type]
            async with httpx.AsyncClient(transport=transport, base_url="http://fh.test") as client:
                records = "/v1/modules/deals/records"
                assert (await client.get("/readyz")).status_code == 200
                assert (await client.get(records, headers=ws.headers)).status_code == 200

                proxy.go_away()
                ready = await client.get("/readyz")
                assert ready.status_code == 503
                assert ready.json()["checks"]["store"].startswith("unreachable: ")
                # a key this process knows and one it has never seen (its own rate bucket)
                for headers in (ws.headers, {"Authorization": "Bearer fh_unknown"}, {}):
                    answer = await client.get(records, headers=headers)
                    assert answer.status_code == 503, answer.text
                    assert answer.headers["Retry-After"] == "1"
                    error = answer.json()["error"]
                    assert error["code"] == "service_unavailable"
                    assert error["data"] == {"retryAfter": 1, "inDoubt": False}

                proxy.come_back()  # the pool connects again by itself
                assert (await client.get("/readyz")).status_code == 200
                assert (await client.get(records, headers=ws.headers)).status_code == 200
