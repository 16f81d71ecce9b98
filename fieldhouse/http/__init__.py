"""The HTTP layer: the only package that imports Quart."""

from __future__ import annotations

from fieldhouse.http.app import create_app

__all__ = ["create_app"]
