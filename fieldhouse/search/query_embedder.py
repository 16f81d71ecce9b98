"""A query's vector: from the server's one embedding process (over a Unix socket), or from a
model in this process (tests, and a server run without the process).

The wire is one request a connection: the query's text as UTF-8 after its length (4 bytes,
big-endian); the answer is the vector as float32 bytes after their length, or a length of 0
while the model is still loading (the search then runs on its keyword half alone and says so).
"""

from __future__ import annotations

import struct
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Protocol

import trio

if TYPE_CHECKING:
    from fieldhouse.search.contract import Embedder, Matrix

CACHE = 512
#: the longest query text sent (the API takes 1,000 characters)
MAX_TEXT_BYTES = 16_384
#: seconds a query waits for the embedding process before it runs without its vector half
ASK_SECONDS = 2.0
_LEN = struct.Struct(">I")


class QueryEmbedder(Protocol):
    dim: int

    async def embed(self, text: str) -> Matrix | None:
        """The query's unit vector, or None when no model can make it now."""
        ...


class _Cache:
    def __init__(self) -> None:
        self._items: OrderedDict[str, Matrix] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, text: str) -> Matrix | None:
        with self._lock:
            found = self._items.get(text)
            if found is not None:
                self._items.move_to_end(text)
            return found

    def put(self, text: str, vec: Matrix) -> None:
        with self._lock:
            self._items[text] = vec
            while len(self._items) > CACHE:
                self._items.popitem(last=False)


class LocalQueryEmbedder:
    """The model in this process, run in a thread at the request's priority."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self.dim = embedder.dim
        self._cache = _Cache()
        self._limiter = trio.CapacityLimiter(2)

    async def embed(self, text: str) -> Matrix | None:
        if not self.dim:
            return None
        found = self._cache.get(text)
        if found is None:
            rows = await trio.to_thread.run_sync(self.embedder.embed, [text], limiter=self._limiter)
            found = rows[0]
            self._cache.put(text, found)
        return found


class RemoteQueryEmbedder:
    """The server's embedding process, asked over its Unix socket."""

    def __init__(self, path: str, dim: int) -> None:
        self.path = path
        self.dim = dim
        self._cache = _Cache()

    async def embed(self, text: str) -> Matrix | None:
        if not self.dim:
            return None
        found = self._cache.get(text)
        if found is not None:
            return found
        data = text.encode()[:MAX_TEXT_BYTES]
        with trio.move_on_after(ASK_SECONDS):
            try:
                stream = await trio.open_unix_socket(self.path)
            except OSError:
                return None  # not started yet, or restarting
            async with stream:
                await stream.send_all(_LEN.pack(len(data)) + data)
                answer = await receive_frame(stream)
            if not answer:
                return None
            import numpy as np  # (not with the worker: see SearchService.vectors_of)

            vec: Matrix = np.frombuffer(answer, np.float32).copy()
            if vec.shape != (self.dim,):
                return None
            self._cache.put(text, vec)
            return vec
        return None


async def receive_frame(stream: trio.abc.ReceiveStream, most: int = 1 << 20) -> bytes:
    """One length-prefixed frame (empty when the peer closed first)."""
    head = await _exactly(stream, _LEN.size)
    if len(head) < _LEN.size:
        return b""
    (size,) = _LEN.unpack(head)
    if size > most:
        return b""
    return await _exactly(stream, size)


async def _exactly(stream: trio.abc.ReceiveStream, size: int) -> bytes:
    got = bytearray()
    while len(got) < size:
        chunk = await stream.receive_some(size - len(got))
        if not chunk:
            break
        got += chunk
    return bytes(got)


def frame(data: bytes) -> bytes:
    return _LEN.pack(len(data)) + data
