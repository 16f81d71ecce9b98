"""The web console at /console: a small app of ES modules and one style sheet, shipped in the
package (fieldhouse/http/static/console) and read through importlib.resources, so a wheel
serves the same files as a checkout, and one module made here from the field-type registry
(field-types.js: how each type is shown, edited and filtered), so no script names a type. It
calls only the public API with the key the person signs in with; nothing here needs or sees a
credential."""

from __future__ import annotations

import hashlib
import json
import mimetypes
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Any

import trio

from fieldhouse.http.endpoint import Routes
from fieldhouse.http.exchange import current
from fieldhouse.http.response import Response
from fieldhouse.model.errors import NotFound
from fieldhouse.model.fields import client_facts
from fieldhouse.services import Services

routes = Routes()

#: the package folder of the console's files (index.html, *.js, style.css)
PACKAGE = "fieldhouse.http"
FOLDER = ("static", "console")
#: only the app's own files run and style it: no inline script or style, no other origin
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)
#: the browser asks again each time and gets 304 while the file is unchanged: an upgraded
#: server's files are never mixed with a cached older module
CACHE = "no-cache"
KINDS = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
#: the module the server writes from its field-type registry
FACTS = "field-types.js"


@dataclass(frozen=True)
class Asset:
    data: bytes
    content_type: str
    etag: str

    @classmethod
    def of(cls, data: bytes, content_type: str) -> Asset:
        return cls(data, content_type, f'"{hashlib.sha256(data).hexdigest()[:32]}"')


def facts_module() -> bytes:
    """``field-types.js``: each ``dataType``'s client facts (``FieldType.client_facts``)."""
    types = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in client_facts().items())
    return (
        "// Written by the server from its field-type registry (fieldhouse/model/fields): how\n"
        "// the console shows, edits and filters each dataType's values.\n"
        f"export default {{\n{types}\n}};\n"
    ).encode()


@cache
def _assets() -> dict[str, Asset]:
    """Every file of the console folder by name, read once from the installed package."""
    folder = files(PACKAGE).joinpath(*FOLDER)
    found: dict[str, Asset] = {}
    for entry in folder.iterdir():
        if not entry.is_file() or entry.name.startswith("."):
            continue
        data = entry.read_bytes()
        suffix = "." + entry.name.rpartition(".")[2]
        kind = KINDS.get(suffix) or mimetypes.guess_type(entry.name)[0] or "text/plain"
        if kind.startswith("text/html"):
            kind = "text/html; charset=utf-8"
        found[entry.name] = Asset.of(data, kind)
    found[FACTS] = Asset.of(facts_module(), KINDS[".js"])
    return found


async def _serve(name: str) -> Response:
    assets = await trio.to_thread.run_sync(_assets)
    asset = assets.get(name)
    # the page itself is /console only: its one URL, with the policy the assets do not need
    if asset is None or (name == "index.html" and not current().path.endswith("/console")):
        raise NotFound(f"No console file named {name!r}")
    headers = {
        "Cache-Control": CACHE,
        "ETag": asset.etag,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
    }
    if asset.content_type.startswith("text/html"):
        headers["Content-Security-Policy"] = CSP
        headers["X-Frame-Options"] = "DENY"
    if current().headers.get("if-none-match") == asset.etag:
        return Response(b"", status=304, headers=headers)
    return Response(asset.data, status=200, content_type=asset.content_type, headers=headers)


@routes.endpoint(
    "GET",
    "/console",
    summary="The web console (sign in with an API key)",
    scope=None,
    tag="operations",
    hidden=True,
)
async def console(svc: Services) -> Any:
    return await _serve("index.html")


@routes.endpoint(
    "GET",
    "/console/assets/{name}",
    summary="A file of the web console",
    scope=None,
    tag="operations",
    hidden=True,
)
async def console_asset(svc: Services, name: str) -> Any:
    return await _serve(name)
