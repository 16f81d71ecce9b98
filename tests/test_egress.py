"""Outgoing targets: which addresses are refused and the allow-list (a stand-in resolver where
a test needs DNS answers this machine cannot give); the client that connects only to the
addresses it checked is in test_egress_http.py."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Sequence

import pytest

from fieldhouse.egress import AllowList, Egress, RefusedTarget, allow_entry, refusal


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("127.0.0.1", "a loopback address"),
        ("127.8.9.10", "a loopback address"),
        ("::1", "a loopback address"),
        ("::ffff:127.0.0.1", "a loopback address"),
        ("10.1.2.3", "a private address"),
        ("172.16.0.1", "a private address"),
        ("192.168.1.1", "a private address"),
        ("fc00::1", "a private address"),
        ("64:ff9b::a00:1", "a private address"),  # NAT64 of 10.0.0.1
        ("2002:a00:1::", "a private address"),  # 6to4 of 10.0.0.1
        ("169.254.169.254", "a cloud metadata address"),
        ("fd00:ec2::254", "a cloud metadata address"),
        ("100.100.100.200", "a cloud metadata address"),
        ("192.0.0.192", "a cloud metadata address"),
        ("169.254.1.1", "a link-local address"),
        ("fe80::1", "a link-local address"),
        ("224.0.0.1", "a multicast address"),
        ("ff02::1", "a multicast address"),
        ("0.0.0.0", "the unspecified address"),
        ("::", "the unspecified address"),
        ("100.64.0.1", "not a public address"),
        ("192.0.0.8", "not a public address"),
        ("8.8.8.8", None),
        ("2001:4860:4860::8888", None),
        ("64:ff9b::808:808", None),  # NAT64 of 8.8.8.8
    ],
)
def test_addresses_are_refused_by_kind(address: str, why: str | None) -> None:
    assert refusal(ipaddress.ip_address(address)) == why


def test_allow_list_entries_match_exactly() -> None:
    assert allow_entry(" Hooks.Example.COM. ") == ("hooks.example.com", None)
    assert allow_entry("127.0.0.1:8080") == ("127.0.0.1", 8080)
    assert allow_entry("[::1]:8080") == ("::1", 8080)
    assert allow_entry("0:0::1") == ("::1", None)
    for bad in ("host:0", "host:x", "[::1", "a/b", "a:b:c", "user@host", ":80"):
        with pytest.raises(ValueError):
            allow_entry(bad)
    allow = AllowList.parse(["hooks.example.com", "127.0.0.1:8080", "[::1]:9000"])
    assert allow.allows("HOOKS.example.com.", 443) and allow.allows("hooks.example.com", 1)
    assert allow.allows("127.0.0.1", 8080) and not allow.allows("127.0.0.1", 8081)
    assert allow.allows("[::1]", 9000) and not allow.allows("::1", 9001)
    assert not allow.allows("localhost", 8080)  # a name is not the address it resolves to
    assert not allow.allows("www.hooks.example.com", 443)


class Answers:
    """A resolver that answers from a table, counting the questions."""

    def __init__(self, table: dict[str, list[list[str]]]) -> None:
        self.table = table
        self.asked: list[str] = []

    async def __call__(self, host: str, port: int) -> Sequence[str]:
        self.asked.append(host)
        answers = self.table.get(host)
        if not answers:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return answers.pop(0) if len(answers) > 1 else answers[0]


async def refused(egress: Egress, url: str) -> str:
    with pytest.raises(RefusedTarget) as caught:
        await egress.check_url(url)
    return str(caught.value)


async def test_registration_refuses_names_that_resolve_inside() -> None:
    dns = Answers(
        {
            "inside.example": [["10.0.0.5"]],
            "mixed.example": [["93.184.215.14", "127.0.0.1"]],
            "v6.example": [["2606:2800:21f:cb07:6820:80da:af6b:8b2c", "fd12::1"]],
            "public.example": [["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"]],
        }
    )
    egress = Egress(resolver=dns)
    # the addresses are not named: that would tell a registrant about internal DNS
    assert await refused(egress, "https://inside.example/") == (
        "inside.example resolves to a private address"
    )
    assert await refused(egress, "https://mixed.example/") == (
        "mixed.example resolves to a loopback address"
    )
    assert (
        await refused(egress, "https://v6.example/") == "v6.example resolves to a private address"
    )
    assert await refused(egress, "http://localhost:8080/") == "localhost is a loopback name"
    assert await refused(egress, "http://Api.LocalHost./") == "api.localhost. is a loopback name"
    assert await refused(egress, "http://[::1]:8080/") == "::1 is a loopback address"
    await egress.check_url("https://public.example/hook")
    await egress.check_url("https://not-yet.example/hook")  # does not resolve: checked later
    assert "localhost" not in dns.asked and "::1" not in dns.asked  # refused without asking
    allowed = Egress(AllowList.parse(["inside.example", "localhost:8080"]), resolver=dns)
    await allowed.check_url("https://inside.example/")
    await allowed.check_url("http://localhost:8080/")
    assert await refused(allowed, "http://localhost:8081/") == "localhost is a loopback name"


async def test_the_real_resolver_is_asked_for_a_name() -> None:
    """This machine's own name resolves (through /etc/hosts) to one of its own addresses."""
    name = socket.gethostname()
    found = {info[4][0] for info in socket.getaddrinfo(name, 80, type=socket.SOCK_STREAM)}
    reasons = {refusal(ipaddress.ip_address(str(a).partition("%")[0])) for a in found}
    if reasons == {None}:
        pytest.skip(f"{name} resolves to public addresses only here")
    assert (await refused(Egress(), f"http://{name}/")).startswith(f"{name} resolves to ")
