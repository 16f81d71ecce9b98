"""Query parameters: each operation takes only the ones it declares (the same list that
/openapi.json documents); anything else is a 400 naming it, never silently ignored."""

from __future__ import annotations

from typing import Any

import httpx

from tests.conftest import Workspace
from tests.http.test_auth import assert_envelope
from tests.http.test_records_crud import create, records_url

URL = records_url("contacts")


def unknown_keys(error: dict[str, Any]) -> list[str]:
    return [key for issue in error["issues"] for key in issue["keys"]]


async def test_an_unknown_filter_parameter_is_refused_not_ignored(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    await create(client, ws, "contacts", {"first-name": "Grace"}, name="Grace Hopper")
    await create(client, ws, "contacts", {"first-name": "Ada"}, name="Ada Lovelace")
    resp = await client.get(URL, headers=ws.headers, params={"first-name": "Grace"})
    error = assert_envelope(resp, 400, "validation_error")
    assert unknown_keys(error) == ["first-name"]
    assert error["issues"][0]["path"] == ["first-name"]
    assert "Unknown query parameter 'first-name'" in error["issues"][0]["message"]
    # the declared deepObject form of the same filter works
    ok = await client.get(URL, headers=ws.headers, params={"filter[first-name]": "Grace"})
    assert [r["displayName"] for r in ok.json()["records"]] == ["Grace Hopper"]


async def test_a_misspelt_parameter_is_named_with_a_suggestion(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    resp = await client.get(URL, headers=ws.headers, params={"pagesize": "5", "pageSize": "5"})
    error = assert_envelope(resp, 400, "validation_error")
    assert unknown_keys(error) == ["pagesize"]
    assert error["issues"][0]["message"] == (
        "Unknown query parameter 'pagesize'; did you mean 'pageSize'?"
    )


async def test_every_operation_checks_its_parameters(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    doc = (await client.get("/v1/openapi.json")).json()
    picker = doc["paths"]["/modules/{moduleSlug}/references/{referenceSlug}/picker"]["get"]
    assert {p["name"] for p in picker["parameters"] if p["in"] == "query"} == {"search", "limit"}
    cases = [
        ("GET", "/v1/me", {"verbose": "1"}),
        ("GET", "/v1/modules", {"page": "1"}),
        ("GET", "/v1/activity", {"limits": "5"}),
        ("POST", "/v1/search", {"q": "x"}),
        ("POST", "/v1/agents/messages", {"streaming": "true"}),
        ("GET", "/api/templates/catalog", {"x": "1"}),
        ("GET", "/v1/api/templates/catalog", {"x": "1"}),
    ]
    for method, path, params in cases:
        body = {"query": "x"} if path.endswith("search") else {"message": "hi"}
        resp = await client.request(
            method,
            path,
            params=params,
            headers=ws.headers,
            json=body if method == "POST" else None,
        )
        error = assert_envelope(resp, 400, "validation_error")
        assert unknown_keys(error) == list(params), (path, error)
    # declared parameters still pass
    assert (await client.get("/v1/activity", params={"limit": 5}, headers=ws.headers)).is_success
