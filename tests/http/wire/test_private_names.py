"""The names of hypercorn and httptools that ``fieldhouse.http.wire`` leans on beyond their
documented use (listed in its docstring), with the signatures and behaviour it relies on: this
fails when an upgrade moves or changes one (pyproject.toml pins both below their next minor).

None of them is underscored any more (the connection and its task group are Fieldhouse's
own); what is left are modules hypercorn documents no API for. trio-asyncio's private names
are checked in tests/storage/test_aioloop.py."""

from __future__ import annotations

import dataclasses
import inspect
import socket
from collections.abc import Callable
from typing import Any

import httptools
import pytest
import trio
from hypercorn import events, utils
from hypercorn.config import Config
from hypercorn.protocol import events as stream_events
from hypercorn.protocol.http_stream import HTTPStream
from hypercorn.trio.lifespan import Lifespan
from hypercorn.trio.worker_context import WorkerContext
from hypercorn.typing import ConnectionState


def params(fn: Callable[..., Any]) -> list[str]:
    return [name for name in inspect.signature(fn).parameters if name != "self"]


def test_the_stream_and_lifespan_are_built_as_the_wire_builds_them() -> None:
    assert params(HTTPStream.__init__) == [
        "app", "config", "context", "task_group", "ssl", "client", "server", "send", "stream_id",
    ]  # fmt: skip
    assert inspect.iscoroutinefunction(HTTPStream.handle)
    assert params(Lifespan.__init__) == ["app", "config", "state"]
    for name in ("handle_lifespan", "wait_for_startup", "wait_for_shutdown"):
        assert inspect.iscoroutinefunction(getattr(Lifespan, name)), name
    assert params(WorkerContext.__init__) == ["max_requests"]


def test_the_events_have_the_fields_the_wire_fills() -> None:
    fields = {
        events.RawData: ["data", "address"],
        events.Closed: [],
        events.Updated: ["idle"],
        stream_events.Request: [
            "stream_id", "headers", "http_version", "method", "raw_path", "state",
        ],
        stream_events.Body: ["stream_id", "data"],
        stream_events.Data: ["stream_id", "data"],
        stream_events.EndBody: ["stream_id"],
        stream_events.Response: ["stream_id", "headers", "status_code"],
        stream_events.StreamClosed: ["stream_id"],
        stream_events.InformationalResponse: ["stream_id", "headers", "status_code"],
    }  # fmt: skip
    for kind, names in fields.items():
        assert [f.name for f in dataclasses.fields(kind)] == names, kind
    assert issubclass(events.RawData, events.Event)  # h1's HeadStarted is one too


def test_the_config_and_utils_the_wire_reads() -> None:
    config = Config()
    for name in (
        "h11_max_incomplete_size",
        "keep_alive_max_requests",
        "include_date_header",
        "include_server_header",
        "max_app_queue_size",
        "read_timeout",
        "keep_alive_timeout",
        "graceful_timeout",
        "backlog",
        "wsgi_max_body_size",
    ):
        assert hasattr(config, name), name
    assert inspect.iscoroutinefunction(config.log.exception)
    assert callable(config.create_sockets)
    assert params(utils.wrap_app) == ["app", "wsgi_max_body_size", "mode"]
    assert params(utils.ASGIWrapper.__call__) == [
        "scope", "receive", "send", "sync_spawn", "call_soon",
    ]  # fmt: skip
    assert params(utils.raise_shutdown) == ["shutdown_event"]
    assert issubclass(utils.ShutdownError, Exception)
    address = ("127.0.0.1", 8080)
    assert utils.parse_socket_addr(socket.AF_INET, address) == address
    assert utils.repr_socket_addr(socket.AF_INET, address) == "127.0.0.1:8080"


async def test_the_worker_context_has_the_events_the_wire_waits_on() -> None:
    context = WorkerContext(None)
    for name in ("terminate", "terminated"):
        event = getattr(context, name)
        assert not event.is_set()
        await event.set()
        await event.wait()
    made = context.event_class()
    await made.set()
    await made.clear()
    assert not made.is_set()
    await context.mark_request()


