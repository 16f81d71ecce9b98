"""The HTTP layer: the only package that imports hypercorn (in ``http.wire``).
``http.app.create_app`` builds the ASGI application over the services that
``fieldhouse.runtime`` assembles; ``http.wire.server`` serves it."""
