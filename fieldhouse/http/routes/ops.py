"""Operations endpoints outside /v1, without auth: liveness, readiness, Prometheus metrics, and
the interactive API docs (Swagger UI, its files served from the swagger-ui-py wheel)."""

from __future__ import annotations

import contextlib
import mimetypes
from importlib.resources import files
from typing import Any

import trio

from fieldhouse.http.endpoint import ExtraParam, Routes
from fieldhouse.http.response import Response
from fieldhouse.model.errors import NotFound, StoreUnavailable
from fieldhouse.search.service import SearchService, backlog_age
from fieldhouse.services import Services

routes = Routes()

#: how long /readyz waits for the store before calling it unreachable
STORE_CHECK_SECONDS = 2.0
#: the Swagger UI files /docs uses, from the swagger-ui-py package's copy of swagger-ui-dist
DOC_ASSETS = frozenset(
    {
        "swagger-ui-bundle.js",
        "swagger-ui-standalone-preset.js",
        "swagger-ui.css",
        "favicon-32x32.png",
        "favicon-16x16.png",
    }
)
DOCS_PAGE = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Fieldhouse API</title>
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <style>
    #key-note { font: 14px sans-serif; margin: 12px auto 0; max-width: 1420px; padding: 0 20px; }
  </style>
</head>
<body>
  <p id="key-note"></p>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
  <script>
    // The key given to Authorize is kept in this tab only (gone when it closes), unless the
    // page was opened as /docs?persist=1: then Swagger UI keeps it in this browser's
    // localStorage until Logout.
    const persist = new URLSearchParams(location.search).get("persist") === "1";
    if (!persist) localStorage.removeItem("authorized");
    document.getElementById("key-note").innerHTML = persist
      ? "Your API key is kept in this browser (localStorage) until you Logout. " +
        "<a href='/docs'>Open without keeping it</a>."
      : "Your API key is kept in this tab only. " +
        "<a href='/docs?persist=1'>Keep it in this browser</a> (localStorage).";
    window.ui = SwaggerUIBundle({
      url: "/v1/openapi.json",
      dom_id: "#swagger-ui",
      deepLinking: true,
      persistAuthorization: persist,
      tryItOutEnabled: true,
      presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
      layout: "StandaloneLayout"
    });
  </script>
</body>
</html>
"""


async def search_check(search: SearchService) -> dict[str, Any]:
    """The search index's state: its words are written with the records, so only the vectors
    can lag (records waiting for theirs, and how long the oldest has waited)."""
    backlog = await search.backlog()
    return {
        "state": "on",
        "vectors": search.model is not None,
        "vectorsWaiting": backlog.waiting,
        "oldestWaitingSeconds": round(backlog_age(backlog), 3),
    }


@routes.endpoint(
    "GET",
    "/healthz",
    summary="Liveness: the process answers",
    scope=None,
    tag="operations",
    responses={200: None},
)
async def healthz(svc: Services) -> Any:
    return {"status": "ok"}


@routes.endpoint(
    "GET",
    "/readyz",
    summary="Readiness: the store answers, the actors take writes, the search index's lag",
    scope=None,
    tag="operations",
    responses={200: None, 503: None},
)
async def readyz(svc: Services) -> Any:
    checks: dict[str, Any] = {
        "store": f"unreachable: no answer within {STORE_CHECK_SECONDS:g} s",
        "actors": "ok",
    }
    with trio.move_on_after(STORE_CHECK_SECONDS):
        try:
            await svc.store.get_meta("readyz")
            checks["store"] = "ok"
        except Exception as exc:  # any driver error means: not reachable
            # StoreUnavailable says why in its cause (refused, reset, shutting down, ...)
            cause = exc.__cause__ if isinstance(exc, StoreUnavailable) else None
            checks["store"] = f"unreachable: {type(cause or exc).__name__}"
    if not svc.actors.accepting or svc.shutdown.is_set():
        checks["actors"] = "stopping"
    if svc.search is None:
        checks["search"] = {"state": "off"}
    else:
        with trio.move_on_after(STORE_CHECK_SECONDS):
            try:
                checks["search"] = await search_check(svc.search)
            except Exception as exc:  # the store check says why
                checks["search"] = {"state": f"unreadable: {type(exc).__name__}"}
    ready = checks["store"] == "ok" and checks["actors"] == "ok"
    status = 200 if ready else 503
    return {"status": "ready" if ready else "unavailable", "checks": checks}, status


@routes.endpoint(
    "GET", "/metrics", summary="Prometheus metrics", scope=None, tag="operations", hidden=True
)
async def metrics(svc: Services) -> Any:
    if svc.search is not None:
        with trio.move_on_after(STORE_CHECK_SECONDS):
            with contextlib.suppress(Exception):  # the last figures stand
                await svc.search.backlog()  # what the sampler reports
    svc.metrics.sample()  # here, on the event loop: the samplers read the actors' state
    body, content_type = await trio.to_thread.run_sync(svc.metrics.render)
    return Response(body, status=200, content_type=content_type)


@routes.endpoint(
    "GET",
    "/docs",
    summary="Interactive API docs",
    scope=None,
    tag="operations",
    hidden=True,
    extra_params=(
        ExtraParam(
            "persist",
            {"type": "string", "enum": ["1"]},
            "1: keep the key given to Authorize in this browser's localStorage",
        ),
    ),
)
async def docs(svc: Services) -> Any:
    return Response(DOCS_PAGE, status=200, content_type="text/html; charset=utf-8")


@routes.endpoint(
    "GET",
    "/docs/assets/{name}",
    summary="A Swagger UI file",
    scope=None,
    tag="operations",
    hidden=True,
)
async def docs_asset(svc: Services, name: str) -> Any:
    if name not in DOC_ASSETS:
        raise NotFound(f"No docs asset named {name!r}")
    data = await trio.to_thread.run_sync(_asset_bytes, name)
    kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
    response = Response(data, status=200, content_type=kind)
    response.headers["Cache-Control"] = "public, max-age=86400"
    return response


def _asset_bytes(name: str) -> bytes:
    return files("swagger_ui").joinpath("static", name).read_bytes()
