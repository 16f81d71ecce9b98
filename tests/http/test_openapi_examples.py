"""Every request body and parameter in /openapi.json has an example, valid by its schema, and
each operation sent with its examples (what Swagger UI's "Try it out" does) is not refused as
invalid against the demo workspace; the filter syntax is in the parameters' descriptions."""

from __future__ import annotations

import json
import re
from datetime import date
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator

from fieldhouse.demo import create_demo
from fieldhouse.http.openapi_examples import EXAMPLE_ID, KEEP_DEFAULTS
from fieldhouse.runtime import Runtime

#: operations whose example cannot succeed here, and why (each still is no 500)
UNREACHABLE = {
    # its example names a public host; this machine resolves no public names
    ("post", "/webhooks"): "resolves hooks.example.com",
}


async def _document(client: httpx.AsyncClient) -> dict[str, Any]:
    resp = await client.get("/v1/openapi.json")
    assert resp.status_code == 200
    return dict(resp.json())


def _operations(doc: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(m, p, op) for p, ops in doc["paths"].items() for m, op in ops.items()]


async def test_every_body_and_parameter_has_a_valid_example(
    client: httpx.AsyncClient,
) -> None:
    doc = await _document(client)
    missing = []
    for method, path, op in _operations(doc):
        for param in op["parameters"]:
            if "example" not in param:
                missing.append(f"{method} {path} {param['name']}")
            elif param["example"] == "":  # left out by "Try it out": only an optional one
                assert not param["required"], (method, path, param["name"])
            else:
                root = {**param["schema"], "components": doc["components"]}
                Draft202012Validator(root).validate(param["example"])
        body = op.get("requestBody")
        if body is None:
            continue
        media = body["content"]["application/json"]
        if "example" not in media:
            missing.append(f"{method} {path} body")
            continue
        root = {**media["schema"], "components": doc["components"]}
        Draft202012Validator(root).validate(media["example"])
    assert missing == []


async def test_request_bodies_carry_no_defaults(client: httpx.AsyncClient) -> None:
    """openapi-typescript (default settings) makes a property with a default required."""
    doc = await _document(client)
    schemas = doc["components"]["schemas"]
    bodies = {
        op["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
        for _, _, op in _operations(doc)
        if "requestBody" in op
    }
    defaults = [
        f"{name}.{prop}"
        for name in bodies - KEEP_DEFAULTS
        for prop, schema in schemas[name].get("properties", {}).items()
        if "default" in schema
    ]
    assert defaults == []
    assert "Omitted: 25." in schemas["SearchBody"]["properties"]["limit"]["description"]
    update = schemas["RecordUpdateBody"]["properties"]
    assert update["displayName"]["type"] == "string" and update["fields"]["type"] == "object"


async def test_the_filter_syntax_is_where_clients_read_it(client: httpx.AsyncClient) -> None:
    doc = await _document(client)
    params = {
        p["name"]: p for p in doc["paths"]["/modules/{moduleSlug}/records"]["get"]["parameters"]
    }
    advanced = params["advancedFilter"]["description"]
    for word in ("conjunction", "fieldSlug", "isNotNull", "between", "advancedFilter must be"):
        assert word in advanced
    assert "SPEC" not in advanced
    assert "filter[<fieldSlug>]=a,b" in params["filter"]["description"]


def _request(
    path: str, op: dict[str, Any]
) -> tuple[str, list[tuple[str, str]], Any, dict[str, str]]:
    url = "/v1" + re.sub(
        r"\{(\w+)\}",
        lambda m: str(next(p["example"] for p in op["parameters"] if p["name"] == m.group(1))),
        path,
    )
    query: list[tuple[str, str]] = []
    headers: dict[str, str] = {}
    for p in op["parameters"]:
        value = p["example"]
        if value == "":
            continue  # Swagger UI leaves an empty field out
        if p["in"] == "header":
            headers[p["name"]] = str(value)
        elif p["in"] == "query" and p["name"] != "stream":
            if p.get("style") == "deepObject":
                query += [(f"{p['name']}[{k}]", str(v)) for k, v in value.items()]
            else:
                query.append(
                    (p["name"], json.dumps(value) if isinstance(value, bool) else str(value))
                )
    body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("example")
    return url, query, body, headers


async def test_each_operation_works_with_its_examples(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    demo = await create_demo(runtime.actors, today=date(2026, 3, 2))
    doc = await _document(client)
    refused = []
    for method, path, op in _operations(doc):
        responses = op["responses"].get("200", {}).get("content", {})
        if list(responses) == ["text/event-stream"]:
            continue  # a feed that stays open (GET /events)
        url, query, body, headers = _request(path, op)
        headers["Authorization"] = f"Bearer {demo.api_key}"
        resp = await client.request(method, url, params=query, json=body, headers=headers)
        assert resp.status_code < 500, (method, path, resp.text)
        if resp.status_code == 400 and (method, path) not in UNREACHABLE:
            refused.append((method, path, resp.json()["error"]))
    assert refused == [], "\n".join(map(str, refused))


@pytest.mark.parametrize("module", ["contacts"])
async def test_the_list_examples_find_demo_records(
    client: httpx.AsyncClient, runtime: Runtime, module: str
) -> None:
    demo = await create_demo(runtime.actors, today=date(2026, 3, 2))
    doc = await _document(client)
    op = doc["paths"]["/modules/{moduleSlug}/records"]["get"]
    url, query, _, _ = _request("/modules/{moduleSlug}/records", op)
    assert url == f"/v1/modules/{module}/records"
    assert EXAMPLE_ID not in str(query)
    resp = await client.get(url, params=query, headers={"Authorization": f"Bearer {demo.api_key}"})
    assert resp.status_code == 200, resp.text
    assert resp.json()["total"] > 0
