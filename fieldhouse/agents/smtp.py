"""Sending one outbox e-mail over SMTP (the standard library's smtplib, in a worker thread).

FIELDHOUSE_SMTP_URL: ``smtp://[user:password@]host[:port][?from=addr&starttls=1]``, or
``smtps://`` for implicit TLS. ``from`` defaults to ``fieldhouse@localhost``.
"""

from __future__ import annotations

import smtplib
from collections.abc import Mapping
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import trio

#: seconds smtplib waits on the server at each step
SMTP_TIMEOUT = 30.0


class DeliveryFailed(Exception):
    """The SMTP server refused the message or could not be reached."""


@dataclass(frozen=True)
class SmtpTarget:
    host: str
    port: int
    tls: bool
    starttls: bool
    username: str | None
    password: str | None
    sender: str


def parse_smtp_url(url: str) -> SmtpTarget:
    parts = urlsplit(url)
    if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
        raise ValueError(
            f"FIELDHOUSE_SMTP_URL must be smtp://host[:port] or smtps://…, not {url!r}"
        )
    query = parse_qs(parts.query)
    tls = parts.scheme == "smtps"
    return SmtpTarget(
        host=parts.hostname,
        port=parts.port or (465 if tls else 25),
        tls=tls,
        starttls=query.get("starttls", ["0"])[0] in ("1", "true", "yes"),
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
        sender=query.get("from", ["fieldhouse@localhost"])[0],
    )


def build_message(sender: str, data: Mapping[str, Any]) -> EmailMessage:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = ", ".join(data.get("to", []))
    if data.get("cc"):
        message["Cc"] = ", ".join(data["cc"])
    message["Subject"] = str(data.get("subject", ""))
    message.set_content(str(data.get("body", "")))
    return message


def _send_blocking(target: SmtpTarget, message: EmailMessage, timeout: float) -> None:
    factory = smtplib.SMTP_SSL if target.tls else smtplib.SMTP
    try:
        with factory(target.host, target.port, timeout=timeout) as client:
            if target.starttls:
                client.starttls()
            if target.username:
                client.login(target.username, target.password or "")
            client.send_message(message)
    except (smtplib.SMTPException, OSError) as exc:
        raise DeliveryFailed(f"SMTP delivery failed: {exc}") from exc


async def send_email(url: str, data: Mapping[str, Any]) -> None:
    """Deliver one e-mail; raises DeliveryFailed."""
    target = parse_smtp_url(url)
    message = build_message(target.sender, data)
    await trio.to_thread.run_sync(_send_blocking, target, message, SMTP_TIMEOUT)
