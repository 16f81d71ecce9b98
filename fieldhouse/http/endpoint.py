"""One decorator per endpoint: routing, auth scope, typed parsing, and its OpenAPI entry.

The same pydantic models that validate a request describe it in /openapi.json, so the document
cannot drift from what the server accepts.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel
from quart import Quart, Response, g, request

from fieldhouse.http.json import json_response
from fieldhouse.http.validation import parse_json_body, validate_model
from fieldhouse.model.errors import Forbidden, Issue, Unauthorized, ValidationFailed
from fieldhouse.model.principal import Principal
from fieldhouse.services import Services

PATH_PARAM = re.compile(r"\{(\w+)\}")
Handler = Callable[..., Awaitable[Any]]


@dataclass(frozen=True)
class ExtraParam:
    """A query parameter that a model cannot express (for example deepObject filters)."""

    name: str
    schema: Mapping[str, Any]
    description: str
    style: str | None = None
    explode: bool | None = None


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
    extra_params: tuple[ExtraParam, ...] = ()
    admin_only: bool = False
    stream: bool = False
    description: str = ""
    #: an empty request body stands for ``{}``
    body_optional: bool = False
    #: served but left out of the document (an alias of a documented path)
    hidden: bool = False


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
        extra_params: tuple[ExtraParam, ...] = (),
        admin_only: bool = False,
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
                extra_params=extra_params,
                admin_only=admin_only,
                stream=stream,
                description=description,
                hidden=hidden,
                body_optional=body_optional,
            )
            self.entries.append((spec, fn))
            return fn

        return decorate

    def install(self, app: Quart, svc: Services) -> None:
        """Serve every endpoint of the group; each handler gets ``svc`` as its first argument."""
        for spec, fn in self.entries:
            rule = PATH_PARAM.sub(r"<\1>", spec.path)
            app.add_url_rule(
                rule,
                spec.operation_id,
                _wrap(spec, fn, svc),
                methods=[spec.method],
                strict_slashes=False,
            )


def _wrap(spec: Endpoint, fn: Handler, svc: Services) -> Handler:
    @functools.wraps(fn)
    async def handler(**path_args: str) -> Response:
        kwargs: dict[str, Any] = {"svc": svc, **path_args}
        if spec.scope is not None:
            kwargs["principal"] = require_principal(spec.scope, admin_only=spec.admin_only)
        issues: list[Issue] = []
        if spec.query is not None:
            try:
                kwargs["query"] = validate_model(spec.query, dict(request.args.items()))
            except ValidationFailed as exc:
                issues.extend(exc.issues)
        if spec.body is not None:
            raw = await request.get_data(cache=False)
            raw = raw if isinstance(raw, bytes) else raw.encode()
            data = {} if spec.body_optional and not raw.strip() else parse_json_body(raw)
            try:
                kwargs["body"] = validate_model(spec.body, data)
            except ValidationFailed as exc:
                issues.extend(exc.issues)
        if issues:
            raise ValidationFailed(issues)
        result = await fn(**kwargs)
        if isinstance(result, Response):
            return result
        payload, status = result if isinstance(result, tuple) else (result, 200)
        return json_response(payload, status)

    return handler


def require_principal(scope: str, *, admin_only: bool = False) -> Principal:
    """The request's principal, or the auth error that explains why there is none."""
    principal: Principal | None = getattr(g, "principal", None)
    if principal is None:
        raise getattr(g, "auth_error", None) or Unauthorized(
            "Missing API key: send Authorization: Bearer <API_KEY>"
        )
    if not principal.has_scope(scope):
        raise Forbidden(f"This credential lacks the {scope!r} scope", data={"requiredScope": scope})
    if admin_only and not principal.is_admin:
        raise Forbidden("Only workspace owners and admins may do this")
    return principal
