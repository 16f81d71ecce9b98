"""A tiny SMTP server on trio that keeps every message it receives (for delivery tests)."""

from __future__ import annotations

from dataclasses import dataclass, field

import trio


@dataclass
class Received:
    sender: str
    recipients: list[str]
    data: str


@dataclass
class SmtpSink:
    port: int = 0
    messages: list[Received] = field(default_factory=list)

    async def serve(self, *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        self.port = listeners[0].socket.getsockname()[1]
        task_status.started(self.port)
        await trio.serve_listeners(self._session, listeners)

    async def _session(self, stream: trio.SocketStream) -> None:
        async with stream:
            buffer = b""

            async def line() -> bytes:
                nonlocal buffer
                while b"\r\n" not in buffer:
                    chunk = await stream.receive_some(4096)
                    if not chunk:
                        raise trio.EndOfChannel
                    buffer += chunk
                head, _, buffer = buffer.partition(b"\r\n")
                return head

            await stream.send_all(b"220 sink ready\r\n")
            sender, recipients = "", []
            try:
                while True:
                    command = (await line()).decode()
                    verb = command[:4].upper()
                    if verb in ("EHLO", "HELO"):
                        await stream.send_all(b"250-sink\r\n250 8BITMIME\r\n")
                    elif verb == "MAIL":
                        sender, recipients = command.split(":", 1)[1].strip(" <>"), []
                        await stream.send_all(b"250 OK\r\n")
                    elif verb == "RCPT":
                        recipients.append(command.split(":", 1)[1].strip(" <>"))
                        await stream.send_all(b"250 OK\r\n")
                    elif verb == "DATA":
                        await stream.send_all(b"354 go ahead\r\n")
                        lines = []
                        while (text := await line()) != b".":
                            lines.append(text.decode())
                        self.messages.append(Received(sender, recipients, "\n".join(lines)))
                        await stream.send_all(b"250 queued\r\n")
                    elif verb == "QUIT":
                        await stream.send_all(b"221 bye\r\n")
                        return
                    else:
                        await stream.send_all(b"250 OK\r\n")
            except trio.EndOfChannel:
                return
