"""The ready banner: printed once the server's /readyz answers 200, with its address."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest
import trio
import trio.testing

from fieldhouse.banner import announce_when_ready, answers, base_url
from fieldhouse.config import Settings
from fieldhouse.http.wire.server import serve_app
from fieldhouse.runtime import open_runtime
from tests.reliability.procs import free_port


def test_the_address_a_client_uses() -> None:
    assert base_url("0.0.0.0", 8080) == "http://127.0.0.1:8080"
    assert base_url("::", 8080) == "http://[::1]:8080"
    assert base_url("192.0.2.7", 80) == "http://192.0.2.7:80"


async def test_printed_once_the_server_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    assert not await answers(base)  # nothing listens yet
    settings = Settings(data_dir=tmp_path / "data", port=port, search_enabled=False)
    done = trio.Event()

    async def announce() -> None:
        await announce_when_ready(base, "Ready: {base} (docs: {base}/docs)")
        done.set()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(announce)
        await trio.testing.wait_all_tasks_blocked()
        assert capsys.readouterr().out == ""  # polling, silent, while nothing answers
        async with open_runtime(settings) as runtime:
            stop = trio.Event()
            await nursery.start(partial(serve_app, runtime, shutdown_trigger=stop.wait))
            with trio.fail_after(30):
                await done.wait()
            stop.set()
    assert capsys.readouterr().out == f"Ready: {base} (docs: {base}/docs)\n"
