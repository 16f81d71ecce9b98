"""JSON responses through orjson."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from quart import Response


def json_response(
    payload: Any, status: int = 200, headers: Mapping[str, str] | None = None
) -> Response:
    if status == 204:
        empty = Response(b"", status=204, headers=dict(headers or {}))
        del empty.headers["Content-Type"]
        return empty
    return Response(
        orjson.dumps(payload),
        status=status,
        content_type="application/json",
        headers=dict(headers or {}),
    )
