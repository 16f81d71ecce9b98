"""One outbox e-mail over SMTP: the URL's parts, the message, delivery to a real (tiny) SMTP
server on loopback, and a refused connection as DeliveryFailed."""

from __future__ import annotations

import socket

import pytest
import trio

from fieldhouse.agents.smtp import DeliveryFailed, build_message, parse_smtp_url, send_email
from tests.agents.smtp_sink import SmtpSink


def test_urls() -> None:
    plain = parse_smtp_url("smtp://mail.example")
    assert (plain.host, plain.port, plain.tls, plain.starttls) == ("mail.example", 25, False, False)
    assert (plain.username, plain.password, plain.sender) == (None, None, "fieldhouse@localhost")
    full = parse_smtp_url("smtps://ada%40x.io:p%3Ass@mail.example?from=crm@x.io")
    assert (full.port, full.tls, full.username, full.password) == (465, True, "ada@x.io", "p:ss")
    assert full.sender == "crm@x.io"
    assert parse_smtp_url("smtp://h:2525?starttls=yes").starttls is True


@pytest.mark.parametrize("url", ["http://mail.example", "smtp://", "mail.example:25"])
def test_other_urls_are_refused_by_name(url: str) -> None:
    with pytest.raises(ValueError, match="FIELDHOUSE_SMTP_URL must be smtp://host"):
        parse_smtp_url(url)


def test_the_message_carries_recipients_subject_and_body() -> None:
    message = build_message(
        "crm@x.io", {"to": ["a@x.io", "b@x.io"], "cc": ["c@x.io"], "subject": "Hi", "body": "Yo"}
    )
    assert message["To"] == "a@x.io, b@x.io"
    assert message["Cc"] == "c@x.io"
    assert message["Subject"] == "Hi"
    assert message.get_content().strip() == "Yo"
    assert build_message("crm@x.io", {"to": ["a@x.io"]})["Cc"] is None


async def test_an_email_reaches_the_server(nursery: trio.Nursery) -> None:
    sink = SmtpSink()
    port = await nursery.start(sink.serve)
    await send_email(
        f"smtp://127.0.0.1:{port}?from=crm@x.io",
        {"to": ["ada@x.io"], "subject": "Renewal", "body": "See you Monday"},
    )
    [received] = sink.messages
    assert (received.sender, received.recipients) == ("crm@x.io", ["ada@x.io"])
    assert "Subject: Renewal" in received.data and "See you Monday" in received.data


async def test_an_unreachable_server_is_a_delivery_failure() -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(DeliveryFailed, match=r"^SMTP delivery failed: "):
        await send_email(f"smtp://127.0.0.1:{port}", {"to": ["ada@x.io"]})
