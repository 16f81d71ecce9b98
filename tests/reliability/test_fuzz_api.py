"""Property-based fuzzing of every operation in the server's own /openapi.json (schemathesis):
valid and invalid inputs against a real served loopback server with a valid key. No answer is
a 5xx, every error is the envelope, and responses match the document where it describes them.
Bounded: a few examples per operation and generation mode, no shrinking."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
)

from tests.reliability.procs import cli, free_port, sqlite_url

EXAMPLES = 10


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    data: Path = tmp_path_factory.mktemp("fuzz")
    url = sqlite_url(data)
    made = cli(url, "init", "--name", "Fuzz")
    port = free_port()
    env = {**os.environ, "FIELDHOUSE_SEARCH": "off", "FIELDHOUSE_LOG_LEVEL": "WARNING"}
    command = [sys.executable, "-m", "fieldhouse", "serve", "--database-url", url]
    command += ["--data-dir", str(data), "--port", str(port), "--rate-limit", "1000000"]
    with (data / "server.log").open("wb") as log:
        proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    try:
        while True:
            try:
                httpx.get(base + "/openapi.json", timeout=2)
                break
            except httpx.TransportError:
                assert proc.poll() is None and time.monotonic() < deadline, "did not start"
                time.sleep(0.05)  # polling a starting subprocess's port
        yield base, {"Authorization": f"Bearer {made['apiKey']}"}
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def envelope_on_errors(response: Any) -> None:
    """Every 4xx/5xx carries {error: {code, message, statusCode}} with the real status."""
    if response.status_code < 400:
        return
    body = response.json()
    error = body.get("error") if isinstance(body, dict) else None
    assert isinstance(error, dict), f"not an error envelope: {response.text[:200]}"
    assert isinstance(error.get("code"), str) and isinstance(error.get("message"), str)
    assert error.get("statusCode") == response.status_code, error


def _operations(base: str) -> list[Any]:
    schema = schemathesis.openapi.from_url(base + "/openapi.json")
    return [result.ok() for result in schema.get_all_operations()]


# schemathesis' own pytest integration (``from_fixture``) fails on pytest 9 ('Function' object
# has no attribute '_nodeid'), so each operation's strategies are driven by hypothesis here.
@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_every_operation(mode: GenerationMode, served: tuple[str, dict[str, str]]) -> None:
    base, headers = served
    operations = _operations(base)
    assert len(operations) >= 25  # every documented operation is fuzzed
    failures: list[str] = []
    session = requests.Session()
    for operation in operations:

        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            database=None,
            derandomize=True,
            phases=[Phase.generate],
        )
        @given(case=operation.as_strategy(generation_mode=mode))
        def fuzz(case: Any) -> None:
            response = case.call(base_url=base, headers=headers, session=session, timeout=30)
            case.validate_response(
                response,
                checks=[not_a_server_error, response_schema_conformance, content_type_conformance],
            )
            envelope_on_errors(response)

        try:
            fuzz()
        except Unsatisfiable:
            # no invalid input exists (an operation without parameters or body)
            assert mode is GenerationMode.NEGATIVE, operation.label
        except Exception as exc:
            failures.append(f"{operation.label}: {exc}"[:2000])
    session.close()
    assert not failures, "\n\n".join(failures)
