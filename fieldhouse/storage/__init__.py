"""The Store: every SQL statement of Fieldhouse lives in this package."""

from __future__ import annotations

from fieldhouse.storage.base import ApiKeyRow, Store, UserRow, WriteTxn
from fieldhouse.storage.open import open_database, open_store

__all__ = ["ApiKeyRow", "Store", "UserRow", "WriteTxn", "open_database", "open_store"]
