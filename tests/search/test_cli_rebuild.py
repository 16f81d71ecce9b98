"""`fieldhouse search rebuild` rebuilds indexes from the store and reports the count."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import trio

from fieldhouse.cli import main
from fieldhouse.config import Settings
from fieldhouse.runtime import open_runtime
from tests.conftest import make_workspace
from tests.search.test_service import add_task, titles


def test_search_rebuild(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = Settings(data_dir=tmp_path, search_enabled=False)

    async def seed() -> str:
        async with open_runtime(settings) as rt:
            ws = await make_workspace(rt)
            for title in ("Paint the fence", "Fix the roof", "Clean the gutters"):
                await add_task(rt, ws.account_id, title)
            await make_workspace(rt, "Empty")
            return ws.account_id

    account = trio.run(seed)
    assert not (tmp_path / "search").exists()
    d = ["--data-dir", str(tmp_path)]
    assert main(["search", "rebuild", *d]) == 0
    assert json.loads(capsys.readouterr().out) == {"rebuilt": 3}
    assert main(["search", "rebuild", *d, "--workspace", account]) == 0
    assert json.loads(capsys.readouterr().out) == {"rebuilt": 3}
    assert main(["search", "rebuild", *d, "--workspace", "nope"]) == 1

    async def check() -> list[str]:
        async with open_runtime(Settings(data_dir=tmp_path)) as rt:
            return await titles(rt, account, "roof repair")

    assert trio.run(check)[0] == "Fix the roof"
