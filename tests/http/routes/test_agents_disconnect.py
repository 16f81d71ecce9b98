"""A client that disconnects right after the `open` event, over a real loopback server: every
run that started ends stored as aborted, never left running (issue 13 item 5), and a resume cut
off that way can be resumed again (issue 32 item 2)."""

from __future__ import annotations

import orjson
import trio

from fieldhouse.agents.providers import OfflineProvider
from fieldhouse.agents.run_writes import AGENT_RUN
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace, add_user
from tests.http.agents_support import install_runtime
from tests.http.routes.test_agents_ends import Stalled
from tests.http.routes.test_agents_sse import raw_request, served

ROUNDS = 20


async def test_disconnect_right_after_open_always_ends_aborted(
    runtime: Runtime, ws: Workspace
) -> None:
    agents = install_runtime(runtime, Stalled())
    ended: list[tuple[str, str]] = []
    all_ended = trio.Event()

    def hook(run_id: str, status: str, at: float) -> None:
        ended.append((run_id, status))
        if len(ended) == ROUNDS:
            all_ended.set()

    agents.on_end.append(hook)
    opened: list[str] = []
    async with served(runtime) as client:
        host, port = client.base_url.host, client.base_url.port
        assert port is not None
        for _ in range(ROUNDS):
            sock = await trio.open_tcp_stream(host, port)
            await sock.send_all(raw_request(ws, b'{"message": "hi"}'))
            received = b""
            with trio.fail_after(5):
                while b"\n\n" not in received.partition(b"event: open\ndata: ")[2]:
                    received += await sock.receive_some(65536)
            await sock.aclose()  # hang up at once: the run's first write is under way
            data = received.split(b"event: open\ndata: ", 1)[1].split(b"\n", 1)[0]
            opened.append(orjson.loads(data)["runId"])
        with trio.fail_after(10):
            await all_ended.wait()
    assert [status for _, status in ended] == ["aborted"] * ROUNDS
    runs = await runtime.store.list_objects(ws.account_id, AGENT_RUN, limit=100)
    assert {r.object_id: r.status for r in runs} == {run_id: "aborted" for run_id in opened}


async def test_a_resume_cut_off_after_open_can_be_resumed_and_tells_the_model(
    runtime: Runtime, ws: Workspace
) -> None:
    """Issue 32 item 2: a client that hangs up right after the resume's `open` leaves the run
    aborted and resumable (it was 409 for good), and the next resume tells the model what the
    approver decided."""
    agents = install_runtime(runtime)
    ended = trio.Event()
    agents.on_end.append(lambda run_id, status, at: ended.set() if status == "aborted" else None)
    admin = await add_user(runtime, ws, "admin")
    async with served(runtime) as client:
        asked = await client.post(
            "/v1/agents/messages",
            json={"message": "send an email to bob@example.com about Pricing"},
            headers=ws.headers,
        )
        run_id = asked.json()["runId"]
        (approval,) = asked.json()["pendingApprovals"]
        rejected = await client.post(
            f"/api/approvals/{approval}/reject", json={"reason": "Bob left"}, headers=admin.headers
        )
        assert rejected.status_code == 200
        agents.provider = Stalled()
        host, port = client.base_url.host, client.base_url.port
        assert port is not None
        sock = await trio.open_tcp_stream(host, port)
        resume = raw_request(ws, b"", b"?stream=true").replace(
            b"/v1/agents/messages", f"/v1/agents/runs/{run_id}/resume".encode()
        )
        await sock.send_all(resume)
        received = b""
        with trio.fail_after(5):
            while b"event: open" not in received:
                received += await sock.receive_some(65536)
        await sock.aclose()
        with trio.fail_after(10):
            await ended.wait()
        run = (await client.get(f"/v1/agents/runs/{run_id}", headers=ws.headers)).json()
        assert run["status"] == "aborted"
        agents.provider = OfflineProvider()
        again = await client.post(f"/v1/agents/runs/{run_id}/resume", headers=ws.headers)
        assert again.status_code == 200, again.text
        assert "An approver rejected this call: Bob left." in again.json()["response"]
        run = (await client.get(f"/v1/agents/runs/{run_id}", headers=ws.headers)).json()
        assert run["status"] == "succeeded"
