"""What ``fieldhouse serve`` prints once the server answers: the words a newcomer needs (the
address, the docs, the demo workspace's key and a first command), not before.

The supervisor's workers take seconds to start; a command printed while they do would wait
in silence. So the text is printed when ``GET /readyz`` answers 200 on the server's own
address (``{base}`` in it becomes that address), and until then the server says what it is
waiting for. Only trio is imported here: the supervisor uses it.
"""

from __future__ import annotations

import sys

import trio

#: how often the server's address is tried while it starts
POLL_SECONDS = 0.1
#: a note that the server is still starting, after this long without an answer
PATIENCE_SECONDS = 15.0
_PROBE = b"GET /readyz HTTP/1.1\r\nHost: fieldhouse\r\nConnection: close\r\n\r\n"


def base_url(host: str, port: int) -> str:
    """The address a client on this machine uses for a server bound to ``host``."""
    host = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


async def answers(base: str) -> bool:
    """Whether the server at ``base`` answers GET /readyz with 200."""
    host, _, port = base.removeprefix("http://").rpartition(":")
    try:
        with trio.fail_after(5):
            stream = await trio.open_tcp_stream(host.strip("[]"), int(port))
            async with stream:
                await stream.send_all(_PROBE)
                head = b""
                while b"\r\n" not in head and len(head) < 64:
                    chunk = await stream.receive_some(64)
                    if not chunk:
                        break
                    head += chunk
    except (OSError, trio.TooSlowError, trio.BrokenResourceError):
        return False
    return head.startswith((b"HTTP/1.1 200", b"HTTP/1.0 200"))


async def announce_when_ready(base: str, text: str) -> None:
    """Print ``text`` (with ``{base}`` filled in) once the server at ``base`` answers; say
    once what it is waiting for if that takes longer than PATIENCE_SECONDS."""
    started = trio.current_time()
    noted = False
    while not await answers(base):
        await trio.sleep(POLL_SECONDS)
        if trio.current_time() - started >= PATIENCE_SECONDS and not noted:
            print(f"Still starting: waiting for {base}/readyz to answer ...", flush=True)
            noted = True
    sys.stdout.write(text.replace("{base}", base) + "\n")
    sys.stdout.flush()
