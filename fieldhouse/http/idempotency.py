"""``Idempotency-Key`` on POST, PATCH and DELETE under /v1: a retry gets the first answer.

The key is scoped to the principal (API key, or user for session tokens) and remembered for 24
hours (``TTL_SECONDS``). See :mod:`fieldhouse.actors.idempotency` for how the claim and the
write share one transaction.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable

import orjson
import trio

from fieldhouse.actors.idempotency import RECORDING, Claim, Finish
from fieldhouse.http.json import json_response
from fieldhouse.http.response import Response
from fieldhouse.model.errors import ApiError, BadRequest
from fieldhouse.model.principal import Principal
from fieldhouse.services import Services

HEADER = "Idempotency-Key"
REPLAYED = "Idempotent-Replayed"
METHODS = frozenset({"POST", "PATCH", "DELETE"})
MAX_KEY = 255


def key_id(principal: Principal, key: str) -> str:
    who = principal.api_key_id or f"user:{principal.user_id}"
    return hashlib.sha256(f"{who}\0{key}".encode()).hexdigest()


def fingerprint(method: str, path: str, query: bytes, body: bytes) -> str:
    digest = hashlib.sha256()
    for part in (method.encode(), path.encode(), query, body):
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()


async def idempotent(
    svc: Services,
    principal: Principal,
    key: str,
    print_: str,
    run: Callable[[], Awaitable[Response]],
) -> Response:
    """Run the request once per key; replay the stored answer to every retry."""
    if not key or len(key) > MAX_KEY or not key.isprintable():
        raise BadRequest(f"{HEADER} must be 1 to {MAX_KEY} printable characters")
    kid = key_id(principal, key)
    stored = await svc.actors.ask(Claim(kid, print_, by=principal))
    if stored is not None:
        status = int(stored.data["status"])
        return json_response(stored.data["body"], status, {REPLAYED: "true"})
    token = RECORDING.set(kid)
    try:
        response = await run()
    except ApiError as exc:
        await _finish(svc, Finish(kid, exc.status, exc.to_json(), exc.status >= 500, by=principal))
        raise
    except BaseException:
        await _finish(svc, Finish(kid, 500, None, True, by=principal))
        raise
    finally:
        RECORDING.reset(token)
    raw = response.body
    if not isinstance(raw, bytes):  # a stream: it cannot be replayed
        await _finish(svc, Finish(kid, response.status_code, None, True, by=principal))
        return response
    body = orjson.loads(raw) if raw else None
    await _finish(svc, Finish(kid, response.status_code, body, by=principal))
    return response


async def _finish(svc: Services, message: Finish) -> None:
    with trio.CancelScope(shield=True):  # also when the client went away
        await svc.actors.ask(message)
