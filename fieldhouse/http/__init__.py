"""The HTTP layer: the only package that imports Quart (for its Response class) and, in
``http.wire``, hypercorn. ``http.app.create_app`` builds the ASGI application over the
services that ``fieldhouse.runtime`` assembles; ``http.wire.server`` serves it."""
