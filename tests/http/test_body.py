"""Request bodies: read whole under the limit, refused past it, drained when refused."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from fieldhouse.http.body import discard_body, drain_limit, read_body
from fieldhouse.http.exchange import Exchange, asgi_body
from fieldhouse.model.errors import PayloadTooLarge


def exchange(data: bytes, headers: Mapping[str, str], method: str = "POST") -> Exchange:
    """A request whose body arrives as ASGI messages of 100 bytes each."""
    chunks = [data[i : i + 100] for i in range(0, len(data), 100)] or [b""]
    messages = [
        {"type": "http.request", "body": c, "more_body": i < len(chunks) - 1}
        for i, c in enumerate(chunks)
    ]

    async def receive() -> dict[str, Any]:
        return messages.pop(0)

    scope = {
        "type": "http",
        "method": method,
        "path": "/",
        "query_string": b"",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
    }
    return Exchange(scope, asgi_body(receive), None)


async def test_a_body_under_the_limit_is_read_whole() -> None:
    ex = exchange(b"x" * 250, {"Content-Length": "250"})
    assert await read_body(ex, 250) == b"x" * 250
    # read already: nothing is left to drain
    assert await discard_body(ex, 250) is True


async def test_a_body_over_the_limit_names_its_size_and_the_limit() -> None:
    with pytest.raises(PayloadTooLarge) as caught:
        await read_body(exchange(b"x" * 101, {"Content-Length": "101"}), 100)
    assert caught.value.message == "Request body is 101 bytes; the limit is 100"
    assert caught.value.status == 413
    chunked = {"Transfer-Encoding": "chunked"}
    with pytest.raises(PayloadTooLarge) as caught:
        await read_body(exchange(b"x" * 101, chunked), 100)
    assert caught.value.message == "Request body exceeds the limit of 100 bytes"


async def test_a_refused_body_is_drained_up_to_sixteen_times_the_limit() -> None:
    assert drain_limit(100) == 1600
    chunked = {"Transfer-Encoding": "chunked"}
    assert await discard_body(exchange(b"x" * 1600, chunked), 100) is True
    # too long to be worth reading (the answer must close the connection): read until it
    # passes the cap when its length is unknown, not read at all when it is declared
    assert await discard_body(exchange(b"x" * 1601, chunked), 100) is False
    assert await discard_body(exchange(b"x" * 1601, {"Content-Length": "1601"}), 100) is False


async def test_a_request_without_a_body_has_nothing_to_drain() -> None:
    assert await discard_body(exchange(b"", {}, method="GET"), 100) is True
