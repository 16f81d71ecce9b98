"""The server on the wire: sockets, HTTP/1.1, connections, the accept loop. The only package
that imports hypercorn or httptools; the application above it is a plain ASGI callable.

- ``server``: the accept loop (hypercorn's trio ``worker_serve``, written out), the lifespan,
  graceful shutdown.
- ``balance``: connections spread over the workers that share one listening socket.
- ``connection``: one connection (hypercorn's ``TCPServer`` subclassed): the keep-alive timer,
  direct reads and writes on the socket.
- ``h1``: HTTP/1.1 through llhttp (httptools) instead of h11, under hypercorn's ``HTTPStream``.

hypercorn's names this package leans on beyond its documented ``serve`` (each is checked by
tests/http/wire/test_private_names.py, and pyproject.toml pins hypercorn and httptools below
their next minor version):

- private: ``hypercorn.trio.task_group._handle`` (runs an ASGI app for a stream),
  ``TaskGroup._nursery``, ``TCPServer._task_group``, ``TCPServer._idle_timeout``,
  ``TCPServer._initiate_server_close``, ``TCPServer._close``, ``TCPServer._read_data``
  (overridden, and called by the overridden ``run``);
- internal modules without a documented API: ``hypercorn.protocol.http_stream.HTTPStream``
  and the events of ``hypercorn.events`` and ``hypercorn.protocol.events``,
  ``hypercorn.trio.lifespan.Lifespan``, ``hypercorn.trio.worker_context.WorkerContext``,
  ``hypercorn.utils`` (``ShutdownError``, ``raise_shutdown``, ``repr_socket_addr``,
  ``parse_socket_addr``, ``wrap_app``), ``hypercorn.trio.tcp_server.MAX_RECV``;
- httptools' ``HttpRequestParser`` callbacks and errors (``HttpParserUpgrade``,
  ``HttpParserCallbackError`` whose ``__context__`` is the callback's own exception).
"""
