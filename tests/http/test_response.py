"""An operation's answer: headers by name without regard to case, in the order set, a body of
bytes with its length, and the headers as the server sends them."""

from __future__ import annotations

import pytest

from fieldhouse.http.response import Headers, Response


def test_a_body_of_bytes_or_text_carries_its_length_after_the_given_headers() -> None:
    response = Response("héllo", status=201, headers={"X-A": "1"}, content_type="text/plain")
    assert response.status_code == 201
    assert response.body == "héllo".encode()
    assert list(response.headers.items()) == [
        ("X-A", "1"),
        ("Content-Type", "text/plain"),
        ("Content-Length", "6"),
    ]
    assert response.headers.encoded() == [
        (b"x-a", b"1"),
        (b"content-type", b"text/plain"),
        (b"content-length", b"6"),
    ]


def test_an_empty_answer_without_a_content_type_has_none() -> None:
    response = Response(b"", status=204, headers={"Allow": "GET"})
    assert "content-type" not in response.headers
    assert response.headers["content-length"] == "0"


def test_a_stream_has_no_length_and_no_deadline_unless_set() -> None:
    class Stream:
        async def __aenter__(self) -> Stream:
            return self

        async def __aexit__(self, *exc: object) -> None:
            return None

    response = Response(Stream(), content_type="text/event-stream")
    assert "Content-Length" not in response.headers
    assert response.timeout is Ellipsis  # the server's default


def test_setting_a_header_replaces_every_value_in_the_place_of_the_first() -> None:
    headers = Headers({"Vary": "Accept", "X-B": "1"})
    headers.add("vary", "Origin")
    assert headers.getlist("VARY") == ["Accept", "Origin"]
    headers["VARY"] = "Cookie"
    assert list(headers.items()) == [("VARY", "Cookie"), ("X-B", "1")]
    del headers["vary"]
    del headers["not-there"]  # no error
    assert list(headers) == [("X-B", "1")]
    assert headers.get("x-b") == "1" and headers.get("nope") is None
    with pytest.raises(KeyError):
        headers["nope"]


def test_a_header_value_cannot_start_another_line() -> None:
    headers = Headers()
    with pytest.raises(ValueError, match="newline"):
        headers["X-Evil"] = "a\r\nSet-Cookie: b"
    with pytest.raises(ValueError, match="newline"):
        headers.add("X-Evil", "a\nb")
    headers["X-Number"] = 5  # not text: written as text
    assert headers["x-number"] == "5"
