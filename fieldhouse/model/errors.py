"""The one error family of Fieldhouse.

Every failure a client can see is an :class:`ApiError`; each subclass fixes its ``code`` and
``status``. The HTTP layer renders them into the SPEC's envelope; nothing else builds one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar


@dataclass(frozen=True)
class Issue:
    """One validation problem, rendered zod-style: {code, path, message, **extra}."""

    code: str
    path: tuple[str | int, ...]
    message: str
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "path": list(self.path), "message": self.message}
        out.update(self.extra)
        return out

    def prefixed(self, *prefix: str | int) -> Issue:
        return Issue(self.code, (*prefix, *self.path), self.message, self.extra)


class ApiError(Exception):
    """Base of every client-visible error."""

    code: ClassVar[str] = "internal_error"
    status: ClassVar[int] = 500

    def __init__(
        self,
        message: str,
        *,
        issues: Sequence[Issue] = (),
        data: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        code: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.issues = tuple(issues)
        self.data = dict(data) if data is not None else None
        self.headers = dict(headers or {})
        if code is not None:
            self.code = code  # type: ignore[misc]

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "code": self.code,
            "message": self.message,
            "statusCode": self.status,
        }
        if self.data is not None:
            body["data"] = self.data
        if self.issues:
            body["issues"] = [i.to_json() for i in self.issues]
        return {"error": body}


class BadRequest(ApiError):
    code = "bad_request"
    status = 400


class ValidationFailed(ApiError):
    code = "validation_error"
    status = 400

    def __init__(self, issues: Sequence[Issue], message: str | None = None, **kw: Any) -> None:
        if message is None:
            message = _summarise(issues)
        super().__init__(message, issues=issues, **kw)


class Unauthorized(ApiError):
    code = "unauthorized"
    status = 401


class Forbidden(ApiError):
    code = "forbidden"
    status = 403


class NotFound(ApiError):
    code = "not_found"
    status = 404


class MethodNotAllowed(ApiError):
    code = "method_not_allowed"
    status = 405


class RequestTimeout(ApiError):
    code = "request_timeout"
    status = 408


class Conflict(ApiError):
    code = "conflict"
    status = 409


class PayloadTooLarge(ApiError):
    code = "payload_too_large"
    status = 413


class UriTooLong(ApiError):
    code = "uri_too_long"
    status = 414


class UnsupportedMediaType(ApiError):
    code = "unsupported_media_type"
    status = 415


class Unprocessable(ApiError):
    code = "unprocessable_entity"
    status = 422


class RateLimited(ApiError):
    code = "rate_limit_exceeded"
    status = 429


class HeadersTooLarge(ApiError):
    code = "request_header_fields_too_large"
    status = 431


class InternalError(ApiError):
    code = "internal_error"
    status = 500


class ServiceUnavailable(ApiError):
    code = "service_unavailable"
    status = 503


class StoreUnavailable(ServiceUnavailable):
    """The database cannot be reached just now (restarting, refusing connections, a connection
    lost mid-statement). The seconds to wait go in ``Retry-After`` and in the envelope's
    ``data.retryAfter``.

    ``in_doubt``: a commit was sent, its answer was lost, and the database could not be asked
    since whether it holds the write; the write must not be taken as saved, nor as not saved.
    """

    def __init__(
        self, message: str | None = None, *, retry_after: int = 1, in_doubt: bool = False
    ) -> None:
        if message is None:
            message = (
                "The database went away while this write was being committed and could not "
                "be asked since whether it was saved; check before writing it again"
                if in_doubt
                else "The database is unreachable just now; retry shortly"
            )
        super().__init__(
            message,
            headers={"Retry-After": str(retry_after)},
            data={"retryAfter": retry_after, "inDoubt": in_doubt},
        )
        self.retry_after = retry_after
        self.in_doubt = in_doubt


class VersionNotSupported(ApiError):
    code = "http_version_not_supported"
    status = 505


def _summarise(issues: Sequence[Issue]) -> str:
    if not issues:
        return "Validation failed"
    first = issues[0]
    where = ".".join(str(p) for p in first.path)
    head = f"{where}: {first.message}" if where else first.message
    more = len(issues) - 1
    return f"Validation failed: {head}" + (f" (and {more} more)" if more else "")
