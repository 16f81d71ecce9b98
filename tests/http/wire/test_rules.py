"""The rules a whole request head must keep (the server's answers to each are in
test_h1_conformance)."""

from __future__ import annotations

import orjson
import pytest

from fieldhouse.http.wire.rules import Refused, check_head, refusal
from fieldhouse.model.errors import UriTooLong

HOST = (b"host", b"t")


def refused(version: str, headers: list[tuple[bytes, bytes]]) -> tuple[int, str]:
    with pytest.raises(Refused) as caught:
        check_head(version, headers)
    error = caught.value.error
    return error.status, error.message


def test_a_head_that_keeps_the_rules_says_whether_it_waits_to_continue() -> None:
    assert check_head("1.1", [HOST]) is False
    assert check_head("1.1", [HOST, (b"expect", b"100-Continue")]) is True
    assert check_head("1.0", [(b"expect", b"100-continue")]) is False  # not in HTTP/1.0
    assert check_head("1.0", []) is False  # HTTP/1.0 needs no Host
    assert check_head("1.1", [HOST, (b"transfer-encoding", b"Chunked")]) is False


def test_hosts_versions_and_transfer_codings_are_refused() -> None:
    assert refused("1.1", []) == (400, "An HTTP/1.1 request needs one Host header, not 0")
    assert refused("1.1", [HOST, HOST])[0] == 400
    assert refused("2.0", [HOST]) == (505, "HTTP/2.0 is not supported; send HTTP/1.1")
    assert refused("1.1", [HOST, (b"transfer-encoding", b"gzip, chunked")]) == (
        400,
        "Transfer-Encoding must be chunked alone, on HTTP/1.1 (got 'gzip, chunked' on HTTP/1.1)",
    )
    assert refused("1.0", [(b"transfer-encoding", b"chunked")])[0] == 400


def test_a_refusal_is_the_envelope_with_its_length() -> None:
    headers, body = refusal(UriTooLong("too long"))
    assert orjson.loads(body) == {
        "error": {"code": "uri_too_long", "message": "too long", "statusCode": 414}
    }
    assert headers == [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
