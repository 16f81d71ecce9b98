"""HTTP/1.1 for hypercorn's connection, parsed by httptools (llhttp, in C) instead of h11.

hypercorn's ``H11Protocol`` turns bytes into its stream events with h11, a pure-Python state
machine: under a load of small requests (create at 16 connections, two workers) h11's parsing
and writing were 13% of a worker's samples (py-spy), more than the record's validation. This
class does the same job with llhttp (node.js's parser, through httptools, as uvicorn does) and
writes the response head itself. Everything above it is hypercorn's as before: the
``HTTPStream`` that runs the ASGI app, the connection (``fieldhouse.http.wire.connection``), the
keep-alive and shutdown rules.

What a client sees, as with h11: keep-alive for HTTP/1.1 unless the request says
``Connection: close`` (HTTP/1.0 answers close the connection); pipelined requests answered one
after another, in order; ``Expect: 100-continue`` answered with ``100 Continue`` before the
body is read; a response without ``content-length`` sent chunked (to an HTTP/1.0 client:
delimited by closing the connection); HEAD, 204 and 304 answers without a body; a response
whose body was not read to its end closes the connection (the unread rest cannot be told
from the next request). An ``Upgrade`` (WebSocket, h2c) is not taken: the request is answered
in HTTP/1.1 and the connection closed, which RFC 9110 allows. A sized response goes out in
one write: its head waits for the first body bytes.

A request is refused (:mod:`fieldhouse.http.wire.rules`: malformed 400, headers too large
431, a URL over the cap 414, another version 505; a head not whole some seconds after its
first byte 408, timed by the connection) with its answer in the error envelope, and the
connection closed after it: nothing sent after the refused request is read.

hypercorn's names used here (see ``fieldhouse.http.wire``): ``HTTPStream`` (its constructor,
``handle`` and the events it sends and takes), ``Config.h11_max_incomplete_size``,
``keep_alive_max_requests``, ``include_date_header``, ``include_server_header``, and the
worker context's ``event_class``, ``mark_request`` and ``terminated``.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Awaitable, Callable
from email.utils import formatdate
from http import HTTPStatus

import httptools
from hypercorn.config import Config
from hypercorn.events import Closed, Event, RawData, Updated
from hypercorn.protocol.events import (
    Body,
    Data,
    EndBody,
    InformationalResponse,
    Request,
    Response,
    StreamClosed,
)
from hypercorn.protocol.events import Event as StreamEvent
from hypercorn.protocol.http_stream import HTTPStream
from hypercorn.typing import AppWrapper, ConnectionState, TaskGroup, WorkerContext

from fieldhouse.http.wire.rules import (
    URL_CAP,
    URL_LIMIT,
    URL_TOO_LONG,
    Refused,
    check_head,
    refusal,
    url_over_cap,
)
from fieldhouse.model.errors import ApiError, BadRequest, HeadersTooLarge, RequestTimeout

STREAM_ID = 1
_REASONS = {s.value: s.phrase.encode("ascii") for s in HTTPStatus}
_NO_BODY_STATUS = frozenset({204, 304})
_CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"


class _Date:
    """The ``date`` header's value, formatted once a second rather than once a response."""

    second = -1
    value = b""

    @classmethod
    def now(cls) -> bytes:
        second = int(time.time())
        if second != cls.second:
            cls.value = formatdate(second, usegmt=True).encode("ascii")
            cls.second = second
        return cls.value


class _Incoming:
    """One request as llhttp reports it, until hypercorn's stream takes it."""

    __slots__ = ("complete", "expects_continue", "head", "keep_alive", "request")

    def __init__(self, request: Request, keep_alive: bool, expects_continue: bool) -> None:
        self.request = request
        self.keep_alive = keep_alive
        self.expects_continue = expects_continue
        self.complete = False  # its whole body has arrived
        self.head = request.method == "HEAD"


class HeadStarted(Event):
    """The first bytes of a request's head have come (the connection times the rest)."""


