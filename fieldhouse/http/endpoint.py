"""One decorator per endpoint: routing, auth scope, typed parsing, and its OpenAPI entry.

The same pydantic models that validate a request describe it in /openapi.json, so the document
cannot drift from what the server accepts.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from pydantic import BaseModel

from fieldhouse.http.body import read_body
from fieldhouse.http.exchange import Exchange, QueryArgs
from fieldhouse.http.idempotency import HEADER, METHODS, fingerprint, idempotent
from fieldhouse.http.json import json_response
from fieldhouse.http.response import Response
from fieldhouse.http.validation import parse_json_body, validate_model
from fieldhouse.model.errors import (
    Forbidden,
    Issue,
    Unauthorized,
    UnsupportedMediaType,
    ValidationFailed,
)
from fieldhouse.model.principal import SCOPES, Principal
from fieldhouse.services import Services

PATH_PARAM = re.compile(r"\{(\w+)\}")
Handler = Callable[..., Awaitable[Any]]
_KEY_HEADER = HEADER.lower()
#: sets of query parameter names an operation remembers as declared (a client repeats its
#: queries; each name is checked against every declared parameter otherwise)
DECLARED_REMEMBERED = 256


@dataclass(frozen=True)
class ExtraParam:
    """A query parameter that a model cannot express (for example deepObject filters)."""

    name: str
    schema: Mapping[str, Any]
    description: str
    style: str | None = None
    explode: bool | None = None
    required: bool = False

    @property
    def repeatable(self) -> bool:
        """Whether the parameter may be sent more than once: an array, or a deepObject's
        keys (two ``filter[stage]`` both apply); any other one sent twice is refused."""
        return self.style == "deepObject" or self.schema.get("type") == "array"

    def accepts(self, key: str) -> bool:
        """Whether the raw query key ``key`` is this parameter (``name[...]`` for deepObject)."""
        if self.style == "deepObject":
            return key.startswith(self.name + "[") and key.endswith("]")
        return key == self.name


def model_params(model: type[BaseModel]) -> tuple[ExtraParam, ...]:
    """The query parameters a query model declares, in the same shape as the extra ones."""
    schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
    required = set(schema.get("required", []))
    return tuple(
        ExtraParam(
            name,
            {k: v for k, v in prop.items() if k not in ("title", "description")},
            str(prop.get("description", "")),
            required=name in required,
        )
        for name, prop in schema.get("properties", {}).items()
    )


@dataclass(frozen=True)
class Endpoint:
    method: str
    path: str  # OpenAPI form: /v1/modules/{moduleSlug}
    summary: str
    scope: str | None
    operation_id: str
    tag: str
    query: type[BaseModel] | None = None
    body: type[BaseModel] | None = None
    responses: Mapping[int, type[BaseModel] | None] = field(default_factory=dict)
    #: the 409 answers the operation gives besides the Idempotency-Key ones: error code ->
    #: when (the document's 409 response lists them)
    conflicts: Mapping[str, str] = field(default_factory=dict)
    extra_params: tuple[ExtraParam, ...] = ()
    admin_only: bool = False
    #: the credential may not be limited to some scopes (a key without scopes, or one with
    #: every scope): deciding approvals and the agent policy
    every_scope: bool = False
    stream: bool = False
    description: str = ""
    #: an empty request body stands for ``{}``
    body_optional: bool = False
    #: served but left out of the document (an alias of a documented path)
    hidden: bool = False

    @property
    def query_params(self) -> tuple[ExtraParam, ...]:
        """Every query parameter the operation takes: the one list both /openapi.json and
        the unknown-parameter check read."""
        declared = model_params(self.query) if self.query is not None else ()
        return (*declared, *self.extra_params)

    @property
    def required_scopes(self) -> tuple[str, ...]:
        """Every scope the credential must carry (what require_principal checks)."""
        if self.scope is None:
            return ()
        return SCOPES if self.every_scope else (self.scope,)

    @property
    def served_paths(self) -> tuple[str, ...]:
        """The paths it answers on: its own, and for one outside /v1 the same under /v1 too,
        so one base URL (the document's server, /v1) reaches every operation."""
        if self.path.startswith("/v1/"):
            return (self.path,)
        return (self.path, "/v1" + self.path)


class Routes:
    """A group of endpoints (one per resource module), installed into the app by its factory."""

    def __init__(self) -> None:
        self.entries: list[tuple[Endpoint, Handler]] = []

    def endpoint(
        self,
        method: str,
        path: str,
        *,
        summary: str,
        scope: str | None,
        tag: str,
        query: type[BaseModel] | None = None,
        body: type[BaseModel] | None = None,
        responses: Mapping[int, type[BaseModel] | None] | None = None,
        conflicts: Mapping[str, str] | None = None,
        extra_params: tuple[ExtraParam, ...] = (),
        admin_only: bool = False,
        every_scope: bool = False,
        stream: bool = False,
        description: str = "",
        hidden: bool = False,
        body_optional: bool = False,
    ) -> Callable[[Handler], Handler]:
        """Declare an endpoint. The handler gets ``svc`` (the services), ``principal`` (when
        scoped), the path parameters, and ``query``/``body`` as validated models; it returns a
        Response or a payload, or (payload, status)."""

        def decorate(fn: Handler) -> Handler:
            spec = Endpoint(
                method=method,
                path=path,
                summary=summary,
                scope=scope,
                operation_id=fn.__name__,
                tag=tag,
                query=query,
                body=body,
                responses=responses or {200: None},
                conflicts=conflicts or {},
                extra_params=extra_params,
                admin_only=admin_only,
                every_scope=every_scope,
                stream=stream,
                description=description,
                hidden=hidden,
                body_optional=body_optional,
            )
            self.entries.append((spec, fn))
            return fn

        return decorate


def _require_json(mimetype: str) -> None:
    """A body sent as another media type is refused, not parsed as JSON anyway."""
    if mimetype and mimetype != "application/json" and not mimetype.endswith("+json"):
        raise UnsupportedMediaType(
            f"Content-Type {mimetype!r} is not supported: send the body as application/json"
        )


class Operation:
    """An endpoint bound to its handler and the services: what serves one matched request."""

    def __init__(self, spec: Endpoint, fn: Handler, svc: Services) -> None:
        self.spec = spec
        self.fn = fn
        self.svc = svc
        self.keyed = spec.method in METHODS and spec.path.startswith("/v1/")
        self.params = spec.query_params
        self._declared: set[frozenset[str]] = set()

    async def __call__(self, ex: Exchange, path_args: Mapping[str, str]) -> Response:
        """Check the credential, parse and validate the request, run the handler; the answer
        as a Response (the handler's own, or its payload as JSON). Raises ApiError."""
        spec, svc = self.spec, self.svc
        kwargs: dict[str, Any] = {"svc": svc, **path_args}
        principal: Principal | None = None
        if spec.scope is not None:
            kwargs["principal"] = principal = require_principal(
                ex, spec.scope, admin_only=spec.admin_only, every_scope=spec.every_scope
            )
        key = ex.headers.get(_KEY_HEADER) if self.keyed else None
        if key is None or principal is None:
            return await self._call(ex, kwargs, None)
        body = await read_body(ex, svc.settings.max_body_bytes)
        print_ = fingerprint(spec.method, ex.path, ex.query_string, body)
        return await idempotent(svc, principal, key, print_, partial(self._call, ex, kwargs, body))

    async def _call(self, ex: Exchange, kwargs: dict[str, Any], raw: bytes | None) -> Response:
        spec = self.spec
        args = ex.args
        issues: list[Issue] = []
        if args:
            names = frozenset(args.keys())
            if names not in self._declared:
                issues = unknown_query_params(self.params, args.keys())
                if not issues and len(self._declared) < DECLARED_REMEMBERED:
                    self._declared.add(names)
            issues.extend(repeated_query_params(self.params, args))
        if spec.query is not None:
            try:
                kwargs["query"] = validate_model(spec.query, dict(args.items()))
            except ValidationFailed as exc:
                issues.extend(exc.issues)
        if spec.body is not None:
            _require_json(ex.mimetype)
            if raw is None:
                raw = await read_body(ex, self.svc.settings.max_body_bytes)
            data = {} if spec.body_optional and not raw.strip() else parse_json_body(raw)
            try:
                kwargs["body"] = validate_model(spec.body, data)
            except ValidationFailed as exc:
                issues.extend(exc.issues)
        if issues:
            raise ValidationFailed(issues)
        result = await self.fn(**kwargs)
        if isinstance(result, Response):
            return result
        payload, status = result if isinstance(result, tuple) else (result, 200)
        return json_response(payload, status)


def unknown_query_params(params: tuple[ExtraParam, ...], keys: Iterable[str]) -> list[Issue]:
    """One issue per query parameter the operation does not declare (a misspelt ``pagesize``
    or a generated client's ``first-name`` must not be silently ignored)."""
    names = [p.name for p in params]
    issues: list[Issue] = []
    for key in dict.fromkeys(keys):
        if any(p.accepts(key) for p in params):
            continue
        message = f"Unknown query parameter {key!r}"
        close = [n for n in names if n.lower() == key.lower()] or difflib.get_close_matches(
            key, names, n=1
        )
        if close:
            message += f"; did you mean {close[0]!r}?"
        elif names:
            message += f"; this operation takes {', '.join(names)}"
        else:
            message += "; this operation takes no query parameters"
        issues.append(Issue("unrecognized_keys", (key,), message, {"keys": [key]}))
    return issues


def repeated_query_params(params: tuple[ExtraParam, ...], args: QueryArgs) -> list[Issue]:
    """One issue per declared single-valued parameter sent more than once (``pageSize=5&
    pageSize=50`` has no one meaning; an unknown one is reported as unknown already)."""
    issues: list[Issue] = []
    for key, values in args.lists():
        if len(values) < 2:
            continue
        param = next((p for p in params if p.accepts(key)), None)
        if param is None or param.repeatable:
            continue
        issues.append(
            Issue(
                "too_big",
                (key,),
                f"Query parameter {key!r} was sent {len(values)} times; it takes one value",
                {"maximum": 1, "inclusive": True, "type": "array", "received": len(values)},
            )
        )
    return issues


def require_principal(
    ex: Exchange, scope: str, *, admin_only: bool = False, every_scope: bool = False
) -> Principal:
    """The request's principal, or the auth error that explains why there is none."""
    principal = ex.principal
    if principal is None:
        raise ex.auth_error or Unauthorized("Missing API key: send Authorization: Bearer <API_KEY>")
    principal.check_scope(scope)
    if admin_only:
        principal.check_admin()
    if every_scope and principal.scopes is not None and not set(SCOPES) <= principal.scopes:
        raise Forbidden(
            "Deciding approvals and changing the agent policy needs a credential that is "
            "not limited to some scopes",
            data={"requiredScopes": list(SCOPES)},
        )
    return principal
