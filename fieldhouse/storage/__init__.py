"""The Store: every SQL statement of Fieldhouse lives in this package."""

from __future__ import annotations

from fieldhouse.storage.base import ApiKeyRow, UserRow
from fieldhouse.storage.open import open_database
from fieldhouse.storage.store import Store, WriteTxn

__all__ = ["ApiKeyRow", "Store", "UserRow", "WriteTxn", "open_database"]
