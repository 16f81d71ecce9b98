"""What an operation answers: a status, headers and a body of bytes or a stream.

The dispatch (:mod:`fieldhouse.http.dispatch`) sends a :class:`Response` as ASGI messages:
a body of bytes in one message (with its ``Content-Length``), a :class:`StreamBody` chunk by
chunk as ``async with body as chunks: async for chunk in chunks: send(chunk)`` in the
request's task, so a stream may own a nursery that the client leaving cancels.

Fieldhouse's own, in place of Quart's ``Response`` (werkzeug's ``Headers`` behind it): a
worker that imported Quart for it held ~17 MB more.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping
from types import EllipsisType, TracebackType
from typing import Protocol

#: a header value must not break the head into more lines
_NEWLINE = re.compile(r"[\r\n]")


def _value(value: object) -> str:
    text = value if isinstance(value, str) else str(value)
    if _NEWLINE.search(text) is not None:
        raise ValueError("Header values must not contain newline characters.")
    return text


class Headers:
    """Response headers in the order they were set; names match without regard to case."""

    __slots__ = ("_list",)

    def __init__(self, headers: Mapping[str, object] | None = None) -> None:
        self._list: list[tuple[str, str]] = []
        for name, value in (headers or {}).items():
            self.add(name, value)

    def __getitem__(self, name: str) -> str:
        wanted = name.lower()
        for key, value in self._list:
            if key.lower() == wanted:
                return value
        raise KeyError(name)

    def get(self, name: str, default: str | None = None) -> str | None:
        try:
            return self[name]
        except KeyError:
            return default

    def getlist(self, name: str) -> list[str]:
        wanted = name.lower()
        return [value for key, value in self._list if key.lower() == wanted]

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        wanted = name.lower()
        return any(key.lower() == wanted for key, _ in self._list)

    def __setitem__(self, name: str, value: object) -> None:
        """Set ``name`` to one value: in the place of its first, the others dropped."""
        text = _value(value)
        wanted = name.lower()
        for index, (key, _) in enumerate(self._list):
            if key.lower() == wanted:
                self._list[index] = (name, text)
                rest = self._list[index + 1 :]
                self._list[index + 1 :] = [pair for pair in rest if pair[0].lower() != wanted]
                return
        self._list.append((name, text))

    def __delitem__(self, name: str) -> None:
        """Drop every value of ``name`` (none is no error)."""
        wanted = name.lower()
        self._list[:] = [pair for pair in self._list if pair[0].lower() != wanted]

    def add(self, name: str, value: object) -> None:
        """One more value of ``name``, after the others."""
        self._list.append((name, _value(value)))

    def items(self) -> Iterator[tuple[str, str]]:
        return iter(self._list)

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self._list)

    def __len__(self) -> int:
        return len(self._list)

    def __repr__(self) -> str:
        return f"Headers({self._list!r})"

    def encoded(self) -> list[tuple[bytes, bytes]]:
        """As ASGI sends them: lower-case names, both as bytes."""
        return [(key.lower().encode(), value.encode()) for key, value in self._list]


class StreamBody(Protocol):
    """A body sent as it is produced: ``async with body as chunks: async for chunk in
    chunks``; entering may start the producer, leaving must stop it
    (:class:`fieldhouse.http.sse.EventStream`, :class:`fieldhouse.events.EventsBody`)."""

    async def __aenter__(self) -> AsyncIterator[bytes]: ...

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


class Response:
    """A status, headers (those given, then ``Content-Type`` when given, then
    ``Content-Length`` for a body of bytes) and the body.

    ``timeout`` is how many seconds sending it may take: ``...`` for the server's default,
    None for no limit (an event stream)."""

    __slots__ = ("body", "headers", "status_code", "timeout")

    def __init__(
        self,
        body: bytes | str | StreamBody = b"",
        status: int = 200,
        headers: Mapping[str, object] | Iterable[tuple[str, object]] | None = None,
        content_type: str | None = None,
    ) -> None:
        self.status_code = status
        self.headers = Headers()
        pairs = headers.items() if isinstance(headers, Mapping) else (headers or ())
        for name, value in pairs:
            self.headers.add(name, value)
        if content_type is not None:
            self.headers["Content-Type"] = content_type
        if isinstance(body, str):
            body = body.encode()
        self.body: bytes | StreamBody = body
        if isinstance(body, bytes):
            self.headers["Content-Length"] = str(len(body))
        self.timeout: float | EllipsisType | None = ...

    def __repr__(self) -> str:
        return f"<Response {self.status_code}>"
