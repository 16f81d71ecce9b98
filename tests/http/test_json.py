"""JSON responses: orjson bodies, and a 204 with no body and no content type."""

from __future__ import annotations

import orjson

from fieldhouse.http.json import json_response


async def test_a_payload_is_json_with_its_status_and_headers() -> None:
    response = json_response({"id": "r1", "n": [1, None]}, 201, {"Location": "/v1/x/r1"})
    assert response.status_code == 201
    assert response.content_type == "application/json"
    assert response.headers["Location"] == "/v1/x/r1"
    assert orjson.loads(await response.get_data()) == {"id": "r1", "n": [1, None]}


async def test_204_has_no_body_and_no_content_type() -> None:
    response = json_response({"ignored": True}, 204, {"X-Request-Id": "abc"})
    assert response.status_code == 204
    assert await response.get_data() == b""
    assert "Content-Type" not in response.headers
    assert response.headers["X-Request-Id"] == "abc"
