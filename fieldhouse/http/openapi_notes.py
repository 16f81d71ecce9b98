"""What /openapi.json says beyond the endpoints' models: which 409 answers an operation gives
and why, the Idempotency-Key header and its limits, and the conversions the server makes of
what it is sent (query text, record values written in another shape than they are read).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fieldhouse.http.endpoint import Endpoint
from fieldhouse.http.idempotency import HEADER, MAX_KEY, METHODS, REPLAYED
from fieldhouse.model.fields import FIELD_TYPES

#: the 409 answers of every operation that takes an Idempotency-Key
IDEMPOTENCY_CONFLICTS = {
    "idempotency_in_progress": "a request with the same Idempotency-Key is still running "
    "(Retry-After: 1)",
    "idempotency_response_lost": "the first request with this Idempotency-Key was written but "
    "its answer was lost: read the resource instead of retrying",
}

IDEMPOTENCY_HEADER: dict[str, Any] = {
    "name": HEADER,
    "in": "header",
    "required": False,
    # what every client may send; the server also takes other printable Latin-1 characters
    "schema": {"type": "string", "minLength": 1, "maxLength": MAX_KEY, "pattern": "^[ -~]+$"},
    "description": "Makes a retry safe. The key is 1 to 255 printable characters (a UUID is a "
    "good one); an empty key, a longer one or one with a control character is 400 "
    "bad_request. The first answer (status and body, errors included) is stored for 24 hours "
    "under the key and the credential (the API key, or the user of a session token) and "
    f"returned to every retry, with header {REPLAYED}: true. A 5xx answer or an event "
    "stream is not stored: a retry runs again. The same key with another method, path, "
    "query string or body (byte for byte) is 422 idempotency_key_reused; a retry while the "
    "first still runs is 409 idempotency_in_progress (Retry-After: 1). Only POST, PATCH and "
    "DELETE under /v1 take the header; elsewhere it is ignored.",
}

#: the coercions a request's own properties see, for the document's description
COERCIONS = (
    "Type coercions: a query parameter is text, so an integer one is decimal digits with an "
    "optional sign (5.0, 1e3 and 0x10 are refused) within the bounds its schema gives; a "
    "query parameter sent twice is refused (400), except the keys of a deepObject such as "
    "filter[<slug>], each of which applies. In a JSON body a property takes its schema's JSON "
    'type only: "5" is not an integer nor "true" a boolean (an integer property takes 5.0, '
    "which JSON Schema counts as an integer). Record field values are checked by their field's "
    "type; a few are written in another shape than they are read (FieldValue_<dataType>'s "
    "description says which)."
)


def keyed(ep: Endpoint) -> bool:
    """Whether the operation takes an Idempotency-Key (what Operation.keyed serves)."""
    return ep.method in METHODS and ep.path.startswith("/v1/") and ep.scope is not None


def conflict_codes(ep: Endpoint) -> dict[str, str]:
    """Every 409 error code the operation may answer with, and when. An operation that
    declares a 409 without saying why answers with the plain code, for its description's
    reasons."""
    own = dict(ep.conflicts)
    if 409 in ep.responses and not own:
        own["conflict"] = "one of the cases the operation's description names arises"
    return {**own, **(IDEMPOTENCY_CONFLICTS if keyed(ep) else {})}


def conflict_response(
    ep: Endpoint, headers: Mapping[str, Any], envelope: Mapping[str, Any]
) -> dict[str, Any] | None:
    """The operation's documented 409 answer, naming each code (``x-error-codes`` lists them
    for tools), or None when it gives none."""
    codes = conflict_codes(ep)
    if not codes:
        return None
    whens = "; ".join(f"`{code}` when {when}" for code, when in codes.items())
    return {
        "description": f"Conflict: {whens}",
        "headers": dict(headers),
        "content": {"application/json": {"schema": dict(envelope)}},
        "x-error-codes": list(codes),
    }


def note_write_forms(schemas: dict[str, Any]) -> None:
    """Add to each FieldValue_<dataType> schema the shapes a write may also use (a field type's
    ``write_form``)."""
    for data_type, kind in FIELD_TYPES.items():
        schema = schemas.get(f"FieldValue_{data_type}")
        if kind.write_form is not None and schema is not None:
            schema["description"] = f"{schema.get('description', '')}. {kind.write_form}".lstrip(
                ". "
            )
