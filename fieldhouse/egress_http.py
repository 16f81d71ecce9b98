"""The delivery client's connections, pinned to the addresses :class:`~fieldhouse.egress.Egress`
checked (see :mod:`fieldhouse.egress`'s docstring). Imported at the first delivery, so that a
process that sends nothing loads neither httpx nor httpcore."""

from __future__ import annotations

import functools
import ssl
from collections.abc import Iterable

import httpcore
import httpx
import trio

from fieldhouse.egress import CONNECT_TRIES, Egress, RefusedTarget


def open_client(egress: Egress, timeout: float) -> httpx.AsyncClient:
    """An HTTP client whose every connection goes through ``egress``'s policy (use it with
    ``async with``); it follows no redirects and no proxy settings."""
    return httpx.AsyncClient(
        transport=PinnedTransport(egress),
        timeout=timeout,
        follow_redirects=False,
        trust_env=False,
    )


class PinnedBackend(httpcore.AsyncNetworkBackend):
    """httpcore's trio backend, but every TCP connection goes to an address the policy
    checked for the host it was asked for (see the module's docstring)."""

    def __init__(self, egress: Egress) -> None:
        self.egress = egress
        self._trio = httpcore.TrioBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's interface)
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        try:
            with trio.fail_after(float("inf") if timeout is None else timeout):
                addresses = await self.egress.addresses(host, port)
        except trio.TooSlowError:
            raise httpcore.ConnectTimeout(f"resolving {host} timed out") from None
        failure: Exception | None = None
        for address in addresses[:CONNECT_TRIES]:
            try:
                return await self._trio.connect_tcp(
                    address, port, timeout, local_address, socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc
        assert failure is not None
        raise failure

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's interface)
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise RefusedTarget("a unix socket is not a target")

    async def sleep(self, seconds: float) -> None:
        await self._trio.sleep(seconds)


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The verifying TLS context every client shares: reading the CA bundle takes ~0.1 s, paid
    once a process rather than twice a client."""
    return httpx.create_ssl_context()


class PinnedTransport(httpx.AsyncHTTPTransport):
    """httpx's transport over a connection pool that connects through :class:`PinnedBackend`
    (httpx has no argument for a pool's network backend, so the pool is replaced whole)."""

    def __init__(self, egress: Egress) -> None:
        super().__init__(verify=tls_context(), trust_env=False)
        # httpx's default limits: well above the dispatcher's own bound on deliveries at once,
        # so the pool never makes one endpoint's delivery wait for another's connection
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=tls_context(),
            max_connections=100,
            max_keepalive_connections=20,
            keepalive_expiry=5.0,
            network_backend=PinnedBackend(egress),
        )
