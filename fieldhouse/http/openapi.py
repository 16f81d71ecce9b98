"""The OpenAPI 3.1 document, built from the endpoints' own models."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from fieldhouse import API_VERSION
from fieldhouse.http.endpoint import PATH_PARAM, Endpoint
from fieldhouse.http.models import ErrorEnvelope
from fieldhouse.http.openapi_examples import add_examples
from fieldhouse.http.openapi_notes import (
    COERCIONS,
    IDEMPOTENCY_HEADER,
    conflict_response,
    keyed,
    note_write_forms,
)
from fieldhouse.model.fields import FIELD_TYPES
from fieldhouse.model.principal import ADMIN_ROLES

REF = "#/components/schemas/{model}"
_ERROR_STATUSES = {
    400: "Invalid request (validation_error with issues, or bad_request)",
    401: "Missing or invalid credentials",
    403: "Missing scope or insufficient role permissions",
    404: "Not found",
    409: "Conflict",
    413: "Request body too large",
    429: "Rate limit exceeded (see Retry-After)",
    500: "Internal error",
    503: "Service unavailable (see Retry-After)",
}
_RATE_HEADERS = {
    "X-RateLimit-Limit": "Requests allowed per key in the one-minute window",
    "X-RateLimit-Remaining": "Requests left in the current window",
    "X-RateLimit-Reset": "Unix time (seconds) when the window resets",
}


#: documents already built, by the identity of their endpoints (kept alive with them, so an id
#: is never reused): every runtime of a process documents the same routes, and building the
#: document takes ~0.4 s (pydantic's JSON schemas), paid once
_BUILT: dict[tuple[int, ...], tuple[Sequence[Endpoint], dict[str, Any]]] = {}


def build_openapi(endpoints: Sequence[Endpoint]) -> dict[str, Any]:
    """The OpenAPI document over ``endpoints`` (shared: callers must not change it)."""
    key = tuple(map(id, endpoints))
    found = _BUILT.get(key)
    if found is None:
        kept = tuple(endpoints)
        found = _BUILT[key] = (kept, _build(kept))
    return found[1]


def _build(endpoints: Sequence[Endpoint]) -> dict[str, Any]:
    endpoints = [ep for ep in endpoints if not ep.hidden]
    models: set[type[BaseModel]] = {ErrorEnvelope}
    for ep in endpoints:
        for model in (ep.body, *ep.responses.values()):
            if model is not None:
                models.add(model)
    ordered = sorted(models, key=lambda m: m.__name__)
    _, defs = models_json_schema([(m, "validation") for m in ordered], ref_template=REF)
    schemas: dict[str, Any] = dict(defs.get("$defs", {}))
    schemas.update(field_value_schemas())
    schemas.update(agent_event_schemas())
    _link_field_values(schemas)
    note_write_forms(schemas)

    paths: dict[str, dict[str, Any]] = {}
    for ep in endpoints:
        path = ep.path.removeprefix("/v1") if ep.path.startswith("/v1/") else ep.path
        # an /api/... path (the SPEC's template endpoints, outside the versioned base) is also
        # served under /v1, so the document's one server reaches it: generators ignore
        # path-level servers
        paths.setdefault(path, {})[ep.method.lower()] = _operation(ep)
    doc = {
        "openapi": "3.1.0",
        "info": {
            "title": "Fieldhouse Workspace Data API",
            "version": API_VERSION,
            "description": "Multi-tenant workspace data: modules, records, search, activity, "
            "agents. Every error uses the envelope {error: {code, message, statusCode}}.\n\n"
            + COERCIONS,
        },
        "servers": [{"url": "/v1"}],
        "security": [{"bearerAuth": []}],
        "tags": [{"name": t} for t in sorted({ep.tag for ep in endpoints})],
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "bearerAuth": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "An API key (sk_live_...) or a session JWT",
                }
            },
            "headers": {
                name: {"description": text, "schema": {"type": "integer"}}
                for name, text in _RATE_HEADERS.items()
            },
        },
    }
    add_examples(doc)
    return doc


def field_value_schemas() -> dict[str, Any]:
    """``FieldValue_<dataType>``: the shape of a record's value for each field type, as read.
    An object shape used twice in one of them (an address alone and inside a multi-entry
    item) becomes its own component ``FieldValue_<dataType>_object``, so a generator makes
    one model of it instead of two with one name."""
    out: dict[str, Any] = {}
    for name, kind in FIELD_TYPES.items():
        schema = {
            **kind.value_schema(),
            "description": f"A record value of a {name} field"
            + (" (computed by the server, read-only)" if kind.read_only else ""),
        }
        out.update(_lift_repeated_objects(f"FieldValue_{name}", schema))
    return out


def _lift_repeated_objects(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    seen: dict[str, int] = {}

    def count(node: Any, top: bool) -> None:
        if isinstance(node, dict):
            if not top and node.get("type") == "object" and "properties" in node:
                key = json.dumps(node, sort_keys=True)
                seen[key] = seen.get(key, 0) + 1
            for value in node.values():
                count(value, False)
        elif isinstance(node, list):
            for value in node:
                count(value, False)

    count(schema, True)
    repeated = [key for key, n in seen.items() if n > 1]
    if len(repeated) != 1:  # none (the usual case), or more than one name would be needed
        return {name: schema}
    lifted = f"{name}_object"
    ref = {"$ref": REF.format(model=lifted)}

    def swap(node: Any) -> Any:
        if isinstance(node, dict):
            if json.dumps(node, sort_keys=True) == repeated[0]:
                return ref
            return {k: swap(v) for k, v in node.items()}
        if isinstance(node, list):
            return [swap(v) for v in node]
        return node

    return {name: swap(schema), lifted: json.loads(repeated[0])}


def _loose(schema: dict[str, Any], schemas: dict[str, Any]) -> bool:
    """Whether the value may be an object none of whose properties is required."""
    shapes = [
        schemas[s["$ref"].rsplit("/", 1)[1]] if "$ref" in s else s
        for s in schema.get("oneOf", [schema])
    ]
    return any(s.get("type") == "object" and not s.get("required") for s in shapes)


def _link_field_values(schemas: dict[str, Any]) -> None:
    """A record's ``fields`` maps field slugs to values whose shape is the field's type: the
    value is one of the FieldValue_<dataType> schemas (or null when unset)."""
    # shapes with required properties first: a generated client tries them in order, and an
    # address (every property optional) would otherwise take a currency's {amount, currency}
    names = sorted(FIELD_TYPES, key=lambda name: _loose(schemas[f"FieldValue_{name}"], schemas))
    value = {
        "anyOf": [
            *({"$ref": REF.format(model=f"FieldValue_{name}")} for name in names),
            {"type": "null"},
        ],
        "description": "The value of the field with this slug: FieldValue_<dataType> of the "
        "field's dataType (GET /modules/{moduleSlug}/fields), or null when unset",
    }
    for model in ("Record", "PickerItem"):
        fields = schemas[model]["properties"]["fields"]
        fields["additionalProperties"] = value
        fields["description"] = "Field values by field slug"


def _ref(model: type[BaseModel]) -> dict[str, str]:
    return {"$ref": REF.format(model=model.__name__)}


def _operation(ep: Endpoint) -> dict[str, Any]:
    op: dict[str, Any] = {
        "operationId": ep.operation_id,
        "summary": ep.summary,
        "tags": [ep.tag],
        "parameters": _parameters(ep),
        "responses": _responses(ep),
    }
    if ep.description:
        op["description"] = ep.description
    if ep.scope is None:
        op["security"] = []
    else:
        _access(ep, op)
    if ep.body is not None:
        op["requestBody"] = {
            "required": not ep.body_optional,
            "content": {"application/json": {"schema": _ref(ep.body)}},
        }
    _feed_operation(ep, op)
    return op


def _parameters(ep: Endpoint) -> list[dict[str, Any]]:
    params: list[dict[str, Any]] = []
    for name in PATH_PARAM.findall(ep.path):
        schema: dict[str, Any] = {"type": "string"}
        if name == "moduleSlug":
            schema.update(minLength=1, maxLength=64)
        elif name in (
            "recordId",
            "moduleId",
            "fieldId",
            "approvalId",
            "webhookId",
            "runId",
            "keyId",
        ):
            schema["format"] = "uuid"
        params.append({"name": name, "in": "path", "required": True, "schema": schema})
    for param in ep.query_params:
        entry: dict[str, Any] = {
            "name": param.name,
            "in": "query",
            "required": param.required,
            "schema": dict(param.schema),
        }
        if param.description:
            entry["description"] = param.description
        if param.style is not None:
            entry["style"] = param.style
        if param.explode is not None:
            entry["explode"] = param.explode
        params.append(entry)
    return params


def _responses(ep: Endpoint) -> dict[str, Any]:
    rate_headers = {name: {"$ref": f"#/components/headers/{name}"} for name in _RATE_HEADERS}
    out: dict[str, Any] = {}
    for status, model in ep.responses.items():
        if status < 400:  # a declared error answer is the envelope, like every other error
            out[str(status)] = _success(ep, status, model, rate_headers)
    retry_after = {
        "Retry-After": {
            "description": "Seconds to wait before retrying",
            "schema": {"type": "integer", "minimum": 1},
        }
    }
    conflict = conflict_response(
        ep, {**rate_headers, **retry_after} if keyed(ep) else rate_headers, _ref(ErrorEnvelope)
    )
    if conflict is not None:
        out["409"] = conflict
    for status in sorted(_error_statuses(ep)):
        headers = {**rate_headers, **retry_after} if status in (429, 503) else rate_headers
        out.setdefault(str(status), declared_error(status, headers))
    return out


def _success(
    ep: Endpoint, status: int, model: type[BaseModel] | None, headers: dict[str, Any]
) -> dict[str, Any]:
    """A success answer: its body as ``model`` (an agent run's also as its event stream), an
    event stream only, nothing (204) or some object."""
    entry: dict[str, Any] = {"description": "Success", "headers": headers}
    streams = ep.stream and status == 200
    if streams and model is not None:
        entry["content"] = {
            "application/json": {"schema": _ref(model)},
            "text/event-stream": agent_event_stream(model),
        }
    elif model is not None:
        entry["content"] = {"application/json": {"schema": _ref(model)}}
    elif streams:  # events only (GET /v1/events): its description
        entry["content"] = {"text/event-stream": {"schema": {"type": "string"}}}
    elif status != 204:
        entry["content"] = {"application/json": {"schema": {"type": "object"}}}
    return entry


def _error_statuses(ep: Endpoint) -> list[int]:
    """The error statuses an operation may answer: what its checks give (an operation open
    to all that reads nothing from the request only 429 and 500), 404 for a path naming
    something, and those it declares."""
    statuses = [400, 429, 500] if ep.scope is None else [400, 401, 403, 404, 413, 429, 500, 503]
    if ep.body is None and ep.query is None and ep.scope is None:
        statuses = [429, 500]
    if "{" in ep.path and 404 not in statuses:  # a path naming something that is not there
        statuses.append(404)
    return statuses + [s for s in ep.responses if s >= 400 and s not in statuses]


def _access(ep: Endpoint, op: dict[str, Any]) -> None:
    """What the server checks before running the operation, said three ways: the security
    requirement (in OpenAPI 3.1 a bearer scheme's list names the roles or scopes needed),
    x-required-scope(s) and x-required-role for tools, and a sentence for people."""
    scopes = list(ep.required_scopes)
    op["security"] = [{"bearerAuth": scopes}]
    op["x-required-scope"] = ep.scope
    op["x-required-scopes"] = scopes
    if ep.every_scope:
        needs = "a credential not limited to some scopes (a key without scopes, or with all of "
        needs += ", ".join(f"`{s}`" for s in scopes) + ")"
    else:
        needs = f"a credential with the `{ep.scope}` scope"
    if ep.admin_only:
        op["x-required-role"] = sorted(ADMIN_ROLES)
        needs += " whose user is a workspace " + " or ".join(sorted(ADMIN_ROLES))
    text = f"Requires {needs}; otherwise 403 forbidden."
    op["description"] = f"{op['description']}\n\n{text}" if "description" in op else text


# --- keyed writes: the Idempotency-Key header and its 422 (its 409s are in _responses) ---


def _feed_operation(ep: Endpoint, op: dict[str, Any]) -> None:
    if not keyed(ep):
        return
    op["parameters"].append(IDEMPOTENCY_HEADER)
    error = {"application/json": {"schema": _ref(ErrorEnvelope)}}
    op["responses"].setdefault(
        "422", {"description": "Idempotency-Key reused for another request", "content": error}
    )


# --- agent runs: declared error statuses and the event stream's events (issue 13) ---


def declared_error(status: int, headers: dict[str, Any]) -> dict[str, Any]:
    """An error status an endpoint declares (with ``None`` as its model): the error envelope."""
    return {
        "description": _ERROR_STATUSES.get(status, "Error"),
        "headers": headers,
        "content": {"application/json": {"schema": _ref(ErrorEnvelope)}},
    }


_UUID = {"type": "string", "format": "uuid"}
_AGENT_EVENTS: dict[str, tuple[str, dict[str, Any], list[str]]] = {
    "open": (
        "The stream is established; runId names the run (GET /agents/runs/{runId})",
        {"agentId": {"type": ["string", "null"], "format": "uuid"}, "runId": _UUID},
        ["agentId", "runId"],
    ),
    "tool_call": (
        "The agent is using a tool; label is a short human-readable description",
        {"tool": {"type": "string"}, "label": {"type": "string"}},
        ["tool", "label"],
    ),
    "approval_required": (
        "A tool call waits for an approver: POST /api/approvals/{approvalId}/approve or "
        "/reject, then POST /agents/runs/{runId}/resume",
        {
            "approvalId": _UUID,
            "tool": {"type": "string"},
            "description": {"type": "string"},
            "preview": {
                "type": "object",
                "description": "what the call would send or publish: text, HTML, recipients",
            },
        },
        ["approvalId", "tool", "description", "preview"],
    ),
    "token": ("Answer text", {"text": {"type": "string"}}, ["text"]),
    "error": (
        "Terminal failure; the message is one of a fixed set (upstream text never appears)",
        {"message": {"type": "string"}, "runId": {"type": ["string", "null"], "format": "uuid"}},
        ["message"],
    ),
}


def agent_event_schemas() -> dict[str, Any]:
    """One component schema per agent stream event's data (``AgentEvent_<name>``)."""
    return {
        f"AgentEvent_{name}": {
            "type": "object",
            "description": text,
            "properties": props,
            "required": required,
        }
        for name, (text, props, required) in _AGENT_EVENTS.items()
    }


def agent_event_stream(done: type[BaseModel]) -> dict[str, Any]:
    """The text/event-stream answer: each event is one of these (its ``event:`` line names
    it, its ``data:`` line is text holding JSON of the contentSchema); ``: keepalive``
    comments between."""
    names = ", ".join(f"`{n}`" for n in (*_AGENT_EVENTS, "done"))
    events = [
        *(
            (name, {"$ref": REF.format(model=f"AgentEvent_{name}")}, text)
            for name, (text, _, _) in _AGENT_EVENTS.items()
        ),
        ("done", _ref(done), "The run ended: the Agent response (the JSON answer's body)"),
    ]
    return {
        "schema": {
            "description": f"Server-Sent Events: {names}, ending with one `done` or `error`. "
            "Each event's `event:` line is its name and its `data:` line the JSON of its "
            "schema; `: keepalive` comments arrive during silence.",
            "oneOf": [
                {
                    "type": "object",
                    "title": f"AgentStreamEvent_{name}",
                    "description": text,
                    # the data line is text: JSON whose schema is contentSchema (JSON
                    # Schema 2020-12's way to describe an encoded document in a string)
                    "properties": {
                        "event": {"const": name},
                        "data": {
                            "type": "string",
                            "contentMediaType": "application/json",
                            "contentSchema": data,
                        },
                    },
                    "required": ["event", "data"],
                }
                for name, data, text in events
            ],
        }
    }