class H1Protocol:
    """hypercorn's protocol interface (``handle`` for the connection's events, ``stream_send``
    for the stream's) over one HTTP/1.1 connection."""

    def __init__(
        self,
        app: AppWrapper,
        config: Config,
        context: WorkerContext,
        task_group: TaskGroup,
        connection_state: ConnectionState,
        ssl: bool,
        client: tuple[str, int] | None,
        server: tuple[str, int] | None,
        send: Callable[[Event], Awaitable[None]],
    ) -> None:
        self.app = app
        self.config = config
        self.context = context
        self.task_group = task_group
        self.connection_state = connection_state
        self.ssl = ssl
        self.client = client
        self.server = server
        self.send = send
        self.keep_alive_requests = 0
        self.stream: HTTPStream | None = None
        self._parser = httptools.HttpRequestParser(self)
        self._parsed: deque[_Incoming | Body | EndBody | Refused] = deque()
        self._reading: _Incoming | None = None  # the request llhttp is in
        self._current: _Incoming | None = None  # the request being answered
        self._can_read = context.event_class()
        self._url = b""
        self._url_size = 0
        self._headers: list[tuple[bytes, bytes]] = []
        self._head_size = 0
        #: a request's head has begun and is not whole yet (and whether the connection has
        #: been told: :class:`HeadStarted`)
        self.in_head = False
        self._head_told = False
        self._parsing = True  # False after a request llhttp refused or an Upgrade
        # the response being written
        self._held: bytes | None = None
        self._chunked = False
        self._close_after = False
        self._answering = False  # the head of the current answer has been made
        self._last: _Incoming | None = None  # the request llhttp saw last

    # ---- llhttp's callbacks (inside feed_data) ----

    def on_message_begin(self) -> None:
        self._url = b""
        self._url_size = 0
        self._headers = []
        self._head_size = 0
        self.in_head = True
        self._head_told = False

    def on_url(self, url: bytes) -> None:
        self._url_size += len(url)
        if len(self._url) < URL_LIMIT:  # past it the app gets the path of what was kept
            self._url += url[: URL_LIMIT - len(self._url)]
        if self._url_size > URL_CAP:
            raise url_over_cap()

    def on_header(self, name: bytes, value: bytes) -> None:
        self._headers.append((name.lower(), value.strip(b" \t")))
        self._grow(len(name) + len(value) + 4)

    def _grow(self, size: int) -> None:
        self._head_size += size
        limit = self.config.h11_max_incomplete_size
        if self._head_size > limit:
            raise Refused(HeadersTooLarge(f"Request header fields are over {limit} bytes"))

    def on_headers_complete(self) -> None:
        self.in_head = False
        parser = self._parser
        version = parser.get_http_version()
        expects = check_head(version, self._headers)
        method = parser.get_method().decode("ascii").upper()
        state = self.connection_state
        url = self._url
        if self._url_size > URL_LIMIT:  # the app answers 414, after the credential
            state = ConnectionState({**state, URL_TOO_LONG: (self._url_size, URL_LIMIT)})
            url = url.partition(b"?")[0]
        request = Request(
            stream_id=STREAM_ID,
            headers=self._headers,
            http_version=version,
            method=method,
            raw_path=url,
            state=state,
        )
        incoming = _Incoming(request, parser.should_keep_alive(), expects)
        self._reading = self._last = incoming
        self._parsed.append(incoming)

    def on_body(self, body: bytes) -> None:
        if self._reading is not None:
            self._reading.expects_continue = False
        self._parsed.append(Body(stream_id=STREAM_ID, data=body))

    def on_message_complete(self) -> None:
        if self._reading is not None:
            self._reading.complete = True
            self._reading.expects_continue = False
            self._reading = None
        self._parsed.append(EndBody(stream_id=STREAM_ID))

    # ---- the connection's events ----

    async def handle(self, event: Event) -> None:
        if isinstance(event, RawData):
            if self._parsing:
                self._feed(event.data)
                if self.in_head and not self._head_told:
                    self._head_told = True
                    await self.send(HeadStarted())
            await self._handle_parsed()
        elif isinstance(event, Closed) and self.stream is not None:
            await self._close_stream()

    def _feed(self, data: bytes) -> None:
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            # the request is answered in HTTP/1.1; what follows it is another protocol's
            self._parsing = False
            if self._last is not None:
                self._last.keep_alive = False
        except httptools.HttpParserCallbackError as error:
            cause = error.__context__
            if isinstance(cause, Refused):
                self._refuse(cause.error)
            else:
                self._refuse(BadRequest("Malformed HTTP request"))
        except httptools.HttpParserError as error:
            self._refuse(BadRequest(f"Malformed HTTP request: {error}"))

    def _refuse(self, error: ApiError) -> None:
        self._parsing = False
        self.in_head = False
        self._parsed.append(Refused(error))

    async def timed_out(self, seconds: float) -> None:
        """The connection's head timer (``seconds``) ran out: a head under way is answered
        408; nothing is said otherwise (an idle connection is closed without a word)."""
        if self.in_head:
            self._parsing = self.in_head = False
            message = f"The request head did not arrive within {seconds:g} s"
            await self._refused(RequestTimeout(message), answer=True)

    async def _handle_parsed(self) -> None:
        parsed = self._parsed
        while parsed:
            item = parsed[0]
            if isinstance(item, Refused) and self._current and not self._current.complete:
                # the request in flight is the broken one: its answer, if not begun, is this
                await self._refused(item.error, answer=not self._answering)
                return
            if isinstance(item, (_Incoming, Refused)):
                # pipelined: the answer in flight goes out first
                while self.stream is not None:
                    await self._can_read.clear()
                    await self._can_read.wait()
                    if self._close_after:
                        parsed.clear()
                        return
            parsed.popleft()
            if isinstance(item, _Incoming):
                await self._start(item)
            elif isinstance(item, Refused):
                await self._refused(item.error, answer=True)
                return
            elif self.stream is not None:
                await self.stream.handle(item)

    async def _start(self, incoming: _Incoming) -> None:
        await self.send(Updated(idle=False))
        self._current = incoming
        if incoming.expects_continue:
            await self.send(RawData(_CONTINUE))
        self.stream = HTTPStream(
            self.app,
            self.config,
            self.context,
            self.task_group,
            self.ssl,
            self.client,
            self.server,
            self.stream_send,
            STREAM_ID,
        )
        await self.stream.handle(incoming.request)
        self.keep_alive_requests += 1
        await self.context.mark_request()

    # ---- the stream's events ----

    async def stream_send(self, event: StreamEvent) -> None:
        if isinstance(event, Response):
            if event.status_code < 200:
                await self.send(RawData(self._head(event.status_code, event.headers, [])))
                return
            await self._respond(event)
        elif isinstance(event, Body):
            data = event.data
            if not data:
                return
            if self._chunked:
                data = b"%x\r\n%b\r\n" % (len(data), data)
            await self._write(data)
        elif isinstance(event, EndBody):
            await self._write(b"0\r\n\r\n" if self._chunked else b"")
        elif isinstance(event, Data):
            await self.send(RawData(event.data))
        elif isinstance(event, StreamClosed):
            await self._maybe_recycle()
        elif isinstance(event, InformationalResponse):
            pass  # HTTP/2 and 3 only (early hints)

    async def _respond(self, event: Response) -> None:
        incoming = self._current
        status = event.status_code
        sized = asked_close = False
        for name, value in event.headers:
            name = name.lower()
            if name == b"content-length":
                sized = True
            elif name == b"connection" and b"close" in value.lower():
                asked_close = True  # the app's own (a body refused unread)
        body_allowed = status not in _NO_BODY_STATUS and not (incoming and incoming.head)
        # HTTP/1.0 connections close after each answer, as h11 has them
        close = (
            asked_close
            or incoming is None
            or not incoming.keep_alive
            or incoming.request.http_version != "1.1"
            or self.keep_alive_requests >= self.config.keep_alive_max_requests
        )
        extra: list[tuple[bytes, bytes]] = []
        self._chunked = body_allowed and not sized and not close
        if self._chunked:
            extra.append((b"transfer-encoding", b"chunked"))
        elif body_allowed and not sized:
            close = True  # the body ends where the connection does
        if close:
            extra.append((b"connection", b"close"))
        self._close_after = close
        self._answering = True
        head = self._head(status, event.headers, extra)
        if sized and body_allowed:
            self._held = head  # goes out with the first body bytes
        else:
            await self.send(RawData(head))  # a stream's first event may be a while coming

    def _head(
        self,
        status: int,
        headers: list[tuple[bytes, bytes]],
        extra: list[tuple[bytes, bytes]],
    ) -> bytes:
        parts = [b"HTTP/1.1 %d %s\r\n" % (status, _REASONS.get(status, b""))]
        for name, value in headers:
            if b"\n" in value or b"\r" in value or b"\n" in name or b"\r" in name:
                raise ValueError(f"header {name!r} holds a line break")
            if name.lower() in (b"transfer-encoding", b"connection"):
                continue  # framing and persistence are this protocol's to say
            parts.append(b"%s: %s\r\n" % (name, value))
        for name, value in extra:
            parts.append(b"%s: %s\r\n" % (name, value))
        if self.config.include_date_header:
            parts.append(b"date: %s\r\n" % _Date.now())
        if self.config.include_server_header:
            parts.append(b"server: hypercorn-h11\r\n")
        parts.append(b"\r\n")
        return b"".join(parts)

    async def _write(self, data: bytes) -> None:
        if self._held is not None:
            data, self._held = self._held + data, None
        if data:
            await self.send(RawData(data))

    async def _refused(self, error: ApiError, *, answer: bool) -> None:
        """Drop what else was parsed, answer ``error`` in the envelope (unless an answer has
        begun), close."""
        self._parsed.clear()
        self._close_after = True
        if answer:
            headers, body = refusal(error)
            head = self._head(error.status, headers, [(b"connection", b"close")])
            await self.send(RawData(head + body))
        await self.send(Closed())

    async def _maybe_recycle(self) -> None:
        incoming = self._current
        await self._write(b"")  # a held head, if any
        keep = (
            not self.context.terminated.is_set()
            and not self._close_after
            and incoming is not None
            and incoming.complete
        )
        self._close_after = not keep
        # the stream stays set until it has been told: the reader starts no next request
        # before this one is over
        await self._close_stream()
        self._current = None
        self._answering = False
        if keep:
            await self.send(Updated(idle=True))
        await self._can_read.set()
        if not keep:
            await self.send(Closed())

    async def _close_stream(self) -> None:
        if self.stream is not None:
            await self.stream.handle(StreamClosed(stream_id=STREAM_ID))
            self.stream = None
