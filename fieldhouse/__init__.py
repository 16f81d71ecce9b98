"""Fieldhouse: a multi-tenant workspace data server (see README.md)."""

from __future__ import annotations

__version__ = "0.1.0"
API_VERSION = "1.1.0"
