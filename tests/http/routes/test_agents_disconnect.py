"""A client that disconnects right after the `open` event, over a real loopback server: every
run that started ends stored as aborted, never left running (issue 13 item 5)."""

from __future__ import annotations

import orjson
import trio

from fieldhouse.actors.run_ops import AGENT_RUN
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace
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
