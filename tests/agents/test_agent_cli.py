"""`fieldhouse agent create` makes an agent that POST /v1/agents/messages can target."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
import trio

from fieldhouse.agents.run_writes import AGENT
from fieldhouse.cli import main
from fieldhouse.config import Settings
from fieldhouse.runtime import open_runtime


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, str]:
    assert main(list(argv)) == 0
    return dict(json.loads(capsys.readouterr().out.strip()))


def test_agent_create(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = ["--data-dir", str(tmp_path)]
    made = run(capsys, "init", *d, "--name", "Acme")
    agent = run(
        capsys,
        "agent",
        "create",
        *d,
        "--workspace",
        made["accountId"],
        "--name",
        "Sales",
        "--prompt",
        "You help the sales team.",
    )
    assert set(agent) == {"agentId"}
    assert main(["agent", "create", *d, "--workspace", "nope", "--name", "x", "--prompt", "y"]) == 1
    assert "not_found" in capsys.readouterr().err

    async def check() -> None:
        async with open_runtime(Settings(data_dir=tmp_path, search_enabled=False)) as rt:
            row = await rt.store.get_object(made["accountId"], AGENT, agent["agentId"])
            assert row is not None and row.data["prompt"] == "You help the sales team."
            transport = httpx.ASGITransport(app=rt.app)  # type: ignore[arg-type]
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
                res = await client.post(
                    "/v1/agents/messages",
                    json={"message": "hello", "agentId": agent["agentId"]},
                    headers={"Authorization": f"Bearer {made['apiKey']}"},
                )
            assert res.status_code == 200 and res.json()["agentId"] == agent["agentId"]

    trio.run(check)
