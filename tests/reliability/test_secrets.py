"""Secrets: keys live only as hashes (also on PostgreSQL), are compared in constant time, and
neither keys nor session tokens ever reach the logs, even at DEBUG and on a 500."""

from __future__ import annotations

import hmac
import secrets
import time
from pathlib import Path

import httpx
import jwt
import pytest

from fieldhouse.actors import admin_ops as ops
from fieldhouse.http.auth import JWT_ISSUER
from fieldhouse.model import keys
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace, add_user
from tests.reliability.procs import cli, fetch, serve


@pytest.fixture
def backend() -> str:
    return "postgres"  # the SQLite file is read byte by byte in tests/test_cli.py


async def test_postgres_tables_hold_no_key(runtime: Runtime, ws: Workspace) -> None:
    member = await add_user(runtime, ws, "member", ("records:read",))
    await runtime.actors.ask(ops.RevokeApiKey(member.key_id, by=ws.system))
    url = runtime.settings.database_url
    tables = [
        r["tablename"]
        for r in await fetch(url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
    ]
    assert "api_keys" in tables
    dump = []
    for table in tables:
        rows = await fetch(url, f'SELECT t::text AS row FROM "{table}" t')
        dump.extend(r["row"] for r in rows)
    text = "\n".join(dump)
    assert ws.key_id in text  # the dump is real: the key's id is there
    for key in (ws.key, member.key):
        assert key not in text
        assert key.removeprefix(keys.KEY_PREFIX) not in text
        assert keys.hash_api_key(key) in text  # only its hash


async def test_key_hashes_are_compared_in_constant_time(
    client: httpx.AsyncClient, ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(keys.hmac, "compare_digest", spy)
    assert (await client.get("/v1/me", headers=ws.headers)).status_code == 200
    assert calls and calls[-1][0] == calls[-1][1] == keys.hash_api_key(ws.key).encode()


def _jwt(secret: str, account: str, user: str, ttl: int) -> str:
    now = int(time.time())
    claims = {"iss": JWT_ISSUER, "sub": user, "acct": account, "iat": now, "exp": now + ttl}
    return jwt.encode(claims, secret, algorithm="HS256")


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_keys_and_tokens_never_logged(db_url: str, tmp_path: Path) -> None:
    jwt_key = secrets.token_urlsafe(32)
    env = {"FIELDHOUSE_LOG_LEVEL": "DEBUG", "FIELDHOUSE_JWT_SECRET": jwt_key}
    made = cli(db_url, "init", "--name", "Logs", "--template", "deals")
    extra = cli(db_url, "key", "create", "--workspace", made["accountId"])
    cli(db_url, "key", "revoke", extra["apiKeyId"])
    token = _jwt(jwt_key, made["accountId"], made["userId"], 600)
    presented = {
        "valid key": made["apiKey"],
        "revoked key": extra["apiKey"],
        "unknown key": "sk_live_" + secrets.token_urlsafe(32),
        "valid jwt": token,
        "expired jwt": _jwt(jwt_key, made["accountId"], made["userId"], -60),
        "forged jwt": _jwt("wrong" + jwt_key, made["accountId"], made["userId"], 600),
        "garbage": "not-a-token-" + secrets.token_hex(16),
    }
    log = tmp_path / "server.log"
    module = ("tests.reliability.faulty_server",)
    statuses: dict[tuple[str, str], int] = {}
    async with (
        serve(db_url, tmp_path / "data", log=log, env=env, module=module) as server,
        httpx.AsyncClient(base_url=server.base, timeout=30) as client,
    ):
        for name, credential in presented.items():
            auth = {"Authorization": f"Bearer {credential}"}
            for path in ("/v1/me", "/v1/activity", "/v1/modules/deals/records?pageSize=x"):
                resp = await client.get(path, headers=auth)
                statuses[name, path] = resp.status_code
            created = await client.post(
                "/v1/modules/deals/records", headers=auth, json={"displayName": ""}
            )
            statuses[name, "create"] = created.status_code
        await client.aclose()  # an idle keep-alive connection would hold shutdown up to 10 s
        server.process.terminate()
        assert await server.wait() == 0
    assert statuses["valid key", "/v1/me"] == 200
    assert statuses["valid key", "/v1/activity"] == 500  # a real failure was logged
    assert statuses["valid jwt", "/v1/activity"] == 500
    assert statuses["revoked key", "/v1/me"] == 401
    assert statuses["forged jwt", "/v1/me"] == 401
    output = log.read_text(errors="replace")
    assert "injected failure" in output  # we read the right log
    for name, credential in presented.items():
        assert credential not in output, name
        assert credential[-16:] not in output, name  # nor its tail (a JWT's signature)
