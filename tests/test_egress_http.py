"""The delivery client: it connects only to the addresses the policy checked and follows no
redirects (real loopback receivers; a stand-in resolver for DNS answers this machine cannot
give)."""

from __future__ import annotations

import httpx
import pytest
import trio

from fieldhouse.egress import AllowList, Egress, RefusedTarget
from fieldhouse.egress_http import open_client
from tests.http.routes.webhook_support import Receiver, start_receiver
from tests.test_egress import Answers


@pytest.fixture
async def receivers(nursery: trio.Nursery) -> list[tuple[Receiver, str]]:
    out = []
    for _ in range(2):
        receiver = Receiver()
        out.append((receiver, await start_receiver(nursery, receiver)))
    return out


async def test_a_connection_goes_to_the_address_that_was_checked(
    receivers: list[tuple[Receiver, str]],
) -> None:
    receiver, url = receivers[0]
    port = int(url.rpartition(":")[2])
    # no DNS here knows these names: what answers is the address the resolver gave
    dns = Answers({"pinned.test": [["127.0.0.1"]], "rebound.test": [["8.8.8.8"], ["127.0.0.1"]]})
    egress = Egress(AllowList.parse([f"pinned.test:{port}"]), resolver=dns)
    async with open_client(egress, 5.0) as client:
        resp = await client.post(f"http://pinned.test:{port}/hook", content=b"{}")
        assert resp.status_code == 204
        assert receiver.got[0][1]["host"] == f"pinned.test:{port}"
        assert dns.asked == ["pinned.test"]  # once, for the check and the connection
        # a name that passed its registration but now points inside is refused at connect
        await egress.check_url(f"http://rebound.test:{port}/hook")
        with pytest.raises(RefusedTarget) as caught:
            await client.post(f"http://rebound.test:{port}/hook", content=b"{}")
        assert str(caught.value) == "rebound.test resolves to a loopback address"
        # as is a loopback target nobody allowed, before any connection is made
        _, other = receivers[1]
        with pytest.raises(RefusedTarget) as caught:
            await client.post(other + "/hook", content=b"{}")
        assert str(caught.value) == "127.0.0.1 is a loopback address"
        with pytest.raises(httpx.ConnectError) as failed:
            await client.post("http://does.not.resolve/hook", content=b"{}")
        assert str(failed.value).startswith("does.not.resolve does not resolve")
    assert len(receiver.got) == 1 and receivers[1][0].got == []


async def test_redirects_are_not_followed(receivers: list[tuple[Receiver, str]]) -> None:
    (first, url), (second, elsewhere) = receivers
    first.redirect_to = elsewhere + "/inside"
    allow = AllowList.parse([url.removeprefix("http://"), elsewhere.removeprefix("http://")])
    async with open_client(Egress(allow), 5.0) as client:
        resp = await client.post(url + "/hook", content=b"{}")
    assert resp.status_code == 307 and resp.headers["location"] == elsewhere + "/inside"
    assert len(first.got) == 1 and second.got == []
