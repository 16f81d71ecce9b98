"""`fieldhouse backup` / `restore` on the embedded store, and where the JWT secret lives."""

from __future__ import annotations

import json
import sqlite3
import stat
from contextlib import closing
from pathlib import Path

import httpx
import jwt
import pytest
import trio

from fieldhouse.backup import backup, restore
from fieldhouse.cli import main
from fieldhouse.config import Settings
from fieldhouse.runtime import open_runtime
from fieldhouse.storage.backend import backend_for
from tests.conftest import Workspace, make_workspace

LEGACY = "legacy-secret-9f3a-0123456789abcdef0123"


def _contact(n: int) -> dict[str, object]:
    return {"displayName": f"Contact {n}", "fields": {"first-name": f"C{n}"}}


async def _count(client: httpx.AsyncClient, ws: Workspace) -> int:
    page = await client.get(
        "/v1/modules/contacts/records", headers=ws.headers, params={"pageSize": 1}
    )
    assert page.status_code == 200, page.text
    return int(page.json()["total"])


async def test_backup_while_writing_then_restore(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", search_enabled=False)
    async with open_runtime(settings) as rt:
        ws = await make_workspace(rt)
        transport = httpx.ASGITransport(app=rt.app)  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, base_url="http://fh.test") as client:
            for n in range(20):
                made = await client.post(
                    "/v1/modules/contacts/records", headers=ws.headers, json=_contact(n)
                )
                assert made.status_code == 201, made.text

            copies: list[dict[str, object]] = []

            async def take_backup() -> None:
                copies.append(
                    await trio.to_thread.run_sync(backup, backend_for(settings), tmp_path / "bk")
                )

            async with trio.open_nursery() as nursery:
                nursery.start_soon(take_backup)
                for n in range(20, 50):  # the server keeps writing during the backup
                    made = await client.post(
                        "/v1/modules/contacts/records", headers=ws.headers, json=_contact(n)
                    )
                    assert made.status_code == 201
            assert await _count(client, ws) == 50
    (copy,) = copies
    assert copy["check"] == "ok"
    copy_path = Path(str(copy["backup"]))
    assert copy_path.parent == tmp_path / "bk"

    restored = restore(settings, backend_for(settings), copy_path)
    assert Path(str(restored["database"])) == settings.data_dir / "fieldhouse.sqlite3"
    previous = Path(str(restored["previous"]))
    with sqlite3.connect(previous) as db:  # the replaced database is kept beside it
        assert db.execute("SELECT count(*) FROM records").fetchone()[0] >= 50
    async with open_runtime(settings) as rt:
        transport = httpx.ASGITransport(app=rt.app)  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, base_url="http://fh.test") as client:
            total = await _count(client, ws)
            assert 20 <= total <= 50
            # the copy is one consistent moment: the list and the activity agree
            activity = await client.get("/v1/activity", headers=ws.headers)
            assert activity.status_code == 200


def test_restore_refuses_a_file_that_is_not_a_fieldhouse_database(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"not a database at all" * 100)
    assert main(["restore", str(junk), "--data-dir", str(settings.data_dir)]) == 2
    other = tmp_path / "other.sqlite3"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE t (x)")
    assert main(["restore", str(other), "--data-dir", str(settings.data_dir)]) == 2
    assert not (settings.data_dir / "fieldhouse.sqlite3").exists()


def test_postgres_backup_prints_pg_dump_advice(capsys: pytest.CaptureFixture[str]) -> None:
    url = "postgresql://app:hunter2@db.internal:5432/fieldhouse"
    assert main(["backup", "/tmp/nowhere", "--database-url", url]) == 2
    err = json.loads(capsys.readouterr().err.strip().splitlines()[-1])
    assert "pg_dump" in err["error"]["message"]
    assert "hunter2" not in err["error"]["message"]


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, str]:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_jwt_secret_lives_in_a_private_file_and_moves_out_of_the_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    d = ["--data-dir", str(tmp_path)]
    made = _run(capsys, "init", *d)
    token = _run(capsys, "token", *d, "--workspace", made["accountId"], "--user", made["userId"])
    secret_file = tmp_path / "jwt-secret"
    assert stat.S_IMODE(secret_file.stat().st_mode) == 0o600
    secret = secret_file.read_text().strip()
    claims = jwt.decode(token["token"], secret, algorithms=["HS256"], issuer="fieldhouse")
    assert claims["sub"] == made["userId"]
    db_path = tmp_path / "fieldhouse.sqlite3"
    with sqlite3.connect(db_path) as db:
        assert db.execute("SELECT count(*) FROM meta WHERE key = 'jwt_secret'").fetchone()[0] == 0

    # a data directory from before: the secret in the database, no file
    secret_file.unlink()
    with closing(sqlite3.connect(db_path)) as db, db:
        db.execute("INSERT INTO meta (key, value) VALUES ('jwt_secret', ?)", (LEGACY,))
    token = _run(capsys, "token", *d, "--workspace", made["accountId"], "--user", made["userId"])
    jwt.decode(
        token["token"],
        LEGACY,
        algorithms=["HS256"],
        issuer="fieldhouse",
    )
    assert secret_file.read_text().strip() == LEGACY
    assert stat.S_IMODE(secret_file.stat().st_mode) == 0o600
    with sqlite3.connect(db_path) as db:
        assert db.execute("SELECT count(*) FROM meta WHERE key = 'jwt_secret'").fetchone()[0] == 0
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("fieldhouse.sqlite3*"))
    assert LEGACY.encode() not in raw


async def test_a_restored_database_searches_at_once_by_words_and_vectors(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", embedding_process=False)
    async with open_runtime(settings) as rt:
        ws = await make_workspace(rt)
        transport = httpx.ASGITransport(app=rt.app)  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, base_url="http://fh.test") as client:
            for n in range(5):
                made = await client.post(
                    "/v1/modules/contacts/records", headers=ws.headers, json=_contact(n)
                )
                assert made.status_code == 201, made.text
            assert rt.search is not None
            assert await rt.search.wait_fresh(ws.account_id, 60.0)
    copy = await trio.to_thread.run_sync(backup, backend_for(settings), tmp_path / "bk")
    elsewhere = Settings(
        data_dir=tmp_path / "other",
        # no embedding here: whatever vectors it has came with the file
        embed_socket=str(tmp_path / "away.sock"),
    )
    restore(elsewhere, backend_for(elsewhere), Path(str(copy["backup"])))
    # the embedding process is away: the query's own vector cannot be made, so the vectors'
    # presence shows in the coverage (nothing waits) rather than in similarities
    async with open_runtime(elsewhere) as rt:
        transport = httpx.ASGITransport(app=rt.app)  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, base_url="http://fh.test") as client:
            found = await client.post("/v1/search", headers=ws.headers, json={"query": "contact"})
    body = found.json()
    assert body["fallback"] is False and len(body["results"]) == 5
    assert body["coverage"]["vectorsWaiting"] == 0