async def test_the_stream_spawns_its_app_with_the_request_state_and_tells_it_of_the_close() -> None:
    """HTTPStream asks the task group for ``spawn_app(app, config, scope, send)`` with the
    request's ``state`` copied into the scope (the wire's URL_TOO_LONG note), and puts
    ``http.disconnect`` when the stream closes (what ends a watched event stream)."""
    spawned: list[tuple[Any, ...]] = []
    put: list[dict[str, Any]] = []

    class Tasks:
        async def spawn_app(self, *args: Any) -> Callable[..., Any]:
            spawned.append(args)

            async def app_put(message: dict[str, Any]) -> None:
                put.append(message)

            return app_put

    async def send(event: events.Event) -> None:
        pass

    async def app(*args: Any) -> None:
        raise AssertionError("not run")

    config = Config()
    stream = HTTPStream(app, config, WorkerContext(None), Tasks(), False, None, None, send, 1)  # type: ignore[arg-type]
    request = stream_events.Request(
        stream_id=1,
        headers=[(b"host", b"t")],
        http_version="1.1",
        method="GET",
        raw_path=b"/a%20b?q=1",
        state=ConnectionState({"note": 1}),
    )
    await stream.handle(request)
    ((got_app, got_config, scope, got_send),) = spawned
    assert (got_app, got_config, got_send) == (app, config, stream.app_send)
    assert (scope["path"], scope["query_string"], scope["state"]) == ("/a b", b"q=1", {"note": 1})
    await stream.handle(stream_events.StreamClosed(stream_id=1))
    assert put == [{"type": "http.disconnect"}]


class _Recorder:
    def __init__(self, fail_on_url: Exception | None = None) -> None:
        self.fail_on_url = fail_on_url
        self.seen: list[str] = []

    def on_message_begin(self) -> None:
        self.seen.append("begin")

    def on_url(self, url: bytes) -> None:
        if self.fail_on_url is not None:
            raise self.fail_on_url
        self.seen.append("url")

    def on_header(self, name: bytes, value: bytes) -> None:
        self.seen.append("header")

    def on_headers_complete(self) -> None:
        self.seen.append("headers")

    def on_body(self, body: bytes) -> None:
        self.seen.append("body")

    def on_message_complete(self) -> None:
        self.seen.append("complete")


def test_httptools_calls_the_callbacks_h1_defines_and_reads_the_request_line() -> None:
    recorder = _Recorder()
    parser = httptools.HttpRequestParser(recorder)
    parser.feed_data(b"POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nab")
    assert recorder.seen == ["begin", "url", "header", "header", "headers", "body", "complete"]
    assert (parser.get_method(), parser.get_http_version()) == (b"POST", "1.1")
    assert parser.should_keep_alive() is True


def test_a_callbacks_own_error_is_the_context_of_httptools_callback_error() -> None:
    """h1 refuses with the error its callback raised, found as the ``__context__`` of
    ``HttpParserCallbackError``."""
    own = ValueError("mine")
    parser = httptools.HttpRequestParser(_Recorder(fail_on_url=own))
    with pytest.raises(httptools.HttpParserCallbackError) as caught:
        parser.feed_data(b"GET /x HTTP/1.1\r\nHost: t\r\n\r\n")
    assert caught.value.__context__ is own


def test_httptools_errors_the_wire_tells_apart() -> None:
    assert issubclass(httptools.HttpParserCallbackError, httptools.HttpParserError)
    upgrade = httptools.HttpRequestParser(_Recorder())
    with pytest.raises(httptools.HttpParserUpgrade):
        upgrade.feed_data(b"GET / HTTP/1.1\r\nHost: t\r\nConnection: Upgrade\r\nUpgrade: x\r\n\r\n")
    with pytest.raises(httptools.HttpParserError):
        httptools.HttpRequestParser(_Recorder()).feed_data(b"NOT HTTP\r\n\r\n")


def test_trio_sockets_say_when_their_write_side_is_shut() -> None:
    ours, theirs = trio.socket.socketpair()
    with ours, theirs:
        assert ours.did_shutdown_SHUT_WR is False
        ours.shutdown(socket.SHUT_WR)
        assert ours.did_shutdown_SHUT_WR is True
