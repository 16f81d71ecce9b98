"""The OpenAPI 3.1 document: valid, unauthenticated, and matching the served routes."""

from __future__ import annotations

import httpx
from openapi_spec_validator import validate

from fieldhouse.runtime import Runtime


async def test_document_validates(client: httpx.AsyncClient) -> None:
    resp = await client.get("/v1/openapi.json")
    assert resp.status_code == 200
    doc = resp.json()
    validate(doc)
    assert doc["openapi"] == "3.1.0"
    assert doc["info"]["version"] == "1.1.0"
    assert (await client.get("/openapi.json")).json() == doc


async def test_every_route_is_documented(client: httpx.AsyncClient, runtime: Runtime) -> None:
    doc = (await client.get("/openapi.json")).json()
    assert all("servers" not in item for item in doc["paths"].values())
    assert doc["servers"] == [{"url": "/v1"}]
    documented = {
        (method.upper(), "/v1" + path) for path, item in doc["paths"].items() for method in item
    }
    served = set(runtime.app.table.routes())
    # /openapi.json at the host root is an alias of the documented /v1/openapi.json; the docs
    # page, its files, the console and its files and the Prometheus text are not JSON operations
    pages = {
        ("GET", p)
        for p in (
            "/openapi.json",
            "/docs",
            "/docs/assets/{name}",
            "/console",
            "/console/assets/{name}",
            "/metrics",
        )
    }
    # served under /v1 too, as every path outside it is
    pages |= {(m, "/v1" + p) for m, p in pages if p != "/openapi.json"}
    # the SPEC's /api/... paths (and /pages/...) are served at the host root and, as
    # documented, under /v1, so a client with the document's one base URL reaches every
    # operation
    outside = {(m, p) for m, p in served if not p.startswith("/v1/")} - pages
    assert {(m, "/v1" + p) for m, p in outside} <= documented
    assert ("POST", "/api/modules/{moduleId}/fields") in outside
    assert ("GET", "/healthz") in outside and ("GET", "/v1/healthz") in documented
    assert served - outside - pages == documented
    me = doc["paths"]["/me"]["get"]
    assert me["x-required-scope"] == "workspace:read"
    assert "401" in me["responses"] and "429" in me["responses"]
    assert doc["paths"]["/openapi.json"]["get"]["security"] == []


async def test_error_answers_are_declared_as_errors_with_retry_after(
    client: httpx.AsyncClient,
) -> None:
    doc = (await client.get("/v1/openapi.json")).json()
    chat = doc["paths"]["/agents/messages"]["post"]["responses"]
    assert chat["404"]["description"] != "Success"
    assert chat["404"]["content"]["application/json"]["schema"]["$ref"].endswith("ErrorEnvelope")
    operations = [op for item in doc["paths"].values() for op in item.values()]
    for op in operations:
        for status, response in op["responses"].items():
            if status in ("429", "503"):
                assert "Retry-After" in response["headers"], op["operationId"]
            if int(status) >= 400:
                assert response["description"] != "Success", op["operationId"]
