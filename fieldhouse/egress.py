"""Where the server's outgoing HTTP may go (webhook deliveries): public addresses only.

A target is refused when its host is a loopback, private, link-local (cloud metadata),
multicast, reserved or unspecified address, a ``localhost`` name, or a name that resolves to
any such address. The operator's allow-list (``FIELDHOUSE_WEBHOOK_ALLOW_HOSTS``: ``host`` or
``host:port`` entries, exact matches) names the exceptions, for development and tests.

A target is checked twice: when its URL is registered (:meth:`Egress.check_url`) and when a
delivery connects. The second check is pinned to the connection: :class:`PinnedBackend`, the
network backend under the delivery client's connection pool, resolves the name once, refuses
the target if any address is refused, and opens the TCP connection to an address it checked
rather than to the name, so a DNS answer that changes between the check and the connect (DNS
rebinding) cannot reach an internal address. The request still carries the URL's host in its
Host header, and TLS sends the URL's host as SNI and verifies the certificate for it (httpcore
starts TLS over the connected stream with the origin's host name). Redirects are not followed
(a 3xx answer is a failed attempt) and no proxy from the environment is used.

The HTTP client itself (:func:`fieldhouse.egress_http.open_client`) is imported at the first
delivery: a worker that sends none never loads httpx.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass

import trio

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
#: host, port -> the addresses the name resolves to (numeric strings)
Resolver = Callable[[str, int], Awaitable[Sequence[str]]]

#: cloud metadata services outside the link-local range (AWS's IPv6 one, Alibaba's, Oracle's)
METADATA = frozenset(
    ipaddress.ip_address(a)
    for a in ("169.254.169.254", "fd00:ec2::254", "100.100.100.200", "192.0.0.192")
)
#: IPv6 prefixes that carry an IPv4 address in their last 32 bits (NAT64)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
#: ranges Python still calls global that are no place for a webhook: IETF protocol
#: assignments (192.0.0.0/24) and local-use NAT64
_NOT_PUBLIC = (ipaddress.ip_network("192.0.0.0/24"), ipaddress.ip_network("64:ff9b:1::/48"))
DEFAULT_PORTS = {"http": 80, "https": 443}
#: seconds a registration waits for a name to resolve before it lets the name through (every
#: delivery resolves and checks it again)
RESOLVE_TIMEOUT = 5.0
#: addresses of one name a delivery tries to connect to, in the resolver's order
CONNECT_TRIES = 3


class RefusedTarget(Exception):
    """A target the server may not send to; the message says which host and why, and never
    anything learnt by connecting (no connection is made)."""


def refusal(address: Address) -> str | None:
    """Why ``address`` may not be a target (``"a loopback address"``); None when public."""
    inner = _embedded(address)
    if inner is not None:
        return refusal(inner)
    if address in METADATA:
        return "a cloud metadata address"
    if address.is_unspecified:
        return "the unspecified address"
    if address.is_loopback:
        return "a loopback address"
    if address.is_link_local:
        return "a link-local address"
    if address.is_multicast:
        return "a multicast address"
    if address.is_private:
        return "a private address"
    if address.is_reserved:
        return "a reserved address"
    if not address.is_global or any(address in net for net in _NOT_PUBLIC):
        return "not a public address"
    return None


def _embedded(address: Address) -> Address | None:
    """The IPv4 address an IPv6 one stands for (mapped, NAT64 or 6to4), if any."""
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return address.sixtofour


def _host(host: str) -> str:
    """A host as the allow-list compares it: lower case, no brackets or trailing dot, an IP
    address in its canonical form."""
    host = host.strip().strip("[]").rstrip(".").lower()
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        return host


def _ip(host: str) -> Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def allow_entry(text: str) -> tuple[str, int | None]:
    """One allow-list entry: ``host``, ``host:port``, ``[v6]`` or ``[v6]:port`` (a bare IPv6
    address has no port) as (host, port or None); ValueError when it is neither."""
    entry = text.strip()
    shape = f"{entry!r} is not host, host:port or [IPv6]:port"
    if any(c in entry for c in "/@?#\\ \t"):
        raise ValueError(shape)
    port_text: str | None = None
    if entry.startswith("["):
        host, bracket, rest = entry[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")) or _ip(host) is None:
            raise ValueError(shape)
        port_text = rest[1:] if rest else None
    elif entry.count(":") == 1:
        host, port_text = entry.split(":")
    else:
        host = entry
    host = _host(host)
    if not host or "[" in host or "]" in host or (":" in host and _ip(host) is None):
        raise ValueError(shape)
    if port_text is None:
        return host, None
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise ValueError(f"{entry!r}: the port must be a number from 1 to 65535")
    return host, int(port_text)


def allow_entry_text(text: str) -> str:
    """An allow-list entry written one way (``host``, ``host:port``, ``[v6]:port``)."""
    host, port = allow_entry(text)
    shown = f"[{host}]" if ":" in host else host
    return shown if port is None else f"{shown}:{port}"


@dataclass(frozen=True)
class AllowList:
    """Targets allowed although they are not public: (host, port or None for any port)."""

    entries: frozenset[tuple[str, int | None]] = frozenset()

    @classmethod
    def parse(cls, items: Iterable[str]) -> AllowList:
        return cls(frozenset(allow_entry(i) for i in items))

    def allows(self, host: str, port: int) -> bool:
        key = _host(host)
        return (key, port) in self.entries or (key, None) in self.entries


async def resolve(host: str, port: int) -> list[str]:
    """The addresses ``host`` resolves to, in the system resolver's order, each once."""
    infos = await trio.socket.getaddrinfo(host, port, type=trio.socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class Egress:
    """The outgoing-target policy: the operator's allow-list and the resolver names go to."""

    def __init__(self, allow: AllowList | None = None, resolver: Resolver = resolve) -> None:
        self.allow = allow or AllowList()
        self.resolver = resolver

    async def check_url(self, url: str) -> None:
        """Refuse (RefusedTarget) a URL whose host may not be a target, as far as can be told
        now: a name that does not resolve yet passes, since every delivery checks again."""
        import httpx  # (loaded at the first registration, not at start)

        parsed = httpx.URL(url)
        host = parsed.raw_host.decode("ascii")  # IDNA names as they are resolved
        port = parsed.port or DEFAULT_PORTS.get(parsed.scheme, 0)
        if self.allow.allows(host, port):
            return
        _check_name(host)
        if _ip(host) is not None:
            return
        addresses: Sequence[str] = ()
        with trio.move_on_after(RESOLVE_TIMEOUT):
            try:
                addresses = await self.resolver(host, port)
            except OSError:
                return
        _check_addresses(host, addresses)

    async def addresses(self, host: str, port: int) -> list[str]:
        """The addresses a delivery to ``host:port`` may connect to: all it resolves to, each
        one checked unless the host is allowed; RefusedTarget if any one is refused."""
        from httpcore import ConnectError  # (only a delivery asks)

        allowed = self.allow.allows(host, port)
        if not allowed:
            _check_name(host)
        literal = _ip(host)
        if literal is not None:
            found: Sequence[str] = [str(literal)]
        else:
            try:
                found = await self.resolver(host, port)
            except OSError as exc:
                raise ConnectError(f"{host} does not resolve: {exc}") from None
        if not allowed:
            _check_addresses(host, found)
        if not found:
            raise ConnectError(f"{host} does not resolve")
        return list(found)


def _check_name(host: str) -> None:
    name = host.rstrip(".").lower()
    if name == "localhost" or name.endswith(".localhost"):
        raise RefusedTarget(f"{host} is a loopback name")
    literal = _ip(host)
    reason = None if literal is None else refusal(literal)
    if reason is not None:
        raise RefusedTarget(f"{literal} is {reason}")


def _check_addresses(host: str, addresses: Iterable[str]) -> None:
    # the addresses a name resolves to are not named: that would answer questions about
    # internal DNS for whoever registers names
    for text in addresses:
        address = _ip(text.partition("%")[0])
        reason = "not an IP address" if address is None else refusal(address)
        if reason is not None:
            raise RefusedTarget(f"{host} resolves to {reason}")
