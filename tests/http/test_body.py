"""Request bodies: read whole under the limit, refused past it, drained when refused."""

from __future__ import annotations

import pytest
from quart_trio import QuartTrio

from fieldhouse.http.body import discard_body, drain_limit, read_body
from fieldhouse.model.errors import PayloadTooLarge

app = QuartTrio(__name__)


async def test_a_body_under_the_limit_is_read_whole() -> None:
    async with app.test_request_context("/", method="POST", data=b"x" * 100):
        assert await read_body(100) == b"x" * 100
        # read already: nothing is left to drain
        assert await discard_body(100) is True


async def test_a_body_over_the_limit_names_its_size_and_the_limit() -> None:
    sized = {"Content-Length": "101"}
    async with app.test_request_context("/", method="POST", data=b"x" * 101, headers=sized):
        with pytest.raises(PayloadTooLarge) as caught:
            await read_body(100)
    assert caught.value.message == "Request body is 101 bytes; the limit is 100"
    assert caught.value.status == 413
    chunked = {"Transfer-Encoding": "chunked"}
    async with app.test_request_context("/", method="POST", data=b"x" * 101, headers=chunked):
        with pytest.raises(PayloadTooLarge) as caught:
            await read_body(100)
    assert caught.value.message == "Request body exceeds the limit of 100 bytes"


async def test_a_refused_body_is_drained_up_to_sixteen_times_the_limit() -> None:
    assert drain_limit(100) == 1600
    chunked = {"Transfer-Encoding": "chunked"}
    async with app.test_request_context("/", method="POST", data=b"x" * 1600, headers=chunked):
        assert await discard_body(100) is True
    # too long to be worth reading (the answer must close the connection): read until it
    # passes the cap when its length is unknown, not read at all when it is declared
    async with app.test_request_context("/", method="POST", data=b"x" * 1601, headers=chunked):
        assert await discard_body(100) is False
    sized = {"Content-Length": "1601"}
    async with app.test_request_context("/", method="POST", data=b"x" * 1601, headers=sized):
        assert await discard_body(100) is False


async def test_a_request_without_a_body_has_nothing_to_drain() -> None:
    async with app.test_request_context("/", method="GET"):
        assert await discard_body(100) is True
