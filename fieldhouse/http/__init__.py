"""The HTTP layer: the only package that imports Quart. ``http.app.create_app`` builds the
application over the services that ``fieldhouse.runtime`` assembles."""
