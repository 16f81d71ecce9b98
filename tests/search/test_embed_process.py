"""The server's one embedding process, run for real: it answers queries once its model has
loaded and stops when its parent's pipe closes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import trio

from fieldhouse.config import Settings
from fieldhouse.search.query_embedder import RemoteQueryEmbedder
from fieldhouse.storage import open_database
from tests.search.test_service import EMBEDDER

DEADLINE = 90.0


async def test_answers_queries_once_loaded_and_stops_with_its_parent(tmp_path: Path) -> None:
    socket = str(tmp_path / "embed.sock")
    settings = Settings(data_dir=tmp_path / "data", embed_socket=socket)
    async with open_database(settings.resolved_database_url) as store:
        await store.create_account("acct", "A", "a", "2026-01-01T00:00:00.000000Z")
    process = await trio.lowlevel.open_process(
        [sys.executable, "-m", "fieldhouse.search.embed_process"],
        stdin=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert process.stdin is not None
    try:
        await process.stdin.send_all(json.dumps({"settings": settings.to_json()}).encode() + b"\n")
        remote = RemoteQueryEmbedder(socket, EMBEDDER.dim)
        with trio.fail_after(DEADLINE):
            while (vec := await remote.embed("north sea freight")) is None:  # noqa: ASYNC110
                await trio.sleep(0.1)  # the model loads in the process: bounded above
        want = EMBEDDER.embed(["north sea freight"])[0]
        assert float(vec @ want) > 0.999
        await process.stdin.aclose()  # as when the supervisor goes, even by SIGKILL
        with trio.fail_after(20):
            assert await process.wait() == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
