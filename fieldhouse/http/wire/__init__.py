"""The server on the wire: sockets, HTTP/1.1, connections, the accept loop. The only package
that imports hypercorn or httptools; the application above it is a plain ASGI callable
(``fieldhouse.http.dispatch``), told of a URL too long through its scope's ``state``
(``rules.URL_TOO_LONG``).

- ``server``: the accept loop (hypercorn's trio ``worker_serve``, written out), the lifespan,
  graceful shutdown, a 500 in the envelope for an app that fails before answering.
- ``balance``: connections spread over the workers that share one listening socket.
- ``connection``: one connection (Fieldhouse's own, in place of hypercorn's ``TCPServer``):
  the keep-alive and header timer, direct reads and writes on the socket, the task group its
  requests' apps run in.
- ``h1``: HTTP/1.1 through llhttp (httptools) instead of h11, under hypercorn's ``HTTPStream``.
- ``rules``: what a request head must be; the refusals, in the error envelope.

No underscored name of hypercorn or httptools is used. What is used beyond their documented
API (each module's docstring says which it uses; tests/http/wire/test_private_names.py checks
every one, with the signatures and behaviour relied on, and pyproject.toml pins hypercorn and
httptools below their next minor version):

- hypercorn: ``protocol.http_stream.HTTPStream`` (constructor, ``handle``, the task group's
  ``spawn_app`` it calls, the request ``state`` it copies into the scope, the
  ``http.disconnect`` it puts on close), the events of ``events`` and ``protocol.events``,
  ``trio.lifespan.Lifespan``, ``trio.worker_context.WorkerContext``, ``utils``
  (``ShutdownError``, ``raise_shutdown``, ``repr_socket_addr``, ``parse_socket_addr``,
  ``wrap_app`` and its wrapper's five-argument call), ``Config``'s fields and ``log``;
- httptools: ``HttpRequestParser``'s callbacks and getters, and its errors
  (``HttpParserUpgrade``, ``HttpParserCallbackError`` whose ``__context__`` is the callback's
  own exception, ``HttpParserError`` whose message the 400 quotes).
"""
