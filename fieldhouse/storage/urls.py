"""Which engine a database URL names: apart from :mod:`fieldhouse.storage.open`, which imports
the engines, so that ``fieldhouse serve`` can take its lock (:mod:`fieldhouse.storage.backend`)
and start its first worker before importing them."""

from __future__ import annotations

from urllib.parse import urlparse


class UnsupportedDatabase(ValueError):
    """The database URL names a backend this build does not have."""


def is_postgres(url: str) -> bool:
    return urlparse(url).scheme in ("postgres", "postgresql")
