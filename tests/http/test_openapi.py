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
    documented = {
        (method.upper(), ("/v1" + path) if "servers" not in item else path)
        for path, item in doc["paths"].items()
        for method in item
        if method != "servers"
    }
    served = set()
    for rule in runtime.app.url_map.iter_rules():
        if rule.endpoint == "static":
            continue
        path = rule.rule.replace("<", "{").replace(">", "}")
        for method in rule.methods or ():
            if method not in ("HEAD", "OPTIONS"):
                served.add((method, path))
    # /openapi.json at the host root is an alias of the documented /v1/openapi.json; the docs
    # page, its files and the Prometheus text are not JSON operations
    pages = {("GET", p) for p in ("/openapi.json", "/docs", "/docs/assets/{name}", "/metrics")}
    assert served - pages == documented
    me = doc["paths"]["/me"]["get"]
    assert me["x-required-scope"] == "workspace:read"
    assert "401" in me["responses"] and "429" in me["responses"]
    assert doc["paths"]["/openapi.json"]["get"]["security"] == []
