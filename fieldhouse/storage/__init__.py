"""The Store: every SQL statement of Fieldhouse lives in this package.

Its names are imported on first use (PEP 562): the engines take ~0.1 s to import, which
``fieldhouse serve`` spends after it has started its first worker (it needs only
:mod:`fieldhouse.storage.backend` before that).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fieldhouse.storage.base import ApiKeyRow, UserRow
    from fieldhouse.storage.open import open_database
    from fieldhouse.storage.store import Store, WriteTxn

__all__ = ["ApiKeyRow", "Store", "UserRow", "WriteTxn", "open_database"]

_WHERE = {
    "ApiKeyRow": "fieldhouse.storage.base",
    "UserRow": "fieldhouse.storage.base",
    "open_database": "fieldhouse.storage.open",
    "Store": "fieldhouse.storage.store",
    "WriteTxn": "fieldhouse.storage.store",
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(_WHERE[name]), name)
