"""The request as the pipeline and the handlers read it, built from the ASGI scope."""

from __future__ import annotations

from typing import Any

import pytest
import trio

from fieldhouse.http.exchange import ClientGone, Exchange, asgi_body, current, enter


def exchange(
    headers: list[tuple[bytes, bytes]] | None = None,
    query: bytes = b"",
    messages: list[dict[str, Any]] | None = None,
) -> Exchange:
    queue = list(messages or [{"type": "http.request", "body": b""}])

    async def receive() -> dict[str, Any]:
        return queue.pop(0)

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/v1/x",
        "query_string": query,
        "headers": headers or [],
        "client": ("10.0.0.7", 50000),
    }
    return Exchange(scope, asgi_body(receive), 5.0)


def test_headers_are_read_by_lower_case_name_and_the_first_of_a_repeat_wins() -> None:
    ex = exchange([(b"Accept", b"text/event-stream"), (b"x-a", b"1"), (b"X-A", b"2")])
    assert ex.headers["accept"] == "text/event-stream"
    assert ex.headers["x-a"] == "1"
    assert ex.remote_addr == "10.0.0.7"


def test_query_parameters_parse_as_werkzeug_parses_them() -> None:
    ex = exchange(query=b"a=1&a=2&b=&c=x+y&d=%ZZ&filter%5Bname%5D=A&e=%FFok%C3%A9")
    assert ex.args.getlist("a") == ["1", "2"]
    assert ex.args.get("a") == "1" and ex.args.get("z", "none") == "none"
    assert dict(ex.args.items()) == {
        "a": "1",
        "b": "",
        "c": "x y",
        "d": "%ZZ",  # an invalid escape stays as sent
        "filter[name]": "A",
        "e": "%FFoké",  # so do bytes that are not UTF-8
    }
    assert list(ex.args.items(multi=True))[:2] == [("a", "1"), ("a", "2")]
    assert dict(ex.args.lists())["a"] == ["1", "2"]
    assert not exchange().args


def test_content_length_and_media_type() -> None:
    ex = exchange([(b"content-length", b"12"), (b"content-type", b"Application/JSON; charset=x")])
    assert ex.content_length == 12
    assert ex.mimetype == "application/json"
    chunked = exchange([(b"content-length", b"12"), (b"transfer-encoding", b"gzip, Chunked")])
    assert chunked.content_length is None
    assert exchange([(b"content-length", b"twelve")]).content_length == 0
    assert exchange([(b"content-length", b"+12")]).content_length == 0
    assert exchange([(b"content-length", b"-3")]).content_length == 0
    assert exchange([(b"content-length", b" 7 ")]).content_length == 7
    assert exchange().content_length is None and exchange().mimetype == ""


def test_a_client_request_id_is_kept_when_it_looks_like_one() -> None:
    assert exchange([(b"x-request-id", b"abc-1:2")]).request_id == "abc-1:2"
    made = exchange([(b"x-request-id", b"not an id!")]).request_id
    assert len(made) == 32 and int(made, 16) >= 0
    assert exchange().request_id != exchange().request_id


async def test_the_body_comes_chunk_by_chunk_then_ends() -> None:
    ex = exchange(
        messages=[
            {"type": "http.request", "body": b"ab", "more_body": True},
            {"type": "http.request", "body": b"", "more_body": True},
            {"type": "http.request", "body": b"c", "more_body": False},
        ]
    )
    assert [await ex.next_chunk(), await ex.next_chunk()] == [b"ab", b"c"]
    # ended: no more messages are asked for
    assert await ex.next_chunk() is None


async def test_a_client_leaving_mid_body_is_told() -> None:
    ex = exchange(
        messages=[
            {"type": "http.request", "body": b"ab", "more_body": True},
            {"type": "http.disconnect"},
        ]
    )
    assert await ex.next_chunk() == b"ab"
    with pytest.raises(ClientGone):
        await ex.next_chunk()


async def test_each_task_has_its_own_current_exchange() -> None:
    first, second = exchange(), exchange()
    seen: list[Exchange] = []

    async def serve(ex: Exchange) -> None:
        enter(ex)
        await trio.lowlevel.checkpoint()
        seen.append(current())

    async with trio.open_nursery() as nursery:
        nursery.start_soon(serve, first)
        nursery.start_soon(serve, second)
    assert sorted(map(id, seen)) == sorted([id(first), id(second)])
